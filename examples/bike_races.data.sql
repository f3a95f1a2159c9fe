-- The table and the data of examples/bike_races.sql, loaded by the example and by
-- its test (sql/example_bike_races.sql).  Runs with search_path = item_table.
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

\echo '== The table, its LSI and its GSI'
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

\echo '== Classes, races and racers'
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

\echo '== Sprint results: one item each, with the 300-second watts map'
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

\echo '== Hour results: the result item and 6 output parts of 600 seconds, in one transaction each'
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
