-- rowstats.lua: per-row statistics of X [M, N] and a row-centred copy, N <= BN.
--
-- Each program takes BM whole rows as one [BM, BN] register tile.
-- Reductions along axis 2 give [BM, 1] column vectors; they broadcast back
-- against the tile, and are stored into the columns of S [M, 3].
local tile = require "tile"

return tile.kernel {
  name = "rowstats",
  doc = "S[m, :] = (mean, max, min) of X[m, :] and Y = X - mean, for N <= BN.",
  variants = { dtype = { "f32", "bf16" } },
  config = { BM = 8, BN = 256, threads = 128 },
  params = function(v, c)
    return {
      X = tile.tensor(v.dtype, { "M", "N" }),
      S = tile.tensor("f32", { "M", 3 }),
      Y = tile.tensor(v.dtype, { "M", "N" }),
    }
  end,
  body = function(k, p, c)
    local bm = k:grid(tile.cdiv(p.M, c.BM))
    local x = k:load(p.X:tile({ bm, 0 }, { c.BM, c.BN })):cast("f32")   -- 0 outside X
    local inside = k:iota({ 1, c.BN }, 2):lt(p.N)                     -- [1, BN] bool
    local mean = k:reduce_sum(x, 2) / p.N                             -- [BM, 1]
    local hi = k:reduce_max(tile.where(inside, x, -math.huge), 2)
    local lo = k:reduce_min(tile.where(inside, x, math.huge), 2)
    k:store(p.S:tile({ bm, 0 }, { c.BM, 1 }), mean)                  -- column 0
    k:store(p.S:tile({ bm, 1 }, { c.BM, 1 }), hi)                    -- column 1
    k:store(p.S:view({ bm * c.BM, 2 }, { c.BM, 1 }), lo)             -- column 2
    k:store(p.Y:tile({ bm, 0 }, { c.BM, c.BN }), x - mean)           -- [BM, BN] - [BM, 1]
  end,
}
