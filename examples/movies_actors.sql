-- Movies and actors: an inverted index, aggregates kept by a trigger, and
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
-- A stream event is only ever inserted; an ordinary PL/pgSQL trigger on the
-- item table (AFTER INSERT, for evt# items) adds 1 to the movie's monthly
-- aggregate through item_table.update_item, as a Lambda function on a
-- DynamoDB stream would, but in the same transaction as the event.
-- GSI2 (partition stream_month, sort stream_total) is sparse: only
-- aggregates have these attributes, so "top 10 of a month" is one
-- descending Query with Limit 10.  GSI3 (partition award, sort award_date)
-- is sparse too: only award winners carry an award.
--
-- Run with:  psql -X -v ON_ERROR_STOP=1 -f examples/movies_actors.sql
-- in a database where CREATE EXTENSION item_table was run.

SET search_path = item_table, public;
\pset footer off

-- Display helpers: DynamoDB JSON as plain JSON ({"S": "x"} -> "x",
-- {"N": "2.5"} -> 2.5, maps and lists recursively), and the Items of a
-- Query response as rows, in response order.
CREATE FUNCTION pg_temp.plain(v jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE
		WHEN v ? 'S' THEN v->'S'
		WHEN v ? 'N' THEN to_jsonb((v->>'N')::numeric)
		WHEN v ? 'BOOL' THEN v->'BOOL'
		WHEN v ? 'NULL' THEN 'null'::jsonb
		WHEN v ? 'M' THEN (SELECT coalesce(jsonb_object_agg(k, pg_temp.plain(e)), '{}') FROM jsonb_each(v->'M') AS m(k, e))
		WHEN v ? 'L' THEN (SELECT coalesce(jsonb_agg(pg_temp.plain(e) ORDER BY n), '[]') FROM jsonb_array_elements(v->'L') WITH ORDINALITY AS l(e, n))
		WHEN v ? 'NS' THEN (SELECT jsonb_agg(to_jsonb(e::numeric)) FROM jsonb_array_elements_text(v->'NS') AS s(e))
		ELSE coalesce(v->'SS', v->'B', v->'BS', v)
	END $$;
CREATE FUNCTION pg_temp.items(response jsonb) RETURNS TABLE (item jsonb) LANGUAGE sql AS $$
	SELECT pg_temp.plain(jsonb_build_object('M', i))
	FROM jsonb_array_elements(response->'Items') WITH ORDINALITY AS a(i, n) ORDER BY n $$;

\echo '== The table and its three GSIs'
SELECT create_table('{"TableName": "MoviesActors", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
	                         {"AttributeName": "sk", "AttributeType": "S"},
	                         {"AttributeName": "stream_month", "AttributeType": "S"},
	                         {"AttributeName": "stream_total", "AttributeType": "N"},
	                         {"AttributeName": "award", "AttributeType": "S"},
	                         {"AttributeName": "award_date", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
	              {"AttributeName": "sk", "KeyType": "RANGE"}],
	"GlobalSecondaryIndexes": [
		{"IndexName": "GSI1",
		 "KeySchema": [{"AttributeName": "sk", "KeyType": "HASH"}, {"AttributeName": "pk", "KeyType": "RANGE"}],
		 "Projection": {"ProjectionType": "ALL"}},
		{"IndexName": "GSI2",
		 "KeySchema": [{"AttributeName": "stream_month", "KeyType": "HASH"}, {"AttributeName": "stream_total", "KeyType": "RANGE"}],
		 "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["title"]}},
		{"IndexName": "GSI3",
		 "KeySchema": [{"AttributeName": "award", "KeyType": "HASH"}, {"AttributeName": "award_date", "KeyType": "RANGE"}],
		 "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["actor_name"]}}]}')->'TableDescription'->>'TableStatus' AS status;

\echo '== The aggregation trigger: each new stream event adds 1 to its movie''s monthly total'
-- An ordinary AFTER INSERT trigger on the item table; the WHEN clause picks
-- stream events, so the aggregate's own insert does not fire it again.
-- A replayed event (a PutItem of an existing event) is an update, not an
-- insert, so it is not counted twice.  Events written with plain SQL
-- (INSERT, COPY) are counted too.
CREATE FUNCTION public.movies_actors_count_stream() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM item_table.update_item(jsonb_build_object(
		'TableName', 'MoviesActors',
		'Key', jsonb_build_object('pk', NEW.item->'pk',
		                          'sk', jsonb_build_object('S', 'agg#' || left(NEW.item->'streamed_at'->>'S', 7))),
		'UpdateExpression', 'SET stream_month = :m, title = if_not_exists(title, :t) ADD stream_total :one',
		'ExpressionAttributeValues', jsonb_build_object(
			':m', jsonb_build_object('S', left(NEW.item->'streamed_at'->>'S', 7)),
			':t', (SELECT m.item->'title' FROM item_data."MoviesActors" m
			       WHERE m.key = item_key(NEW.item->'pk', NEW.item->'pk')),
			':one', '{"N": "1"}'::jsonb)));
	RETURN NULL;
END $$;
CREATE TRIGGER count_stream AFTER INSERT ON item_data."MoviesActors"
	FOR EACH ROW WHEN (starts_with(NEW.item->'sk'->>'S', 'evt#'))
	EXECUTE FUNCTION public.movies_actors_count_stream();

\echo '== The data: 12 movies, 6 actors, 10 cast rows'
SELECT batch_write_item(jsonb_build_object('RequestItems', jsonb_build_object('MoviesActors', jsonb_agg(
	jsonb_build_object('PutRequest', jsonb_build_object('Item', jsonb_build_object(
		'pk', jsonb_build_object('S', 'mov#' || id), 'sk', jsonb_build_object('S', 'mov#' || id),
		'title', jsonb_build_object('S', title), 'release_year', jsonb_build_object('N', yr::text),
		'genre', jsonb_build_object('S', genre))))))))
FROM (VALUES
	('01', 'The Quiet Harbour', 2019, 'drama'),    ('02', 'Iron Orchard', 2020, 'western'),
	('03', 'Nine Lanterns', 2021, 'fantasy'),      ('04', 'Paper Comets', 2018, 'comedy'),
	('05', 'Salt and Ember', 2022, 'drama'),       ('06', 'The Long Tide', 2017, 'documentary'),
	('07', 'Glass Meridian', 2023, 'thriller'),    ('08', 'Borrowed Thunder', 2021, 'action'),
	('09', 'A Map of Small Things', 2020, 'drama'), ('10', 'Copper Skies', 2019, 'science fiction'),
	('11', 'Winter Arithmetic', 2022, 'comedy'),   ('12', 'North of Maybe', 2023, 'romance')
) AS m(id, title, yr, genre);

SELECT batch_write_item('{"RequestItems": {"MoviesActors": [
	{"PutRequest": {"Item": {"pk": {"S": "act#01"}, "sk": {"S": "act#01"}, "actor_name": {"S": "Ines Duarte"},  "born": {"N": "1979"}, "award": {"S": "Best Actor"},    "award_date": {"S": "2016-02-28"}}}},
	{"PutRequest": {"Item": {"pk": {"S": "act#02"}, "sk": {"S": "act#02"}, "actor_name": {"S": "Tomas Berg"},   "born": {"N": "1985"}, "award": {"S": "Best Actor"},    "award_date": {"S": "2019-02-24"}}}},
	{"PutRequest": {"Item": {"pk": {"S": "act#03"}, "sk": {"S": "act#03"}, "actor_name": {"S": "Amara Osei"},   "born": {"N": "1990"}}}},
	{"PutRequest": {"Item": {"pk": {"S": "act#04"}, "sk": {"S": "act#04"}, "actor_name": {"S": "Kenji Mori"},   "born": {"N": "1996"}, "award": {"S": "Best Newcomer"}, "award_date": {"S": "2021-04-25"}}}},
	{"PutRequest": {"Item": {"pk": {"S": "act#05"}, "sk": {"S": "act#05"}, "actor_name": {"S": "Lea Fontaine"}, "born": {"N": "1982"}, "award": {"S": "Best Actor"},    "award_date": {"S": "2022-03-27"}}}},
	{"PutRequest": {"Item": {"pk": {"S": "act#06"}, "sk": {"S": "act#06"}, "actor_name": {"S": "Rafael Nunes"}, "born": {"N": "1975"}}}},
	{"PutRequest": {"Item": {"pk": {"S": "mov#01"}, "sk": {"S": "act#01"}, "title": {"S": "The Quiet Harbour"}, "actor_name": {"S": "Ines Duarte"},  "plays": {"S": "Harbour master"}}}},
	{"PutRequest": {"Item": {"pk": {"S": "mov#01"}, "sk": {"S": "act#02"}, "title": {"S": "The Quiet Harbour"}, "actor_name": {"S": "Tomas Berg"},   "plays": {"S": "The stranger"}}}},
	{"PutRequest": {"Item": {"pk": {"S": "mov#02"}, "sk": {"S": "act#02"}, "title": {"S": "Iron Orchard"},      "actor_name": {"S": "Tomas Berg"},   "plays": {"S": "Sheriff Hale"}}}},
	{"PutRequest": {"Item": {"pk": {"S": "mov#02"}, "sk": {"S": "act#06"}, "title": {"S": "Iron Orchard"},      "actor_name": {"S": "Rafael Nunes"}, "plays": {"S": "The orchard keeper"}}}},
	{"PutRequest": {"Item": {"pk": {"S": "mov#03"}, "sk": {"S": "act#01"}, "title": {"S": "Nine Lanterns"},     "actor_name": {"S": "Ines Duarte"},  "plays": {"S": "The lamplighter"}}}},
	{"PutRequest": {"Item": {"pk": {"S": "mov#03"}, "sk": {"S": "act#04"}, "title": {"S": "Nine Lanterns"},     "actor_name": {"S": "Kenji Mori"},   "plays": {"S": "Young Aki"}}}},
	{"PutRequest": {"Item": {"pk": {"S": "mov#03"}, "sk": {"S": "act#05"}, "title": {"S": "Nine Lanterns"},     "actor_name": {"S": "Lea Fontaine"}, "plays": {"S": "The queen"}}}},
	{"PutRequest": {"Item": {"pk": {"S": "mov#05"}, "sk": {"S": "act#03"}, "title": {"S": "Salt and Ember"},    "actor_name": {"S": "Amara Osei"},   "plays": {"S": "Captain Mora"}}}},
	{"PutRequest": {"Item": {"pk": {"S": "mov#07"}, "sk": {"S": "act#02"}, "title": {"S": "Glass Meridian"},    "actor_name": {"S": "Tomas Berg"},   "plays": {"S": "Detective Lund"}}}},
	{"PutRequest": {"Item": {"pk": {"S": "mov#07"}, "sk": {"S": "act#05"}, "title": {"S": "Glass Meridian"},    "actor_name": {"S": "Lea Fontaine"}, "plays": {"S": "Dr. Weiss"}}}}]}}');

\echo '== 270 stream events, one PutItem each (the trigger keeps the totals)'
-- event number g of a movie in a month: day 1 + g % 28, minute g % 60
SELECT count(put_item(jsonb_build_object('TableName', 'MoviesActors', 'Item', jsonb_build_object(
		'pk', jsonb_build_object('S', 'mov#' || s.movie),
		'sk', jsonb_build_object('S', 'evt#' || t.ts || '#viewer' || lpad(g::text, 3, '0')),
		'streamed_at', jsonb_build_object('S', t.ts),
		'viewer', jsonb_build_object('S', 'viewer' || lpad(g::text, 3, '0')))))) AS events
FROM (VALUES
	('01', '2024-03', 31), ('02', '2024-03', 12), ('03', '2024-03', 45), ('04', '2024-03', 7),
	('05', '2024-03', 26), ('06', '2024-03', 3),  ('07', '2024-03', 18), ('08', '2024-03', 39),
	('09', '2024-03', 22), ('10', '2024-03', 9),  ('11', '2024-03', 14), ('12', '2024-03', 5),
	('01', '2024-04', 8),  ('03', '2024-04', 11), ('12', '2024-04', 20)
) AS s(movie, month, n),
	 generate_series(1, s.n) AS g,
	 LATERAL (SELECT format('%s-%sT20:%sZ', s.month, lpad((1 + g % 28)::text, 2, '0'), lpad((g % 60)::text, 2, '0') || ':00') AS ts) AS t;

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

SELECT delete_table('{"TableName": "MoviesActors"}')->'TableDescription'->>'TableStatus' AS status;
DROP FUNCTION public.movies_actors_count_stream();
