SELECT item_table.delete_item(('{"TableName": "dbench", "Key": {"pk": {"S": "DEL#' || nextval('dbench_seq') || '"}}}')::jsonb);
