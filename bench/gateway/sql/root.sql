-- the HTTP floor's companion (GET / through the gateway): a round trip
-- that does nothing
SELECT 1;
