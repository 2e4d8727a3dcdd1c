-- expect: tests/negative/transpose_atomic_mask.lua:12: error: k:atomic_add takes a mask or transpose, not both
local tile = require "tile"
return tile.kernel {
  name = "transpose_atomic_mask",
  config = { BM = 16, BN = 64, threads = 128 },
  params = function()
    return { X = tile.tensor("f32", { "C", "N" }), Y = tile.tensor("f32", { "N", "C" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(p.N)
    local x = k:load(p.X:tile({ 0, i }, { c.BN, c.BM }))
    k:atomic_add(p.Y:tile({ i, 0 }, { c.BM, c.BN }), x, { transpose = true, mask = i:gt(0) })
  end,
}
