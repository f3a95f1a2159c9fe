-- The table and the data of examples/movies_actors.sql, loaded by the example and by
-- its test (sql/example_movies_actors.sql).  Runs with search_path = item_table.
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
		 "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["actor_name"]}}],
	"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_IMAGE"}}')->'TableDescription'->>'TableStatus' AS status;

\echo '== The aggregation consumer: each new stream event adds 1 to its movie''s monthly total'
-- A stream consumer (the counterpart of a Lambda function on a DynamoDB
-- stream): the background worker calls it with batches of the table's
-- stream records, in order, and it adds the batch's new events (INSERT
-- records of evt# items) to the monthly aggregates with one UpdateItem per
-- movie and month.  It runs after the writes, outside the writer's
-- transaction; its checkpoint is kept in the same transaction as its
-- updates, so each event counts exactly once.  A replayed event (a PutItem
-- of an existing event, identical) leaves no stream record, so it is not
-- counted twice; events written with plain SQL (INSERT, COPY) have records
-- too.  The consumer runs as the role that registered it, never as a
-- superuser, with search_path pinned: everything in it is qualified.
DO $$ BEGIN
	IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'movies_app') THEN
		CREATE ROLE movies_app;
	END IF;
END $$;
GRANT SELECT, INSERT, UPDATE ON item_data."MoviesActors" TO movies_app;
CREATE FUNCTION public.movies_actors_count_streams(records jsonb) RETURNS void LANGUAGE sql AS $$
	SELECT count(item_table.update_item(jsonb_build_object(
		'TableName', 'MoviesActors',
		'Key', jsonb_build_object('pk', e.pk, 'sk', jsonb_build_object('S', 'agg#' || e.month)),
		'UpdateExpression', 'SET stream_month = :m, title = if_not_exists(title, :t) ADD stream_total :n',
		'ExpressionAttributeValues', jsonb_build_object(
			':m', jsonb_build_object('S', e.month),
			':t', (SELECT m.item OPERATOR(pg_catalog.->) 'title' FROM item_data."MoviesActors" m
			       WHERE m.key OPERATOR(item_table.=) item_table.item_key(e.pk, e.pk)),
			':n', jsonb_build_object('N', e.n::text)))))
	FROM (SELECT r OPERATOR(pg_catalog.->) 'dynamodb' OPERATOR(pg_catalog.->) 'NewImage' OPERATOR(pg_catalog.->) 'pk' AS pk,
			pg_catalog.left(r OPERATOR(pg_catalog.->) 'dynamodb' OPERATOR(pg_catalog.->) 'NewImage'
				OPERATOR(pg_catalog.->) 'streamed_at' OPERATOR(pg_catalog.->>) 'S', 7) AS month,
			pg_catalog.count(*) AS n
		  FROM pg_catalog.jsonb_array_elements(records) r
		  WHERE r OPERATOR(pg_catalog.->>) 'eventName' OPERATOR(pg_catalog.=) 'INSERT'
		    AND pg_catalog.starts_with(r OPERATOR(pg_catalog.->) 'dynamodb' OPERATOR(pg_catalog.->) 'Keys'
				OPERATOR(pg_catalog.->) 'sk' OPERATOR(pg_catalog.->>) 'S', 'evt#')
		  GROUP BY 1, 2) e
$$;
SET ROLE movies_app;
SELECT add_stream_consumer('MoviesActors', 'public.movies_actors_count_streams(jsonb)',
	consumer_name => 'movies_monthly_totals', batch_size => 500) AS consumer;
RESET ROLE;

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

\echo '== 270 stream events, one PutItem each (the consumer keeps the totals)'
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

-- The background worker runs the consumer within a fraction of a second;
-- pg_temp.caught_up() runs it at once until it has read the whole stream,
-- so that what follows sees the totals.
CREATE FUNCTION pg_temp.caught_up(consumer text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	FOR i IN 1..300 LOOP
		PERFORM item_table.run_stream_consumers();
		IF (SELECT c.last_sequence_number >= coalesce((SELECT max(r.seq) FROM item_table.stream_records r
				WHERE r.stream_id = c.stream_id), 0)
			FROM item_table.stream_consumers c WHERE c.consumer_name = consumer) THEN
			RETURN true;
		END IF;
		PERFORM pg_sleep(0.1);
	END LOOP;
	RETURN false;
END $$;
SELECT pg_temp.caught_up('movies_monthly_totals');
