-- Create the extension and check every operator class it installs.
CREATE EXTENSION item_table;
SET search_path = item_table, public;

-- amvalidate reports problems as WARNING/INFO and returns false
SELECT opcname, amname, amvalidate(opc.oid)
FROM pg_opclass opc JOIN pg_am am ON am.oid = opc.opcmethod
WHERE opcnamespace = 'item_table'::regnamespace
ORDER BY opcname, amname;

-- every function states its volatility and parallel safety explicitly
SELECT proname, provolatile, proparallel, proisstrict
FROM pg_proc WHERE pronamespace = 'item_table'::regnamespace
ORDER BY proname, pronargs;
