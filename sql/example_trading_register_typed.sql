-- Example 1b (examples/trading_register_typed.sql), run as written: its
-- output, below, is the check of every access pattern it shows.
\i examples/trading_register_typed.sql
