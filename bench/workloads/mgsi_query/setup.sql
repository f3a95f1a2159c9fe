-- Multi-attribute GSI workloads: the same matches in two tables, indexed
-- the two ways a tournament index can be keyed:
--   mgsib  GSI by_bracket: HASH tournament (S), region (S), division (N);
--          RANGE round (N), match (S)  -- a 3+2-attribute key
--   mgsic  GSI by_bracket: HASH gpk (S) = T#<tournament>#R#<region>#D#<division>,
--          RANGE gsk (S) = ROUND#<round, 4 digits>#MATCH#<match>  -- the
--          concatenated single-attribute key of the same order
-- :scale matches over 10 tournaments x 5 regions x 10 divisions, 20
-- rounds, loaded through the physical tables (the index trigger fills
-- the index tables).
SELECT item_table.delete_table(jsonb_build_object('TableName', table_name)) FROM item_table.tables
WHERE table_name IN ('mgsib', 'mgsic');
SELECT item_table.create_table('{"TableName": "mgsib", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
		{"AttributeName": "tournament", "AttributeType": "S"}, {"AttributeName": "region", "AttributeType": "S"},
		{"AttributeName": "division", "AttributeType": "N"}, {"AttributeName": "round", "AttributeType": "N"},
		{"AttributeName": "match", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [{"IndexName": "by_bracket", "KeySchema": [
		{"AttributeName": "tournament", "KeyType": "HASH"}, {"AttributeName": "region", "KeyType": "HASH"},
		{"AttributeName": "division", "KeyType": "HASH"},
		{"AttributeName": "round", "KeyType": "RANGE"}, {"AttributeName": "match", "KeyType": "RANGE"}],
		"Projection": {"ProjectionType": "ALL"}}]}') IS NOT NULL AS created;
SELECT item_table.create_table('{"TableName": "mgsic", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
		{"AttributeName": "gpk", "AttributeType": "S"}, {"AttributeName": "gsk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [{"IndexName": "by_bracket", "KeySchema": [
		{"AttributeName": "gpk", "KeyType": "HASH"}, {"AttributeName": "gsk", "KeyType": "RANGE"}],
		"Projection": {"ProjectionType": "ALL"}}]}') IS NOT NULL AS created;
CREATE TEMP TABLE mgsi_src AS
SELECT g, 'MATCH#' || g AS pk, 'T' || (g % 10) AS t, 'R' || (g / 10 % 5) AS r, g / 50 % 10 AS d,
	   1 + g / 500 % 20 AS rnd, 'M' || g AS m
FROM generate_series(1, :scale) g;
INSERT INTO item_data.mgsib (key, item)
SELECT item_table.item_key(jsonb_build_object('S', pk)), jsonb_build_object('pk', jsonb_build_object('S', pk),
	'tournament', jsonb_build_object('S', t), 'region', jsonb_build_object('S', r),
	'division', jsonb_build_object('N', d::text), 'round', jsonb_build_object('N', rnd::text),
	'match', jsonb_build_object('S', m), 'score', jsonb_build_object('N', (g % 97)::text))
FROM mgsi_src;
INSERT INTO item_data.mgsic (key, item)
SELECT item_table.item_key(jsonb_build_object('S', pk)), jsonb_build_object('pk', jsonb_build_object('S', pk),
	'gpk', jsonb_build_object('S', 'T#' || t || '#R#' || r || '#D#' || d),
	'gsk', jsonb_build_object('S', 'ROUND#' || lpad(rnd::text, 4, '0') || '#MATCH#' || m),
	'tournament', jsonb_build_object('S', t), 'region', jsonb_build_object('S', r),
	'division', jsonb_build_object('N', d::text), 'round', jsonb_build_object('N', rnd::text),
	'match', jsonb_build_object('S', m), 'score', jsonb_build_object('N', (g % 97)::text))
FROM mgsi_src;
VACUUM ANALYZE item_data.mgsib;
VACUUM ANALYZE item_data."mgsib#by_bracket";
VACUUM ANALYZE item_data.mgsic;
VACUUM ANALYZE item_data."mgsic#by_bracket";
