-- expect: tests/negative/gather_shared.lua:13: error: a view of gathered rows is loaded into registers (k:load), not copied to a shared tile
local tile = require "tile"
return tile.kernel {
  name = "gather_shared",
  config = { BM = 16, BN = 64, threads = 128 },
  params = function()
    return { X = tile.tensor("f32", { "N", "C" }), I = tile.tensor("i32", { "N", 1 }), Y = tile.tensor("f32", { "N", "C" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(p.N)
    local ids = k:load(p.I:tile({ i, 0 }, { c.BM, 1 }))
    local x = k:load(p.X:tile({ i, 0 }, { c.BM, c.BN }))
    local s = k:shared("f32", { c.BM, c.BN }); k:copy(p.X:view({ ids, 0 }, { c.BM, c.BN }), s)
    k:store(p.Y:tile({ i, 0 }, { c.BM, c.BN }), x)
  end,
}
