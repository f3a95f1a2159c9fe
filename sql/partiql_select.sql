-- PartiQL SELECT through ExecuteStatement: Query when the WHERE clause fixes
-- the partition key, Scan otherwise; projections, ORDER BY, paging with
-- NextToken; a statement and its expression-form twin give the same Items;
-- syntax and validation errors.
SET search_path = item_table, public;

CREATE FUNCTION pg_temp.try(action text, request jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	st text;
	msg text;
BEGIN
	RETURN item_table.dynamodb(action, request)::text;
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
	RETURN st || ' ' || msg;
END $$;
-- one statement, no parameters
CREATE FUNCTION pg_temp.pq(statement text) RETURNS text LANGUAGE sql AS $$
	SELECT pg_temp.try('ExecuteStatement', jsonb_build_object('Statement', statement))
$$;

SELECT create_table('{"TableName": "pq_music", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "Artist", "AttributeType": "S"},
		{"AttributeName": "SongTitle", "AttributeType": "S"},
		{"AttributeName": "Genre", "AttributeType": "S"}, {"AttributeName": "Year", "AttributeType": "N"}],
	"KeySchema": [{"AttributeName": "Artist", "KeyType": "HASH"}, {"AttributeName": "SongTitle", "KeyType": "RANGE"}],
	"GlobalSecondaryIndexes": [{"IndexName": "by_genre",
		"KeySchema": [{"AttributeName": "Genre", "KeyType": "HASH"}, {"AttributeName": "Year", "KeyType": "RANGE"}],
		"Projection": {"ProjectionType": "ALL"}}]}') IS NOT NULL AS created;

-- data through PutItem
SELECT count(put_item(jsonb_build_object('TableName', 'pq_music', 'Item', i))) FROM (VALUES
	('{"Artist": {"S": "Acme"}, "SongTitle": {"S": "Alpha"}, "Genre": {"S": "rock"}, "Year": {"N": "2001"}, "Tags": {"SS": ["a", "b"]}, "Info": {"M": {"len": {"N": "200"}, "credits": {"L": [{"S": "x"}, {"S": "y"}]}}}}'::jsonb),
	('{"Artist": {"S": "Acme"}, "SongTitle": {"S": "Beta"}, "Genre": {"S": "pop"}, "Year": {"N": "2005"}, "Price": {"N": "1.5"}}'),
	('{"Artist": {"S": "Acme"}, "SongTitle": {"S": "Gamma"}, "Genre": {"S": "rock"}, "Year": {"N": "2010"}, "Awards": {"N": "3"}}'),
	('{"Artist": {"S": "Acme"}, "SongTitle": {"S": "Gamut"}, "Year": {"N": "2012"}, "Nothing": {"NULL": true}}'),
	('{"Artist": {"S": "Band"}, "SongTitle": {"S": "Alpha"}, "Genre": {"S": "rock"}, "Year": {"N": "1999"}, "Awards": {"N": "1"}}'),
	('{"Artist": {"S": "Band"}, "SongTitle": {"S": "Delta"}, "Genre": {"S": "jazz"}, "Year": {"N": "2020"}, "Tags": {"SS": ["b"]}}'),
	('{"Artist": {"S": "Cora"}, "SongTitle": {"S": "Omega"}, "Year": {"N": "2001"}, "Price": {"N": "10"}}')
) AS t(i);

-- ---------------------------------------------------------------- Query
SELECT pg_temp.pq($$SELECT * FROM "pq_music" WHERE "Artist" = 'Band'$$);
SELECT pg_temp.pq($$SELECT SongTitle, Year FROM pq_music WHERE Artist = 'Acme' AND SongTitle >= 'Beta'$$);
SELECT pg_temp.pq($$SELECT SongTitle FROM pq_music WHERE 'Acme' = Artist AND 'C' > SongTitle$$);
SELECT pg_temp.pq($$SELECT SongTitle FROM pq_music WHERE Artist = 'Acme' AND SongTitle BETWEEN 'B' AND 'Gamma'$$);
SELECT pg_temp.pq($$SELECT SongTitle FROM pq_music WHERE Artist = 'Acme' AND begins_with(SongTitle, 'Gam')$$);
SELECT pg_temp.pq($$SELECT SongTitle, Awards FROM pq_music WHERE Artist = 'Acme' AND Awards > 1$$);
SELECT pg_temp.pq($$SELECT SongTitle FROM pq_music WHERE Artist = 'Acme' ORDER BY SongTitle DESC$$);
SELECT pg_temp.pq($$SELECT Info.credits[1], Info.len FROM pq_music WHERE Artist = 'Acme' AND SongTitle = 'Alpha'$$);
-- a second condition on the sort key: Scan with a filter, same rows
SELECT pg_temp.pq($$SELECT SongTitle FROM pq_music WHERE Artist = 'Acme' AND SongTitle > 'A' AND SongTitle <> 'Beta'$$);
-- an index
SELECT pg_temp.pq($$SELECT Artist, SongTitle, Year FROM "pq_music"."by_genre" WHERE Genre = 'rock' AND Year < 2005$$);
SELECT pg_temp.pq($$SELECT Artist, SongTitle FROM pq_music.by_genre WHERE Genre = 'rock' ORDER BY Year DESC$$);
SELECT pg_temp.pq($$SELECT * FROM pq_music.nope WHERE Genre = 'rock'$$);

-- ---------------------------------------------------------------- Scan
SELECT pg_temp.pq($$SELECT SongTitle FROM pq_music WHERE Year >= 2010 AND Genre IS NOT MISSING$$);
SELECT pg_temp.pq($$SELECT Artist, SongTitle FROM pq_music WHERE Genre IS MISSING OR Price < 2$$);
SELECT pg_temp.pq($$SELECT Artist, SongTitle FROM pq_music WHERE Artist IN ['Band', 'Cora'] AND NOT (Year > 2010)$$);
SELECT pg_temp.pq($$SELECT SongTitle FROM pq_music WHERE contains(Tags, 'b') AND size(Tags) = 1$$);
SELECT pg_temp.pq($$SELECT SongTitle FROM pq_music WHERE attribute_type(Nothing, 'NULL')$$);
SELECT pg_temp.pq($$SELECT SongTitle FROM pq_music WHERE Year NOT BETWEEN 2000 AND 2015$$);
SELECT pg_temp.pq($$SELECT SongTitle FROM pq_music WHERE Info.credits[0] = 'x'$$);
SELECT pg_temp.pq($$SELECT SongTitle FROM pq_music WHERE Artist = 'Acme' OR Artist = 'Cora' AND Year = 2001$$);

-- ---------------------------------------------------------------- parameters
SELECT pg_temp.try('ExecuteStatement', '{"Statement": "SELECT SongTitle FROM pq_music WHERE Artist = ? AND Year > ?",
	"Parameters": [{"S": "Acme"}, {"N": "2006"}]}');
SELECT pg_temp.try('ExecuteStatement', '{"Statement": "SELECT SongTitle FROM pq_music WHERE Tags = ?",
	"Parameters": [{"SS": ["b", "a"]}]}');
SELECT pg_temp.try('ExecuteStatement', '{"Statement": "SELECT SongTitle FROM pq_music WHERE Tags = <<?, ''b''>>",
	"Parameters": [{"S": "a"}]}');
SELECT pg_temp.try('ExecuteStatement', '{"Statement": "SELECT * FROM pq_music WHERE Artist = ?"}');
SELECT pg_temp.try('ExecuteStatement', '{"Statement": "SELECT * FROM pq_music WHERE Artist = ''Acme''", "Parameters": [{"S": "x"}]}');
SELECT pg_temp.try('ExecuteStatement', '{"Statement": "SELECT * FROM pq_music WHERE Artist = ?", "Parameters": [{"Q": "x"}]}');
SELECT pg_temp.try('ExecuteStatement', '{"Statement": "SELECT * FROM pq_music WHERE Artist = ?", "Parameters": ["x"]}');
-- a parameter is a value, never statement text
SELECT pg_temp.try('ExecuteStatement', '{"Statement": "SELECT SongTitle FROM pq_music WHERE Artist = ?",
	"Parameters": [{"S": "Acme'' OR Artist <> ''x"}]}');

-- ---------------------------------------------------------------- paging
SELECT execute_statement('{"Statement": "SELECT SongTitle FROM pq_music WHERE Artist = ''Acme''", "Limit": 3}') AS page1 \gset
SELECT :'page1'::jsonb - 'NextToken' AS page1, (:'page1'::jsonb ? 'NextToken') AS has_token;
SELECT execute_statement(jsonb_build_object('Statement', 'SELECT SongTitle FROM pq_music WHERE Artist = ''Acme''',
	'Limit', 3, 'NextToken', :'page1'::jsonb ->> 'NextToken')) AS page2 \gset
SELECT :'page2'::jsonb AS page2;
-- a token is only good for the statement that made it
SELECT pg_temp.try('ExecuteStatement', jsonb_build_object('Statement', 'SELECT SongTitle FROM pq_music WHERE Artist = ''Band''',
	'NextToken', :'page1'::jsonb ->> 'NextToken'));
SELECT pg_temp.try('ExecuteStatement', '{"Statement": "SELECT * FROM pq_music", "NextToken": "bm90IGEgdG9rZW4="}');
SELECT pg_temp.try('ExecuteStatement', '{"Statement": "SELECT * FROM pq_music", "NextToken": "***"}');
-- a Scan pages too: all pages of Limit 2 are the whole table
WITH RECURSIVE pages(n, resp) AS (
	SELECT 1, execute_statement('{"Statement": "SELECT Artist, SongTitle FROM pq_music", "Limit": 2}')
	UNION ALL
	SELECT n + 1, execute_statement(jsonb_build_object('Statement', 'SELECT Artist, SongTitle FROM pq_music',
		'Limit', 2, 'NextToken', resp ->> 'NextToken'))
	FROM pages WHERE resp ? 'NextToken'
)
SELECT count(DISTINCT n) AS pages, count(*) AS items,
	count(DISTINCT (it ->> 'Artist') || (it ->> 'SongTitle')) AS distinct_items
FROM pages, jsonb_array_elements(resp -> 'Items') AS it;
SELECT pg_temp.try('ExecuteStatement', '{"Statement": "SELECT SongTitle FROM pq_music WHERE Artist = ''Band''",
	"ConsistentRead": true, "ReturnConsumedCapacity": "TOTAL"}');

-- ---------------------------------------------------------------- twins
-- each statement and the Query or Scan written by hand give the same Items
CREATE TEMP TABLE twins (statement text, action text, request jsonb);
INSERT INTO twins VALUES
	($$SELECT * FROM pq_music WHERE Artist = 'Acme' AND SongTitle > 'Beta' AND Year < 2011$$, 'Query',
	 '{"TableName": "pq_music", "KeyConditionExpression": "Artist = :a AND SongTitle > :s",
	   "FilterExpression": "#y < :y", "ExpressionAttributeNames": {"#y": "Year"},
	   "ExpressionAttributeValues": {":a": {"S": "Acme"}, ":s": {"S": "Beta"}, ":y": {"N": "2011"}}}'),
	($$SELECT SongTitle, Info FROM pq_music WHERE Artist = 'Acme' ORDER BY SongTitle DESC$$, 'Query',
	 '{"TableName": "pq_music", "KeyConditionExpression": "Artist = :a", "ScanIndexForward": false,
	   "ProjectionExpression": "SongTitle, Info", "ExpressionAttributeValues": {":a": {"S": "Acme"}}}'),
	($$SELECT * FROM pq_music WHERE Genre = 'rock' OR size(Tags) > 1$$, 'Scan',
	 '{"TableName": "pq_music", "FilterExpression": "Genre = :g OR size(Tags) > :n",
	   "ExpressionAttributeValues": {":g": {"S": "rock"}, ":n": {"N": "1"}}}'),
	($$SELECT Artist FROM pq_music."by_genre" WHERE Genre = 'rock' AND Year BETWEEN 2000 AND 2010$$, 'Query',
	 '{"TableName": "pq_music", "IndexName": "by_genre", "KeyConditionExpression": "Genre = :g AND #y BETWEEN :lo AND :hi",
	   "ProjectionExpression": "Artist", "ExpressionAttributeNames": {"#y": "Year"},
	   "ExpressionAttributeValues": {":g": {"S": "rock"}, ":lo": {"N": "2000"}, ":hi": {"N": "2010"}}}');
SELECT action, (execute_statement(jsonb_build_object('Statement', statement)) -> 'Items')
		= (dynamodb(action, request) -> 'Items') AS same_items,
	jsonb_array_length(dynamodb(action, request) -> 'Items') AS items
FROM twins;

-- ---------------------------------------------------------------- errors
SELECT pg_temp.pq($$SELEC * FROM pq_music$$);
SELECT pg_temp.pq($$SELECT * FROM pq_music WHERE$$);
SELECT pg_temp.pq($$SELECT * FROM pq_music WHERE Artist = 'Acme$$);
SELECT pg_temp.pq($$SELECT * FROM pq_music WHERE Artist == 'Acme'$$);
SELECT pg_temp.pq($$SELECT * FROM pq_music WHERE Artist = 'Acme' extra$$);
SELECT pg_temp.pq($$SELECT * FROM pq_music WHERE select = 1$$);
SELECT pg_temp.pq($$SELECT * FROM pq_music WHERE a[x] = 1$$);
SELECT pg_temp.pq($$SELECT * FROM pq_music WHERE a # 1$$);
SELECT pg_temp.pq($$SELECT COUNT(*) FROM pq_music$$);
SELECT pg_temp.pq($$SELECT * FROM pq_music WHERE a IS NULL$$);
SELECT pg_temp.pq($$SELECT * FROM pq_music ORDER BY SongTitle$$);
SELECT pg_temp.pq($$SELECT * FROM pq_music WHERE Year = 1 ORDER BY SongTitle$$);
SELECT pg_temp.pq($$SELECT * FROM pq_music WHERE Artist = 'Acme' ORDER BY Year$$);
SELECT pg_temp.pq($$SELECT * FROM pq_music WHERE Tags = <<>>$$);
SELECT pg_temp.pq($$SELECT * FROM pq_music WHERE Tags = <<'a', 1>>$$);
SELECT pg_temp.pq($$SELECT * FROM pq_music WHERE Artist = 1$$);
SELECT pg_temp.pq($$SELECT * FROM missing_table$$);
SELECT pg_temp.pq($$EXISTS(SELECT * FROM pq_music WHERE Artist = 'Acme' AND SongTitle = 'Alpha')$$);
SELECT pg_temp.try('ExecuteStatement', '{}');
SELECT pg_temp.try('ExecuteStatement', '{"Statement": ""}');
SELECT pg_temp.try('ExecuteStatement', '{"Statement": "SELECT * FROM pq_music", "Limit": 0, "Parameters": [], "ReturnConsumedCapacity": "ALL"}');
SELECT pg_temp.try('ExecuteStatement', jsonb_build_object('Statement', 'SELECT * FROM pq_music WHERE a = ''' || repeat('x', 8200) || ''''))::text LIKE '%Member must have length less than or equal to 8192' AS too_long;
