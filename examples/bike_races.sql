-- Virtual bike races: an adjacency list, a numeric LSI, a leaderboard GSI,
-- and large time series inside items.
--
--   item                   PK              SK                       attributes
--   class                  CLASS#<class>   CLASS#<class>            class_name, seconds
--   race of a class        CLASS#<class>   RACE#<race>              race_name, starts_at
--   racer                  RACER#<racer>   RACER#<racer>            racer_name, country
--   result of a racer      RACER#<racer>   RACE#<race>              racer_name, race_name, total_kj,
--                                                                   max_watts, watts (map: second -> watts)
--   part of an hour's      RACER#<racer>   RACE#<race>#OUTPUT#<nn>  first_second, last_second,
--   output (6 per result)                                           watts (600 seconds)
--
-- Classes, races and racers are linked the adjacency-list way: a class's
-- partition holds its races, a racer's partition holds their results, and
-- the GSI "Leaderboard" (partition SK, sort total_kj) turns the results
-- round: all results of a race, best first.  The LSI "ByOutput" (PK,
-- total_kj) orders a racer's own results by output.  Both have a numeric
-- sort key that only results carry, so classes, races, racers and output
-- parts are not indexed at all; and both project a few attributes only,
-- never the big watts map.
--
-- A 5-minute race's output, second by second, fits in the result item as a
-- map of 300 entries.  An hour is 3,600 points: it is split into 6 items
-- of 600 seconds whose sort keys follow the result's, so one Query with
-- begins_with(SK, 'RACE#<race>#OUTPUT#') returns them in order and SQL puts
-- the 3,600 points back together.  Splitting keeps items small (an item is
-- at most 400 KB, and every write is charged for the whole item): a live
-- ride writes a new part every 10 minutes instead of rewriting one growing
-- item, and a chart of 10 minutes reads one part.
--
-- Run with:  psql -X -v ON_ERROR_STOP=1 -f examples/bike_races.sql
-- in a database where CREATE EXTENSION item_table was run.

SET search_path = item_table, public;
\pset footer off

-- Display helpers: DynamoDB JSON as plain JSON, Query Items as rows
\ir display.sql

\ir bike_races.data.sql

\echo
\echo '== 1. A class and its races: the class''s partition'
SELECT item FROM pg_temp.items(query('{"TableName": "BikeRaces",
	"KeyConditionExpression": "PK = :c",
	"ExpressionAttributeValues": {":c": {"S": "CLASS#sprint"}}}'));

\echo
\echo '== 2. The leaderboard of a race: GSI Leaderboard, partition = the race, descending'
SELECT item FROM pg_temp.items(query('{"TableName": "BikeRaces", "IndexName": "Leaderboard",
	"KeyConditionExpression": "SK = :r",
	"ExpressionAttributeValues": {":r": {"S": "RACE#r01"}},
	"ScanIndexForward": false}'));
\echo '   ... the podium: Limit 3'
SELECT query('{"TableName": "BikeRaces", "IndexName": "Leaderboard",
	"KeyConditionExpression": "SK = :r",
	"ExpressionAttributeValues": {":r": {"S": "RACE#r01"}},
	"ProjectionExpression": "racer_name, total_kj",
	"ScanIndexForward": false, "Limit": 3}') AS response;
\echo '   ... whoever rode more than 70 kJ: a range on the numeric sort key'
SELECT item FROM pg_temp.items(query('{"TableName": "BikeRaces", "IndexName": "Leaderboard",
	"KeyConditionExpression": "SK = :r AND total_kj > :kj",
	"ExpressionAttributeValues": {":r": {"S": "RACE#r01"}, ":kj": {"N": "70"}},
	"ScanIndexForward": false}'));

\echo
\echo '== 3. A racer''s results, best first: LSI ByOutput (results only; parts and profile are not indexed)'
SELECT item FROM pg_temp.items(query('{"TableName": "BikeRaces", "IndexName": "ByOutput",
	"KeyConditionExpression": "PK = :x",
	"ExpressionAttributeValues": {":x": {"S": "RACER#x01"}},
	"ScanIndexForward": false}'));
\echo '   ... the personal best: Limit 1'
SELECT query('{"TableName": "BikeRaces", "IndexName": "ByOutput",
	"KeyConditionExpression": "PK = :x",
	"ExpressionAttributeValues": {":x": {"S": "RACER#x01"}},
	"ScanIndexForward": false, "Limit": 1}') AS response;

\echo
\echo '== 4. A sprint result with its second-by-second output (a map of 300 entries in the item)'
SELECT r->'Item'->'racer_name'->>'S' AS racer,
	   r->'Item'->'total_kj'->>'N' AS total_kj,
	   r->'Item'->'max_watts'->>'N' AS max_watts,
	   (SELECT count(*) FROM jsonb_object_keys(r->'Item'->'watts'->'M')) AS points,
	   round((SELECT sum((v->>'N')::int) FROM jsonb_each(r->'Item'->'watts'->'M') AS e(k, v)) / 1000.0, 3) AS kj_from_points,
	   (SELECT string_agg(r->'Item'->'watts'->'M'->s::text->>'N', ' ' ORDER BY s) FROM generate_series(1, 10) s) AS first_10_seconds
FROM get_item('{"TableName": "BikeRaces", "Key": {"PK": {"S": "RACER#x02"}, "SK": {"S": "RACE#r01"}}}') AS r;
\echo '   ... one second of it: a ProjectionExpression into the map'
SELECT get_item('{"TableName": "BikeRaces", "Key": {"PK": {"S": "RACER#x02"}, "SK": {"S": "RACE#r01"}},
	"ProjectionExpression": "watts.#s",
	"ExpressionAttributeNames": {"#s": "150"}}') AS response;

\echo
\echo '== 5. An hour''s output: one Query returns the 6 parts in sort key order'
SELECT i->'SK'->>'S' AS sk, i->'first_second'->>'N' AS first_second, i->'last_second'->>'N' AS last_second,
	   (SELECT count(*) FROM jsonb_object_keys(i->'watts'->'M')) AS points
FROM jsonb_array_elements(query('{"TableName": "BikeRaces",
	"KeyConditionExpression": "PK = :x AND begins_with(SK, :p)",
	"ExpressionAttributeValues": {":x": {"S": "RACER#x04"}, ":p": {"S": "RACE#r03#OUTPUT#"}}}')->'Items') WITH ORDINALITY AS a(i, n)
ORDER BY n;
\echo '   ... and SQL puts the 3,600 points back together, checked against the result item'
WITH parts AS (
	SELECT i FROM jsonb_array_elements(query('{"TableName": "BikeRaces",
		"KeyConditionExpression": "PK = :x AND begins_with(SK, :p)",
		"ExpressionAttributeValues": {":x": {"S": "RACER#x04"}, ":p": {"S": "RACE#r03#OUTPUT#"}}}')->'Items') AS a(i)
), series AS (
	SELECT k::int AS sec, (v->>'N')::int AS watts
	FROM parts, jsonb_each(i->'watts'->'M') AS e(k, v)
)
SELECT count(*) AS points, min(sec) AS first_second, max(sec) AS last_second,
	   count(DISTINCT sec) = 3600 AS every_second_once,
	   round(sum(watts) / 1000.0, 3) AS kj_from_points,
	   (SELECT get_item('{"TableName": "BikeRaces", "Key": {"PK": {"S": "RACER#x04"}, "SK": {"S": "RACE#r03"}},
		"ProjectionExpression": "total_kj"}')->'Item'->'total_kj'->>'N') AS total_kj_of_result,
	   max(watts) AS max_watts,
	   round(avg(watts), 1) AS avg_watts
FROM series;
\echo '   ... the whole ride as one map, e.g. for a chart: average watts per 10 minutes'
WITH whole AS (
	SELECT jsonb_object_agg(k, v) AS watts
	FROM jsonb_array_elements(query('{"TableName": "BikeRaces",
		"KeyConditionExpression": "PK = :x AND begins_with(SK, :p)",
		"ExpressionAttributeValues": {":x": {"S": "RACER#x04"}, ":p": {"S": "RACE#r03#OUTPUT#"}}}')->'Items') AS a(i),
		 jsonb_each(i->'watts'->'M') AS e(k, v)
)
SELECT (s - 1) / 600 * 10 AS from_minute, (s - 1) / 600 * 10 + 10 AS to_minute,
	   round(avg((watts->s::text->>'N')::int), 1) AS avg_watts
FROM whole, generate_series(1, 3600) AS s
GROUP BY 1, 2 ORDER BY 1;

\echo
\echo '== The same data with SQL: every race''s winner, over all partitions at once'
SELECT DISTINCT ON (race.item->'SK'->>'S')
	   race.item->'SK'->>'S' AS race, race.item->'race_name'->>'S' AS race_name,
	   res.item->'racer_name'->>'S' AS winner, (res.item->'total_kj'->>'N')::numeric AS total_kj
FROM item_data."BikeRaces" race
JOIN item_data."BikeRaces" res
  ON starts_with(res.item->'PK'->>'S', 'RACER#') AND res.item->'SK' = race.item->'SK'
WHERE starts_with(race.item->'PK'->>'S', 'CLASS#') AND starts_with(race.item->'SK'->>'S', 'RACE#')
ORDER BY race.item->'SK'->>'S', (res.item->'total_kj'->>'N')::numeric DESC;

\echo '== verify(): the LSI and the GSI match the table (no rows)'
SELECT * FROM verify('BikeRaces');

SELECT delete_table('{"TableName": "BikeRaces"}')->'TableDescription'->>'TableStatus' AS status;
