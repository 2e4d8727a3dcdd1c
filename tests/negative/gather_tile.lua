-- expect: tests/negative/gather_tile.lua:13: error: Y:tile takes scalar indices; gather rows by a tile of indices with Y:view({ rows, 0 }, ...)
local tile = require "tile"
return tile.kernel {
  name = "gather_tile",
  config = { BM = 16, BN = 64, threads = 128 },
  params = function()
    return { X = tile.tensor("f32", { "N", "C" }), I = tile.tensor("i32", { "N", 1 }), Y = tile.tensor("f32", { "N", "C" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(p.N)
    local ids = k:load(p.I:tile({ i, 0 }, { c.BM, 1 }))
    local x = k:load(p.X:tile({ i, 0 }, { c.BM, c.BN }))
    k:store(p.Y:tile({ ids, 0 }, { c.BM, c.BN }), x)
    k:store(p.Y:tile({ i, 0 }, { c.BM, c.BN }), x)
  end,
}
