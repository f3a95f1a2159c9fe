-- Example "letters and toys" (examples/letters_toys.sql): the same data,
-- and the exact response of every access pattern.
SET search_path = item_table, public;

CREATE FUNCTION pg_temp.try(action text, request jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	st text;
	msg text;
	det text;
BEGIN
	RETURN item_table.dynamodb(action, request)::text;
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL;
	RETURN st || ' ' || msg ||
		CASE WHEN det LIKE '%CancellationReasons%' THEN E'\n  reasons: ' || (det::jsonb->'CancellationReasons')::text ELSE '' END;
END $$;

\i examples/letters_toys.data.sql

SELECT ikey, key, item FROM item_data."LettersToys#GSI1" ORDER BY ikey, key;

-- 1. all toys
SELECT query('{"TableName": "LettersToys",
	"KeyConditionExpression": "PK = :t",
	"ExpressionAttributeValues": {":t": {"S": "TOY"}}}');

-- 2. one toy
SELECT get_item('{"TableName": "LettersToys", "Key": {"PK": {"S": "TOY"}, "SK": {"S": "TOY#0003"}}}');
SELECT get_item('{"TableName": "LettersToys", "Key": {"PK": {"S": "TOY"}, "SK": {"S": "TOY#0099"}}}');

-- 3. all letters with their toys
SELECT query('{"TableName": "LettersToys",
	"KeyConditionExpression": "PK = :l",
	"ExpressionAttributeValues": {":l": {"S": "LETTER"}},
	"ProjectionExpression": "SK, ChildName, ToyName, Quantity"}');

-- 4. one letter with its toys (fixed-width ids: LETTER#0002 is no other letter's prefix)
SELECT query('{"TableName": "LettersToys",
	"KeyConditionExpression": "PK = :l AND begins_with(SK, :id)",
	"ExpressionAttributeValues": {":l": {"S": "LETTER"}, ":id": {"S": "LETTER#0002"}}}');

-- 5. create a letter: prices read first, then the transaction checks them
SELECT batch_get_item('{"RequestItems": {"LettersToys": {
	"Keys": [{"PK": {"S": "TOY"}, "SK": {"S": "TOY#0003"}}, {"PK": {"S": "TOY"}, "SK": {"S": "TOY#0005"}}],
	"ProjectionExpression": "SK, Price"}}}')->'Responses'->'LettersToys' @> '[{"SK": {"S": "TOY#0003"}, "Price": {"N": "9.99"}}, {"SK": {"S": "TOY#0005"}, "Price": {"N": "34"}}]' AS prices_as_expected;
-- a stale price cancels everything: nothing of letter 0003 is written
SELECT pg_temp.try('TransactWriteItems', '{"TransactItems": [
	{"Put": {"TableName": "LettersToys", "ConditionExpression": "attribute_not_exists(PK)",
	         "Item": {"PK": {"S": "LETTER"}, "SK": {"S": "LETTER#0003"}, "ChildName": {"S": "Mia"}, "City": {"S": "Gdansk"}, "ReceivedOn": {"S": "2024-11-09"}}}},
	{"Put": {"TableName": "LettersToys", "ConditionExpression": "attribute_not_exists(PK)",
	         "Item": {"PK": {"S": "LETTER"}, "SK": {"S": "LETTER#0003#TOY#0003"}, "STRING1": {"S": "TOY#0003"}, "ToyName": {"S": "Jigsaw puzzle"}, "Quantity": {"N": "3"}, "PriceAtReceipt": {"N": "8.99"}}}},
	{"ConditionCheck": {"TableName": "LettersToys", "Key": {"PK": {"S": "TOY"}, "SK": {"S": "TOY#0003"}},
	                    "ConditionExpression": "Price = :p", "ExpressionAttributeValues": {":p": {"N": "8.99"}}}}]}');
SELECT count(*) AS letter_0003_items FROM item_data."LettersToys" WHERE key ^@ 'S"LETTER"|S"LETTER#0003"';
SELECT transact_write_items('{"TransactItems": [
	{"Put": {"TableName": "LettersToys", "ConditionExpression": "attribute_not_exists(PK)",
	         "Item": {"PK": {"S": "LETTER"}, "SK": {"S": "LETTER#0003"}, "ChildName": {"S": "Mia"}, "City": {"S": "Gdansk"}, "ReceivedOn": {"S": "2024-11-09"}}}},
	{"Put": {"TableName": "LettersToys", "ConditionExpression": "attribute_not_exists(PK)",
	         "Item": {"PK": {"S": "LETTER"}, "SK": {"S": "LETTER#0003#TOY#0003"}, "STRING1": {"S": "TOY#0003"}, "ToyName": {"S": "Jigsaw puzzle"}, "Quantity": {"N": "3"}, "PriceAtReceipt": {"N": "9.99"}}}},
	{"Put": {"TableName": "LettersToys", "ConditionExpression": "attribute_not_exists(PK)",
	         "Item": {"PK": {"S": "LETTER"}, "SK": {"S": "LETTER#0003#TOY#0005"}, "STRING1": {"S": "TOY#0005"}, "ToyName": {"S": "Chemistry set"}, "Quantity": {"N": "1"}, "PriceAtReceipt": {"N": "34"}}}},
	{"ConditionCheck": {"TableName": "LettersToys", "Key": {"PK": {"S": "TOY"}, "SK": {"S": "TOY#0003"}},
	                    "ConditionExpression": "Price = :p", "ExpressionAttributeValues": {":p": {"N": "9.99"}}}},
	{"ConditionCheck": {"TableName": "LettersToys", "Key": {"PK": {"S": "TOY"}, "SK": {"S": "TOY#0005"}},
	                    "ConditionExpression": "Price = :p", "ExpressionAttributeValues": {":p": {"N": "34"}}}}]}');
SELECT query('{"TableName": "LettersToys",
	"KeyConditionExpression": "PK = :l AND begins_with(SK, :id)",
	"ExpressionAttributeValues": {":l": {"S": "LETTER"}, ":id": {"S": "LETTER#0003"}}}');
-- the same letter id again is refused
SELECT pg_temp.try('TransactWriteItems', '{"TransactItems": [
	{"Put": {"TableName": "LettersToys", "ConditionExpression": "attribute_not_exists(PK)",
	         "Item": {"PK": {"S": "LETTER"}, "SK": {"S": "LETTER#0003"}, "ChildName": {"S": "Leo"}, "City": {"S": "Turin"}, "ReceivedOn": {"S": "2024-11-10"}}}}]}');

-- 6. create a toy, and the same id again
SELECT transact_write_items('{"TransactItems": [
	{"Put": {"TableName": "LettersToys", "ConditionExpression": "attribute_not_exists(PK)",
	         "Item": {"PK": {"S": "TOY"}, "SK": {"S": "TOY#0006"}, "ToyName": {"S": "Drum"}, "Price": {"N": "15"}}}}]}');
SELECT pg_temp.try('TransactWriteItems', '{"TransactItems": [
	{"Put": {"TableName": "LettersToys", "ConditionExpression": "attribute_not_exists(PK)",
	         "Item": {"PK": {"S": "TOY"}, "SK": {"S": "TOY#0006"}, "ToyName": {"S": "Xylophone"}, "Price": {"N": "21"}}}}]}');
SELECT query('{"TableName": "LettersToys",
	"KeyConditionExpression": "PK = :t",
	"ExpressionAttributeValues": {":t": {"S": "TOY"}},
	"ProjectionExpression": "SK, ToyName, Price"}');

-- prices change
SELECT update_item('{"TableName": "LettersToys", "Key": {"PK": {"S": "TOY"}, "SK": {"S": "TOY#0003"}},
	"UpdateExpression": "SET Price = :p", "ExpressionAttributeValues": {":p": {"N": "11.49"}},
	"ReturnValues": "UPDATED_NEW"}');
SELECT update_item('{"TableName": "LettersToys", "Key": {"PK": {"S": "TOY"}, "SK": {"S": "TOY#0002"}},
	"UpdateExpression": "SET Price = :p", "ExpressionAttributeValues": {":p": {"N": "13"}},
	"ReturnValues": "UPDATED_NEW"}');

-- 7. for one toy, every letter asking for it, and the total quantity
SELECT query('{"TableName": "LettersToys", "IndexName": "GSI1",
	"KeyConditionExpression": "STRING1 = :toy",
	"ExpressionAttributeValues": {":toy": {"S": "TOY#0003"}}}');
SELECT t.toy, jsonb_agg(split_part(i->'SK'->>'S', '#TOY#', 1) ORDER BY n) AS letters,
	   sum((i->'Quantity'->>'N')::numeric) AS total_quantity
FROM (VALUES ('TOY#0001'), ('TOY#0002'), ('TOY#0003'), ('TOY#0004'), ('TOY#0005')) AS t(toy),
	 jsonb_array_elements(query(jsonb_build_object('TableName', 'LettersToys', 'IndexName', 'GSI1',
		'KeyConditionExpression', 'STRING1 = :toy',
		'ExpressionAttributeValues', jsonb_build_object(':toy', jsonb_build_object('S', t.toy))))->'Items') WITH ORDINALITY AS a(i, n)
GROUP BY t.toy ORDER BY t.toy;
-- a toy nobody asked for
SELECT query('{"TableName": "LettersToys", "IndexName": "GSI1",
	"KeyConditionExpression": "STRING1 = :toy",
	"ExpressionAttributeValues": {":toy": {"S": "TOY#0006"}}}');

-- 8. a letter with current toy prices
WITH letter AS (
	SELECT i
	FROM jsonb_array_elements(query('{"TableName": "LettersToys",
		"KeyConditionExpression": "PK = :l AND begins_with(SK, :id)",
		"ExpressionAttributeValues": {":l": {"S": "LETTER"}, ":id": {"S": "LETTER#0001"}}}')->'Items') AS a(i)
	WHERE i ? 'STRING1'
), toys AS (
	SELECT t
	FROM jsonb_array_elements(batch_get_item(jsonb_build_object('RequestItems', jsonb_build_object('LettersToys', jsonb_build_object(
		'Keys', (SELECT jsonb_agg(jsonb_build_object('PK', '{"S": "TOY"}'::jsonb, 'SK', i->'STRING1')) FROM letter),
		'ProjectionExpression', 'SK, Price')))
	)->'Responses'->'LettersToys') AS b(t)
)
SELECT l.i->'ToyName'->>'S' AS toy,
	   (l.i->'Quantity'->>'N')::numeric AS quantity,
	   (l.i->'PriceAtReceipt'->>'N')::numeric AS price_at_receipt,
	   (t.t->'Price'->>'N')::numeric AS current_price,
	   (l.i->'Quantity'->>'N')::numeric * (t.t->'Price'->>'N')::numeric AS amount
FROM letter l JOIN toys t ON t.t->'SK' = l.i->'STRING1'
ORDER BY l.i->'SK'->>'S';

-- 9. the letter's history snapshot, as one JSON document
SELECT jsonb_build_object(
	'letter', split_part(min(i->'SK'->>'S'), '#', 2),
	'child', min(i->'ChildName'->>'S'),
	'city', min(i->'City'->>'S'),
	'receivedOn', min(i->'ReceivedOn'->>'S'),
	'toys', jsonb_agg(jsonb_build_object(
				'toy', i->'STRING1'->>'S',
				'name', i->'ToyName'->>'S',
				'quantity', (i->'Quantity'->>'N')::numeric,
				'priceAtReceipt', (i->'PriceAtReceipt'->>'N')::numeric) ORDER BY n) FILTER (WHERE i ? 'STRING1'),
	'totalAtReceipt', sum((i->'Quantity'->>'N')::numeric * (i->'PriceAtReceipt'->>'N')::numeric)) AS snapshot
FROM jsonb_array_elements(query('{"TableName": "LettersToys",
	"KeyConditionExpression": "PK = :l AND begins_with(SK, :id)",
	"ExpressionAttributeValues": {":l": {"S": "LETTER"}, ":id": {"S": "LETTER#0001"}}}')->'Items') WITH ORDINALITY AS a(i, n);

-- the snapshot did not move with the prices; letter 0003 holds the prices of its day
SELECT split_part(item->'SK'->>'S', '#', 2) AS letter, item->'STRING1'->>'S' AS toy,
	   item->'PriceAtReceipt'->>'N' AS price_at_receipt
FROM item_data."LettersToys" WHERE key ^@ 'S"LETTER"'::item_key AND item ? 'STRING1' ORDER BY key;

-- the same data with SQL: demand per toy
SELECT t.item->'ToyName'->>'S' AS toy,
	   coalesce(sum((r.item->'Quantity'->>'N')::numeric), 0) AS quantity,
	   (t.item->'Price'->>'N')::numeric AS price,
	   coalesce(sum((r.item->'Quantity'->>'N')::numeric), 0) * (t.item->'Price'->>'N')::numeric AS budget
FROM item_data."LettersToys" t
LEFT JOIN item_data."LettersToys" r
	   ON r.key ^@ 'S"LETTER"'::item_key AND r.item->'STRING1' = t.item->'SK'
WHERE t.key ^@ 'S"TOY"'::item_key
GROUP BY t.key, t.item
ORDER BY t.key;

SELECT * FROM verify('LettersToys');
SELECT delete_table('{"TableName": "LettersToys"}')->'TableDescription'->>'TableStatus' AS status;
