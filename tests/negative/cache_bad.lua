-- expect: tests/negative/cache_bad.lua:13: error: cache is "stream" (read or written once) or "keep" (reused by other programs), not first
local tile = require "tile"
return tile.kernel {
  name = "cache_bad",
  config = { BM = 16, BN = 64, threads = 128 },
  params = function()
    return { X = tile.tensor("f32", { "N", "C" }), I = tile.tensor("i32", { "N", 1 }), Y = tile.tensor("f32", { "N", "C" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(p.N)
    local ids = k:load(p.I:tile({ i, 0 }, { c.BM, 1 }))
    local x = k:load(p.X:tile({ i, 0 }, { c.BM, c.BN }))
    x = k:load(p.X:tile({ i, 0 }, { c.BM, c.BN }), 0, { cache = "first" })
    k:store(p.Y:tile({ i, 0 }, { c.BM, c.BN }), x)
  end,
}
