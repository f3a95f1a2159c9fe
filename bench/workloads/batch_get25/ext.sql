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
SELECT item_table.batch_get_item(('{"RequestItems": {"bench": {"Keys": [{"pk": {"S": "USER#' || :k1 || '"}}, {"pk": {"S": "USER#' || :k2 || '"}}, {"pk": {"S": "USER#' || :k3 || '"}}, {"pk": {"S": "USER#' || :k4 || '"}}, {"pk": {"S": "USER#' || :k5 || '"}}, {"pk": {"S": "USER#' || :k6 || '"}}, {"pk": {"S": "USER#' || :k7 || '"}}, {"pk": {"S": "USER#' || :k8 || '"}}, {"pk": {"S": "USER#' || :k9 || '"}}, {"pk": {"S": "USER#' || :k10 || '"}}, {"pk": {"S": "USER#' || :k11 || '"}}, {"pk": {"S": "USER#' || :k12 || '"}}, {"pk": {"S": "USER#' || :k13 || '"}}, {"pk": {"S": "USER#' || :k14 || '"}}, {"pk": {"S": "USER#' || :k15 || '"}}, {"pk": {"S": "USER#' || :k16 || '"}}, {"pk": {"S": "USER#' || :k17 || '"}}, {"pk": {"S": "USER#' || :k18 || '"}}, {"pk": {"S": "USER#' || :k19 || '"}}, {"pk": {"S": "USER#' || :k20 || '"}}, {"pk": {"S": "USER#' || :k21 || '"}}, {"pk": {"S": "USER#' || :k22 || '"}}, {"pk": {"S": "USER#' || :k23 || '"}}, {"pk": {"S": "USER#' || :k24 || '"}}, {"pk": {"S": "USER#' || :k25 || '"}}]}}}')::jsonb);
