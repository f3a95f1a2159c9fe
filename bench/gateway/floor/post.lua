-- wrk script: the same POST on every request, shaped like a DynamoDB
-- GetItem call (target header, JSON 1.0 content type, a ~100-byte body).
--
--   wrk -s post.lua http://127.0.0.1:PORT/

wrk.method = "POST"
wrk.path = "/"
wrk.headers["X-Amz-Target"] = "DynamoDB_20120810.GetItem"
wrk.headers["Content-Type"] = "application/x-amz-json-1.0"
wrk.body = '{"TableName":"items","Key":{"pk":{"S":"user#00000042"},"sk":{"S":"profile"}},"ConsistentRead":false}'
