DELETE FROM item_data.dbench WHERE key OPERATOR(item_table.=) (SELECT ('S"DEL#' || nextval('dbench_seq') || '"')::item_table.item_key);
