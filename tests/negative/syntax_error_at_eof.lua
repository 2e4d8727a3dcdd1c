-- expect: tests/negative/syntax_error_at_eof.lua:5: error: unexpected symbol near <eof>
local tile = require "tile"
-- a syntax error at the end of the file: Lua names the line after the last newline
local x =
