"""Batches of jobs on few PostgreSQL sessions: with --engine loop a
batch's jobs go out together, each in its own implicit transaction, and
their answers are read back one segment at a time.  Many concurrent
clients on one or two sessions mix successes, ConditionalCheckFailed,
ValidationException and items large enough to span several reads; every
answer must be the right one, and a job's error must not undo another
job of its batch."""
import threading

from conftest import client, make_table, need, new_key, unique

WAIT = 120
CLIENTS = 24
ROUNDS = 6
BIG = 300 * 1024


def _run(g, name, key):
    errors = []
    start = threading.Barrier(CLIENTS)

    def worker(i):
        c = client(g.url, *key, retries=0)
        try:
            start.wait(WAIT)
            for r in range(ROUNDS):
                pk = f"k{i}_{r}"
                # a new item: succeeds
                c.put_item(TableName=name, Item={"pk": {"S": pk}, "v": {"N": str(i * 100 + r)}},
                           ConditionExpression="attribute_not_exists(pk)")
                # the same item again: ConditionalCheckFailed, and the item is kept
                try:
                    c.put_item(TableName=name, Item={"pk": {"S": pk}, "v": {"N": "-1"}},
                               ConditionExpression="attribute_not_exists(pk)")
                    errors.append(f"{pk}: the second put succeeded")
                except c.exceptions.ConditionalCheckFailedException:
                    pass
                # a malformed expression: ValidationException
                try:
                    c.put_item(TableName=name, Item={"pk": {"S": pk + "x"}},
                               ConditionExpression="attribute_not_exists(")
                    errors.append(f"{pk}: a malformed expression was accepted")
                except c.exceptions.ClientError as e:
                    if e.response["Error"]["Code"] != "ValidationException":
                        errors.append(f"{pk}: {e.response['Error']['Code']}")
                got = c.get_item(TableName=name, Key={"pk": {"S": pk}}, ConsistentRead=True)
                if got.get("Item", {}).get("v") != {"N": str(i * 100 + r)}:
                    errors.append(f"{pk}: read {got.get('Item')}")
                if i % 8 == 0 and r % 3 == 0:
                    # an item whose answer spans several reads of the session
                    big = chr(ord("a") + i % 26) * BIG
                    c.put_item(TableName=name, Item={"pk": {"S": "big" + pk}, "b": {"S": big}})
                    got = c.get_item(TableName=name, Key={"pk": {"S": "big" + pk}},
                                     ConsistentRead=True)
                    if got.get("Item", {}).get("b") != {"S": big}:
                        errors.append(f"big{pk}: read back wrong")
        except Exception as e:          # noqa: BLE001 - reported below
            errors.append(f"client {i}: {e!r}")

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(CLIENTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(WAIT)
    assert not any(t.is_alive() for t in threads)
    assert errors == [], errors[:10]
    # every successful write is there, with its own value; no failed one is
    c = client(g.url, *key, retries=0)
    items = {}
    kw = {"TableName": name, "ConsistentRead": True}
    while True:
        page = c.scan(**kw)
        for it in page["Items"]:
            items[it["pk"]["S"]] = it
        if "LastEvaluatedKey" not in page:
            break
        kw["ExclusiveStartKey"] = page["LastEvaluatedKey"]
    small = {k: v for k, v in items.items() if not k.startswith("big")}
    assert len(small) == CLIENTS * ROUNDS, len(small)
    for i in range(CLIENTS):
        for r in range(ROUNDS):
            assert small[f"k{i}_{r}"]["v"] == {"N": str(i * 100 + r)}
    bigs = [k for k in items if k.startswith("big")]
    assert len(bigs) == len([1 for i in range(CLIENTS) for r in range(ROUNDS)
                             if i % 8 == 0 and r % 3 == 0])


def test_batches_one_session(start_gateway, ddb):
    """--pool 1, one loop: every request goes through one session's batches."""
    g = start_gateway("--pool", "1", "--threads", "1")
    name = make_table(ddb, unique("wire1"))
    try:
        _run(g, name, new_key("gw_app"))
    finally:
        ddb.delete_table(TableName=name)


def test_batches_two_sessions_two_loops(start_gateway, ddb):
    """--pool 2 over two loops: batches handed between loops as well."""
    g = start_gateway("--pool", "2", "--threads", "2",
                      conninfo=need("IT_GW_CONNINFO") + " application_name=gw_wire2")
    name = make_table(ddb, unique("wire2"))
    try:
        _run(g, name, new_key("gw_app"))
    finally:
        ddb.delete_table(TableName=name)
