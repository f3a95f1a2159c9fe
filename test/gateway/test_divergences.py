"""Issue 28's answers that only the HTTP wire shows, and the others end to end.

TagResource and UntagResource answer HTTP 200 with an empty body
(Content-Length 0), DescribeEndpoints the address the client sent the
request to (its Host header); the messages are sql/divergences.sql's
contract, checked here once more through boto3.
"""
import http.client
import json
import urllib.parse

import boto3
import botocore.auth
import botocore.awsrequest
import botocore.credentials
import pytest

from conftest import client, make_table, unique


def post(url, key, target, body):
    """A signed POST to url (botocore's signer, Host as in url); (status, headers, body)."""
    data = json.dumps(body).encode()
    req = botocore.awsrequest.AWSRequest(method="POST", url=url + "/", data=data,
                                         headers={"X-Amz-Target": target,
                                                  "Content-Type": "application/x-amz-json-1.0"})
    botocore.auth.SigV4Auth(botocore.credentials.Credentials(*key), "dynamodb",
                            "us-east-1").add_auth(req)
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    try:
        conn.request("POST", "/", body=data, headers=dict(req.headers.items()))
        resp = conn.getresponse()
        return resp.status, resp.headers, resp.read()
    finally:
        conn.close()


def error_of(excinfo):
    err = excinfo.value.response["Error"]
    return err["Code"], err.get("Message", "")


@pytest.fixture
def tagged(ddb):
    name = make_table(ddb, unique("dvtag"))
    arn = ddb.describe_table(TableName=name)["Table"]["TableArn"]
    yield name, arn
    ddb.delete_table(TableName=name)


def test_tag_and_untag_answer_an_empty_body(endpoint, app_key, ddb, tagged):
    """Issue 28 point 5: HTTP 200, Content-Length 0, no '{}'."""
    name, arn = tagged
    status, headers, data = post(endpoint, app_key, "DynamoDB_20120810.TagResource",
                                 {"ResourceArn": arn, "Tags": [{"Key": "a", "Value": "1"},
                                                               {"Key": "b", "Value": "2"}]})
    assert (status, data, headers["Content-Length"]) == (200, b"", "0")
    status, headers, data = post(endpoint, app_key, "DynamoDB_20120810.UntagResource",
                                 {"ResourceArn": arn, "TagKeys": ["b"]})
    assert (status, data, headers["Content-Length"]) == (200, b"", "0")
    # the change took effect, and boto3 reads the empty answers
    assert ddb.list_tags_of_resource(ResourceArn=arn)["Tags"] == [{"Key": "a", "Value": "1"}]
    ddb.tag_resource(ResourceArn=arn, Tags=[{"Key": "c", "Value": "3"}])
    ddb.untag_resource(ResourceArn=arn, TagKeys=["a"])
    assert ddb.list_tags_of_resource(ResourceArn=arn)["Tags"] == [{"Key": "c", "Value": "3"}]
    # an error still has its JSON body
    status, headers, data = post(endpoint, app_key, "DynamoDB_20120810.TagResource",
                                 {"ResourceArn": arn, "Tags": []})
    assert status == 400 and json.loads(data)["__type"].endswith("#ValidationException")


def test_describe_endpoints_answers_the_host_used(endpoint, app_key):
    """Issue 28 point 9: the address the request went to, as the client wrote it."""
    port = urllib.parse.urlsplit(endpoint).port
    for host in ("127.0.0.1", "localhost"):
        url = f"http://{host}:{port}"
        out = client(url, *app_key).describe_endpoints()["Endpoints"]
        assert out == [{"Address": f"{host}:{port}", "CachePeriodInMinutes": 1440}]
    status, _, data = post(f"http://localhost:{port}", app_key,
                           "DynamoDB_20120810.DescribeEndpoints", {})
    assert status == 200
    assert json.loads(data) == {"Endpoints": [{"Address": f"localhost:{port}",
                                               "CachePeriodInMinutes": 1440}]}


def test_tag_limits_and_arns(ddb, tagged):
    """Points 7 and 12: more than 50 tags in one request, a malformed ARN,
    the tags of a table that does not exist."""
    name, arn = tagged
    many = [{"Key": f"k{i}", "Value": "v"} for i in range(51)]
    with pytest.raises(ddb.exceptions.ClientError) as e:
        ddb.tag_resource(ResourceArn=arn, Tags=many)
    assert error_of(e) == ("ValidationException", "One or more parameter values were invalid: "
                           "The number of tags in the request (51) exceeds the limit of 50")
    with pytest.raises(ddb.exceptions.ClientError) as e:
        ddb.create_table(TableName=unique("dvmany"), BillingMode="PAY_PER_REQUEST",
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                         KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}], Tags=many)
    assert error_of(e)[0] == "ValidationException"
    assert ddb.list_tags_of_resource(ResourceArn=arn)["Tags"] == []
    with pytest.raises(ddb.exceptions.ClientError) as e:
        ddb.tag_resource(ResourceArn="not-an-arn", Tags=[{"Key": "k", "Value": "v"}])
    assert error_of(e) == ("ValidationException",
                           "Invalid TableArn: Invalid ResourceArn provided as input not-an-arn")
    missing = arn.replace(name, unique("none"))
    with pytest.raises(ddb.exceptions.ClientError) as e:
        ddb.list_tags_of_resource(ResourceArn=missing)
    code, message = error_of(e)
    assert code == "AccessDeniedException"
    assert message.endswith(f"is not authorized to perform: dynamodb:ListTagsOfResource on resource: {missing}")


def test_limit_zero_and_nested_partiql(endpoint, app_key, ddb):
    """Points 10 and 11 (boto3 itself refuses Limit 0: raw requests for it)."""
    name = make_table(ddb, unique("dvq"), sort=True)
    try:
        for target, body in (("Scan", {"TableName": name, "Limit": 0}),
                             ("Query", {"TableName": name, "KeyConditionExpression": "pk = :p",
                                        "ExpressionAttributeValues": {":p": {"S": "a"}}, "Limit": 0})):
            status, _, data = post(endpoint, app_key, "DynamoDB_20120810." + target, body)
            assert status == 400
            assert json.loads(data)["message"] == (
                "1 validation error detected: Value '0' at 'limit' failed to satisfy "
                "constraint: Member must have value greater than or equal to 1")
        ddb.put_item(TableName=name, Item={"pk": {"S": "a"}, "sk": {"N": "1"},
                                           "mymap": {"M": {"nested": {"S": "deep"}}}})
        out = ddb.execute_statement(Statement=f'SELECT mymap.nested FROM "{name}" WHERE pk = ?',
                                    Parameters=[{"S": "a"}])
        assert out["Items"] == [{"nested": {"S": "deep"}}]
    finally:
        ddb.delete_table(TableName=name)


def test_malformed_stream_arns(endpoint, app_key):
    """Point 8: ValidationException before any lookup; a well-formed ARN of
    no stream stays ResourceNotFoundException."""
    s = boto3.client("dynamodbstreams", endpoint_url=endpoint, region_name="us-east-1",
                     aws_access_key_id=app_key[0], aws_secret_access_key=app_key[1])
    bad = "arn:aws:dynamodb:us-east-1:000000000000:nottable/x/stream/y"
    good = "arn:aws:dynamodb:us-east-1:000000000000:table/none_xyz/stream/2020-01-01T00:00:00.000"
    for arn, code in ((bad, "ValidationException"), (good, "ResourceNotFoundException")):
        with pytest.raises(s.exceptions.ClientError) as e:
            s.describe_stream(StreamArn=arn)
        assert error_of(e)[0] == code
        with pytest.raises(s.exceptions.ClientError) as e:
            s.get_shard_iterator(StreamArn=arn, ShardId="shardId-00000000000000000000-00000000",
                                 ShardIteratorType="LATEST")
        assert error_of(e)[0] == code
        with pytest.raises(s.exceptions.ClientError) as e:
            s.list_streams(ExclusiveStartStreamArn=arn)
        assert error_of(e)[0] == code
