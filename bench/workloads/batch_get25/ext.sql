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
-- The request is built by one format() call, as a client sends it whole:
-- a chain of || would copy the growing text once per piece (quadratic in
-- the request's size), a cost of the script, not of the call measured.
SELECT item_table.batch_get_item(format('{"RequestItems": {"bench": {"Keys": [{"pk": {"S": "USER#%1$s"}}, {"pk": {"S": "USER#%2$s"}}, {"pk": {"S": "USER#%3$s"}}, {"pk": {"S": "USER#%4$s"}}, {"pk": {"S": "USER#%5$s"}}, {"pk": {"S": "USER#%6$s"}}, {"pk": {"S": "USER#%7$s"}}, {"pk": {"S": "USER#%8$s"}}, {"pk": {"S": "USER#%9$s"}}, {"pk": {"S": "USER#%10$s"}}, {"pk": {"S": "USER#%11$s"}}, {"pk": {"S": "USER#%12$s"}}, {"pk": {"S": "USER#%13$s"}}, {"pk": {"S": "USER#%14$s"}}, {"pk": {"S": "USER#%15$s"}}, {"pk": {"S": "USER#%16$s"}}, {"pk": {"S": "USER#%17$s"}}, {"pk": {"S": "USER#%18$s"}}, {"pk": {"S": "USER#%19$s"}}, {"pk": {"S": "USER#%20$s"}}, {"pk": {"S": "USER#%21$s"}}, {"pk": {"S": "USER#%22$s"}}, {"pk": {"S": "USER#%23$s"}}, {"pk": {"S": "USER#%24$s"}}, {"pk": {"S": "USER#%25$s"}}]}}}', :k1::text, :k2::text, :k3::text, :k4::text, :k5::text, :k6::text, :k7::text, :k8::text, :k9::text, :k10::text, :k11::text, :k12::text, :k13::text, :k14::text, :k15::text, :k16::text, :k17::text, :k18::text, :k19::text, :k20::text, :k21::text, :k22::text, :k23::text, :k24::text, :k25::text)::jsonb);
