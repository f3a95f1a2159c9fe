-- Display helpers: DynamoDB JSON as plain JSON ({"S": "x"} -> "x",
-- {"N": "2.5"} -> 2.5, maps and lists recursively), and the Items of a
-- Query response as rows, in response order.
CREATE FUNCTION pg_temp.plain(v jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE
		WHEN v ? 'S' THEN v->'S'
		WHEN v ? 'N' THEN to_jsonb((v->>'N')::numeric)
		WHEN v ? 'BOOL' THEN v->'BOOL'
		WHEN v ? 'NULL' THEN 'null'::jsonb
		WHEN v ? 'M' THEN (SELECT coalesce(jsonb_object_agg(k, pg_temp.plain(e)), '{}') FROM jsonb_each(v->'M') AS m(k, e))
		WHEN v ? 'L' THEN (SELECT coalesce(jsonb_agg(pg_temp.plain(e) ORDER BY n), '[]') FROM jsonb_array_elements(v->'L') WITH ORDINALITY AS l(e, n))
		WHEN v ? 'NS' THEN (SELECT jsonb_agg(to_jsonb(e::numeric)) FROM jsonb_array_elements_text(v->'NS') AS s(e))
		ELSE coalesce(v->'SS', v->'B', v->'BS', v)
	END $$;
CREATE FUNCTION pg_temp.items(response jsonb) RETURNS TABLE (item jsonb) LANGUAGE sql AS $$
	SELECT pg_temp.plain(jsonb_build_object('M', i))
	FROM jsonb_array_elements(response->'Items') WITH ORDINALITY AS a(i, n) ORDER BY n $$;
