-- Example "virtual bike races" (examples/bike_races.sql): the same data,
-- and the exact response of every access pattern.
SET search_path = item_table, public;

-- The simulated power meter: watts of a racer in a race at a second
-- (deterministic, so every run and the tests see the same numbers).
CREATE FUNCTION pg_temp.watts(racer int, race int, sec int) RETURNS int LANGUAGE sql IMMUTABLE AS $$
	SELECT 180 + (racer * 37 + race * 53) % 7 * 10 + (sec * 7 + racer * 13 + race * 5) % 41
	       - CASE WHEN sec % 60 < 5 THEN 30 ELSE 0 END - sec / 360 $$;
-- The watts map of seconds [first, last]: {"<second>": {"N": "<watts>"}, ...}
CREATE FUNCTION pg_temp.watts_map(racer int, race int, first int, last int) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
	SELECT jsonb_object_agg(s::text, jsonb_build_object('N', pg_temp.watts(racer, race, s)::text))
	FROM generate_series(first, last) AS s $$;
-- Energy in kJ over seconds [1, last] (1 W for 1 s = 1 J)
CREATE FUNCTION pg_temp.kj(racer int, race int, last int) RETURNS numeric LANGUAGE sql IMMUTABLE AS $$
	SELECT sum(pg_temp.watts(racer, race, s)) / 1000.0 FROM generate_series(1, last) AS s $$;

SELECT create_table('{"TableName": "BikeRaces", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"},
	                         {"AttributeName": "SK", "AttributeType": "S"},
	                         {"AttributeName": "total_kj", "AttributeType": "N"}],
	"KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"},
	              {"AttributeName": "SK", "KeyType": "RANGE"}],
	"LocalSecondaryIndexes": [{"IndexName": "ByOutput",
		"KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "total_kj", "KeyType": "RANGE"}],
		"Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["race_name"]}}],
	"GlobalSecondaryIndexes": [{"IndexName": "Leaderboard",
		"KeySchema": [{"AttributeName": "SK", "KeyType": "HASH"}, {"AttributeName": "total_kj", "KeyType": "RANGE"}],
		"Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["racer_name"]}}]}')->'TableDescription'->>'TableStatus' AS status;

SELECT batch_write_item('{"RequestItems": {"BikeRaces": [
	{"PutRequest": {"Item": {"PK": {"S": "CLASS#sprint"}, "SK": {"S": "CLASS#sprint"}, "class_name": {"S": "Five-minute sprint"}, "seconds": {"N": "300"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "CLASS#sprint"}, "SK": {"S": "RACE#r01"}, "race_name": {"S": "Monday sprint"},    "starts_at": {"S": "2024-05-06T18:00:00Z"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "CLASS#sprint"}, "SK": {"S": "RACE#r02"}, "race_name": {"S": "Wednesday sprint"}, "starts_at": {"S": "2024-05-08T18:00:00Z"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "CLASS#hour"},   "SK": {"S": "CLASS#hour"},   "class_name": {"S": "Hour ride"}, "seconds": {"N": "3600"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "CLASS#hour"},   "SK": {"S": "RACE#r03"}, "race_name": {"S": "Saturday hour"},    "starts_at": {"S": "2024-05-11T09:00:00Z"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "RACER#x01"}, "SK": {"S": "RACER#x01"}, "racer_name": {"S": "Ana"},  "country": {"S": "PT"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "RACER#x02"}, "SK": {"S": "RACER#x02"}, "racer_name": {"S": "Ben"},  "country": {"S": "IE"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "RACER#x03"}, "SK": {"S": "RACER#x03"}, "racer_name": {"S": "Cleo"}, "country": {"S": "GR"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "RACER#x04"}, "SK": {"S": "RACER#x04"}, "racer_name": {"S": "Dev"},  "country": {"S": "IN"}}}}]}}');

SELECT r.race, r.racer, put_item(jsonb_build_object('TableName', 'BikeRaces', 'Item', jsonb_build_object(
		'PK', jsonb_build_object('S', format('RACER#x%s', lpad(r.racer::text, 2, '0'))),
		'SK', jsonb_build_object('S', format('RACE#r%s', lpad(r.race::text, 2, '0'))),
		'racer_name', jsonb_build_object('S', r.racer_name),
		'race_name', jsonb_build_object('S', r.race_name),
		'total_kj', jsonb_build_object('N', pg_temp.kj(r.racer, r.race, 300)::text),
		'max_watts', jsonb_build_object('N', (SELECT max(pg_temp.watts(r.racer, r.race, s)) FROM generate_series(1, 300) s)::text),
		'watts', jsonb_build_object('M', pg_temp.watts_map(r.racer, r.race, 1, 300))))) AS response
FROM (VALUES (1, 1, 'Ana', 'Monday sprint'), (2, 1, 'Ben', 'Monday sprint'), (3, 1, 'Cleo', 'Monday sprint'), (4, 1, 'Dev', 'Monday sprint'),
             (1, 2, 'Ana', 'Wednesday sprint'), (2, 2, 'Ben', 'Wednesday sprint'), (3, 2, 'Cleo', 'Wednesday sprint')
	 ) AS r(racer, race, racer_name, race_name)
ORDER BY r.race, r.racer;

SELECT r.racer, transact_write_items(jsonb_build_object('TransactItems',
	jsonb_build_array(jsonb_build_object('Put', jsonb_build_object('TableName', 'BikeRaces', 'Item', jsonb_build_object(
		'PK', jsonb_build_object('S', format('RACER#x%s', lpad(r.racer::text, 2, '0'))),
		'SK', '{"S": "RACE#r03"}'::jsonb,
		'racer_name', jsonb_build_object('S', r.racer_name),
		'race_name', '{"S": "Saturday hour"}'::jsonb,
		'total_kj', jsonb_build_object('N', pg_temp.kj(r.racer, 3, 3600)::text),
		'max_watts', jsonb_build_object('N', (SELECT max(pg_temp.watts(r.racer, 3, s)) FROM generate_series(1, 3600) s)::text),
		'output_parts', '{"N": "6"}'::jsonb))))
	|| (SELECT jsonb_agg(jsonb_build_object('Put', jsonb_build_object('TableName', 'BikeRaces', 'Item', jsonb_build_object(
			'PK', jsonb_build_object('S', format('RACER#x%s', lpad(r.racer::text, 2, '0'))),
			'SK', jsonb_build_object('S', format('RACE#r03#OUTPUT#%s', lpad(p::text, 2, '0'))),
			'first_second', jsonb_build_object('N', ((p - 1) * 600 + 1)::text),
			'last_second', jsonb_build_object('N', (p * 600)::text),
			'watts', jsonb_build_object('M', pg_temp.watts_map(r.racer, 3, (p - 1) * 600 + 1, p * 600))))) ORDER BY p)
		FROM generate_series(1, 6) AS p))) AS response
FROM (VALUES (1, 'Ana'), (4, 'Dev')) AS r(racer, racer_name)
ORDER BY r.racer;

SELECT count(*) AS items, sum(item_size(item)) AS bytes FROM item_data."BikeRaces";
-- only results are indexed (LSI and GSI sort on total_kj, which only they have)
SELECT ikey, key, item FROM item_data."BikeRaces.Leaderboard" ORDER BY ikey, key;
SELECT ikey, key, item FROM item_data."BikeRaces.ByOutput" ORDER BY ikey, key;

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
