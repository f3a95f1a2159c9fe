-- Expression parsing (reference §3): how every kind of expression reads,
-- and the ValidationException DynamoDB gives for each invalid one.
-- explain_expression() parses with the request's names and values and
-- prints the tree: (op operands...) for conditions, resolved names (quoted
-- when not plain identifiers), :value{TYPE:value} for values.
SET search_path = item_table, public;

-- the rendering, or the error's SQLSTATE and message
CREATE FUNCTION pg_temp.explain(k text, expr text, names jsonb, vals jsonb)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	st text;
	msg text;
	kind text := CASE k WHEN 'C' THEN 'ConditionExpression' WHEN 'F' THEN 'FilterExpression'
		WHEN 'K' THEN 'KeyConditionExpression' WHEN 'U' THEN 'UpdateExpression'
		WHEN 'P' THEN 'ProjectionExpression' END;
BEGIN
	RETURN item_table.explain_expression(kind, expr, names, vals);
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
	RETURN st || ' ' || msg;
END $$;

-- the entries of a default map that an expression mentions (every supplied
-- name and value must be used, reference §3.2)
CREATE FUNCTION pg_temp.used(m jsonb, expr text) RETURNS jsonb LANGUAGE sql AS $$
	SELECT jsonb_object_agg(key, value) FROM jsonb_each(m)
	WHERE expr ~ (key || '(?![A-Za-z0-9_])')
$$;

CREATE TEMP TABLE defaults (names jsonb, vals jsonb);
INSERT INTO defaults VALUES (
	'{"#n": "name", "#s": "status", "#d": "a.b", "#x": "x", "#y": "y", "#a": "a",
	  "#b": "b", "#1": "one", "#_": "under", "#Alpha_9": "weird name!", "#q": "say \"hi\""}',
	'{":v": {"N": "1"}, ":s": {"S": "x"}, ":s2": {"S": "a"}, ":lo": {"N": "1"}, ":hi": {"N": "9"},
	  ":b": {"B": "AQ=="}, ":l": {"L": [{"S": "a"}]}, ":m": {"M": {"k": {"S": "v"}}},
	  ":ss": {"SS": ["a", "b"]}, ":ns": {"NS": ["1", "2"]}, ":bs": {"BS": ["AQ=="]},
	  ":bool": {"BOOL": true}, ":null": {"NULL": true}, ":t": {"S": "N"}, ":tss": {"S": "SS"},
	  ":dog": {"S": "DOG"}, ":lower": {"S": "n"}, ":1": {"N": "-1.50"}, ":_": {"S": ""},
	  ":e": {"L": []}}');

-- k: C ConditionExpression, F FilterExpression, K KeyConditionExpression,
-- U UpdateExpression, P ProjectionExpression.  names/vals NULL: the
-- defaults that the expression uses.
CREATE TEMP TABLE cases (id serial, k text, expr text, names jsonb, vals jsonb);

CREATE FUNCTION pg_temp.run(first int, last int)
RETURNS TABLE (id int, k text, expr text, result text) LANGUAGE sql AS $$
	SELECT c.id, c.k, c.expr,
		   pg_temp.explain(c.k, c.expr, coalesce(c.names, pg_temp.used(d.names, c.expr)),
						   coalesce(c.vals, pg_temp.used(d.vals, c.expr)))
	FROM cases c, defaults d WHERE c.id BETWEEN first AND last ORDER BY c.id
$$;

\pset format unaligned
\pset fieldsep ' | '

-- ===================================================================
-- valid expressions
-- ===================================================================

-- comparisons, paths, placeholders (§3.3, §3.4)
INSERT INTO cases (k, expr) VALUES
	('C', 'a = :v'), ('C', 'a <> :v'), ('C', 'a < :v'), ('C', 'a <= :v'), ('C', 'a > :v'),
	('C', 'a >= :v'), ('C', ':v = a'), ('C', 'a = b'), ('C', 'a.b = :v'),
	('C', 'a.b.c.d = :s'), ('C', 'a[0] = :v'), ('C', 'a[0][1] = :v'), ('C', 'a.b[2].c = :v'),
	('C', 'a[007] = :v'), ('C', 'a[2147483647] = :v'),
	('C', '#n = :s'),				-- #name → name (reserved, fine via #)
	('C', '#d = :v'),				-- #d → "a.b": one element (§3.2)
	('C', '#d.#x = :v'), ('C', 'a.#n[3] = :s'), ('C', '#q = :s'), ('C', '#Alpha_9 = :s'),
	('C', '#s = :s'),				-- §8.34 status through a name
	('C', '#1 = :1'), ('C', '#_ = :_'),
	('C', 'Alpha_Numeric_123 = :v'), ('C', 'A123_ = :v'),
	('C', 'pk = :s'), ('C', 'id = :s'), ('C', 'sk <> :s'),
	('C', 'a.b.c <> a.b.d'), ('C', 'a[0] = a[1]'), ('C', 'a.b = a.c'),
	('C', ':v = :v'),				-- constants may repeat
	('C', 'a = :m'), ('C', 'a <> :l'), ('C', 'a = :null'), ('C', 'a <> :bool'),
	('C', 'a = :ss'), ('C', 'a = :b'), ('C', 'a = :e'),
	('C', 'a < :s'), ('C', 'a >= :b'), ('C', ':s > :v');

-- precedence (§3.4): comparisons > IN > BETWEEN > functions > () > NOT > AND > OR
INSERT INTO cases (k, expr) VALUES
	('C', 'a < b OR c < b AND b < c'),
	('C', '(a < b OR c < b) AND b < c'),
	('C', 'NOT a < b AND c < b'),
	('C', 'NOT (a < b AND c < b)'),
	('C', 'b BETWEEN a AND c AND a < b'),		-- the first AND is BETWEEN's
	('C', 'a = :v AND b = :s AND c = :v'),
	('C', 'a = :v OR b = :s OR c = :v'),
	('C', 'a = :v AND b = :s OR c = :v AND d = :s'),
	('C', 'a = :v AND (b = :s OR c = :v)'),
	('C', 'NOT NOT a = :v'),
	('C', 'NOT a = :v OR b = :s'),
	('C', 'NOT attribute_exists(a) AND b IN (:v, :s)'),
	('C', 'a IN (:v) OR b BETWEEN :lo AND :hi AND NOT c = :s'),
	('C', '(a = :v)'),							-- §8.30 one pair is fine
	('C', '(a = :v) AND (b = :s)'),
	('C', '((a = :v) AND b = :s)'),
	('C', '((a = :v) OR (b = :s))'),
	('C', '((a = :v AND b = :s) OR c = :v)'),
	('C', 'NOT (attribute_exists(a))'),
	('C', '(NOT a = :v)');

-- BETWEEN, IN, functions (§3.4, §3.6)
INSERT INTO cases (k, expr) VALUES
	('C', 'a BETWEEN :lo AND :hi'), ('C', 'a BETWEEN b AND c'), ('C', 'a BETWEEN :lo AND :lo'),
	('C', 'a BETWEEN :s2 AND :s'), ('C', 'size(a) BETWEEN :lo AND :hi'),
	('C', ':v BETWEEN a AND b'),
	('C', 'a IN (:v, :s)'),					-- §8.31 mixed types
	('C', 'a IN (b)'), ('C', 'a IN (:v, b, c.d, size(e))'), ('C', 'a IN (:m, :l, :ss, :null)'),
	('C', ':v IN (a, b)'),
	('C', 'attribute_exists(a)'), ('C', 'attribute_not_exists(a.b[1])'),
	('C', 'attribute_not_exists(pk)'), ('C', 'attribute_exists(#n)'),
	('C', 'attribute_type(a, :t)'),			-- §8.29 "N"
	('C', 'attribute_type(a.b, :tss)'),
	('C', 'begins_with(a, :s)'), ('C', 'begins_with(:s, a)'), ('C', 'begins_with(a, b)'),
	('C', 'begins_with(a, :b)'), ('C', 'begins_with(:s, :s2)'),
	('C', 'contains(a, :s)'), ('C', 'contains(a, :v)'), ('C', 'contains(a, :l)'),
	('C', 'contains(:ss, a)'), ('C', 'contains(a, b)'), ('C', 'contains(a.b, a.c)'),
	('C', 'size(a) > :v'), ('C', 'size(a.b[0]) = :v'), ('C', ':v < size(a)'),
	('C', 'size(:s) = :v'), ('C', 'size(:l) > :v'), ('C', 'size(:m) > :v'), ('C', 'size(:ss) > :v'),
	('C', 'size(:b) > :v'), ('C', 'size(a) = size(b)'), ('C', 'size(a) <> size(a)');

-- parentheses around operands, keywords in any case, whitespace
INSERT INTO cases (k, expr) VALUES
	('C', '(a) = :v'), ('C', 'a = (:v)'), ('C', '(a).b = :v'), ('C', '(a.b)[1] = :v'),
	('C', 'a BETWEEN (b) AND (c)'), ('C', '(a)BETWEEN(b)AND(c)'), ('C', 'a IN ((b), c)'),
	('C', 'size((a)) = :v'), ('C', 'attribute_exists((a))'), ('C', '(attribute_exists(a))'),
	('C', '(size(a)) > :v'), ('C', 'contains((a), (:s))'),
	('C', 'a = :v and b = :s'), ('C', 'Not a = :v'), ('C', 'a between :lo aNd :hi'),
	('C', 'a in (:v)'), ('C', 'a = :v oR b = :s'),
	('C', '  a=:v  '), ('C', E'a\t=\n:v'), ('C', 'a=:v AND(b=:s)OR(c=:v)'),
	('C', 'a.b[1]=:v AND NOT(c<>:s)');

-- filter and key conditions (§3.7: structure checked elsewhere)
INSERT INTO cases (k, expr) VALUES
	('F', 'a = :v'), ('F', 'attribute_exists(a) AND size(b) < :v'),
	('K', 'pk = :s'), ('K', 'pk = :s AND sk > :v'), ('K', 'pk = :s AND begins_with(sk, :s2)'),
	('K', ':s = pk AND :v < sk'),			-- §8.21
	('K', 'pk = :s AND sk BETWEEN :lo AND :hi'), ('K', '(pk = :s) AND (sk = :v)'),
	('K', '#n = :s AND #x <= :v');

-- update expressions (§3.9)
INSERT INTO cases (k, expr) VALUES
	('U', 'SET a = :v'), ('U', 'SET a = :v, b = :s'), ('U', 'SET a.b = :v'), ('U', 'SET a[1] = :v'),
	('U', 'SET a.b[2].c = :v'), ('U', 'SET #n = :v'), ('U', 'SET #d = :v'), ('U', 'SET a = b'),
	('U', 'SET a = b.c[0]'),
	('U', 'SET a = a + :v'),				-- §8.36
	('U', 'SET a = :v + a'), ('U', 'SET a = a - :v'), ('U', 'SET a = :v - :1'), ('U', 'SET a = :v + :v'),
	('U', 'SET a = if_not_exists(a, :v)'),
	('U', 'SET n = if_not_exists(n, :v) + :v'),		-- §8.41
	('U', 'SET a = list_append(a, :l)'), ('U', 'SET a = list_append(:l, a)'),
	('U', 'SET a = list_append(:l, :e)'),
	('U', 'SET l = list_append(if_not_exists(l, :e), :l)'),	-- §8.44
	('U', 'SET a = if_not_exists(b, if_not_exists(c, :v))'),
	('U', 'SET a = if_not_exists(a.b[0], :l)'),
	('U', 'SET a = if_not_exists(a, :v) + if_not_exists(b, :v)'),
	('U', 'SET a = (b + :v)'), ('U', 'SET a = (b) + (:v)'), ('U', 'SET a = ((b.c.d)+(e))'),
	('U', 'SET a = (list_append(a, :l))'),
	('U', 'REMOVE a'), ('U', 'REMOVE a, b.c, d[0]'), ('U', 'REMOVE a[1], a[2]'),
	('U', 'ADD n :v'), ('U', 'ADD s :ss'), ('U', 'ADD a.b :v'), ('U', 'ADD a :ns, b :bs'),
	('U', 'DELETE s :ss'), ('U', 'DELETE s :ns, t :bs'),
	('U', 'SET a = :v REMOVE b'), ('U', 'REMOVE b SET a = :v'),
	('U', 'SET a = :v REMOVE b ADD c :v DELETE d :ss'),
	('U', 'DELETE d :ss ADD c :v REMOVE b SET a = :v'),
	('U', 'set a = :v remove b'), ('U', 'sEt a = :v'), ('U', '  SET   a=:v  '),
	('U', 'SET a = a'), ('U', 'REMOVE a SET b = a'), ('U', 'SET c = b REMOVE b'),
	('U', 'SET a.b = :v, a.c = :v'), ('U', 'SET a[1] = :v, a[2] = :v'),
	('U', 'SET a.b = :v, a.c[0] = :v'), ('U', 'SET l[10] = :v'),
	('U', 'SET a = :m, b = :l, c = :s, d = :b, e = :null, f = :bool, g = :ss'),
	('U', 'SET y = #n, #x = :_'), ('U', 'SET a.c[1].#x.y[1] = :v'),
	('U', 'REMOVE a.c[1].x.y[1], a.c[1].q');

-- reference edge cases that parse; what they do is the evaluator's business
INSERT INTO cases (k, expr) VALUES
	('U', 'SET n = :v + :1'),					-- §8.5
	('C', 'a < :s'),							-- §8.22 S constant, N data: no error here
	('C', 'a <> :v'), ('C', 'NOT (a < :v)'), ('C', 'a = b'), ('C', 'a <> b'),	-- §8.23
	('C', 'a BETWEEN b AND c'),					-- §8.24 bounds from data
	('C', 'size(f) > :v'),						-- §8.26
	('C', 'size(s) = :v'),						-- §8.27
	('C', 'contains(m, :s)'), ('C', 'contains(l, :l)'), ('C', 'contains(ns, :v)'),	-- §8.28
	('C', 'attribute_type(a, :t)'),				-- §8.29
	('U', 'REMOVE a'), ('U', 'SET a = :v'),		-- §8.38
	('U', 'SET a.b = :v'), ('U', 'REMOVE a.b'),	-- §8.39
	('U', 'SET l[10] = :v'), ('U', 'REMOVE l[1], l[2]'),	-- §8.40
	('U', 'SET n = n + :v'), ('U', 'ADD n :v'),	-- §8.41
	('U', 'ADD ss :ns'),						-- §8.42 set types meet the data later
	('U', 'DELETE ss :ss'), ('U', 'SET a = :ss'),	-- §8.43
	('U', 'SET l = list_append(absent, :l)');	-- §8.44 ("missing" is reserved)

-- projections (§3.8)
INSERT INTO cases (k, expr) VALUES
	('P', 'a'), ('P', 'a, b'), ('P', 'a.b'), ('P', 'a.b[2].y'), ('P', 'a[0], a[1]'),
	('P', 'a.b[0], a.c'), ('P', '#n'), ('P', '#d'), ('P', '#n.#x, #y'), ('P', 'pk, sk, id'),
	('P', '  a ,  b  '), ('P', 'a.b, a.c.d'), ('P', 'a[0][1][2]'), ('P', 'Alpha_Numeric_123'),
	('P', 'a.b.c, a.b.d, a.e'), ('P', '#q, #Alpha_9');

SELECT * FROM pg_temp.run(1, 1000);
SELECT count(*) AS valid_cases,
	   count(*) FILTER (WHERE result LIKE 'XD%') AS rejected
FROM pg_temp.run(1, 1000);

-- limits that are still fine: 4096 bytes, depth 32, 100 IN operands,
-- 300 operators
SELECT k, length(expr) AS bytes,
	   left(pg_temp.explain(k, expr, NULL, CASE WHEN k <> 'P' THEN '{":v": {"N": "1"}}'::jsonb END), 70) AS result
FROM (VALUES
	('C', repeat(' ', 4090) || 'a = :v'),
	('C', 'a' || repeat('.a', 31) || ' = :v'),
	('U', 'SET a' || repeat('[0]', 31) || ' = :v'),
	('P', 'a' || repeat('.b', 31)),
	('C', 'a IN (' || repeat(':v, ', 99) || ':v)'),
	('C', 'NOT a = :v' || repeat(' OR a = :v', 149)),
	('U', 'SET x0=a+:v' || (SELECT string_agg(format(',x%s=a+:v', i), '') FROM generate_series(1, 299) i)),
	('U', 'SET a = ' || repeat('if_not_exists(a, ', 200) || ':v' || repeat(')', 200))
) t(k, expr);

-- ===================================================================
-- invalid expressions
-- ===================================================================
TRUNCATE cases;
ALTER SEQUENCE cases_id_seq RESTART;

-- empty, lexical errors, syntax errors (§3.1)
INSERT INTO cases (k, expr) VALUES
	('C', ''), ('F', '   '), ('K', ''), ('U', E' \t\n'), ('P', ''),
	('C', 'a = :v $'), ('C', 'ü > a'),
	('C', '_a = :v'), ('C', '# = :v'), ('C', 'a = :'), ('C', '"a" = :v'), ('C', 'a-b = :v'),
	('C', '1a = :v'), ('C', 'a > 4'), ('C', 'a = = :v'), ('C', 'a == :v'), ('C', 'a =< :v'),
	('C', 'a ! = :v'), ('C', 'a < b < c'),
	('C', 'a'), ('C', ':v'), ('C', 'a ='), ('C', 'a = :v AND'), ('C', 'AND a = :v'),
	('C', 'a = :v b = :s'), ('C', 'a = :v, b = :s'), ('C', 'a = :v AND OR b = :s'),
	('C', 'a IN ()'),						-- §8.31
	('C', 'a IN b'), ('C', 'a IN (b, c,)'), ('C', 'a IN (:v'), ('C', 'a BETWEEN :lo'),
	('C', 'a BETWEEN :lo OR :hi'), ('C', 'a > between'),
	('C', 'attribute_exists()'), ('C', 'attribute_type()'), ('C', 'attribute_exists(a'),
	('C', 'attribute_exists(Pictures-RearView)'), ('C', 'attribute_exists(a..b)'),
	('C', 'attribute_exists(asdf[a])'), ('C', 'b[:a] > a'), ('C', 'b[#_] > a'),
	('C', 'a[-1] = :v'), ('C', 'a[1.5] = :v'), ('C', 'a[] = :v'), ('C', 'a. = :v'),
	('C', 'size(a).b > :v'), ('C', '(size(a)).b > :v'), ('C', 'size(a)[0] > :v'),
	('C', 'a.:v = b'), ('C', '(a = :v'), ('C', 'a = :v)'), ('C', '()'), ('C', 'NOT'),
	('C', 'NOT a'), ('C', '(a) AND b = :v'), ('C', 'a = b.(c)'),
	('C', '(a)between(b.(c.d))and(c)'), ('C', '#n.1 = :v');

-- phase 2 of conditions, in DynamoDB's order of precedence (§3.4-§3.6)
INSERT INTO cases (k, expr) VALUES
	('C', '((a = :v))'),						-- §8.30
	('C', 'a = :v AND ((b = :s))'), ('C', 'a > ((b))'), ('C', '(((a = :v)))'),
	('C', 'NOT ((a = :v))'), ('C', '((a)) = :v'), ('C', 'size(((a))) = :v'),
	('C', 'a = :v AND ((a = :v AND b = :s)) AND c = :v'),
	('C', 'a > whatever((:v), ((a)))'),			-- parentheses first
	('C', 'f(a) = :v'),
	('C', 'Begins_With(a, :s)'),				-- §8.35
	('C', 'SIZE(a) > :v'),
	('C', 'attRIbute_exIsts((views), #zz)'),	-- function name before reserved word
	('C', 'if_not_exists(a, :v) = :v'), ('C', 'a = list_append(b, :l)'),
	('C', 'size(a)'),							-- §8.26
	('C', 'NOT size(a)'), ('C', 'a = :v AND size(b)'), ('C', '(size(a))'),
	('C', 'attribute_exists(a) = :v'),			-- §8.26
	('C', 'a = :v AND attribute_not_exists(b) > c'), ('C', 'contains(:s, c) > b'),
	('C', 'size(contains(a, b)) > a'), ('C', 'a BETWEEN b AND attribute_exists(c)'),
	('C', 'a IN (b, attribute_exists(c))'), ('C', 'begins_with(attribute_type(a, :t), :s)'),
	('C', 'status = :s'),						-- §8.34
	('C', 'STATUS = :s'), ('C', 'a.name = :s'), ('C', 'a = size'),
	('C', ':s < abOrT'),						-- reserved before undefined
	('C', 'attribute_exists(views, #zz)'),		-- reserved before count and undefined
	('C', 'a = :v OR data = :s'), ('C', 'x.y.comment = :s'),
	('C', '#zz = :v'), ('C', 'a = :zz'), ('C', 'a.#zz[0] = :v'),
	('C', '(#P between :lo and :hi) and (#PC in (:v, :s))'),
	('C', 'begins_with(:hello, #a, #b)'),		-- undefined before operand count
	('C', ':a < :b'), ('C', 'attribute_exists(#zz.RearView, :v) and a = a'),
	('C', 'a = :v AND b = :zz'),
	('C', 'attribute_exists(a, b)'), ('C', 'attribute_not_exists(a, b)'),
	('C', 'attribute_type(a)'), ('C', 'begins_with(a)'), ('C', 'begins_with(a, size(b), c)'),
	('C', 'contains(a)'), ('C', 'size(a, b) > :v'),
	('C', 'a = a'),								-- §8.25
	('C', 'contains(a, a)'),					-- §8.25
	('C', '#x <> x'), ('C', 'a.b[1].x >= a.b[1].#x'), ('C', 'begins_with(a.b, a.b)'),
	('C', 'attribute_type(a, a)'),				-- identical before operand type
	('C', '((a=a) OR (a=a))'), ('C', 'a = a AND b = :zz'),
	('C', 'b = :zz AND a = a'),					-- the first faulty condition wins
	('C', 'attribute_exists(:v)'), ('C', 'attribute_not_exists(size(a))'),
	('C', 'attribute_not_exists(size(:v))'),	-- size's own check comes first
	('C', 'attribute_type(a, :v)'), ('C', 'attribute_type(a, :b)'), ('C', 'attribute_type(a, :l)'),
	('C', 'attribute_type(a, b)'), ('C', 'attribute_type(a, size(b))'),
	('C', 'attribute_type(a, :dog)'),			-- §8.29
	('C', 'attribute_type(a, :lower)'),
	('C', 'begins_with(a, :v)'), ('C', 'begins_with(:v, a)'), ('C', 'begins_with(a, :l)'),
	('C', 'begins_with(a, :ss)'), ('C', 'begins_with(a, :bool)'), ('C', 'begins_with(a, size(b))'),
	('C', 'size(:v) > a'),						-- §8.26
	('C', 'size(:bool) > a'), ('C', 'size(:null) > a'), ('C', 'size(size(a)) > :v'),
	('C', 'a < :m'),
	('C', 'a < :l'),							-- §8.22
	('C', 'a <= :ss'), ('C', ':bool > a'), ('C', 'a >= :null'), ('C', 'a BETWEEN :m AND :hi'),
	('C', 'a BETWEEN :hi AND :lo'),				-- §8.24
	('C', 'a BETWEEN :v AND :s'), ('C', 'a BETWEEN :s AND :s2'),
	('C', 'a BETWEEN :lo AND :1'),
	('F', 'size(a)'), ('F', 'a = :zz'),
	('K', 'pk = :s OR sk = :v'),				-- §8.20
	('K', 'NOT pk = :s'), ('K', 'pk = :s AND NOT sk = :v'), ('K', 'pk = :zz'),
	('K', 'pk = :s OR status = :v');			-- other problems first

-- update expressions (§3.9)
INSERT INTO cases (k, expr) VALUES
	('U', 'SET'), ('U', 'SET a'), ('U', 'SET a ='), ('U', 'SET a = :v,'), ('U', 'whatever'),
	('U', 'HELLO b = :v'), ('U', 'SET a b'), ('U', 'set a=set'), ('U', 'remove a = b'),
	('U', 'add a'), ('U', 'add a b'), ('U', 'delete a if_not_exists(b)'), ('U', 'add abort b'),
	('U', 'SET :a = b'), ('U', 'REMOVE :a'), ('U', 'SET a = b / c'), ('U', 'SET a = b * c'),
	('U', 'SET a[1] = "eight"'), ('U', 'SET a[1] = 1'), ('U', 'SET a = if_not_exists(a, 100)'),
	('U', 'SET if_not_exists(a, b) = a'), ('U', 'set (a = (b + c))'),
	('U', 'set a = (b.c).d + e'), ('U', 'set a = (b.c)[0] + e'),
	('U', 'set a = b + c + d'), ('U', 'SET a = (b + c) + d'), ('U', 'SET a = b + (c + d)'),
	('U', 'SET c = if_not_exists(c, :v+:v)'), ('U', 'SET a = :v REMOVE'),
	('U', 'SET a = _f(b,c,d)'), ('U', 'SET _123 = :v'), ('U', 'SET a[:v] = :v'),
	('U', 'SET a[#x] = :v'), ('U', 'SET # = :v'), ('U', 'SET a = :v AND b = :s'),
	('U', 'SET a = :v, REMOVE b'), ('U', 'REMOVE a b'), ('U', 'ADD a :v :v'),
	('U', 'SET a = ((b))'), ('U', 'SET a = (((b)) + :v)'),
	('U', 'SET a = f(b,c,d)'), ('U', 'SET a = LIST_APPEND(:l, :l)'),
	('U', 'SET a = size(b)'), ('U', 'SET a = attribute_exists(b)'),
	('U', 'SET a = list_append(list_append(:l, :l), :l)'),
	('U', 'SET status = :v'),
	('U', ' set #zz = :v set abOrt = :v '),		-- reserved before repeated clause
	('U', 'remove Absolute'), ('U', 'SET a = name'),
	('U', 'SET a=:v SET b=:v'),					-- §8.36
	('U', 'REMOVE a SET b = :v REMOVE c'), ('U', 'ADD a :v SET b = :v ADD c :v'),
	('U', 'DELETE a :ss DELETE b :ss'), ('U', 'SET a = #zz SET c = :v'),
	('U', 'SET #zz = :v'), ('U', 'SET a = #zz'), ('U', 'SET a = :zz'), ('U', 'SET #zz = :zz'),
	('U', 'SET a = :zz, #zz = :v'),				-- names before values
	('U', 'SET a = :v REMOVE a'),				-- §8.36
	('U', 'REMOVE a SET a = :v'), ('U', 'SET a = :v, a = :s'), ('U', 'SET a = :v, a.b = :s'),
	('U', 'SET a.b = :v, a = :s'), ('U', 'SET a[1][1] = :v, a[1] = :s'),
	('U', 'REMOVE a, #zz, a'),
	('U', 'SET a.b = :v, a[1] = :s'),			-- §8.36
	('U', 'SET a.b.c = :v, a.b[2] = :s'), ('U', 'REMOVE a.x SET a[1] = :v'),
	('U', 'SET d[1] = :v, d.b = :v, c[1].a = :v, c = :v'),	-- overlap before conflict
	('U', 'ADD a :s'),
	('U', 'ADD a :l'),							-- §8.42
	('U', 'ADD a :m'), ('U', 'ADD a :bool'), ('U', 'ADD a :null'), ('U', 'ADD a :b'),
	('U', 'DELETE a :v'), ('U', 'DELETE a :s'), ('U', 'DELETE a :l'),
	('U', 'SET a = if_not_exists(a)'), ('U', 'SET a = list_append(:l)'),
	('U', 'SET a = list_append(:l, :l, :l)'), ('U', 'SET a = if_not_exists(:v, a)'),
	('U', 'SET a = if_not_exists(if_not_exists(a, :v), :v)'),
	('U', 'SET a = list_append(:l, :s)'), ('U', 'SET a = list_append(:v, a)'),
	('U', 'SET a = list_append(a, :m)'), ('U', 'SET a = a + :s'), ('U', 'SET a = :l + a'),
	('U', 'SET a = a - :ss'), ('U', 'SET a = :v + :bool'), ('U', 'SET a = :m - :v'),
	('U', 'ADD a :s SET b = list_append(:v, b)'),	-- ADD/DELETE operands first
	('U', 'SET a = a + :s, b = if_not_exists(c)');

-- projections (§3.8)
INSERT INTO cases (k, expr) VALUES
	('P', 'a,'), ('P', ',a'), ('P', 'a,,b'), ('P', 'a b'), ('P', 'a.'), ('P', 'a[0'),
	('P', 'l[a]'), ('P', 'size(a)'), ('P', ':v'), ('P', 'a = b'), ('P', '!!'),
	('P', 'a, a'),								-- §8.45
	('P', 'a, a.b'),							-- §8.45
	('P', 'a.b[0], a'), ('P', 'a.b, a[1]'), ('P', '#x, x'), ('P', 'status'), ('P', 'a, #zz'),
	('P', 'a.name, #zz'), ('P', 'a, b, a.b.c, c[0]'), ('P', 'a[1].b, a.c, a[1]');

SELECT * FROM pg_temp.run(1, 1000);
SELECT count(*) AS invalid_cases,
	   count(*) FILTER (WHERE result NOT LIKE 'XD001 %') AS accepted
FROM pg_temp.run(1, 1000);

-- limits (§3.10)
SELECT k, length(expr) AS bytes,
	   pg_temp.explain(k, expr, NULL, CASE WHEN k <> 'P' THEN '{":v": {"N": "1"}}'::jsonb END) AS result
FROM (VALUES
	('C', repeat(' ', 4091) || 'a = :v'),
	('U', 'SET a = :v' || repeat(' ', 4087)),
	('C', 'a' || repeat('.a', 32) || ' = :v'),
	('U', 'SET a' || repeat('[0]', 32) || ' = :v'),
	('P', 'a' || repeat('.b', 32)),
	('C', 'a[99999999999] = :v'),
	('U', 'REMOVE a[2147483648]'),
	('P', 'a[99999999999999999999999]'),
	('C', 'a IN (' || repeat(':v, ', 100) || ':v)'),
	('C', 'a = :v' || repeat(' OR a = :v', 150)),
	('C', repeat('not ', 1000) || 'a = :v'),
	('C', repeat('(', 2000) || 'a = :v' || repeat(')', 2000)),
	('C', repeat('(', 4096)),
	('C', 'a < ' || repeat('f(', 1355) || 'b' || repeat(')', 1355) || ' AND b = :v'),
	('C', 'a < ' || repeat('size(', 680) || 'b' || repeat(')', 680) || ' AND b = :v'),
	('U', 'SET x0=a+:v' || (SELECT string_agg(format(',x%s=a+:v', i), '') FROM generate_series(1, 300) i))
) t(k, expr);

-- ===================================================================
-- ExpressionAttributeNames / ExpressionAttributeValues (§3.2)
-- ===================================================================
SELECT names, vals, pg_temp.explain(k, expr, names::jsonb, vals::jsonb) AS result
FROM (VALUES
	('C', '#a = :v', '{"#a": "a"}', '{":v": {"N": "1"}}'),
	('C', '#a = :v OR #b = :x', '{"#a": "a", "#b": "b"}', '{":v": {"N": "1"}, ":x": {"N": "2"}}'),	-- §8.32
	('C', 'a = :v', NULL, '{":v": {"N": "1"}, ":w": {"N": "2"}}'),		-- §8.32
	('C', 'a = :v', NULL, '{":v": {"N": "1"}, ":z": {"S": "x"}, ":w": {"N": "2"}}'),
	('C', '#n = :v', '{"#n": "n", "#b": "b", "#a": "a"}', '{":v": {"N": "1"}}'),
	('C', 'a = :v', '{"#a": "a"}', '{":v": {"N": "1"}, ":w": {"N": "2"}}'),
	('P', 'a', NULL, '{":v": {"N": "1"}}'),
	('C', 'a = :v', '{}', '{":v": {"N": "1"}}'),
	('C', 'a = :v', NULL, '{}'),
	('C', '#a = :v', '{"a": "a"}', '{":v": {"N": "1"}}'),
	('C', '#a = :v', '{"#": "a"}', '{":v": {"N": "1"}}'),
	('C', '#a = :v', '{"#a-b": "a"}', '{":v": {"N": "1"}}'),
	('C', 'a = :v', NULL, '{"b": {"S": "a"}}'),
	('C', 'a = :v', NULL, '{":": {"S": "a"}}'),
	('C', 'a = :v', NULL, '{"::v": {"S": "a"}}'),
	('C', '#e = :v', '{"#e": ""}', '{":v": {"N": "1"}}'),
	('C', 'a = :v', NULL, '{":v": {}}'),
	('C', 'a = :v', NULL, '{":v": {"SS": []}}'),
	('C', 'a = :v', NULL, '{":v": {"N": "abc"}}'),
	('C', 'a = :v', NULL, '{":v": {"NULL": false}}'),
	('C', 'a = :v', NULL, '{":v": {"S": "a", "N": "1"}}'),
	('C', 'a = :v', NULL, '{":v": {"NS": ["1", "1.0"]}}'),
	('C', 'a = :v', NULL, '{":v": {"N": 1}}'),
	('C', '#n = a', '{"#n": 1}', NULL),
	('C', '#n = a', '[]', NULL),
	('C', 'a = :v', NULL, '[{":v": {"N": "1"}}]'),
	('C', 'a = :v', NULL, '{":v": "x"}')
) t(k, expr, names, vals);

-- keys of 255 bytes are fine, 256 are not
SELECT length(key) AS key_bytes,
	   pg_temp.explain('C', key || ' = a', jsonb_build_object(key, 'x'), NULL) AS result
FROM (VALUES ('#' || repeat('k', 254)), ('#' || repeat('k', 255))) t(key);
SELECT length(key) AS key_bytes,
	   pg_temp.explain('C', key || ' = a', NULL, jsonb_build_object(key, '{"S": "x"}'::jsonb)) AS result
FROM (VALUES (':' || repeat('k', 254)), (':' || repeat('k', 255))) t(key);

-- the function itself
SELECT explain_expression('ConditionExpression', NULL) IS NULL AS null_expression,
	   explain_expression(NULL, 'a = b') IS NULL AS null_kind;
SELECT explain_expression('Condition', 'a = b');
SELECT explain_expression('FilterExpression', 'a.b[1] = :v AND #n > :w',
						  '{"#n": "count"}', '{":v": {"S": "x"}, ":w": {"N": "2"}}');
