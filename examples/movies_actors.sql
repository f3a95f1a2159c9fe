-- Movies and actors: an inverted index, aggregates kept by a stream consumer, and
-- two sparse indexes.
--
--   item                     pk        sk                      attributes
--   movie                    mov#<id>  mov#<id>                title, release_year, genre
--   actor                    act#<id>  act#<id>                actor_name, born, [award, award_date]
--   cast row                 mov#<id>  act#<id>                title, actor_name, plays
--   stream event             mov#<id>  evt#<time>#<viewer>     streamed_at, viewer
--   monthly stream total     mov#<id>  agg#<yyyy-mm>           title, stream_month, stream_total
--
-- GSI1 (partition sk, sort pk) swaps the keys: the cast rows of an actor
-- sit under the actor's id there, so "movies of an actor" is one Query
-- (every item has pk and sk, so every item, stream events included, is in
-- GSI1; keying it on an attribute that only cast rows carry would make it
-- sparse).
-- A stream event is only ever inserted; a stream consumer on the table's
-- stream (item_table.add_stream_consumer) adds the new events to the
-- movie's monthly aggregate through item_table.update_item, as a Lambda
-- function on a DynamoDB stream would: after the write, in the background
-- worker, exactly once.
-- GSI2 (partition stream_month, sort stream_total) is sparse: only
-- aggregates have these attributes, so "top 10 of a month" is one
-- descending Query with Limit 10.  GSI3 (partition award, sort award_date)
-- is sparse too: only award winners carry an award.
--
-- Run with:  psql -X -v ON_ERROR_STOP=1 -f examples/movies_actors.sql
-- in a database where CREATE EXTENSION item_table was run.

SET search_path = item_table, public;
\pset footer off

-- Display helpers: DynamoDB JSON as plain JSON, Query Items as rows
\ir display.sql

\echo '== The table and its three GSIs'
\ir movies_actors.data.sql

\echo
\echo '== 1. A movie by id: GetItem'
SELECT pg_temp.plain(jsonb_build_object('M', get_item('{"TableName": "MoviesActors",
	"Key": {"pk": {"S": "mov#03"}, "sk": {"S": "mov#03"}}}')->'Item')) AS movie;

\echo
\echo '== 2. The cast of a movie: begins_with(sk, act#) in the movie''s partition'
SELECT item FROM pg_temp.items(query('{"TableName": "MoviesActors",
	"KeyConditionExpression": "pk = :m AND begins_with(sk, :a)",
	"ExpressionAttributeValues": {":m": {"S": "mov#03"}, ":a": {"S": "act#"}},
	"ProjectionExpression": "sk, actor_name, plays"}'));

\echo
\echo '== 3. The movies of an actor: GSI1, where the actor''s id is the partition key'
SELECT item FROM pg_temp.items(query('{"TableName": "MoviesActors", "IndexName": "GSI1",
	"KeyConditionExpression": "sk = :a AND begins_with(pk, :m)",
	"ExpressionAttributeValues": {":a": {"S": "act#02"}, ":m": {"S": "mov#"}},
	"ProjectionExpression": "pk, title, plays"}'));

\echo
\echo '== 4. An actor by id: GetItem'
SELECT pg_temp.plain(jsonb_build_object('M', get_item('{"TableName": "MoviesActors",
	"Key": {"pk": {"S": "act#02"}, "sk": {"S": "act#02"}}}')->'Item')) AS actor;

\echo
\echo '== 5. Top 10 most-streamed movies of March 2024: GSI2, descending, Limit 10'
SELECT item FROM pg_temp.items(query('{"TableName": "MoviesActors", "IndexName": "GSI2",
	"KeyConditionExpression": "stream_month = :m",
	"ExpressionAttributeValues": {":m": {"S": "2024-03"}},
	"ProjectionExpression": "pk, title, stream_total",
	"ScanIndexForward": false, "Limit": 10}'));
\echo '   ... April (three movies were streamed)'
SELECT item FROM pg_temp.items(query('{"TableName": "MoviesActors", "IndexName": "GSI2",
	"KeyConditionExpression": "stream_month = :m",
	"ExpressionAttributeValues": {":m": {"S": "2024-04"}},
	"ProjectionExpression": "pk, title, stream_total",
	"ScanIndexForward": false, "Limit": 10}'));

\echo
\echo '== 6. Total streams of a movie in a month: GetItem of the aggregate'
SELECT get_item('{"TableName": "MoviesActors",
	"Key": {"pk": {"S": "mov#03"}, "sk": {"S": "agg#2024-03"}},
	"ProjectionExpression": "stream_total"}') AS response;
\echo '   ... it agrees with the events, counted with SQL'
SELECT count(*) AS events_of_mov03_in_march
FROM item_data."MoviesActors"
WHERE key ^@ item_key('{"S": "mov#03"}', '{"S": "evt#2024-03"}');
\echo '   ... a new event moves the total, and the movie in GSI2; replaying it changes nothing'
SELECT put_item('{"TableName": "MoviesActors", "Item": {"pk": {"S": "mov#10"}, "sk": {"S": "evt#2024-03-31T23:59:00Z#viewer999"},
	"streamed_at": {"S": "2024-03-31T23:59:00Z"}, "viewer": {"S": "viewer999"}}}');
SELECT put_item('{"TableName": "MoviesActors", "Item": {"pk": {"S": "mov#10"}, "sk": {"S": "evt#2024-03-31T23:59:00Z#viewer999"},
	"streamed_at": {"S": "2024-03-31T23:59:00Z"}, "viewer": {"S": "viewer999"}}}');
SELECT pg_temp.caught_up('movies_monthly_totals');
SELECT get_item('{"TableName": "MoviesActors",
	"Key": {"pk": {"S": "mov#10"}, "sk": {"S": "agg#2024-03"}},
	"ProjectionExpression": "stream_total"}') AS response;

\echo
\echo '== 7. Award-winning actors, by award date: GSI3 is sparse (only winners have an award)'
SELECT item FROM pg_temp.items(query('{"TableName": "MoviesActors", "IndexName": "GSI3",
	"KeyConditionExpression": "award = :a",
	"ExpressionAttributeValues": {":a": {"S": "Best Actor"}}}'));
\echo '   ... the latest winner: descending, Limit 1'
SELECT item FROM pg_temp.items(query('{"TableName": "MoviesActors", "IndexName": "GSI3",
	"KeyConditionExpression": "award = :a",
	"ExpressionAttributeValues": {":a": {"S": "Best Actor"}},
	"ScanIndexForward": false, "Limit": 1}'));
\echo '   ... winners since 2018: a range on the index sort key'
SELECT item FROM pg_temp.items(query('{"TableName": "MoviesActors", "IndexName": "GSI3",
	"KeyConditionExpression": "award = :a AND award_date >= :d",
	"ExpressionAttributeValues": {":a": {"S": "Best Actor"}, ":d": {"S": "2018-01-01"}}}'));
\echo '   ... a new winner enters the index by an UpdateItem that sets the attributes'
SELECT update_item('{"TableName": "MoviesActors", "Key": {"pk": {"S": "act#03"}, "sk": {"S": "act#03"}},
	"UpdateExpression": "SET award = :a, award_date = :d",
	"ExpressionAttributeValues": {":a": {"S": "Best Actor"}, ":d": {"S": "2024-03-10"}}}');
SELECT item FROM pg_temp.items(query('{"TableName": "MoviesActors", "IndexName": "GSI3",
	"KeyConditionExpression": "award = :a",
	"ExpressionAttributeValues": {":a": {"S": "Best Actor"}},
	"ScanIndexForward": false, "Limit": 1}'));

\echo
\echo '== The same data with SQL: streams per genre in March, from the aggregates'
SELECT m.item->'genre'->>'S' AS genre, sum((a.item->'stream_total'->>'N')::int) AS streams
FROM item_data."MoviesActors" a
JOIN item_data."MoviesActors" m ON m.key = item_key(partition_value(a.key), partition_value(a.key))
WHERE sort_value(a.key)->>'S' = 'agg#2024-03'
GROUP BY 1
ORDER BY 2 DESC, 1;

\echo '== verify(): the three GSIs match the table (no rows)'
SELECT * FROM verify('MoviesActors');

SELECT remove_stream_consumer('movies_monthly_totals');
SELECT delete_table('{"TableName": "MoviesActors"}')->'TableDescription'->>'TableStatus' AS status;
DROP FUNCTION public.movies_actors_count_streams(jsonb);
DROP OWNED BY movies_app;
DROP ROLE movies_app;
