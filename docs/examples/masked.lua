-- masked.lua: predicated loads and stores, and cache hints.
--
-- Y[r, c] = 2 * X[r, c] + s for the columns c below the row's length
-- L[r]; the other elements of Y are left as they are.  The load reads
-- only the elements its mask allows (the others are `other`), the store
-- writes only those.  X is read once ("stream"); S, a row of offsets
-- that every program reads, is kept in L2 ("keep").
local tile = require "tile"

return tile.kernel {
  name = "masked",
  doc = "Y[r, c] = 2 * X[r, c] + S[c] where c < L[r]; Y elsewhere unchanged; T = X masked (0).",
  config = { BM = 8, BN = 128, threads = 128 },
  params = function(v, c)
    return {
      X = tile.tensor("f32", { "M", "N" }),
      L = tile.tensor("i32", { "M", 1 }),
      S = tile.tensor("f32", { "N" }),
      Y = tile.tensor("f32", { "M", "N" }),
      T = tile.tensor("f32", { "M", "N" }),
    }
  end,
  body = function(k, p, c)
    local bm, bn = k:grid(tile.cdiv(p.M, c.BM), tile.cdiv(p.N, c.BN))
    local len = k:load(p.L:tile({ bm, 0 }, { c.BM, 1 }))                   -- [BM, 1]
    local inside = (k:iota({ c.BM, c.BN }, 2) + bn * c.BN):lt(len)          -- [BM, BN] bool
    local x = k:load(p.X:tile({ bm, bn }, { c.BM, c.BN }), 0, { mask = inside, cache = "stream" })
    local s = k:load(p.S:tile({ bn }, { c.BN }), 0, { cache = "keep" })
    k:store(p.Y:tile({ bm, bn }, { c.BM, c.BN }), x * 2 + s, { mask = inside })
    k:store(p.T:tile({ bm, bn }, { c.BM, c.BN }), x)
  end,
}
