-- Example 1 (examples/trading_register.sql), run as written: its output,
-- below, is the check of every access pattern it shows.
\i examples/trading_register.sql
