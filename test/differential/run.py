#!/usr/bin/env python3
"""The differential check: one list of requests against two endpoints.

    python3 test/differential/run.py --ours URL --ours-key ID:SECRET \
        --theirs URL [--theirs-key ID:SECRET] \
        [--requests requests.jsonl] [--known known_differences.json] [--verbose]

Each line of the request list is a JSON object:

    {"id": "put-basic", "action": "PutItem", "request": {...},
     "notes": "why the request is there", "save": {"arn": "TableDescription.TableArn"},
     "raw": "text sent as the body instead of the JSON of request"}

Requests go out one by one, in order, as DynamoDB's JSON protocol over HTTP
(POST /, X-Amz-Target, signed with SigV4 by botocore), to both endpoints.
"save" keeps a value of an endpoint's answer (a dotted path, list indexes as
numbers) under a name; "${name}" in a later request's strings is replaced by
the value the same endpoint gave.

Both answers are normalised (normalise()), then compared: the HTTP status,
the error type (after the '#'), the error message, and the body.  Fields that
differ by nature (request ids, dates, the account and region in ARNs, stream
labels, shard ids and iterators) are left out or replaced by placeholders;
the known differences file names the other fields the check ignores, and
the requests where DynamoDB Local is known to answer otherwise than DynamoDB,
each with the reason and the parts of the answer that may differ ("fields":
status, type, message, or a body path such as body.Table.ItemCount); a
difference anywhere else in such a request is still a failure.  Every difference is printed.  The last two lines are
a summary and "N passed, M failed": a request passes when the answers are
equal after normalisation or its difference is a known one.
"""
import argparse
import json
import os
import re
import sys
import urllib.error
import urllib.request

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

HERE = os.path.dirname(os.path.abspath(__file__))
STREAM_ACTIONS = {"ListStreams", "DescribeStream", "GetShardIterator", "GetRecords"}


class Endpoint:
    def __init__(self, name, url, key):
        self.name = name
        self.url = url.rstrip("/") + "/"
        key_id, secret = key.split(":", 1)
        self.creds = Credentials(key_id, secret)
        self.saved = {}

    def call(self, action, body):
        if action in STREAM_ACTIONS:
            target, service = f"DynamoDBStreams_20120810.{action}", "dynamodb"
        else:
            target, service = f"DynamoDB_20120810.{action}", "dynamodb"
        headers = {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": target}
        req = AWSRequest(method="POST", url=self.url, data=body.encode(), headers=headers)
        SigV4Auth(self.creds, service, "us-east-1").add_auth(req)
        http = urllib.request.Request(self.url, data=body.encode(), method="POST",
                                      headers=dict(req.headers.items()))
        try:
            with urllib.request.urlopen(http, timeout=60) as r:
                return r.status, r.read().decode("utf-8", "replace"), r.headers
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode("utf-8", "replace"), e.headers


def substitute(value, saved):
    if isinstance(value, str):
        return re.sub(r"\$\{(\w+)\}", lambda m: str(saved.get(m.group(1), m.group(0))), value)
    if isinstance(value, list):
        return [substitute(v, saved) for v in value]
    if isinstance(value, dict):
        return {substitute(k, saved): substitute(v, saved) for k, v in value.items()}
    return value


def dig(value, path):
    for part in path.split("."):
        if isinstance(value, list):
            value = value[int(part)] if part.isdigit() and int(part) < len(value) else None
        elif isinstance(value, dict):
            value = value.get(part)
        else:
            return None
    return value


ARN = re.compile(r"arn:aws:dynamodb:[^:]*:[^:]*:")
LABEL = re.compile(r"/stream/[0-9T:.\-]+")
PLACEHOLDERS = {"ShardId": "<shard>", "ParentShardId": "<shard>", "ShardIterator": "<iterator>",
                "NextShardIterator": "<iterator>", "SequenceNumber": "<sequence>",
                "StartingSequenceNumber": "<sequence>", "EndingSequenceNumber": "<sequence>",
                "LatestStreamLabel": "<label>", "StreamLabel": "<label>", "eventID": "<event>"}
SET_TYPES = {"SS", "NS", "BS"}
UNORDERED = {"Items", "Responses", "TableNames", "Streams"}


def normalise(value, ignored, key=None):
    """The answer with what may differ by nature taken out (see the module doc)."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k in ignored:
                continue
            if k in PLACEHOLDERS and isinstance(v, str):
                out[k] = PLACEHOLDERS[k]
                continue
            out[k] = normalise(v, ignored, k)
            if k == "Responses" and isinstance(v, dict):
                # BatchGetItem: each table's items come in no set order
                out[k] = {t: sorted(items, key=lambda i: json.dumps(i, sort_keys=True))
                          if isinstance(items, list) else items for t, items in out[k].items()}
        return out
    if isinstance(value, list):
        items = [normalise(v, ignored) for v in value]
        if key in SET_TYPES or key in UNORDERED:
            items.sort(key=lambda v: json.dumps(v, sort_keys=True))
        return items
    if isinstance(value, str):
        return LABEL.sub("/stream/<label>", ARN.sub("arn:aws:dynamodb:<region>:<account>:", value))
    return value


def answer(status, text, headers, ignored):
    """(status, error type, message, body) of one answer, normalised."""
    if text == "":
        return {"status": status, "type": None, "message": None,
                "body": f"<empty, Content-Length {headers.get('Content-Length')}>"}
    try:
        body = json.loads(text)
    except ValueError:
        return {"status": status, "type": None, "message": None, "body": text}
    etype = message = None
    if isinstance(body, dict) and "__type" in body:
        etype = body.pop("__type").rsplit("#", 1)[-1]
        message = body.pop("message", body.pop("Message", None))
    return {"status": status, "type": etype, "message": message,
            "body": normalise(body, ignored)}


def differences(a, b, path=""):
    """Lines naming where two normalised values differ."""
    if type(a) is not type(b):
        return [f"{path or '.'}: {json.dumps(a)} | {json.dumps(b)}"]
    if isinstance(a, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            if k not in a:
                out.append(f"{path}.{k}: <absent> | {json.dumps(b[k])[:300]}")
            elif k not in b:
                out.append(f"{path}.{k}: {json.dumps(a[k])[:300]} | <absent>")
            else:
                out.extend(differences(a[k], b[k], f"{path}.{k}"))
        return out
    if isinstance(a, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} element(s) | {len(b)} element(s): "
                    f"{json.dumps(a)[:300]} | {json.dumps(b)[:300]}"]
        out = []
        for i, (x, y) in enumerate(zip(a, b)):
            out.extend(differences(x, y, f"{path}[{i}]"))
        return out
    return [] if a == b else [f"{path or '.'}: {json.dumps(a)[:300]} | {json.dumps(b)[:300]}"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--ours", required=True)
    ap.add_argument("--ours-key", required=True, help="ID:SECRET")
    ap.add_argument("--theirs", required=True)
    ap.add_argument("--theirs-key", default="differential:differential")
    ap.add_argument("--requests", default=os.path.join(HERE, "requests.jsonl"))
    ap.add_argument("--known", default=os.path.join(HERE, "known_differences.json"))
    ap.add_argument("--verbose", action="store_true", help="print every request")
    args = ap.parse_args()

    with open(args.known) as f:
        known = json.load(f)
    ignored = {e["field"] for e in known.get("ignored_fields", [])}
    known_requests = {e["id"]: e["why"] for e in known.get("requests", [])}
    # what may differ in each known request: the status, type, message or a body path
    known_fields = {e["id"]: set(e.get("fields", [])) for e in known.get("requests", [])}
    ours = Endpoint("ours", args.ours, args.ours_key)
    theirs = Endpoint("DynamoDB Local", args.theirs, args.theirs_key)

    requests = []
    with open(args.requests) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if line and not line.startswith("//"):
                try:
                    requests.append(json.loads(line))
                except ValueError as e:
                    sys.exit(f"{args.requests}:{n}: {e}")
    ids = [r["id"] for r in requests]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        sys.exit(f"duplicate request ids: {sorted(dup)}")
    stale = sorted(set(known_requests) - set(ids))
    if stale:
        sys.exit(f"known differences name requests that are not in the list: {stale}")

    total = same = known_n = unexplained = 0
    for r in requests:
        total += 1
        got = []
        for ep in (ours, theirs):
            if "raw" in r:
                body = substitute(r["raw"], ep.saved)
            else:
                body = json.dumps(substitute(r.get("request", {}), ep.saved))
            status, text, headers = ep.call(r["action"], body)
            try:
                parsed = json.loads(text) if text else None
            except ValueError:
                parsed = None
            for name, path in r.get("save", {}).items():
                v = dig(parsed, path)
                if v is not None:
                    ep.saved[name] = v
            got.append(answer(status, text, headers, ignored))
        a, b = got
        lines = []
        for k in ("status", "type", "message"):
            if a[k] != b[k]:
                lines.append(f"{k}: {json.dumps(a[k])} | {json.dumps(b[k])}")
        if a["type"] is None and b["type"] is None:
            lines.extend(differences(a["body"], b["body"], "body"))
        if not lines:
            same += 1
            if args.verbose:
                print(f"same     {r['id']} ({r['action']})")
            continue
        fields = {line.split(":", 1)[0] for line in lines}
        if r["id"] in known_requests and fields <= known_fields[r["id"]]:
            known_n += 1
            print(f"known    {r['id']} ({r['action']}): {known_requests[r['id']]}")
        else:
            unexplained += 1
            print(f"DIFFERS  {r['id']} ({r['action']})")
            if r["id"] in known_requests:
                print(f"    (a known difference of DynamoDB Local in {sorted(known_fields[r['id']])} only)")
        for line in lines:
            print(f"    {line}   [ours | DynamoDB Local]")
    print(f"differential: {total} requests, {known_n + unexplained} differences "
          f"({known_n} known differences of DynamoDB Local, {unexplained} unexplained)")
    print(f"{same + known_n} passed, {unexplained} failed")
    return 0 if unexplained == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
