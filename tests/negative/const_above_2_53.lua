-- expect: tests/negative/const_above_2_53.lua:11: error: an operand 9007199254740993 is not exactly representable as a value (integers are at most 2^53 in magnitude)
local tile = require "tile"
-- an integer above 2^53 was rounded to a double without a word

return tile.kernel {
  name = "const_above_2_53",
  config = { BLOCK = 256, threads = 256, BIG = 9007199254740993 },
  params = function(v) return { X = tile.tensor("i32", { "N" }), Y = tile.tensor("i32", { "N" }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })) + c.BIG)
  end,
}
