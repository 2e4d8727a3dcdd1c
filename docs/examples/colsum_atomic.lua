-- colsum_atomic.lua: S[n] += the sum of X[:, n], any M and N, with one
-- program per [BM, BN] tile.
--
-- Each program sums its tile's rows into a [1, BN] row and adds that into
-- S with k:atomic_add, so the programs of one column of tiles meet in S
-- without waiting for each other.  S must hold zeros (or what to add to)
-- before the launch.
local tile = require "tile"

return tile.kernel {
  name = "colsum_atomic",
  doc = "S[n] += sum of X[:, n], one program per tile, by atomic adds.",
  config = { BM = 32, BN = 128, threads = 128 },
  params = function(v, c)
    return {
      X = tile.tensor("f32", { "M", "N" }),
      S = tile.tensor("f32", { "N" }),
    }
  end,
  body = function(k, p, c)
    local bm, bn = k:grid(tile.cdiv(p.M, c.BM), tile.cdiv(p.N, c.BN))
    local x = k:load(p.X:tile({ bm, bn }, { c.BM, c.BN }))   -- 0 outside X
    k:atomic_add(p.S:tile({ bn }, { c.BN }), k:reduce_sum(x, 1))
  end,
}
