-- expect: tests/negative/expr_too_deep.lua:13: error: expression nested deeper than 1000 operations; break the chain: keep a running value in a k:fragment (k:assign), or call a k: method between steps so that the values in locals get names
local tile = require "tile"
-- 100,000 chained additions would overflow the C stack of the passes and the emitter (they recurse)

return tile.kernel {
  name = "expr_too_deep",
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local a = k:load(p.X:tile({ i }, { c.BLOCK }))
    local x = a
    for _ = 1, 100000 do x = x + a end
    k:store(p.Y:tile({ i }, { c.BLOCK }), x)
  end,
}
