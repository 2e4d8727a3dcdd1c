-- expect: tests/negative/require_no_text.lua:11: error: k:require takes (cond, "what it means"), e.g. k:require((p.Hq % p.Hkv):eq(0), "Hq is a multiple of Hkv")
local tile = require "tile"
-- a precondition without its words

return tile.kernel {
  name = "require_no_text",
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }), s = tile.scalar("i32") } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:require(p.s:gt(0))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}
