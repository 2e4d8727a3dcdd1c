-- colsum.lua: column sums and maxima of X [M, N], any M and N.
--
-- One program per BN columns walks down the rows, BM at a time, and
-- reduces each [BM, BN] tile along axis 1 into [1, BN] accumulators.
local tile = require "tile"

return tile.kernel {
  name = "colsum",
  doc = "S[n] = sum of X[:, n] and H[n] = max of X[:, n].",
  config = { BM = 16, BN = 128, threads = 128 },
  params = function(v, c)
    return {
      X = tile.tensor("f32", { "M", "N" }),
      S = tile.tensor("f32", { "N" }),
      H = tile.tensor("f32", { "N" }),
    }
  end,
  body = function(k, p, c)
    local bn = k:grid(tile.cdiv(p.N, c.BN))
    local s = k:fragment("f32", { 1, c.BN }, 0)
    local h = k:fragment("f32", { 1, c.BN }, -math.huge)
    k:serial(0, tile.cdiv(p.M, c.BM), function(i)
      local x = k:load(p.X:tile({ i, bn }, { c.BM, c.BN }))      -- 0 outside X
      local r = k:iota({ c.BM, 1 }, 1) + i * c.BM                -- [BM, 1] row index
      k:assign(s, s + k:reduce_sum(x, 1))
      k:assign(h, tile.max(h, k:reduce_max(tile.where(r:lt(p.M), x, -math.huge), 1)))
    end)
    k:store(p.S:tile({ bn }, { c.BN }), s)
    k:store(p.H:tile({ bn }, { c.BN }), h)
  end,
}
