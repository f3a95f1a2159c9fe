-- PartiQL writes through ExecuteStatement: INSERT (PutItem with
-- attribute_not_exists, DuplicateItemException), UPDATE (UpdateItem of an
-- existing item: SET, REMOVE, arithmetic, list_append, set_add/set_delete,
-- RETURNING), DELETE (DeleteItem, RETURNING ALL OLD), conditions, and each
-- statement's effect read back with GetItem.
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
	RETURN st || ' ' || msg || CASE WHEN det LIKE '%"Item"%' THEN E'\n  body: ' || det ELSE '' END;
END $$;
CREATE FUNCTION pg_temp.pq(statement text) RETURNS text LANGUAGE sql AS $$
	SELECT pg_temp.try('ExecuteStatement', jsonb_build_object('Statement', statement))
$$;
CREATE FUNCTION pg_temp.item(pk text, sk numeric) RETURNS jsonb LANGUAGE sql AS $$
	SELECT item_table.get_item(jsonb_build_object('TableName', 'pq_orders', 'ConsistentRead', true,
		'Key', jsonb_build_object('pk', jsonb_build_object('S', pk), 'sk', jsonb_build_object('N', sk::text))))
$$;

SELECT create_table('{"TableName": "pq_orders", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]}') IS NOT NULL AS created;

-- ---------------------------------------------------------------- INSERT
SELECT pg_temp.pq($$INSERT INTO "pq_orders" VALUE {'pk': 'o1', 'sk': 1, 'qty': 2, 'price': 9.50,
	'tags': <<'new', 'gift'>>, 'sizes': <<3, 1, 2>>, 'lines': [{'sku': 'a', 'n': 1}, {'sku': 'b', 'n': 2}],
	'paid': FALSE, 'note': NULL, 'quote': 'it''s'}$$);
SELECT pg_temp.item('o1', 1);
SELECT pg_temp.try('ExecuteStatement', '{"Statement": "INSERT INTO pq_orders VALUE {''pk'': ?, ''sk'': ?, ''blob'': ?, ''bs'': <<?>>}",
	"Parameters": [{"S": "o2"}, {"N": "1"}, {"B": "AAEC"}, {"B": "AQ=="}], "ReturnConsumedCapacity": "TOTAL"}');
SELECT pg_temp.item('o2', 1);
SELECT pg_temp.try('ExecuteStatement', '{"Statement": "INSERT INTO pq_orders VALUE ?",
	"Parameters": [{"M": {"pk": {"S": "o3"}, "sk": {"N": "1"}, "via": {"S": "parameter"}}}]}');
SELECT pg_temp.item('o3', 1);
-- the key exists: DuplicateItemException, nothing changes
SELECT pg_temp.pq($$INSERT INTO pq_orders VALUE {'pk': 'o1', 'sk': 1, 'qty': 100}$$);
SELECT pg_temp.item('o1', 1) -> 'Item' -> 'qty' AS qty_unchanged;
-- what PutItem refuses, INSERT refuses with the same message
SELECT pg_temp.pq($$INSERT INTO pq_orders VALUE {'pk': 'o9', 'qty': 1}$$);
SELECT pg_temp.pq($$INSERT INTO pq_orders VALUE {'pk': 'o9', 'sk': 'one'}$$);
SELECT pg_temp.pq($$INSERT INTO pq_orders VALUE {'pk': 'o9', 'sk': 1, 'n': 1e200}$$);
SELECT pg_temp.pq($$INSERT INTO pq_orders VALUE [1, 2]$$);
SELECT pg_temp.pq($$INSERT INTO pq_orders VALUE {'pk': 'o9', 'sk': 1} IF NOT EXISTS$$);
SELECT pg_temp.pq($$INSERT INTO pq_orders VALUE {pk: 'o9'}$$);
SELECT pg_temp.pq($$INSERT INTO missing_table VALUE {'pk': 'o9'}$$);

-- ---------------------------------------------------------------- UPDATE
SELECT pg_temp.pq($$UPDATE pq_orders SET qty = qty + 3 SET paid = TRUE REMOVE note WHERE pk = 'o1' AND sk = 1$$);
SELECT pg_temp.item('o1', 1);
SELECT pg_temp.pq($$UPDATE pq_orders SET lines = list_append(lines, [{'sku': 'c', 'n': 3}]),
	tags = set_add(tags, <<'vip'>>), sizes = set_delete(sizes, <<1, 2>>) WHERE pk = 'o1' AND sk = 1 RETURNING MODIFIED NEW *$$);
SELECT pg_temp.pq($$UPDATE pq_orders SET lines[0].n = 10 WHERE pk = 'o1' AND sk = 1 RETURNING MODIFIED NEW *$$);
-- what UpdateItem refuses, UPDATE refuses with its message (overlapping paths)
SELECT pg_temp.pq($$UPDATE pq_orders SET lines = list_append(lines, [1]), lines[0].n = 10 WHERE pk = 'o1' AND sk = 1$$);
SELECT pg_temp.pq($$UPDATE pq_orders SET price = price - 0.5, first = if_not_exists(first, 'yes') WHERE pk = 'o1' AND sk = 1 RETURNING ALL OLD *$$);
SELECT pg_temp.pq($$UPDATE pq_orders SET qty = 0 WHERE pk = 'o1' AND sk = 1 RETURNING MODIFIED OLD *$$);
SELECT pg_temp.try('ExecuteStatement', '{"Statement": "UPDATE pq_orders SET qty = ? WHERE pk = ? AND sk = ? RETURNING ALL NEW *",
	"Parameters": [{"N": "7"}, {"S": "o3"}, {"N": "1"}]}');
-- a condition beside the key: ConditionalCheckFailedException when false
SELECT pg_temp.pq($$UPDATE pq_orders SET qty = 1 WHERE pk = 'o1' AND sk = 1 AND qty > 5$$);
SELECT pg_temp.try('ExecuteStatement', '{"Statement": "UPDATE pq_orders SET qty = 1 WHERE pk = ''o1'' AND sk = 1 AND (paid = FALSE OR qty > 5)",
	"ReturnValuesOnConditionCheckFailure": "ALL_OLD"}');
SELECT pg_temp.pq($$UPDATE pq_orders SET qty = 1 WHERE pk = 'o1' AND sk = 1 AND qty = 0 AND paid = TRUE$$);
SELECT pg_temp.item('o1', 1) -> 'Item' -> 'qty' AS qty_now_1;
-- UPDATE never creates an item
SELECT pg_temp.pq($$UPDATE pq_orders SET qty = 1 WHERE pk = 'nobody' AND sk = 1$$);
SELECT pg_temp.item('nobody', 1);
-- the whole key is required, and keys cannot be updated
SELECT pg_temp.pq($$UPDATE pq_orders SET qty = 1 WHERE pk = 'o1'$$);
SELECT pg_temp.pq($$UPDATE pq_orders SET qty = 1 WHERE pk = 'o1' OR sk = 1$$);
SELECT pg_temp.pq($$UPDATE pq_orders SET qty = 1 WHERE pk = 'o1' AND sk > 0$$);
SELECT pg_temp.pq($$UPDATE pq_orders SET sk = 2 WHERE pk = 'o1' AND sk = 1$$);
SELECT pg_temp.pq($$UPDATE pq_orders SET tags = set_add(other, <<'x'>>) WHERE pk = 'o1' AND sk = 1$$);
SELECT pg_temp.pq($$UPDATE pq_orders SET qty = 1$$);
SELECT pg_temp.pq($$UPDATE pq_orders WHERE pk = 'o1' AND sk = 1$$);
SELECT pg_temp.pq($$UPDATE pq_orders SET qty = qty + 'x' WHERE pk = 'o1' AND sk = 1$$);

-- ---------------------------------------------------------------- DELETE
SELECT pg_temp.pq($$DELETE FROM pq_orders WHERE pk = 'o3' AND sk = 1 AND via = 'other'$$);
SELECT pg_temp.pq($$DELETE FROM pq_orders WHERE pk = 'o3' AND sk = 1 AND via = 'parameter' RETURNING ALL OLD *$$);
SELECT pg_temp.item('o3', 1);
-- a missing item is not an error
SELECT pg_temp.pq($$DELETE FROM pq_orders WHERE pk = 'o3' AND sk = 1$$);
SELECT pg_temp.pq($$DELETE FROM pq_orders WHERE pk = 'o3' AND sk = 1 RETURNING ALL OLD *$$);
SELECT pg_temp.pq($$DELETE FROM pq_orders WHERE pk = 'o2' AND sk = 1 RETURNING ALL NEW *$$);
SELECT pg_temp.pq($$DELETE FROM pq_orders WHERE sk = 1$$);
SELECT pg_temp.pq($$DELETE FROM pq_orders$$);
SELECT pg_temp.try('ExecuteStatement', '{"Statement": "DELETE FROM pq_orders WHERE pk = ''o2'' AND sk = 1", "ReturnConsumedCapacity": "TOTAL"}');
SELECT pg_temp.item('o2', 1);

-- everything left, through a Scan statement
SELECT pg_temp.pq($$SELECT pk, sk FROM pq_orders$$);
