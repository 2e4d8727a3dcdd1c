-- expect: tests/negative/require_tile.lua:11: error: k:require's condition must be a scalar comparison such as (p.Hq % p.Hkv):eq(0)
local tile = require "tile"
-- a tile is no precondition

return tile.kernel {
  name = "require_tile",
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }), s = tile.scalar("i32") } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:require(k:load(p.X:tile({ i }, { c.BLOCK })):gt(0), "positive")
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}
