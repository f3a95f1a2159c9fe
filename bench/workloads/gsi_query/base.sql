\set c random(0, 999)
SELECT key, item FROM item_data."gsib#by_city" WHERE ikey OPERATOR(item_table.>=) ('S"CITY#' || :c || '"')::item_table.item_key AND ikey OPERATOR(item_table.<) ('S"CITY#' || :c || '"|~')::item_table.item_key ORDER BY ikey, key LIMIT 10;
