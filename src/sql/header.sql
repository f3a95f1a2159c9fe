-- item_table install script, assembled from src/sql/*.sql at build time.

\echo Use "CREATE EXTENSION item_table" to load this file. \quit
