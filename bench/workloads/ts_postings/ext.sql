\set a random(1, 1000)
\set s random(1, 50)
SELECT item_table.query(('{"TableName": "Register", "KeyConditionExpression": "PK = ' || chr(58) || 'pk AND begins_with(SK, ' || chr(58) || 'p)", "ScanIndexForward": false, "ExpressionAttributeValues": {"' || chr(58) || 'pk": {"S": "ACCOUNT#' || :a || '"}, "' || chr(58) || 'p": {"S": "STOCKPOSTING#AS' || :s || '#"}}}')::jsonb);
