"""Writers through item_table_gateway during a failover, and the checks after.

  load.py run ENDPOINT KEY_ID SECRET TABLE ROUND WRITERS STOPFILE OUTFILE
      WRITERS threads write until STOPFILE exists.  Each thread w does, in
      turn, a PutItem of a new item (pk "r<ROUND>w<w>", sk its number i,
      with attribute_not_exists(pk)) and an UpdateItem of its counter item
      (pk "r<ROUND>c<w>", sk "counter": SET n = i if n = i - 1).  Both are
      conditional, so a request retried after an answer was lost cannot be
      applied twice: its ConditionalCheckFailedException on a retry says it
      was applied (checked by a strongly consistent read for the counter).
      Retries are ours, not the SDK's, so that every answer is seen: HTTP
      500, ThrottlingException and a broken connection are retried (the
      outage), every other error counts as unexpected.  OUTFILE gets the
      acknowledged writes and the answers seen, as JSON.

  load.py standby ENDPOINT KEY_ID SECRET
      Through a gateway connected to the standby alone: reads of the table
      "reads" (test/replica/setup.sql) answer, a PutItem is
      ServiceUnavailable.

  load.py check PSQL CONNINFO TABLE OUTFILE...
      On the new primary: every acknowledged write present (items, and
      counters at least at their acknowledged value), the stream holding
      each item's INSERT exactly once and each counter's values 1, 2, ...
      exactly once and in order, verify() clean.  Prints one line per check
      ("ok ..." or "FAILED ...") and "acknowledged N lost N".
"""
import json
import os
import subprocess
import sys
import threading
import time

import boto3
import botocore.config
import botocore.exceptions

RETRY_CODES = {"InternalServerError", "ThrottlingException", "ServiceUnavailable"}


def client(endpoint, key_id, secret):
    """A client of its own session: boto3's default session is not for threads."""
    cfg = botocore.config.Config(retries={"total_max_attempts": 1, "mode": "standard"},
                                 connect_timeout=2, read_timeout=60)
    return boto3.session.Session().client("dynamodb", endpoint_url=endpoint, region_name="us-east-1",
                        aws_access_key_id=key_id, aws_secret_access_key=secret, config=cfg)


class Writer(threading.Thread):
    def __init__(self, w, args, stopfile, lock, seen):
        super().__init__(daemon=True)
        self.w = w
        self.endpoint, self.key_id, self.secret, self.table, self.round = args
        self.stopfile = stopfile
        self.lock = lock
        self.seen = seen  # answer class -> count, shared
        self.items = []
        self.counter = 0
        self.unexpected = []

    def note(self, what):
        with self.lock:
            self.seen[what] = self.seen.get(what, 0) + 1

    def call(self, c, fn, **req):
        """'ok', 'ccf_retry' (a retried request found its own write), or None (stopped)."""
        attempt = 0
        while True:
            attempt += 1
            try:
                fn(**req)
                self.note("200")
                return "ok"
            except botocore.exceptions.ClientError as e:
                code = e.response.get("Error", {}).get("Code", "")
                status = e.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0)
                if code == "ConditionalCheckFailedException" and attempt > 1:
                    self.note("ConditionalCheckFailed on a retry")
                    return "ccf_retry"
                if status >= 500 or code in RETRY_CODES:
                    self.note(f"{status} {code}")
                else:
                    self.note(f"{status} {code} (unexpected)")
                    self.unexpected.append(f"{status} {code}: {e}")
                    return None
            except (botocore.exceptions.EndpointConnectionError,
                    botocore.exceptions.ConnectionClosedError,
                    botocore.exceptions.ReadTimeoutError,
                    botocore.exceptions.ConnectTimeoutError) as e:
                self.note(f"connection: {type(e).__name__}")
            if os.path.exists(self.stopfile):
                return None
            time.sleep(0.05)

    def run(self):
        c = client(self.endpoint, self.key_id, self.secret)
        pk = f"r{self.round}w{self.w}"
        cpk = f"r{self.round}c{self.w}"
        i = 0
        while not os.path.exists(self.stopfile):
            i += 1
            sk = f"{i:08d}"
            r = self.call(c, c.put_item, TableName=self.table,
                          Item={"pk": {"S": pk}, "sk": {"S": sk}, "n": {"N": str(i)}},
                          ConditionExpression="attribute_not_exists(pk)")
            if r is None:
                return
            self.items.append([pk, sk])
            if i == 1:
                cond = "attribute_not_exists(n)"
                vals = {":i": {"N": "1"}}
            else:
                cond = "n = :p"
                vals = {":i": {"N": str(i)}, ":p": {"N": str(i - 1)}}
            r = self.call(c, c.update_item, TableName=self.table,
                          Key={"pk": {"S": cpk}, "sk": {"S": "counter"}},
                          UpdateExpression="SET n = :i", ConditionExpression=cond,
                          ExpressionAttributeValues=vals)
            if r is None:
                return
            if r == "ccf_retry":
                got = c.get_item(TableName=self.table, ConsistentRead=True,
                                 Key={"pk": {"S": cpk}, "sk": {"S": "counter"}}).get("Item")
                if not got or got["n"]["N"] != str(i):
                    self.unexpected.append(f"counter {cpk}: a retry of n = {i} failed its condition, n is {got}")
                    return
            self.counter = i


def run(argv):
    endpoint, key_id, secret, table, rnd, writers, stopfile, outfile = argv
    lock = threading.Lock()
    seen = {}
    ws = [Writer(w, (endpoint, key_id, secret, table, rnd), stopfile, lock, seen)
          for w in range(int(writers))]
    for w in ws:
        w.start()
    for w in ws:
        w.join()
    out = {
        "items": [it for w in ws for it in w.items],
        "counters": {f"r{rnd}c{w.w}": w.counter for w in ws},
        "seen": seen,
        "unexpected": [u for w in ws for u in w.unexpected],
    }
    with open(outfile, "w") as f:
        json.dump(out, f)
    print(f"writers done: {len(out['items'])} items and {sum(out['counters'].values())} counter steps acknowledged; answers {seen}")


def standby(argv):
    """The gateway on the standby alone: reads answer, a write is ServiceUnavailable."""
    endpoint, key_id, secret = argv
    c = client(endpoint, key_id, secret)
    checks = [
        ("GetItem", lambda: c.get_item(TableName="reads", Key={"pk": {"S": "p1"}, "sk": {"N": "1"}})["Item"]["v"]["S"] == "changed"),
        ("BatchGetItem", lambda: len(c.batch_get_item(RequestItems={"reads": {"Keys": [
            {"pk": {"S": "p1"}, "sk": {"N": "1"}}, {"pk": {"S": "p1"}, "sk": {"N": "5"}}]}})["Responses"]["reads"]) == 2),
        ("Query", lambda: c.query(TableName="reads", KeyConditionExpression="pk = :p",
                                  ExpressionAttributeValues={":p": {"S": "p0"}})["Count"] == 10),
        ("Query of a GSI", lambda: c.query(TableName="reads", IndexName="by_g", KeyConditionExpression="g = :g",
                                           ExpressionAttributeValues={":g": {"S": "g0"}})["Count"] == 13),
        ("Scan", lambda: c.scan(TableName="reads", Select="COUNT")["Count"] == 39),
        ("DescribeTable", lambda: c.describe_table(TableName="reads")["Table"]["TableStatus"] == "ACTIVE"),
        ("ListTables", lambda: "reads" in c.list_tables()["TableNames"]),
    ]
    for name, fn in checks:
        try:
            good = fn()
            print(f"{'ok' if good else 'FAILED'} gateway on the standby: {name}")
        except Exception as e:  # noqa: BLE001 -- any failure is the check's
            print(f"FAILED gateway on the standby: {name}: {e}")
    try:
        c.put_item(TableName="reads", Item={"pk": {"S": "new"}, "sk": {"N": "1"}})
        print("FAILED gateway on the standby: PutItem was accepted")
    except botocore.exceptions.ClientError as e:
        code = e.response.get("Error", {}).get("Code", "")
        status = e.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0)
        good = code == "ServiceUnavailable" and status == 503
        print(f"{'ok' if good else 'FAILED'} gateway on the standby: "
              f"PutItem is ServiceUnavailable with HTTP 503, which SDKs retry (got {code}, HTTP {status})")


def psql_rows(psql, conninfo, sql):
    out = subprocess.run([psql, "-X", "-qAt", "-v", "ON_ERROR_STOP=1", "-F", "\t", "-d", conninfo, "-c", sql],
                         check=True, capture_output=True, text=True).stdout
    return [line.split("\t") for line in out.splitlines() if line]


def check(argv):
    psql, conninfo, table = argv[:3]
    loads = []
    for fn in argv[3:]:
        with open(fn) as f:
            loads.append(json.load(f))
    passed = failed = 0

    def result(ok, what):
        nonlocal passed, failed
        if ok:
            passed += 1
            print(f"ok      {what}")
        else:
            failed += 1
            print(f"FAILED  {what}")

    rows = psql_rows(psql, conninfo,
                     "SELECT item->'pk'->>'S', item->'sk'->>'S', item->'n'->>'N' FROM item_data." + table)
    present = {(r[0], r[1]): r[2] for r in rows}
    acked = lost = 0
    lost_examples = []
    for ld in loads:
        for pk, sk in ld["items"]:
            acked += 1
            if (pk, sk) not in present:
                lost += 1
                lost_examples.append(f"{pk}/{sk}")
        for cpk, n in ld["counters"].items():
            acked += n
            have = int(present.get((cpk, "counter"), "0") or 0)
            if have < n:
                lost += n - have
                lost_examples.append(f"{cpk} at {have}, acknowledged {n}")
    print(f"acknowledged {acked} lost {lost}")
    result(acked > 0 and lost == 0,
           f"every acknowledged write is present ({acked} acknowledged, {lost} lost{': ' + ', '.join(lost_examples[:5]) if lost_examples else ''})")
    unexpected = [u for ld in loads for u in ld["unexpected"]]
    result(not unexpected, "no unexpected answer (outage answers: 500, ThrottlingException or a broken connection)"
           + (": " + "; ".join(unexpected[:3]) if unexpected else ""))

    # the stream, read in order in pages
    recs = []
    after = None
    while True:
        page = psql_rows(psql, conninfo,
                         "SELECT sequence_number, event_name, keys->'pk'->>'S', keys->'sk'->>'S', "
                         "coalesce(new_image->'n'->>'N', '') FROM item_table.stream_records('" + table + "', "
                         + ("NULL" if after is None else str(after)) + ", 5000)")
        if not page:
            break
        recs.extend(page)
        after = int(page[-1][0])
    seqs = [int(r[0]) for r in recs]
    result(seqs == sorted(seqs) and len(set(seqs)) == len(seqs),
           f"stream sequence numbers strictly increasing ({len(seqs)} records)")
    per_key = {}
    for r in recs:
        per_key.setdefault((r[2], r[3]), []).append((r[1], r[4]))
    bad = []
    for (pk, sk), evs in per_key.items():
        if sk == "counter":
            ns = [int(n) for _, n in evs]
            if ns != list(range(1, len(ns) + 1)):
                bad.append(f"{pk}: {ns[:10]}...")
            if present.get((pk, sk)) != str(len(ns)):
                bad.append(f"{pk}: {len(ns)} records, n = {present.get((pk, sk))}")
        elif [e for e, _ in evs] != ["INSERT"]:
            bad.append(f"{pk}/{sk}: {evs}")
    for key in present:
        if key not in per_key:
            bad.append(f"{key[0]}/{key[1]}: no stream record")
    result(not bad, "stream records exactly once and in order per item" + (": " + "; ".join(bad[:5]) if bad else ""))

    v = psql_rows(psql, conninfo, f"SELECT count(*) FROM item_table.verify('{table}')")
    result(v == [["0"]], f"verify('{table}') clean ({v[0][0]} problem(s))")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "run" and len(sys.argv) == 10:
        run(sys.argv[2:])
    elif len(sys.argv) == 5 and sys.argv[1] == "standby":
        standby(sys.argv[2:])
    elif len(sys.argv) >= 6 and sys.argv[1] == "check":
        sys.exit(check(sys.argv[2:]))
    else:
        print(__doc__)
        sys.exit(2)
