-- Example "movies and actors" (examples/movies_actors.sql): the same data,
-- the aggregation trigger, and the exact response of every access pattern.
SET search_path = item_table, public;

\i examples/movies_actors.data.sql

SELECT count(*) AS items,
	   count(*) FILTER (WHERE starts_with(sort_value(key)->>'S', 'evt#')) AS events,
	   count(*) FILTER (WHERE starts_with(sort_value(key)->>'S', 'agg#')) AS aggregates
FROM item_data."MoviesActors";
-- GSI2 holds the aggregates only, GSI3 the winners only
SELECT ikey, key FROM item_data."MoviesActors#GSI2" ORDER BY ikey, key;
SELECT ikey, key FROM item_data."MoviesActors#GSI3" ORDER BY ikey, key;

-- 1. a movie by id
SELECT get_item('{"TableName": "MoviesActors", "Key": {"pk": {"S": "mov#03"}, "sk": {"S": "mov#03"}}}');

-- 2. the cast of a movie
SELECT query('{"TableName": "MoviesActors",
	"KeyConditionExpression": "pk = :m AND begins_with(sk, :a)",
	"ExpressionAttributeValues": {":m": {"S": "mov#03"}, ":a": {"S": "act#"}}}');
SELECT query('{"TableName": "MoviesActors",
	"KeyConditionExpression": "pk = :m AND begins_with(sk, :a)",
	"ExpressionAttributeValues": {":m": {"S": "mov#04"}, ":a": {"S": "act#"}}}');

-- 3. the movies of an actor, through GSI1
SELECT query('{"TableName": "MoviesActors", "IndexName": "GSI1",
	"KeyConditionExpression": "sk = :a AND begins_with(pk, :m)",
	"ExpressionAttributeValues": {":a": {"S": "act#02"}, ":m": {"S": "mov#"}}}');
SELECT query('{"TableName": "MoviesActors", "IndexName": "GSI1",
	"KeyConditionExpression": "sk = :a AND begins_with(pk, :m)",
	"ExpressionAttributeValues": {":a": {"S": "act#05"}, ":m": {"S": "mov#"}},
	"ProjectionExpression": "pk, title, plays"}');
-- without the begins_with, the actor item itself comes too (its pk is act#02)
SELECT query('{"TableName": "MoviesActors", "IndexName": "GSI1",
	"KeyConditionExpression": "sk = :a",
	"ExpressionAttributeValues": {":a": {"S": "act#02"}},
	"ProjectionExpression": "pk, sk"}');

-- 4. an actor by id
SELECT get_item('{"TableName": "MoviesActors", "Key": {"pk": {"S": "act#02"}, "sk": {"S": "act#02"}}}');

-- 5. top 10 most-streamed movies of a month
SELECT query('{"TableName": "MoviesActors", "IndexName": "GSI2",
	"KeyConditionExpression": "stream_month = :m",
	"ExpressionAttributeValues": {":m": {"S": "2024-03"}},
	"ScanIndexForward": false, "Limit": 10}');
SELECT query('{"TableName": "MoviesActors", "IndexName": "GSI2",
	"KeyConditionExpression": "stream_month = :m",
	"ExpressionAttributeValues": {":m": {"S": "2024-04"}},
	"ScanIndexForward": false, "Limit": 10}');
-- the same ranking computed with SQL from the events
SELECT partition_value(key)->>'S' AS movie, count(*) AS streams
FROM item_data."MoviesActors"
WHERE starts_with(sort_value(key)->>'S', 'evt#2024-03')
GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 10;

-- 6. total streams of a movie in a month
SELECT get_item('{"TableName": "MoviesActors",
	"Key": {"pk": {"S": "mov#03"}, "sk": {"S": "agg#2024-03"}},
	"ProjectionExpression": "stream_total"}');
SELECT get_item('{"TableName": "MoviesActors",
	"Key": {"pk": {"S": "mov#03"}, "sk": {"S": "agg#2024-04"}}}');
SELECT get_item('{"TableName": "MoviesActors",
	"Key": {"pk": {"S": "mov#02"}, "sk": {"S": "agg#2024-04"}}}');
SELECT count(*) AS events_of_mov03_in_march
FROM item_data."MoviesActors"
WHERE key ^@ item_key('{"S": "mov#03"}', '{"S": "evt#2024-03"}');
-- a new event counts once; replaying it (a PutItem of an existing item) does not
SELECT put_item('{"TableName": "MoviesActors", "Item": {"pk": {"S": "mov#10"}, "sk": {"S": "evt#2024-03-31T23:59:00Z#viewer999"},
	"streamed_at": {"S": "2024-03-31T23:59:00Z"}, "viewer": {"S": "viewer999"}}}');
SELECT put_item('{"TableName": "MoviesActors", "Item": {"pk": {"S": "mov#10"}, "sk": {"S": "evt#2024-03-31T23:59:00Z#viewer999"},
	"streamed_at": {"S": "2024-03-31T23:59:00Z"}, "viewer": {"S": "viewer999"}}}');
-- the background worker counts it (within 30 seconds; nothing here runs the consumer)
CREATE FUNCTION pg_temp.worker_caught_up(consumer text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	FOR i IN 1..300 LOOP
		IF (SELECT c.last_sequence_number >= (SELECT max(r.seq) FROM item_table.stream_records r
				WHERE r.stream_id = c.stream_id)
			FROM item_table.stream_consumers c WHERE c.consumer_name = consumer) THEN
			RETURN true;
		END IF;
		PERFORM pg_sleep(0.1);
	END LOOP;
	RETURN false;
END $$;
SELECT pg_temp.worker_caught_up('movies_monthly_totals');
SELECT get_item('{"TableName": "MoviesActors",
	"Key": {"pk": {"S": "mov#10"}, "sk": {"S": "agg#2024-03"}},
	"ProjectionExpression": "stream_total"}');
-- events written with plain SQL are counted too; a rolled-back event counts nothing
INSERT INTO item_data."MoviesActors" VALUES ('S"mov#06"|S"evt#2024-03-30T10:00:00Z#viewer998"',
	'{"pk": {"S": "mov#06"}, "sk": {"S": "evt#2024-03-30T10:00:00Z#viewer998"}, "streamed_at": {"S": "2024-03-30T10:00:00Z"}, "viewer": {"S": "viewer998"}}');
BEGIN;
SELECT put_item('{"TableName": "MoviesActors", "Item": {"pk": {"S": "mov#06"}, "sk": {"S": "evt#2024-03-30T11:00:00Z#viewer997"},
	"streamed_at": {"S": "2024-03-30T11:00:00Z"}, "viewer": {"S": "viewer997"}}}');
ROLLBACK;
SELECT pg_temp.caught_up('movies_monthly_totals');
SELECT get_item('{"TableName": "MoviesActors",
	"Key": {"pk": {"S": "mov#06"}, "sk": {"S": "agg#2024-03"}},
	"ProjectionExpression": "stream_total"}');
-- the top 10 after the new events: mov#10 has 10 streams now
SELECT query('{"TableName": "MoviesActors", "IndexName": "GSI2",
	"KeyConditionExpression": "stream_month = :m",
	"ExpressionAttributeValues": {":m": {"S": "2024-03"}},
	"ProjectionExpression": "pk, stream_total",
	"ScanIndexForward": false, "Limit": 10}');

-- 7. award-winning actors, by award date
SELECT query('{"TableName": "MoviesActors", "IndexName": "GSI3",
	"KeyConditionExpression": "award = :a",
	"ExpressionAttributeValues": {":a": {"S": "Best Actor"}}}');
SELECT query('{"TableName": "MoviesActors", "IndexName": "GSI3",
	"KeyConditionExpression": "award = :a",
	"ExpressionAttributeValues": {":a": {"S": "Best Actor"}},
	"ScanIndexForward": false, "Limit": 1}');
SELECT query('{"TableName": "MoviesActors", "IndexName": "GSI3",
	"KeyConditionExpression": "award = :a AND award_date >= :d",
	"ExpressionAttributeValues": {":a": {"S": "Best Actor"}, ":d": {"S": "2018-01-01"}}}');
SELECT query('{"TableName": "MoviesActors", "IndexName": "GSI3",
	"KeyConditionExpression": "award = :a",
	"ExpressionAttributeValues": {":a": {"S": "Best Newcomer"}}}');
-- a new winner enters the index; removing the award takes them out again
SELECT update_item('{"TableName": "MoviesActors", "Key": {"pk": {"S": "act#03"}, "sk": {"S": "act#03"}},
	"UpdateExpression": "SET award = :a, award_date = :d",
	"ExpressionAttributeValues": {":a": {"S": "Best Actor"}, ":d": {"S": "2024-03-10"}}}');
SELECT query('{"TableName": "MoviesActors", "IndexName": "GSI3",
	"KeyConditionExpression": "award = :a",
	"ExpressionAttributeValues": {":a": {"S": "Best Actor"}},
	"ScanIndexForward": false, "Limit": 1}');
SELECT update_item('{"TableName": "MoviesActors", "Key": {"pk": {"S": "act#04"}, "sk": {"S": "act#04"}},
	"UpdateExpression": "REMOVE award, award_date", "ReturnValues": "ALL_NEW"}');
SELECT query('{"TableName": "MoviesActors", "IndexName": "GSI3",
	"KeyConditionExpression": "award = :a",
	"ExpressionAttributeValues": {":a": {"S": "Best Newcomer"}}}');
SELECT ikey, key FROM item_data."MoviesActors#GSI3" ORDER BY ikey, key;

-- the same data with SQL: streams per genre in March
SELECT m.item->'genre'->>'S' AS genre, sum((a.item->'stream_total'->>'N')::int) AS streams
FROM item_data."MoviesActors" a
JOIN item_data."MoviesActors" m ON m.key = item_key(partition_value(a.key), partition_value(a.key))
WHERE sort_value(a.key)->>'S' = 'agg#2024-03'
GROUP BY 1
ORDER BY 2 DESC, 1;

-- the totals converged: every aggregate equals the count of its events
SELECT count(*) AS aggregates, count(*) FILTER (WHERE total <> events) AS mismatches
FROM (SELECT (a.item->'stream_total'->>'N')::int AS total,
		(SELECT count(*) FROM item_data."MoviesActors" e
		 WHERE e.key ^@ item_key(partition_value(a.key), jsonb_build_object('S', 'evt#' || substr(sort_value(a.key)->>'S', 5)))) AS events
	  FROM item_data."MoviesActors" a WHERE starts_with(sort_value(a.key)->>'S', 'agg#')) x;
-- the consumer: every batch applied once, none failed
SELECT consumer_name, status, failures, last_error, records_done >= 272 AS all_records
FROM list_stream_consumers();

SELECT * FROM verify('MoviesActors');
SELECT remove_stream_consumer('movies_monthly_totals');
SELECT delete_table('{"TableName": "MoviesActors"}')->'TableDescription'->>'TableStatus' AS status;
DROP FUNCTION public.movies_actors_count_streams(jsonb);
DROP OWNED BY movies_app;
DROP ROLE movies_app;
