"""DynamoDB Streams through the gateway with boto3's dynamodbstreams client:
a table with a stream, its records by GetRecords, a disabled stream's
closed shard, and the Streams API's errors."""
import time

import boto3
import botocore.config
import pytest

from conftest import make_table, unique


@pytest.fixture(scope="module")
def streams(endpoint, app_key):
    cfg = botocore.config.Config(retries={"total_max_attempts": 1, "mode": "standard"},
                                 connect_timeout=5, read_timeout=30)
    return boto3.client("dynamodbstreams", endpoint_url=endpoint, region_name="us-east-1",
                        aws_access_key_id=app_key[0], aws_secret_access_key=app_key[1], config=cfg)


def read_all(streams, iterator, want, timeout=60):
    """GetRecords until want records came (records of transactions still
    running are held back, so a first call may return fewer)."""
    records = []
    deadline = time.time() + timeout
    while iterator and len(records) < want and time.time() < deadline:
        page = streams.get_records(ShardIterator=iterator, Limit=2)
        records += page["Records"]
        iterator = page.get("NextShardIterator")
        if not page["Records"]:
            time.sleep(0.1)
    return records, iterator


def test_stream_records(ddb, streams):
    name = unique("strm")
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
    try:
        desc = ddb.describe_table(TableName=name)["Table"]
        assert desc["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
        arn = desc["LatestStreamArn"]
        assert arn.endswith("/stream/" + desc["LatestStreamLabel"])

        ddb.put_item(TableName=name, Item={"pk": {"S": "a"}, "n": {"N": "1"}})
        ddb.put_item(TableName=name, Item={"pk": {"S": "a"}, "n": {"N": "1"}})   # no change: no record
        ddb.update_item(TableName=name, Key={"pk": {"S": "a"}}, UpdateExpression="SET n = n + :one",
                        ExpressionAttributeValues={":one": {"N": "1"}})
        ddb.delete_item(TableName=name, Key={"pk": {"S": "a"}})

        listed = streams.list_streams(TableName=name)["Streams"]
        assert [s["StreamArn"] for s in listed] == [arn]
        sd = streams.describe_stream(StreamArn=arn)["StreamDescription"]
        assert sd["StreamStatus"] == "ENABLED" and sd["TableName"] == name
        assert sd["StreamViewType"] == "NEW_AND_OLD_IMAGES"
        shard = sd["Shards"][0]
        assert "EndingSequenceNumber" not in shard["SequenceNumberRange"]
        it = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"],
                                        ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
        records, it = read_all(streams, it, 3)
        assert [r["eventName"] for r in records] == ["INSERT", "MODIFY", "REMOVE"]
        assert records[0]["dynamodb"]["NewImage"] == {"pk": {"S": "a"}, "n": {"N": "1"}}
        assert records[1]["dynamodb"]["OldImage"]["n"] == {"N": "1"}
        assert records[1]["dynamodb"]["NewImage"]["n"] == {"N": "2"}
        assert records[2]["dynamodb"]["Keys"] == {"pk": {"S": "a"}}
        assert "NewImage" not in records[2]["dynamodb"]
        seqs = [int(r["dynamodb"]["SequenceNumber"]) for r in records]
        assert seqs == sorted(seqs) and len(set(seqs)) == 3
        assert all(r["eventSource"] == "aws:dynamodb" for r in records)
        # AFTER_SEQUENCE_NUMBER the first: the other two
        it2 = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"],
                                         ShardIteratorType="AFTER_SEQUENCE_NUMBER",
                                         SequenceNumber=records[0]["dynamodb"]["SequenceNumber"])["ShardIterator"]
        assert [r["eventName"] for r in read_all(streams, it2, 2)[0]] == ["MODIFY", "REMOVE"]

        # disabled: the shard is closed, and read to its end there is no next iterator
        ddb.update_table(TableName=name, StreamSpecification={"StreamEnabled": False})
        sd = streams.describe_stream(StreamArn=arn)["StreamDescription"]
        assert sd["StreamStatus"] == "DISABLED"
        assert "EndingSequenceNumber" in sd["Shards"][0]["SequenceNumberRange"]
        page = streams.get_records(ShardIterator=it)
        assert page["Records"] == [] and "NextShardIterator" not in page
        with pytest.raises(ddb.exceptions.ClientError) as e:
            ddb.update_table(TableName=name, StreamSpecification={"StreamEnabled": False})
        assert e.value.response["Error"]["Code"] == "ValidationException"
    finally:
        ddb.delete_table(TableName=name)


def test_stream_errors(streams):
    with pytest.raises(streams.exceptions.ResourceNotFoundException):
        streams.describe_stream(StreamArn="arn:aws:dynamodb:local:000000000000:table/nosuch/stream/2000-01-01T00:00:00.000")
    with pytest.raises(streams.exceptions.ClientError) as e:
        streams.get_records(ShardIterator="bm90IGFuIGl0ZXJhdG9y")
    assert e.value.response["Error"]["Code"] == "ValidationException"
