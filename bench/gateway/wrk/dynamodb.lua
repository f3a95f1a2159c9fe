-- wrk script: DynamoDB JSON 1.0 requests, the same calls as the pgbench
-- scripts in ../sql/, with keys (and PutItem values) drawn per request.
--
--   wrk -s dynamodb.lua URL -- WORKLOAD SCALE [SIGNED]
--
-- WORKLOAD is get_item, put_item, query10, mix (the three in turn, for the
-- memory soak) or root (GET /, the health check: the HTTP floor, no
-- database); SCALE is the number of items loaded (as pgbench's :scale).
-- The Authorization header is well formed but not a valid signature: the
-- gateway runs with --auth none, and dynalite checks only its shape.
-- With SIGNED, a file written by ../sign.py, the requests are its lines
-- instead (each thread starting at its own offset, in turn): signed with
-- SigV4, for a gateway that checks signatures.

local thread_no = 0
function setup(thread)
   thread:set("thread_no", thread_no)
   thread_no = thread_no + 1
end

local target_prefix = "DynamoDB_20120810."

function init(args)
   workload = args[1] or "get_item"
   scale = tonumber(args[2] or "1000")
   math.randomseed(os.time() * 1000 + (thread_no or 0) * 7919)
   local amz_date = os.date("!%Y%m%dT%H%M%SZ")
   headers = {
      ["Content-Type"] = "application/x-amz-json-1.0",
      ["X-Amz-Date"] = amz_date,
      ["Authorization"] = "AWS4-HMAC-SHA256 Credential=bench/" .. amz_date:sub(1, 8) ..
         "/us-east-1/dynamodb/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-target, " ..
         "Signature=0000000000000000000000000000000000000000000000000000000000000000",
   }
   turn = 0
   signed = nil
   if args[3] then
      signed = {}
      for line in io.lines(args[3]) do
         local t, d, a, b = line:match("^([^\t]*)\t([^\t]*)\t([^\t]*)\t(.*)$")
         signed[#signed + 1] = { t, d, a, b }
      end
      next_signed = ((thread_no or 0) * 7919) % #signed
   end
end

local function get_item()
   local id = math.random(1, scale)
   return "GetItem", '{"TableName": "bench", "Key": {"pk": {"S": "USER#' .. id .. '"}}}'
end

local function put_item()
   local id = math.random(1, scale)
   local v = math.random(1, 1000000)
   return "PutItem", '{"TableName": "bench", "Item": {"pk": {"S": "USER#' .. id ..
      '"}, "name": {"S": "user number ' .. id .. '"}, "email": {"S": "user' .. id ..
      '@example.com"}, "n": {"N": "' .. v .. '"}, "score": {"N": "' .. v ..
      '.5"}, "tags": {"SS": ["a", "b", "tag1"]}, "address": {"M": {"street": {"S": "' .. id ..
      ' Main Street"}, "city": {"S": "Springfield"}}}}}'
end

local function query10()
   local id = math.random(0, math.floor(scale / 20) - 1)
   return "Query", '{"TableName": "qbench", "KeyConditionExpression": "pk = :pk", ' ..
      '"ExpressionAttributeValues": {":pk": {"S": "P10#' .. id .. '"}}}'
end

local makers = { get_item = get_item, put_item = put_item, query10 = query10 }
local mix = { get_item, put_item, query10 }

function request()
   if workload == "root" then
      return wrk.format("GET", "/")
   end
   if signed then
      local r = signed[next_signed + 1]
      next_signed = (next_signed + 1) % #signed
      headers["X-Amz-Target"] = r[1]
      headers["X-Amz-Date"] = r[2]
      headers["Authorization"] = r[3]
      return wrk.format("POST", "/", headers, r[4])
   end
   local make = makers[workload]
   if make == nil then
      turn = turn % 3 + 1
      make = mix[turn]
   end
   local action, body = make()
   headers["X-Amz-Target"] = target_prefix .. action
   return wrk.format("POST", "/", headers, body)
end
