-- expect: tests/negative/option_unknown.lua:13: error: k:load has no option 'evict'; its options are mask and cache
local tile = require "tile"
return tile.kernel {
  name = "option_unknown",
  config = { BM = 16, BN = 64, threads = 128 },
  params = function()
    return { X = tile.tensor("f32", { "N", "C" }), I = tile.tensor("i32", { "N", 1 }), Y = tile.tensor("f32", { "N", "C" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(p.N)
    local ids = k:load(p.I:tile({ i, 0 }, { c.BM, 1 }))
    local x = k:load(p.X:tile({ i, 0 }, { c.BM, c.BN }))
    x = k:load(p.X:tile({ i, 0 }, { c.BM, c.BN }), 0, { evict = "first" })
    k:store(p.Y:tile({ i, 0 }, { c.BM, c.BN }), x)
  end,
}
