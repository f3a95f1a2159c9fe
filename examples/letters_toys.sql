-- Letters and toys: an inverted index over a one-to-many relationship,
-- and history kept by copying prices at the time of writing.
--
-- Children write letters asking for toys.  The entity category is the
-- partition key, the sort key holds the id and the kind of row:
--
--   item                      PK       SK                        attributes
--   toy                       TOY      TOY#<toy>                 ToyName, Price
--   letter (summary row)      LETTER   LETTER#<letter>           ChildName, City, ReceivedOn
--   toy asked for in a letter LETTER   LETTER#<letter>#TOY#<toy> ToyName, Quantity,
--                                                                PriceAtReceipt, STRING1 = TOY#<toy>
--
-- Ids are fixed-width, so LETTER#0001 is followed by its own toy rows and
-- begins_with(SK, 'LETTER#0001') reads exactly one letter.  The toy rows
-- carry STRING1 = TOY#<toy>; the GSI "GSI1" (partition STRING1, sort SK)
-- inverts the relationship: one Query on it lists every letter asking for a
-- toy.  Toy and letter items have no STRING1, so GSI1 holds only toy rows
-- (a sparse index).  PriceAtReceipt is the toy's price when the letter was
-- received, written by the same transaction that writes the letter: that is
-- the letter's history snapshot, while the TOY items hold current prices.
--
-- Run with:  psql -X -v ON_ERROR_STOP=1 -f examples/letters_toys.sql
-- in a database where CREATE EXTENSION item_table was run.

SET search_path = item_table, public;
\pset footer off

-- Display helpers: DynamoDB JSON as plain JSON, Query Items as rows
\ir display.sql

\echo '== The table, with the inverted index GSI1 (STRING1, SK)'
\ir letters_toys.data.sql

\echo
\echo '== 1. All toys: the TOY partition'
SELECT item FROM pg_temp.items(query('{"TableName": "LettersToys",
	"KeyConditionExpression": "PK = :t",
	"ExpressionAttributeValues": {":t": {"S": "TOY"}}}'));

\echo
\echo '== 2. One toy: GetItem'
SELECT get_item('{"TableName": "LettersToys", "Key": {"PK": {"S": "TOY"}, "SK": {"S": "TOY#0003"}}}') AS response;

\echo
\echo '== 3. All letters with their toys: the LETTER partition, each summary followed by its toy rows'
SELECT item FROM pg_temp.items(query('{"TableName": "LettersToys",
	"KeyConditionExpression": "PK = :l",
	"ExpressionAttributeValues": {":l": {"S": "LETTER"}},
	"ProjectionExpression": "SK, ChildName, ToyName, Quantity"}'));

\echo
\echo '== 4. One letter with its toys: begins_with(SK, LETTER#0002)'
SELECT item FROM pg_temp.items(query('{"TableName": "LettersToys",
	"KeyConditionExpression": "PK = :l AND begins_with(SK, :id)",
	"ExpressionAttributeValues": {":l": {"S": "LETTER"}, ":id": {"S": "LETTER#0002"}}}'));

\echo
\echo '== 5. Create a letter: read the prices, then write the summary and the toy rows'
\echo '   in one transaction, guarded by ConditionChecks that the prices have not changed'
SELECT t->'SK'->>'S' AS toy, t->'Price'->>'N' AS price
FROM jsonb_array_elements(batch_get_item('{"RequestItems": {"LettersToys": {
	"Keys": [{"PK": {"S": "TOY"}, "SK": {"S": "TOY#0003"}}, {"PK": {"S": "TOY"}, "SK": {"S": "TOY#0005"}}],
	"ProjectionExpression": "SK, Price"}}}')->'Responses'->'LettersToys') AS r(t)
ORDER BY 1;
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
	                    "ConditionExpression": "Price = :p", "ExpressionAttributeValues": {":p": {"N": "34"}}}}]}') AS response;

\echo
\echo '== 6. Create a toy: a Put guarded by attribute_not_exists'
SELECT transact_write_items('{"TransactItems": [
	{"Put": {"TableName": "LettersToys", "ConditionExpression": "attribute_not_exists(PK)",
	         "Item": {"PK": {"S": "TOY"}, "SK": {"S": "TOY#0006"}, "ToyName": {"S": "Drum"}, "Price": {"N": "15"}}}}]}') AS response;
\echo '   ... the same id again is refused'
DO $$
BEGIN
	PERFORM item_table.transact_write_items('{"TransactItems": [
		{"Put": {"TableName": "LettersToys", "ConditionExpression": "attribute_not_exists(PK)",
		         "Item": {"PK": {"S": "TOY"}, "SK": {"S": "TOY#0006"}, "ToyName": {"S": "Xylophone"}, "Price": {"N": "21"}}}}]}');
EXCEPTION WHEN others THEN
	RAISE NOTICE '%', SQLERRM;
END $$;

\echo
\echo '== Time passes: the jigsaw puzzle and the kite get dearer'
SELECT update_item('{"TableName": "LettersToys", "Key": {"PK": {"S": "TOY"}, "SK": {"S": "TOY#0003"}},
	"UpdateExpression": "SET Price = :p", "ExpressionAttributeValues": {":p": {"N": "11.49"}},
	"ReturnValues": "UPDATED_NEW"}') AS response;
SELECT update_item('{"TableName": "LettersToys", "Key": {"PK": {"S": "TOY"}, "SK": {"S": "TOY#0002"}},
	"UpdateExpression": "SET Price = :p", "ExpressionAttributeValues": {":p": {"N": "13"}},
	"ReturnValues": "UPDATED_NEW"}') AS response;

\echo
\echo '== 7. For one toy, every letter asking for it and the total quantity: one Query on GSI1'
SELECT item FROM pg_temp.items(query('{"TableName": "LettersToys", "IndexName": "GSI1",
	"KeyConditionExpression": "STRING1 = :toy",
	"ExpressionAttributeValues": {":toy": {"S": "TOY#0003"}}}'));
SELECT jsonb_agg(split_part(i->'SK'->>'S', '#TOY#', 1) ORDER BY n) AS letters,
	   sum((i->'Quantity'->>'N')::numeric) AS total_quantity
FROM jsonb_array_elements(query('{"TableName": "LettersToys", "IndexName": "GSI1",
	"KeyConditionExpression": "STRING1 = :toy",
	"ExpressionAttributeValues": {":toy": {"S": "TOY#0003"}}}')->'Items') WITH ORDINALITY AS a(i, n);

\echo
\echo '== 8. A letter with current toy prices: the letter (one Query), then its toys (one BatchGetItem)'
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

\echo
\echo '== 9. The letter''s history snapshot as one JSON document: the letter and the prices as they were'
SELECT jsonb_pretty(jsonb_build_object(
	'letter', split_part(min(i->'SK'->>'S'), '#', 2),
	'child', min(i->'ChildName'->>'S'),
	'city', min(i->'City'->>'S'),
	'receivedOn', min(i->'ReceivedOn'->>'S'),
	'toys', jsonb_agg(jsonb_build_object(
				'toy', i->'STRING1'->>'S',
				'name', i->'ToyName'->>'S',
				'quantity', (i->'Quantity'->>'N')::numeric,
				'priceAtReceipt', (i->'PriceAtReceipt'->>'N')::numeric) ORDER BY n) FILTER (WHERE i ? 'STRING1'),
	'totalAtReceipt', sum((i->'Quantity'->>'N')::numeric * (i->'PriceAtReceipt'->>'N')::numeric))) AS snapshot
FROM jsonb_array_elements(query('{"TableName": "LettersToys",
	"KeyConditionExpression": "PK = :l AND begins_with(SK, :id)",
	"ExpressionAttributeValues": {":l": {"S": "LETTER"}, ":id": {"S": "LETTER#0001"}}}')->'Items') WITH ORDINALITY AS a(i, n)
\g (format=unaligned tuples_only=on)

\echo
\echo '== The same data with SQL: demand per toy over all letters, at current prices'
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

\echo '== verify(): GSI1 matches the table (no rows)'
SELECT * FROM verify('LettersToys');

SELECT delete_table('{"TableName": "LettersToys"}')->'TableDescription'->>'TableStatus' AS status;
