\set q random(1, 100)
SELECT item_table.search_vectors(request) FROM vecb_queries WHERE id = :q;
