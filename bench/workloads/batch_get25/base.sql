\set b random(0, :scale / 25 - 1)
\set k1 :b * 25 + 1
\set k2 :b * 25 + 2
\set k3 :b * 25 + 3
\set k4 :b * 25 + 4
\set k5 :b * 25 + 5
\set k6 :b * 25 + 6
\set k7 :b * 25 + 7
\set k8 :b * 25 + 8
\set k9 :b * 25 + 9
\set k10 :b * 25 + 10
\set k11 :b * 25 + 11
\set k12 :b * 25 + 12
\set k13 :b * 25 + 13
\set k14 :b * 25 + 14
\set k15 :b * 25 + 15
\set k16 :b * 25 + 16
\set k17 :b * 25 + 17
\set k18 :b * 25 + 18
\set k19 :b * 25 + 19
\set k20 :b * 25 + 20
\set k21 :b * 25 + 21
\set k22 :b * 25 + 22
\set k23 :b * 25 + 23
\set k24 :b * 25 + 24
\set k25 :b * 25 + 25
SELECT key, item FROM item_data.bench WHERE key OPERATOR(item_table.=) ANY (ARRAY[('S"USER#' || :k1 || '"')::item_table.item_key, ('S"USER#' || :k2 || '"')::item_table.item_key, ('S"USER#' || :k3 || '"')::item_table.item_key, ('S"USER#' || :k4 || '"')::item_table.item_key, ('S"USER#' || :k5 || '"')::item_table.item_key, ('S"USER#' || :k6 || '"')::item_table.item_key, ('S"USER#' || :k7 || '"')::item_table.item_key, ('S"USER#' || :k8 || '"')::item_table.item_key, ('S"USER#' || :k9 || '"')::item_table.item_key, ('S"USER#' || :k10 || '"')::item_table.item_key, ('S"USER#' || :k11 || '"')::item_table.item_key, ('S"USER#' || :k12 || '"')::item_table.item_key, ('S"USER#' || :k13 || '"')::item_table.item_key, ('S"USER#' || :k14 || '"')::item_table.item_key, ('S"USER#' || :k15 || '"')::item_table.item_key, ('S"USER#' || :k16 || '"')::item_table.item_key, ('S"USER#' || :k17 || '"')::item_table.item_key, ('S"USER#' || :k18 || '"')::item_table.item_key, ('S"USER#' || :k19 || '"')::item_table.item_key, ('S"USER#' || :k20 || '"')::item_table.item_key, ('S"USER#' || :k21 || '"')::item_table.item_key, ('S"USER#' || :k22 || '"')::item_table.item_key, ('S"USER#' || :k23 || '"')::item_table.item_key, ('S"USER#' || :k24 || '"')::item_table.item_key, ('S"USER#' || :k25 || '"')::item_table.item_key]);
