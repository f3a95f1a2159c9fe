#!/usr/bin/env python3
"""Pre-signed requests for wrk (wrk/dynamodb.lua reads them): the gateway
benchmark's SigV4-on target.

    sign.py HOST:PORT KEY_ID SECRET WORKLOAD SCALE COUNT OUT

Writes COUNT lines "target<TAB>x-amz-date<TAB>authorization<TAB>body" of
the workload's requests (GetItem, PutItem or the 10-item Query, keys drawn
as in wrk/dynamodb.lua), each signed with AWS Signature Version 4 over
content-type, host, x-amz-date and x-amz-target, dated now (the gateway
accepts 15 minutes of skew either way).  wrk's Lua has no HMAC, so the
signing is done here, before the run; the gateway still verifies every
request, which is the cost being measured.
"""
import datetime
import hashlib
import hmac
import random
import sys


def hmac256(key, msg):
    return hmac.new(key, msg.encode(), hashlib.sha256).digest()


def body_for(workload, scale):
    if workload == "get_item":
        i = random.randint(1, scale)
        return "GetItem", '{"TableName": "bench", "Key": {"pk": {"S": "USER#%d"}}}' % i
    if workload == "put_item":
        i = random.randint(1, scale)
        v = random.randint(1, 1000000)
        return "PutItem", (
            '{"TableName": "bench", "Item": {"pk": {"S": "USER#%d"}, "name": {"S": "user number %d"}, '
            '"email": {"S": "user%d@example.com"}, "n": {"N": "%d"}, "score": {"N": "%d.5"}, '
            '"tags": {"SS": ["a", "b", "tag1"]}, "address": {"M": {"street": {"S": "%d Main Street"}, '
            '"city": {"S": "Springfield"}}}}}' % (i, i, i, v, v, i))
    if workload == "query10":
        i = random.randint(0, scale // 20 - 1)
        return "Query", ('{"TableName": "qbench", "KeyConditionExpression": "pk = :pk", '
                         '"ExpressionAttributeValues": {":pk": {"S": "P10#%d"}}}' % i)
    raise SystemExit("unknown workload %s" % workload)


def main():
    host, key_id, secret, workload, scale, count, out = sys.argv[1:8]
    scale, count = int(scale), int(count)
    now = datetime.datetime.now(datetime.timezone.utc)
    amz_date = now.strftime("%Y%m%dT%H%M%SZ")
    day = amz_date[:8]
    region = "us-east-1"
    scope = "%s/%s/dynamodb/aws4_request" % (day, region)
    k = hmac256(("AWS4" + secret).encode(), day)
    k = hmac256(k, region)
    k = hmac256(k, "dynamodb")
    k = hmac256(k, "aws4_request")
    signed = "content-type;host;x-amz-date;x-amz-target"
    with open(out, "w") as f:
        for _ in range(count):
            action, body = body_for(workload, scale)
            target = "DynamoDB_20120810." + action
            canonical = "\n".join([
                "POST", "/", "",
                "content-type:application/x-amz-json-1.0",
                "host:" + host,
                "x-amz-date:" + amz_date,
                "x-amz-target:" + target,
                "",
                signed,
                hashlib.sha256(body.encode()).hexdigest()])
            to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope,
                                 hashlib.sha256(canonical.encode()).hexdigest()])
            sig = hmac.new(k, to_sign.encode(), hashlib.sha256).hexdigest()
            auth = ("AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=%s, Signature=%s"
                    % (key_id, scope, signed, sig))
            f.write("%s\t%s\t%s\t%s\n" % (target, amz_date, auth, body))


if __name__ == "__main__":
    main()
