-- staging.lua: shared tiles and k:copy between the three memory levels.
--
-- Y[m, n] = W[m, n] * sum over b of X[b, m, n].  Each step stages a tile
-- of X in shared memory; the sum is kept twice, in registers and (for the
-- sake of the example) in a shared tile, and both are written out (Y, Z).
-- The barriers between the shared accesses are placed by gen.
local tile = require "tile"

return tile.kernel {
  name = "staging",
  doc = "Y = Z = W * sum over b of X[b], through shared memory.",
  variants = { dtype = { "f32", "f16" } },
  config = { BM = 8, BN = 64, threads = 64 },
  params = function(v, c)
    return {
      X = tile.tensor(v.dtype, { "B", "M", "N" }),
      W = tile.tensor("f32", { "M", "N" }),
      Y = tile.tensor("f32", { "M", "N" }),
      Z = tile.tensor("f32", { "M", "N" }),
    }
  end,
  body = function(k, p, c)
    local bm, bn = k:grid(tile.cdiv(p.M, c.BM), tile.cdiv(p.N, c.BN))
    local S = k:shared(p.X.dtype, { c.BM, c.BN })        -- staging buffer
    local Acc = k:shared("f32", { c.BM, c.BN })          -- a running sum in shared memory
    local xs = k:fragment(p.X.dtype, { c.BM, c.BN })
    local acc = k:fragment("f32", { c.BM, c.BN })
    local t = k:fragment("f32", { c.BM, c.BN })
    local w = k:fragment("f32", { c.BM, c.BN })
    k:fill(acc, 0)
    k:fill(Acc, 0)
    k:copy(p.W:tile({ bm, bn }, { c.BM, c.BN }), w, 1)      -- global -> registers
    k:serial(0, p.B, function(b)
      k:copy(p.X:tile({ b, bm, bn }, { 1, c.BM, c.BN }), S)  -- global -> shared, 0 outside X
      k:copy(S, xs)                                          -- shared -> registers
      k:assign(acc, acc + xs:cast("f32"))
      k:copy(Acc, t)
      k:copy(t + xs:cast("f32"), Acc)                        -- registers -> shared
    end)
    k:copy(acc * w, p.Y:tile({ bm, bn }, { c.BM, c.BN }))    -- registers -> global
    k:copy(Acc, t)
    k:store(p.Z:tile({ bm, bn }, { c.BM, c.BN }), t * w)
  end,
}
