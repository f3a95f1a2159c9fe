\set q random(1, 100)
SELECT key, item, embedding <-> (SELECT v FROM vecb_queries WHERE id = :q)::vector AS score
  FROM vecb_plain ORDER BY embedding <-> (SELECT v FROM vecb_queries WHERE id = :q)::vector LIMIT 10;
