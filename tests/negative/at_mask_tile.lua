-- expect: tests/negative/at_mask_tile.lua:13: error: the mask of a load from X:at is a bool scalar, not a tile
local tile = require "tile"
return tile.kernel {
  name = "at_mask_tile",
  config = { BM = 16, BN = 64, threads = 128 },
  params = function()
    return { X = tile.tensor("f32", { "N", "C" }), I = tile.tensor("i32", { "N", 1 }), Y = tile.tensor("f32", { "N", "C" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(p.N)
    local ids = k:load(p.I:tile({ i, 0 }, { c.BM, 1 }))
    local x = k:load(p.X:tile({ i, 0 }, { c.BM, c.BN }))
    local n = k:load(p.I:at({ i, 0 }), 0, { mask = ids:gt(0) })
    k:store(p.Y:tile({ i, 0 }, { c.BM, c.BN }), x)
  end,
}
