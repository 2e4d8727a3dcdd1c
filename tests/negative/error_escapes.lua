-- expect: tests/negative/error_escapes.lua:4: error: line one?line two ?[31mred?[0m?
local tile = require "tile"
-- control characters and terminal escapes in an error message become ?
error("line one\nline two \27[31mred\27[0m\r")
return tile.kernel {
  name = "error_escapes",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}
