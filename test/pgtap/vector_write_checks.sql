-- Vector indexes: what a write is checked against and what it reports.
-- The search schema's attributes keep the types AttributeDefinitions gave
-- them: a write giving a HASH or INLINE_FILTER attribute another type is
-- refused with the GSI's message (Type mismatch for Index Key), the item
-- left as it was, on every write path (PutItem, UpdateItem, BatchWriteItem,
-- TransactWriteItems, PartiQL INSERT and UPDATE, plain SQL); the right type
-- and a missing attribute pass; DescribeTable lists the definitions.
-- A search-schema attribute AttributeDefinitions leaves out is refused
-- (CreateTable, UpdateTable Create) with a GSI key attribute's message.
-- With ReturnConsumedCapacity, a write that changes a vector index's row
-- reports VectorWriteRequestBytes (4 bytes a dimension) for that index.
-- A vector's numbers are the 32-bit floats PostgreSQL's real gives them
-- (the upkeep's own parse of the common case against float4in).
-- In one transaction, rolled back.  Skipped when pgvector is not installed.
SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') AS have_vector \gset
\if :have_vector
BEGIN;
SELECT plan(47);
SET search_path = item_table, public;
CREATE EXTENSION IF NOT EXISTS vector;

CREATE FUNCTION pg_temp.item(id text) RETURNS jsonb LANGUAGE sql AS $$
	SELECT dynamodb('GetItem', jsonb_build_object('TableName', 'vchk', 'Key',
		jsonb_build_object('id', jsonb_build_object('S', id)))) -> 'Item'
$$;
CREATE FUNCTION pg_temp.rows() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
	EXECUTE format('SELECT count(*) FROM %s', (SELECT relid FROM vector_indexes WHERE table_name = 'vchk'))
		INTO n;
	RETURN n;
END $$;

SELECT lives_ok($$SELECT dynamodb('CreateTable', '{"TableName": "vchk", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"},
		{"AttributeName": "lang", "AttributeType": "S"}, {"AttributeName": "yr", "AttributeType": "N"}],
	"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
	"VectorIndexes": [{"IndexName": "vchk-idx", "VectorAttribute": {"AttributeName": "emb"},
		"Dimensions": 2, "DistanceFunction": "EUCLIDEAN",
		"SearchSchema": [{"AttributeName": "lang", "SearchSchemaElementType": "HASH"},
			{"AttributeName": "yr", "SearchSchemaElementType": "INLINE_FILTER"}],
		"Projection": {"ProjectionType": "ALL"}}]}')$$,
	'CreateTable: the search schema''s attributes defined in AttributeDefinitions');
SELECT is(dynamodb('DescribeTable', '{"TableName": "vchk"}') -> 'Table' -> 'AttributeDefinitions',
	'[{"AttributeName": "id", "AttributeType": "S"}, {"AttributeName": "lang", "AttributeType": "S"},
	  {"AttributeName": "yr", "AttributeType": "N"}]'::jsonb,
	'DescribeTable lists them');
SELECT throws_ok($$SELECT dynamodb('CreateTable', '{"TableName": "vchk2", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}, {"AttributeName": "other", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
	"VectorIndexes": [{"IndexName": "vchk-idx", "VectorAttribute": {"AttributeName": "emb"},
		"Dimensions": 2, "DistanceFunction": "EUCLIDEAN", "Projection": {"ProjectionType": "ALL"}}]}')$$,
	'XD001', 'ValidationException: One or more parameter values were invalid: Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions',
	'a definition no key or search schema uses is still refused');
-- every search-schema attribute must be defined (DynamoDB requires it),
-- with the message of a GSI key attribute left undefined; nothing is made
SELECT throws_ok($$SELECT dynamodb('CreateTable', '{"TableName": "vchk2", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}, {"AttributeName": "yr", "AttributeType": "N"}],
	"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
	"VectorIndexes": [{"IndexName": "vchk-idx", "VectorAttribute": {"AttributeName": "emb"},
		"Dimensions": 2, "DistanceFunction": "EUCLIDEAN",
		"SearchSchema": [{"AttributeName": "lang", "SearchSchemaElementType": "HASH"},
			{"AttributeName": "yr", "SearchSchemaElementType": "INLINE_FILTER"}],
		"Projection": {"ProjectionType": "ALL"}}]}')$$,
	'XD001', 'ValidationException: One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [lang, yr], AttributeDefinitions: [id, yr]',
	'CreateTable: a HASH search-schema attribute not in AttributeDefinitions is refused');
SELECT throws_ok($$SELECT dynamodb('CreateTable', '{"TableName": "vchk2", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}, {"AttributeName": "lang", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
	"VectorIndexes": [{"IndexName": "vchk-idx", "VectorAttribute": {"AttributeName": "emb"},
		"Dimensions": 2, "DistanceFunction": "EUCLIDEAN",
		"SearchSchema": [{"AttributeName": "lang", "SearchSchemaElementType": "HASH"},
			{"AttributeName": "yr", "SearchSchemaElementType": "INLINE_FILTER"}],
		"Projection": {"ProjectionType": "ALL"}}]}')$$,
	'XD001', 'ValidationException: One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [lang, yr], AttributeDefinitions: [id, lang]',
	'CreateTable: an INLINE_FILTER attribute not in AttributeDefinitions is refused');
SELECT ok(NOT EXISTS (SELECT FROM tables WHERE table_name = 'vchk2'), 'the refused CreateTables made no table');
-- with a GSI, a definition only a search schema uses counts as used
SELECT lives_ok($$SELECT dynamodb('CreateTable', '{"TableName": "vchk3", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"},
		{"AttributeName": "lang", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [{"IndexName": "g-idx", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "KEYS_ONLY"}}],
	"VectorIndexes": [{"IndexName": "vchk-idx", "VectorAttribute": {"AttributeName": "emb"},
		"Dimensions": 2, "DistanceFunction": "EUCLIDEAN",
		"SearchSchema": [{"AttributeName": "lang", "SearchSchemaElementType": "INLINE_FILTER"}],
		"Projection": {"ProjectionType": "ALL"}}]}'); SELECT dynamodb('DeleteTable', '{"TableName": "vchk3"}')$$,
	'CreateTable with a GSI: a definition a search schema uses is a used one');
SELECT throws_ok($$SELECT dynamodb('CreateTable', '{"TableName": "vchk3", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"},
		{"AttributeName": "lang", "AttributeType": "S"}, {"AttributeName": "other", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [{"IndexName": "g-idx", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "KEYS_ONLY"}}],
	"VectorIndexes": [{"IndexName": "vchk-idx", "VectorAttribute": {"AttributeName": "emb"},
		"Dimensions": 2, "DistanceFunction": "EUCLIDEAN",
		"SearchSchema": [{"AttributeName": "lang", "SearchSchemaElementType": "INLINE_FILTER"}],
		"Projection": {"ProjectionType": "ALL"}}]}')$$,
	'XD001', 'ValidationException: One or more parameter values were invalid: Some AttributeDefinitions are not used. AttributeDefinitions: [id, g, lang, other], keys used: [id, g, lang]',
	'with a GSI, a definition neither a key nor a search schema uses is refused');

SELECT lives_ok($$SELECT dynamodb('PutItem', '{"TableName": "vchk", "Item": {"id": {"S": "a"},
	"lang": {"S": "en"}, "yr": {"N": "2020"}, "emb": {"L": [{"N": "1"}, {"N": "2"}]}}}')$$,
	'PutItem with the right types');
SELECT lives_ok($$SELECT dynamodb('PutItem', '{"TableName": "vchk", "Item": {"id": {"S": "m"},
	"emb": {"L": [{"N": "3"}, {"N": "4"}]}}}')$$,
	'PutItem without the search schema''s attributes');
SELECT is(pg_temp.rows(), 2::bigint, 'both items are in the index');

-- PutItem
SELECT throws_ok($$SELECT dynamodb('PutItem', '{"TableName": "vchk", "Item": {"id": {"S": "a"},
	"lang": {"N": "1"}, "emb": {"L": [{"N": "1"}, {"N": "2"}]}}}')$$,
	'XD001', 'ValidationException: One or more parameter values were invalid: Type mismatch for Index Key lang Expected: S Actual: N IndexName: vchk-idx',
	'PutItem: a HASH attribute of another type is refused');
SELECT throws_ok($$SELECT dynamodb('PutItem', '{"TableName": "vchk", "Item": {"id": {"S": "n"},
	"yr": {"S": "2020"}}}')$$,
	'XD001', 'ValidationException: One or more parameter values were invalid: Type mismatch for Index Key yr Expected: N Actual: S IndexName: vchk-idx',
	'PutItem: an INLINE_FILTER attribute of another type is refused, even without a vector');
-- UpdateItem
SELECT throws_ok($$SELECT dynamodb('UpdateItem', '{"TableName": "vchk", "Key": {"id": {"S": "a"}},
	"UpdateExpression": "SET yr = :v", "ExpressionAttributeValues": {":v": {"SS": ["x"]}}}')$$,
	'XD001', 'ValidationException: One or more parameter values were invalid: Type mismatch for Index Key yr Expected: N Actual: SS IndexName: vchk-idx',
	'UpdateItem setting the attribute to another type is refused');
SELECT lives_ok($$SELECT dynamodb('UpdateItem', '{"TableName": "vchk", "Key": {"id": {"S": "a"}},
	"UpdateExpression": "SET yr = :v", "ExpressionAttributeValues": {":v": {"N": "2021"}}}')$$,
	'UpdateItem with the right type');
-- BatchWriteItem
SELECT throws_ok($$SELECT dynamodb('BatchWriteItem', '{"RequestItems": {"vchk": [
	{"PutRequest": {"Item": {"id": {"S": "b"}, "lang": {"S": "fr"}}}},
	{"PutRequest": {"Item": {"id": {"S": "a"}, "lang": {"B": "AA=="}}}}]}}')$$,
	'XD001', 'ValidationException: One or more parameter values were invalid: Type mismatch for Index Key lang Expected: S Actual: B IndexName: vchk-idx',
	'BatchWriteItem with one mistyped item is refused');
SELECT is(pg_temp.item('b'), NULL, 'nothing of the batch was written');
-- TransactWriteItems
SELECT throws_ok($$SELECT dynamodb('TransactWriteItems', '{"TransactItems": [
	{"Put": {"TableName": "vchk", "Item": {"id": {"S": "c"}}}},
	{"Update": {"TableName": "vchk", "Key": {"id": {"S": "a"}}, "UpdateExpression": "SET lang = :v",
		"ExpressionAttributeValues": {":v": {"N": "7"}}}}]}')$$,
	'XD007', 'TransactionCanceledException: Transaction cancelled, please refer cancellation reasons for specific reasons [None, ValidationError]',
	'TransactWriteItems with one mistyped item is cancelled (ValidationError for it, as for a GSI key)');
SELECT is(pg_temp.item('c'), NULL, 'nothing of the transaction was written');
-- PartiQL
SELECT throws_ok($$SELECT dynamodb('ExecuteStatement', '{"Statement": "INSERT INTO vchk VALUE {''id'': ''d'', ''lang'': 5}"}')$$,
	'XD001', 'ValidationException: One or more parameter values were invalid: Type mismatch for Index Key lang Expected: S Actual: N IndexName: vchk-idx',
	'PartiQL INSERT with a mistyped attribute is refused');
SELECT throws_ok($$SELECT dynamodb('ExecuteStatement', '{"Statement": "UPDATE vchk SET yr = ''late'' WHERE id = ''a''"}')$$,
	'XD001', 'ValidationException: One or more parameter values were invalid: Type mismatch for Index Key yr Expected: N Actual: S IndexName: vchk-idx',
	'PartiQL UPDATE with a mistyped attribute is refused');
-- plain SQL on the item table
SELECT throws_ok($$UPDATE item_data.vchk SET item = item || '{"lang": {"BOOL": true}}' WHERE key = item_key('{"S": "a"}'::jsonb)$$,
	'XD001', 'ValidationException: One or more parameter values were invalid: Type mismatch for Index Key lang Expected: S Actual: BOOL IndexName: vchk-idx',
	'SQL UPDATE of the item table with a mistyped attribute is refused');
SELECT is(pg_temp.item('a'), '{"id": {"S": "a"}, "lang": {"S": "en"}, "yr": {"N": "2021"},
	"emb": {"L": [{"N": "1"}, {"N": "2"}]}}'::jsonb, 'the item is as the last good write left it');
SELECT is(pg_temp.item('d'), NULL, 'the refused PartiQL INSERT wrote nothing');
SELECT lives_ok($$SELECT dynamodb('ExecuteStatement', '{"Statement": "UPDATE vchk SET yr = 2022 WHERE id = ''a''"}')$$,
	'PartiQL UPDATE with the right type');
SELECT lives_ok($$UPDATE item_data.vchk SET item = item || '{"tag": {"S": "t"}}' WHERE key = item_key('{"S": "a"}'::jsonb)$$,
	'SQL UPDATE leaving the search schema''s attributes alone');

-- an index created by UpdateTable takes its types from that request
SELECT lives_ok($$SELECT dynamodb('UpdateTable', '{"TableName": "vchk",
	"AttributeDefinitions": [{"AttributeName": "cat", "AttributeType": "N"}],
	"VectorIndexUpdates": [{"Create": {"IndexName": "vchk-cat", "VectorAttribute": {"AttributeName": "emb"},
		"Dimensions": 2, "DistanceFunction": "COSINE",
		"SearchSchema": [{"AttributeName": "cat", "SearchSchemaElementType": "HASH"}],
		"Projection": {"ProjectionType": "KEYS_ONLY"}}}]}')$$,
	'UpdateTable creates an index with a typed search schema');
SELECT throws_ok($$SELECT dynamodb('UpdateTable', '{"TableName": "vchk",
	"AttributeDefinitions": [{"AttributeName": "cat", "AttributeType": "N"}],
	"VectorIndexUpdates": [{"Create": {"IndexName": "vchk-cat2", "VectorAttribute": {"AttributeName": "emb"},
		"Dimensions": 2, "DistanceFunction": "COSINE",
		"SearchSchema": [{"AttributeName": "cat", "SearchSchemaElementType": "HASH"},
			{"AttributeName": "lang", "SearchSchemaElementType": "INLINE_FILTER"}],
		"Projection": {"ProjectionType": "KEYS_ONLY"}}}]}')$$,
	'XD001', 'ValidationException: One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [cat, lang], AttributeDefinitions: [cat]',
	'UpdateTable Create: a search-schema attribute not in the request''s AttributeDefinitions is refused (the table''s definitions do not count)');
SELECT throws_ok($$SELECT dynamodb('UpdateTable', '{"TableName": "vchk",
	"VectorIndexUpdates": [{"Create": {"IndexName": "vchk-cat2", "VectorAttribute": {"AttributeName": "emb"},
		"Dimensions": 2, "DistanceFunction": "COSINE",
		"SearchSchema": [{"AttributeName": "cat", "SearchSchemaElementType": "HASH"}],
		"Projection": {"ProjectionType": "KEYS_ONLY"}}}]}')$$,
	'XD001', 'ValidationException: One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [cat], AttributeDefinitions: []',
	'UpdateTable Create without AttributeDefinitions');
SELECT throws_ok($$SELECT dynamodb('UpdateTable', '{"TableName": "vchk",
	"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "N"}],
	"VectorIndexUpdates": [{"Create": {"IndexName": "vchk-cat2", "VectorAttribute": {"AttributeName": "emb"},
		"Dimensions": 2, "DistanceFunction": "COSINE",
		"SearchSchema": [{"AttributeName": "id", "SearchSchemaElementType": "INLINE_FILTER"}],
		"Projection": {"ProjectionType": "KEYS_ONLY"}}}]}')$$,
	'XD001', 'ValidationException: invalid attribute, SchemaElement redefined should be of same type as previously defined',
	'UpdateTable Create: the table''s key attribute defined with another type is refused');
SELECT is((SELECT array_agg(index_name ORDER BY index_name) FROM vector_indexes WHERE table_name = 'vchk'),
	'{vchk-cat,vchk-idx}', 'the refused Creates made no index');
SELECT throws_ok($$SELECT dynamodb('PutItem', '{"TableName": "vchk", "Item": {"id": {"S": "e"}, "cat": {"S": "x"}}}')$$,
	'XD001', 'ValidationException: One or more parameter values were invalid: Type mismatch for Index Key cat Expected: N Actual: S IndexName: vchk-cat',
	'the new index''s type is checked by the next write');
SELECT lives_ok($$SELECT dynamodb('UpdateTable', '{"TableName": "vchk", "VectorIndexUpdates": [{"Delete": {"IndexName": "vchk-cat"}}]}')$$,
	'the index deleted');
SELECT lives_ok($$SELECT dynamodb('PutItem', '{"TableName": "vchk", "Item": {"id": {"S": "e"}, "cat": {"S": "x"}}}')$$,
	'once it is deleted, the attribute is free again');

-- VectorWriteRequestBytes
CREATE FUNCTION pg_temp.cc(op text, req jsonb) RETURNS jsonb LANGUAGE sql AS $$
	SELECT dynamodb(op, req || '{"ReturnConsumedCapacity": "TOTAL"}') -> 'ConsumedCapacity'
$$;
SELECT is(pg_temp.cc('PutItem', '{"TableName": "vchk", "Item": {"id": {"S": "w1"}, "emb": {"L": [{"N": "1"}, {"N": "0"}]}}}'),
	'{"TableName": "vchk", "CapacityUnits": 1.0, "VectorIndexes": {"vchk-idx": {"VectorWriteRequestBytes": 8}}}',
	'PutItem of a vector: 4 bytes a dimension');
SELECT is(pg_temp.cc('PutItem', '{"TableName": "vchk", "Item": {"id": {"S": "w1"}, "emb": {"L": [{"N": "2"}, {"N": "0"}]}}}') -> 'VectorIndexes',
	'{"vchk-idx": {"VectorWriteRequestBytes": 8}}', 'PutItem replacing a vector: counted once');
SELECT is(pg_temp.cc('UpdateItem', '{"TableName": "vchk", "Key": {"id": {"S": "w1"}}, "UpdateExpression": "SET note = :v",
	"ExpressionAttributeValues": {":v": {"N": "1"}}}'),
	'{"TableName": "vchk", "CapacityUnits": 1.0}', 'UpdateItem leaving the index row alone: no VectorIndexes');
SELECT is(pg_temp.cc('UpdateItem', '{"TableName": "vchk", "Key": {"id": {"S": "w1"}}, "UpdateExpression": "SET yr = :v",
	"ExpressionAttributeValues": {":v": {"N": "1999"}}}') -> 'VectorIndexes',
	'{"vchk-idx": {"VectorWriteRequestBytes": 8}}', 'UpdateItem of an INLINE_FILTER attribute rewrites the row');
SELECT is(pg_temp.cc('UpdateItem', '{"TableName": "vchk", "Key": {"id": {"S": "w1"}}, "UpdateExpression": "REMOVE emb"}') -> 'VectorIndexes',
	'{"vchk-idx": {"VectorWriteRequestBytes": 8}}', 'UpdateItem removing the vector: the same count');
SELECT is(pg_temp.cc('DeleteItem', '{"TableName": "vchk", "Key": {"id": {"S": "w1"}}}') -> 'VectorIndexes',
	NULL, 'DeleteItem of an item not in the index: no VectorIndexes');
SELECT is(pg_temp.cc('DeleteItem', '{"TableName": "vchk", "Key": {"id": {"S": "m"}}}') -> 'VectorIndexes',
	'{"vchk-idx": {"VectorWriteRequestBytes": 8}}', 'DeleteItem of an item in the index');
SELECT is(pg_temp.cc('BatchWriteItem', '{"RequestItems": {"vchk": [
	{"PutRequest": {"Item": {"id": {"S": "w2"}, "emb": {"L": [{"N": "1"}, {"N": "1"}]}}}},
	{"PutRequest": {"Item": {"id": {"S": "w3"}, "emb": {"L": [{"N": "1"}, {"N": "2"}]}}}},
	{"PutRequest": {"Item": {"id": {"S": "w4"}}}}]}}'),
	'[{"TableName": "vchk", "CapacityUnits": 3.0, "VectorIndexes": {"vchk-idx": {"VectorWriteRequestBytes": 16}}}]',
	'BatchWriteItem: the table entry sums its writes');
SELECT is(dynamodb('TransactWriteItems', '{"ReturnConsumedCapacity": "INDEXES", "TransactItems": [
	{"Delete": {"TableName": "vchk", "Key": {"id": {"S": "w2"}}}},
	{"Put": {"TableName": "vchk", "Item": {"id": {"S": "w5"}, "emb": {"L": [{"N": "3"}, {"N": "1"}]}}}}]}') -> 'ConsumedCapacity',
	'[{"TableName": "vchk", "CapacityUnits": 4.0, "Table": {"CapacityUnits": 4.0},
	   "VectorIndexes": {"vchk-idx": {"VectorWriteRequestBytes": 16}}}]',
	'TransactWriteItems (INDEXES): the table entry sums its writes');
SELECT is(dynamodb('PutItem', '{"TableName": "vchk", "Item": {"id": {"S": "w6"}, "emb": {"L": [{"N": "3"}, {"N": "1"}]}}}') -> 'ConsumedCapacity',
	NULL, 'without ReturnConsumedCapacity: no ConsumedCapacity');
SELECT is(dynamodb('GetItem', '{"TableName": "vchk", "Key": {"id": {"S": "w6"}}, "ReturnConsumedCapacity": "TOTAL"}') -> 'ConsumedCapacity' -> 'VectorIndexes',
	NULL, 'a read after a write reports no vector writes');

-- the upkeep's numbers against real's: many decimals, each pair's two
SELECT setseed(0.5);
CREATE TEMP TABLE nums AS
SELECT g, CASE g % 6 WHEN 0 THEN round(random()::numeric, (g % 17))::text
					 WHEN 1 THEN (random() * 1000 - 500)::numeric(20, 9)::text
					 WHEN 2 THEN to_char(random() * 10, '9.999999999EEEE')
					 WHEN 3 THEN ((random() - 0.5) * 1e-20)::text
					 WHEN 4 THEN (g::bigint * 1000003)::text || '.' || (g % 97)::text
					 ELSE (random() * 1e30)::text END AS a,
	   CASE g % 3 WHEN 0 THEN '0.1' WHEN 1 THEN '-7.00000011920928955078125' ELSE '3.4e38' END AS b
  FROM generate_series(1, 3000) g;
SELECT is((SELECT count(*) FROM nums n, vector_index_entry('vchk', 'vchk-idx',
		jsonb_build_object('emb', jsonb_build_object('L', jsonb_build_array(
			jsonb_build_object('N', trim(n.a)), jsonb_build_object('N', n.b))))) e
	WHERE e.embedding = ARRAY[trim(n.a)::real, n.b::real]), 3000::bigint,
	'3,000 vectors: every number the real PostgreSQL reads from it');
SELECT is((SELECT e.embedding FROM vector_index_entry('vchk', 'vchk-idx',
		'{"emb": {"L": [{"N": "1e-40"}, {"N": "-0"}]}}') e), '{0,0}'::real[],
	'a magnitude below a float''s smallest normal is 0');

SELECT * FROM finish();
ROLLBACK;
\else
SELECT plan(1);
SELECT skip('pgvector is not installed (build it from the vendored source, or install postgresql-NN-pgvector): vector index tests skipped', 1);
\endif
