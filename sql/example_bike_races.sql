-- Example "virtual bike races" (examples/bike_races.sql): the same data,
-- and the exact response of every access pattern.
SET search_path = item_table, public;

\i examples/bike_races.data.sql

SELECT count(*) AS items, sum(item_size(item)) AS bytes FROM item_data."BikeRaces";
-- only results are indexed (LSI and GSI sort on total_kj, which only they have)
SELECT ikey, key, item FROM item_data."BikeRaces#Leaderboard" ORDER BY ikey, key;
SELECT ikey, key, item FROM item_data."BikeRaces#ByOutput" ORDER BY ikey, key;

-- 1. a class and its races (adjacency list)
SELECT query('{"TableName": "BikeRaces",
	"KeyConditionExpression": "PK = :c",
	"ExpressionAttributeValues": {":c": {"S": "CLASS#sprint"}}}');
SELECT query('{"TableName": "BikeRaces",
	"KeyConditionExpression": "PK = :c AND begins_with(SK, :r)",
	"ExpressionAttributeValues": {":c": {"S": "CLASS#hour"}, ":r": {"S": "RACE#"}}}');

-- 2. leaderboards: the GSI, partition = the race, descending
SELECT query('{"TableName": "BikeRaces", "IndexName": "Leaderboard",
	"KeyConditionExpression": "SK = :r",
	"ExpressionAttributeValues": {":r": {"S": "RACE#r01"}},
	"ScanIndexForward": false}');
SELECT query('{"TableName": "BikeRaces", "IndexName": "Leaderboard",
	"KeyConditionExpression": "SK = :r",
	"ExpressionAttributeValues": {":r": {"S": "RACE#r01"}},
	"ProjectionExpression": "racer_name, total_kj",
	"ScanIndexForward": false, "Limit": 3}');
-- the next page after the podium
SELECT query('{"TableName": "BikeRaces", "IndexName": "Leaderboard",
	"KeyConditionExpression": "SK = :r",
	"ExpressionAttributeValues": {":r": {"S": "RACE#r01"}},
	"ProjectionExpression": "racer_name, total_kj",
	"ScanIndexForward": false, "Limit": 3,
	"ExclusiveStartKey": {"SK": {"S": "RACE#r01"}, "total_kj": {"N": "68.256"}, "PK": {"S": "RACER#x03"}}}');
SELECT query('{"TableName": "BikeRaces", "IndexName": "Leaderboard",
	"KeyConditionExpression": "SK = :r AND total_kj > :kj",
	"ExpressionAttributeValues": {":r": {"S": "RACE#r01"}, ":kj": {"N": "70"}},
	"ScanIndexForward": false}');
SELECT query('{"TableName": "BikeRaces", "IndexName": "Leaderboard",
	"KeyConditionExpression": "SK = :r",
	"ExpressionAttributeValues": {":r": {"S": "RACE#r02"}},
	"ScanIndexForward": false}');
SELECT query('{"TableName": "BikeRaces", "IndexName": "Leaderboard",
	"KeyConditionExpression": "SK = :r",
	"ExpressionAttributeValues": {":r": {"S": "RACE#r03"}},
	"ScanIndexForward": false}');
-- the output parts are not in the leaderboard
SELECT query('{"TableName": "BikeRaces", "IndexName": "Leaderboard",
	"KeyConditionExpression": "SK = :r",
	"ExpressionAttributeValues": {":r": {"S": "RACE#r03#OUTPUT#01"}}}');

-- 3. a racer's results by output: the LSI
SELECT query('{"TableName": "BikeRaces", "IndexName": "ByOutput",
	"KeyConditionExpression": "PK = :x",
	"ExpressionAttributeValues": {":x": {"S": "RACER#x01"}},
	"ScanIndexForward": false}');
SELECT query('{"TableName": "BikeRaces", "IndexName": "ByOutput",
	"KeyConditionExpression": "PK = :x",
	"ExpressionAttributeValues": {":x": {"S": "RACER#x01"}},
	"ScanIndexForward": false, "Limit": 1}');
SELECT query('{"TableName": "BikeRaces", "IndexName": "ByOutput",
	"KeyConditionExpression": "PK = :x AND total_kj BETWEEN :lo AND :hi",
	"ExpressionAttributeValues": {":x": {"S": "RACER#x03"}, ":lo": {"N": "60"}, ":hi": {"N": "70"}}}');
-- an LSI can read the attributes it does not project (from the table)
SELECT query('{"TableName": "BikeRaces", "IndexName": "ByOutput",
	"KeyConditionExpression": "PK = :x",
	"ExpressionAttributeValues": {":x": {"S": "RACER#x02"}},
	"ProjectionExpression": "SK, max_watts"}');

-- 4. a sprint result with its 300-point map
SELECT r->'Item'->'racer_name'->>'S' AS racer,
	   r->'Item'->'total_kj'->>'N' AS total_kj,
	   r->'Item'->'max_watts'->>'N' AS max_watts,
	   (SELECT count(*) FROM jsonb_object_keys(r->'Item'->'watts'->'M')) AS points,
	   round((SELECT sum((v->>'N')::int) FROM jsonb_each(r->'Item'->'watts'->'M') AS e(k, v)) / 1000.0, 3) AS kj_from_points,
	   (SELECT string_agg(r->'Item'->'watts'->'M'->s::text->>'N', ' ' ORDER BY s) FROM generate_series(1, 10) s) AS first_10_seconds
FROM get_item('{"TableName": "BikeRaces", "Key": {"PK": {"S": "RACER#x02"}, "SK": {"S": "RACE#r01"}}}') AS r;
SELECT get_item('{"TableName": "BikeRaces", "Key": {"PK": {"S": "RACER#x02"}, "SK": {"S": "RACE#r01"}},
	"ProjectionExpression": "watts.#s",
	"ExpressionAttributeNames": {"#s": "150"}}');
SELECT get_item('{"TableName": "BikeRaces", "Key": {"PK": {"S": "RACER#x02"}, "SK": {"S": "RACE#r01"}},
	"ProjectionExpression": "racer_name, watts.#a, watts.#b",
	"ExpressionAttributeNames": {"#a": "1", "#b": "300"}}');
-- every sprint result: 300 points that add up to total_kj
SELECT key, (SELECT count(*) FROM jsonb_object_keys(item->'watts'->'M')) AS points,
	   (SELECT sum((v->>'N')::int) FROM jsonb_each(item->'watts'->'M') AS e(k, v)) / 1000.0 = (item->'total_kj'->>'N')::numeric AS adds_up
FROM item_data."BikeRaces" WHERE item->'watts' IS NOT NULL AND item ? 'total_kj' ORDER BY key;

-- 5. an hour's output: one Query returns the 6 parts in order
SELECT q->'Count' AS count, q->'ScannedCount' AS scanned, q ? 'LastEvaluatedKey' AS more,
	   (SELECT jsonb_agg(i->'SK'->>'S' ORDER BY n) FROM jsonb_array_elements(q->'Items') WITH ORDINALITY AS a(i, n)) AS parts,
	   (SELECT jsonb_agg(jsonb_build_array((i->'first_second'->>'N')::int, (i->'last_second'->>'N')::int,
	                                       (SELECT count(*) FROM jsonb_object_keys(i->'watts'->'M'))) ORDER BY n)
	    FROM jsonb_array_elements(q->'Items') WITH ORDINALITY AS a(i, n)) AS first_last_points
FROM query('{"TableName": "BikeRaces",
	"KeyConditionExpression": "PK = :x AND begins_with(SK, :p)",
	"ExpressionAttributeValues": {":x": {"S": "RACER#x04"}, ":p": {"S": "RACE#r03#OUTPUT#"}}}') AS q;
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

-- the same for racer x01, in descending order (the parts come last to first)
SELECT jsonb_agg(i->'SK'->>'S' ORDER BY n) AS parts,
	   round(sum((SELECT sum((v->>'N')::int) FROM jsonb_each(i->'watts'->'M') AS e(k, v))) / 1000.0, 3) AS kj_from_points
FROM jsonb_array_elements(query('{"TableName": "BikeRaces",
	"KeyConditionExpression": "PK = :x AND begins_with(SK, :p)",
	"ExpressionAttributeValues": {":x": {"S": "RACER#x01"}, ":p": {"S": "RACE#r03#OUTPUT#"}},
	"ScanIndexForward": false}')->'Items') WITH ORDINALITY AS a(i, n);
-- the result item and its parts together: begins_with(SK, RACE#r03)
SELECT jsonb_agg(i->'SK'->>'S' ORDER BY n) AS sks
FROM jsonb_array_elements(query('{"TableName": "BikeRaces",
	"KeyConditionExpression": "PK = :x AND begins_with(SK, :p)",
	"ExpressionAttributeValues": {":x": {"S": "RACER#x01"}, ":p": {"S": "RACE#r03"}},
	"ProjectionExpression": "SK"}')->'Items') WITH ORDINALITY AS a(i, n);

-- the same data with SQL: every race's winner
SELECT DISTINCT ON (race.item->'SK'->>'S')
	   race.item->'SK'->>'S' AS race, race.item->'race_name'->>'S' AS race_name,
	   res.item->'racer_name'->>'S' AS winner, (res.item->'total_kj'->>'N')::numeric AS total_kj
FROM item_data."BikeRaces" race
JOIN item_data."BikeRaces" res
  ON starts_with(res.item->'PK'->>'S', 'RACER#') AND res.item->'SK' = race.item->'SK'
WHERE starts_with(race.item->'PK'->>'S', 'CLASS#') AND starts_with(race.item->'SK'->>'S', 'RACE#')
ORDER BY race.item->'SK'->>'S', (res.item->'total_kj'->>'N')::numeric DESC;

SELECT * FROM verify('BikeRaces');
SELECT delete_table('{"TableName": "BikeRaces"}')->'TableDescription'->>'TableStatus' AS status;
