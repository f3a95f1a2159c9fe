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
\set v random(1, 1000000)
SELECT item_table.batch_write_item(('{"RequestItems": {"bench": [{"PutRequest": {"Item": {"pk": {"S": "USER#' || :k1 || '"}, "name": {"S": "user number ' || :k1 || '"}, "email": {"S": "user' || :k1 || '@example.com"}, "n": {"N": "' || :v || '"}, "score": {"N": "' || :v || '.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#' || :k2 || '"}, "name": {"S": "user number ' || :k2 || '"}, "email": {"S": "user' || :k2 || '@example.com"}, "n": {"N": "' || :v || '"}, "score": {"N": "' || :v || '.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#' || :k3 || '"}, "name": {"S": "user number ' || :k3 || '"}, "email": {"S": "user' || :k3 || '@example.com"}, "n": {"N": "' || :v || '"}, "score": {"N": "' || :v || '.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#' || :k4 || '"}, "name": {"S": "user number ' || :k4 || '"}, "email": {"S": "user' || :k4 || '@example.com"}, "n": {"N": "' || :v || '"}, "score": {"N": "' || :v || '.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#' || :k5 || '"}, "name": {"S": "user number ' || :k5 || '"}, "email": {"S": "user' || :k5 || '@example.com"}, "n": {"N": "' || :v || '"}, "score": {"N": "' || :v || '.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#' || :k6 || '"}, "name": {"S": "user number ' || :k6 || '"}, "email": {"S": "user' || :k6 || '@example.com"}, "n": {"N": "' || :v || '"}, "score": {"N": "' || :v || '.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#' || :k7 || '"}, "name": {"S": "user number ' || :k7 || '"}, "email": {"S": "user' || :k7 || '@example.com"}, "n": {"N": "' || :v || '"}, "score": {"N": "' || :v || '.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#' || :k8 || '"}, "name": {"S": "user number ' || :k8 || '"}, "email": {"S": "user' || :k8 || '@example.com"}, "n": {"N": "' || :v || '"}, "score": {"N": "' || :v || '.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#' || :k9 || '"}, "name": {"S": "user number ' || :k9 || '"}, "email": {"S": "user' || :k9 || '@example.com"}, "n": {"N": "' || :v || '"}, "score": {"N": "' || :v || '.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#' || :k10 || '"}, "name": {"S": "user number ' || :k10 || '"}, "email": {"S": "user' || :k10 || '@example.com"}, "n": {"N": "' || :v || '"}, "score": {"N": "' || :v || '.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#' || :k11 || '"}, "name": {"S": "user number ' || :k11 || '"}, "email": {"S": "user' || :k11 || '@example.com"}, "n": {"N": "' || :v || '"}, "score": {"N": "' || :v || '.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#' || :k12 || '"}, "name": {"S": "user number ' || :k12 || '"}, "email": {"S": "user' || :k12 || '@example.com"}, "n": {"N": "' || :v || '"}, "score": {"N": "' || :v || '.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#' || :k13 || '"}, "name": {"S": "user number ' || :k13 || '"}, "email": {"S": "user' || :k13 || '@example.com"}, "n": {"N": "' || :v || '"}, "score": {"N": "' || :v || '.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#' || :k14 || '"}, "name": {"S": "user number ' || :k14 || '"}, "email": {"S": "user' || :k14 || '@example.com"}, "n": {"N": "' || :v || '"}, "score": {"N": "' || :v || '.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#' || :k15 || '"}, "name": {"S": "user number ' || :k15 || '"}, "email": {"S": "user' || :k15 || '@example.com"}, "n": {"N": "' || :v || '"}, "score": {"N": "' || :v || '.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#' || :k16 || '"}, "name": {"S": "user number ' || :k16 || '"}, "email": {"S": "user' || :k16 || '@example.com"}, "n": {"N": "' || :v || '"}, "score": {"N": "' || :v || '.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#' || :k17 || '"}, "name": {"S": "user number ' || :k17 || '"}, "email": {"S": "user' || :k17 || '@example.com"}, "n": {"N": "' || :v || '"}, "score": {"N": "' || :v || '.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#' || :k18 || '"}, "name": {"S": "user number ' || :k18 || '"}, "email": {"S": "user' || :k18 || '@example.com"}, "n": {"N": "' || :v || '"}, "score": {"N": "' || :v || '.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#' || :k19 || '"}, "name": {"S": "user number ' || :k19 || '"}, "email": {"S": "user' || :k19 || '@example.com"}, "n": {"N": "' || :v || '"}, "score": {"N": "' || :v || '.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#' || :k20 || '"}, "name": {"S": "user number ' || :k20 || '"}, "email": {"S": "user' || :k20 || '@example.com"}, "n": {"N": "' || :v || '"}, "score": {"N": "' || :v || '.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#' || :k21 || '"}, "name": {"S": "user number ' || :k21 || '"}, "email": {"S": "user' || :k21 || '@example.com"}, "n": {"N": "' || :v || '"}, "score": {"N": "' || :v || '.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#' || :k22 || '"}, "name": {"S": "user number ' || :k22 || '"}, "email": {"S": "user' || :k22 || '@example.com"}, "n": {"N": "' || :v || '"}, "score": {"N": "' || :v || '.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#' || :k23 || '"}, "name": {"S": "user number ' || :k23 || '"}, "email": {"S": "user' || :k23 || '@example.com"}, "n": {"N": "' || :v || '"}, "score": {"N": "' || :v || '.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#' || :k24 || '"}, "name": {"S": "user number ' || :k24 || '"}, "email": {"S": "user' || :k24 || '@example.com"}, "n": {"N": "' || :v || '"}, "score": {"N": "' || :v || '.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#' || :k25 || '"}, "name": {"S": "user number ' || :k25 || '"}, "email": {"S": "user' || :k25 || '@example.com"}, "n": {"N": "' || :v || '"}, "score": {"N": "' || :v || '.5"}}}}]}}')::jsonb);
