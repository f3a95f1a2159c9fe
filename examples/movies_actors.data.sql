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
