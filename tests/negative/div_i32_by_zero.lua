-- expect: tests/negative/div_i32_by_zero.lua:12: error: i32 division by the constant 0
local tile = require "tile"
-- an i32 division by the constant 0 was emitted as x / 0

return tile.kernel {
  name = "div_i32_by_zero",
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("i32", { "N" }), Y = tile.tensor("i32", { "N" }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local x = k:load(p.X:tile({ i }, { c.BLOCK }))
    k:store(p.Y:tile({ i }, { c.BLOCK }), x // 0)
  end,
}
