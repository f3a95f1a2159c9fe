-- BatchExecuteStatement (each statement on its own: an Error entry for a
-- failing one, the others take effect) and ExecuteTransaction (all or
-- nothing: TransactGetItems or TransactWriteItems, DuplicateItem and
-- ConditionalCheckFailed cancellation reasons, ClientRequestToken).
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
	RETURN st || ' ' || msg || CASE WHEN det LIKE '%"CancellationReasons"%' THEN E'\n  body: ' || det ELSE '' END;
END $$;
-- the items of the table, by key
CREATE FUNCTION pg_temp.items() RETURNS SETOF text LANGUAGE sql AS $$
	SELECT i::text FROM jsonb_array_elements(item_table.scan('{"TableName": "pq_batch", "ConsistentRead": true}') -> 'Items') AS i
	ORDER BY i -> 'id' ->> 'S'
$$;

SELECT create_table('{"TableName": "pq_batch", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}') IS NOT NULL AS created;

-- ---------------------------------------------------------------- BatchExecuteStatement
SELECT pg_temp.try('BatchExecuteStatement', '{"Statements": [
	{"Statement": "INSERT INTO pq_batch VALUE {''id'': ''a'', ''n'': 1}"},
	{"Statement": "INSERT INTO pq_batch VALUE {''id'': ?, ''n'': ?}", "Parameters": [{"S": "b"}, {"N": "2"}]},
	{"Statement": "INSERT INTO pq_batch VALUE {''id'': ''c'', ''n'': 3}"}], "ReturnConsumedCapacity": "TOTAL"}');
-- one of each failure; the other statements take effect
SELECT pg_temp.try('BatchExecuteStatement', '{"Statements": [
	{"Statement": "INSERT INTO pq_batch VALUE {''id'': ''a'', ''n'': 100}"},
	{"Statement": "UPDATE pq_batch SET n = n + 10 WHERE id = ''b''"},
	{"Statement": "UPDATE pq_batch SET n = 0 WHERE id = ''c'' AND n > 5", "ReturnValuesOnConditionCheckFailure": "ALL_OLD"},
	{"Statement": "UPDATE pq_batch SET n = 0 WHERE id = ''zz''"},
	{"Statement": "DELETE FROM pq_batch WHERE id = ''a''"},
	{"Statement": "INSERT INTO pq_batch VALUE {''id'': ''d''"},
	{"Statement": "INSERT INTO pq_batch VALUE {''id'': ?}"},
	{"Statement": "INSERT INTO pq_missing VALUE {''id'': ''x''}"},
	{"Statement": "UPDATE pq_batch SET n = 1 WHERE n = 1"}]}');
SELECT pg_temp.items();
-- reads: one GetItem each, the whole key and nothing else
SELECT pg_temp.try('BatchExecuteStatement', '{"Statements": [
	{"Statement": "SELECT * FROM pq_batch WHERE id = ''b''"},
	{"Statement": "SELECT n FROM pq_batch WHERE id = ?", "Parameters": [{"S": "c"}], "ConsistentRead": true},
	{"Statement": "SELECT * FROM pq_batch WHERE id = ''nothing''"},
	{"Statement": "SELECT * FROM pq_batch WHERE n = 3"},
	{"Statement": "SELECT * FROM pq_batch WHERE id = ''b'' AND n = 12"}]}');
-- reads and writes are not mixed; sizes
SELECT pg_temp.try('BatchExecuteStatement', '{"Statements": [
	{"Statement": "SELECT * FROM pq_batch WHERE id = ''b''"},
	{"Statement": "DELETE FROM pq_batch WHERE id = ''b''"}]}');
SELECT pg_temp.try('BatchExecuteStatement', '{"Statements": []}');
SELECT pg_temp.try('BatchExecuteStatement', '{}');
SELECT pg_temp.try('BatchExecuteStatement', jsonb_build_object('Statements',
	(SELECT jsonb_agg(jsonb_build_object('Statement', format('DELETE FROM pq_batch WHERE id = ''%s''', i))) FROM generate_series(1, 26) AS i)));
SELECT pg_temp.try('BatchExecuteStatement', '{"Statements": [{"Parameters": []}]}');

-- ---------------------------------------------------------------- ExecuteTransaction
-- writes: all or nothing
SELECT pg_temp.try('ExecuteTransaction', '{"TransactStatements": [
	{"Statement": "INSERT INTO pq_batch VALUE {''id'': ''t1'', ''n'': 1}"},
	{"Statement": "UPDATE pq_batch SET n = n + 1 WHERE id = ''b''"},
	{"Statement": "EXISTS(SELECT * FROM pq_batch WHERE id = ''c'' AND n = 3)"}], "ReturnConsumedCapacity": "TOTAL"}');
SELECT pg_temp.try('ExecuteTransaction', '{"TransactStatements": [
	{"Statement": "DELETE FROM pq_batch WHERE id = ''c''"}]}');
SELECT pg_temp.items();
-- an INSERT of an existing key cancels with DuplicateItem; a false condition with ConditionalCheckFailed
SELECT pg_temp.try('ExecuteTransaction', '{"TransactStatements": [
	{"Statement": "INSERT INTO pq_batch VALUE {''id'': ''t2''}"},
	{"Statement": "INSERT INTO pq_batch VALUE {''id'': ''t1''}"},
	{"Statement": "UPDATE pq_batch SET n = 0 WHERE id = ''b''"}]}');
SELECT pg_temp.try('ExecuteTransaction', '{"TransactStatements": [
	{"Statement": "INSERT INTO pq_batch VALUE {''id'': ''t2''}"},
	{"Statement": "EXISTS(SELECT * FROM pq_batch WHERE id = ''b'' AND n > 100)", "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}]}');
SELECT pg_temp.try('ExecuteTransaction', '{"TransactStatements": [
	{"Statement": "UPDATE pq_batch SET n = 0 WHERE id = ''gone''"}]}');
SELECT pg_temp.items();
-- ClientRequestToken: the same request again is not run again
SELECT pg_temp.try('ExecuteTransaction', '{"ClientRequestToken": "pq-token-1", "TransactStatements": [
	{"Statement": "UPDATE pq_batch SET n = n + 1 WHERE id = ''t1''"}]}');
SELECT pg_temp.try('ExecuteTransaction', '{"ClientRequestToken": "pq-token-1", "TransactStatements": [
	{"Statement": "UPDATE pq_batch SET n = n + 1 WHERE id = ''t1''"}]}');
SELECT pg_temp.try('ExecuteTransaction', '{"ClientRequestToken": "pq-token-1", "TransactStatements": [
	{"Statement": "UPDATE pq_batch SET n = n + 2 WHERE id = ''t1''"}]}');
SELECT pg_temp.items();
-- reads: TransactGetItems
SELECT pg_temp.try('ExecuteTransaction', '{"TransactStatements": [
	{"Statement": "SELECT * FROM pq_batch WHERE id = ''t1''"},
	{"Statement": "SELECT n FROM pq_batch WHERE id = ?", "Parameters": [{"S": "b"}]},
	{"Statement": "SELECT * FROM pq_batch WHERE id = ''none''"}]}');
-- refusals
SELECT pg_temp.try('ExecuteTransaction', '{"TransactStatements": [
	{"Statement": "SELECT * FROM pq_batch WHERE id = ''t1''"},
	{"Statement": "DELETE FROM pq_batch WHERE id = ''t1''"}]}');
SELECT pg_temp.try('ExecuteTransaction', '{"TransactStatements": [
	{"Statement": "DELETE FROM pq_batch WHERE id = ''t1'' RETURNING ALL OLD *"}]}');
SELECT pg_temp.try('ExecuteTransaction', '{"TransactStatements": [
	{"Statement": "DELETE FROM pq_batch WHERE id = ''t1''"},
	{"Statement": "UPDATE pq_batch SET n = 1 WHERE id = ''t1''"}]}');
SELECT pg_temp.try('ExecuteTransaction', '{"TransactStatements": [
	{"Statement": "DELETE FROM pq_missing WHERE id = ''t1''"}]}');
SELECT pg_temp.try('ExecuteTransaction', '{"TransactStatements": [
	{"Statement": "DELETE FROM pq_batch WHERE id = ''t1''"},
	{"Statement": "DELETE pq_batch WHERE id = ''b''"}]}');
SELECT pg_temp.try('ExecuteTransaction', '{"TransactStatements": [
	{"Statement": "SELECT * FROM pq_batch WHERE n = 1"}]}');
SELECT pg_temp.try('ExecuteTransaction', '{"TransactStatements": []}');
SELECT pg_temp.try('ExecuteTransaction', jsonb_build_object('TransactStatements',
	(SELECT jsonb_agg(jsonb_build_object('Statement', format('DELETE FROM pq_batch WHERE id = ''%s''', i))) FROM generate_series(1, 101) AS i)));
SELECT pg_temp.items();
