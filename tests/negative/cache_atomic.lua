-- expect: tests/negative/cache_atomic.lua:13: error: k:atomic_add takes no cache option (its adds go to L2)
local tile = require "tile"
return tile.kernel {
  name = "cache_atomic",
  config = { BM = 16, BN = 64, threads = 128 },
  params = function()
    return { X = tile.tensor("f32", { "N", "C" }), I = tile.tensor("i32", { "N", 1 }), Y = tile.tensor("f32", { "N", "C" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(p.N)
    local ids = k:load(p.I:tile({ i, 0 }, { c.BM, 1 }))
    local x = k:load(p.X:tile({ i, 0 }, { c.BM, c.BN }))
    k:atomic_add(p.Y:tile({ i, 0 }, { c.BM, c.BN }), x, { cache = "stream" })
    k:store(p.Y:tile({ i, 0 }, { c.BM, c.BN }), x)
  end,
}
