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
-- The request is built by one format() call, as a client sends it whole:
-- a chain of || would copy the growing text once per piece (quadratic in
-- the request's size), a cost of the script, not of the call measured.
SELECT item_table.batch_write_item(format('{"RequestItems": {"bench": [{"PutRequest": {"Item": {"pk": {"S": "USER#%1$s"}, "name": {"S": "user number %1$s"}, "email": {"S": "user%1$s@example.com"}, "n": {"N": "%2$s"}, "score": {"N": "%2$s.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#%3$s"}, "name": {"S": "user number %3$s"}, "email": {"S": "user%3$s@example.com"}, "n": {"N": "%2$s"}, "score": {"N": "%2$s.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#%4$s"}, "name": {"S": "user number %4$s"}, "email": {"S": "user%4$s@example.com"}, "n": {"N": "%2$s"}, "score": {"N": "%2$s.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#%5$s"}, "name": {"S": "user number %5$s"}, "email": {"S": "user%5$s@example.com"}, "n": {"N": "%2$s"}, "score": {"N": "%2$s.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#%6$s"}, "name": {"S": "user number %6$s"}, "email": {"S": "user%6$s@example.com"}, "n": {"N": "%2$s"}, "score": {"N": "%2$s.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#%7$s"}, "name": {"S": "user number %7$s"}, "email": {"S": "user%7$s@example.com"}, "n": {"N": "%2$s"}, "score": {"N": "%2$s.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#%8$s"}, "name": {"S": "user number %8$s"}, "email": {"S": "user%8$s@example.com"}, "n": {"N": "%2$s"}, "score": {"N": "%2$s.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#%9$s"}, "name": {"S": "user number %9$s"}, "email": {"S": "user%9$s@example.com"}, "n": {"N": "%2$s"}, "score": {"N": "%2$s.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#%10$s"}, "name": {"S": "user number %10$s"}, "email": {"S": "user%10$s@example.com"}, "n": {"N": "%2$s"}, "score": {"N": "%2$s.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#%11$s"}, "name": {"S": "user number %11$s"}, "email": {"S": "user%11$s@example.com"}, "n": {"N": "%2$s"}, "score": {"N": "%2$s.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#%12$s"}, "name": {"S": "user number %12$s"}, "email": {"S": "user%12$s@example.com"}, "n": {"N": "%2$s"}, "score": {"N": "%2$s.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#%13$s"}, "name": {"S": "user number %13$s"}, "email": {"S": "user%13$s@example.com"}, "n": {"N": "%2$s"}, "score": {"N": "%2$s.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#%14$s"}, "name": {"S": "user number %14$s"}, "email": {"S": "user%14$s@example.com"}, "n": {"N": "%2$s"}, "score": {"N": "%2$s.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#%15$s"}, "name": {"S": "user number %15$s"}, "email": {"S": "user%15$s@example.com"}, "n": {"N": "%2$s"}, "score": {"N": "%2$s.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#%16$s"}, "name": {"S": "user number %16$s"}, "email": {"S": "user%16$s@example.com"}, "n": {"N": "%2$s"}, "score": {"N": "%2$s.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#%17$s"}, "name": {"S": "user number %17$s"}, "email": {"S": "user%17$s@example.com"}, "n": {"N": "%2$s"}, "score": {"N": "%2$s.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#%18$s"}, "name": {"S": "user number %18$s"}, "email": {"S": "user%18$s@example.com"}, "n": {"N": "%2$s"}, "score": {"N": "%2$s.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#%19$s"}, "name": {"S": "user number %19$s"}, "email": {"S": "user%19$s@example.com"}, "n": {"N": "%2$s"}, "score": {"N": "%2$s.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#%20$s"}, "name": {"S": "user number %20$s"}, "email": {"S": "user%20$s@example.com"}, "n": {"N": "%2$s"}, "score": {"N": "%2$s.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#%21$s"}, "name": {"S": "user number %21$s"}, "email": {"S": "user%21$s@example.com"}, "n": {"N": "%2$s"}, "score": {"N": "%2$s.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#%22$s"}, "name": {"S": "user number %22$s"}, "email": {"S": "user%22$s@example.com"}, "n": {"N": "%2$s"}, "score": {"N": "%2$s.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#%23$s"}, "name": {"S": "user number %23$s"}, "email": {"S": "user%23$s@example.com"}, "n": {"N": "%2$s"}, "score": {"N": "%2$s.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#%24$s"}, "name": {"S": "user number %24$s"}, "email": {"S": "user%24$s@example.com"}, "n": {"N": "%2$s"}, "score": {"N": "%2$s.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#%25$s"}, "name": {"S": "user number %25$s"}, "email": {"S": "user%25$s@example.com"}, "n": {"N": "%2$s"}, "score": {"N": "%2$s.5"}}}},
 {"PutRequest": {"Item": {"pk": {"S": "USER#%26$s"}, "name": {"S": "user number %26$s"}, "email": {"S": "user%26$s@example.com"}, "n": {"N": "%2$s"}, "score": {"N": "%2$s.5"}}}}]}}', :k1::text, :v::text, :k2::text, :k3::text, :k4::text, :k5::text, :k6::text, :k7::text, :k8::text, :k9::text, :k10::text, :k11::text, :k12::text, :k13::text, :k14::text, :k15::text, :k16::text, :k17::text, :k18::text, :k19::text, :k20::text, :k21::text, :k22::text, :k23::text, :k24::text, :k25::text)::jsonb);
