-- gather.lua: rows gathered and scattered by a tile of indices.
--
-- Y[i, :] = W[I[i], :] (a gather, an embedding lookup), Z[J[i], :] = Y[i, :]
-- (a scatter) and G[I[i], :] += Y[i, :] (a scatter-add).  The indices are
-- loaded as a [BM, 1] column (I and J are declared { "N", 1 }; I holds
-- i64 indices, as PyTorch's are, J i32 ones); an index outside W, Z or G
-- reads zeros, and its store or add is dropped.
local tile = require "tile"

return tile.kernel {
  name = "gather",
  doc = "Y[i] = W[I[i]], Z[J[i]] = Y[i], G[I[i]] += Y[i], rows of D.",
  config = { BM = 16, D = 64, threads = 128 },
  params = function(v, c)
    return {
      W = tile.tensor("f32", { "V", c.D }),
      I = tile.tensor("i64", { "N", 1 }),
      J = tile.tensor("i32", { "N", 1 }),
      Y = tile.tensor("f32", { "N", c.D }),
      Z = tile.tensor("f32", { "M", c.D }),
      G = tile.tensor("f32", { "V", c.D }),
    }
  end,
  body = function(k, p, c)
    local bm = k:grid(tile.cdiv(p.N, c.BM))
    local ids = k:load(p.I:tile({ bm, 0 }, { c.BM, 1 }), -1)    -- [BM, 1] i64
    local y = k:load(p.W:view({ ids, 0 }, { c.BM, c.D }))       -- row r: W[ids[r], :]
    k:store(p.Y:tile({ bm, 0 }, { c.BM, c.D }), y)
    local to = k:load(p.J:tile({ bm, 0 }, { c.BM, 1 }), -1)
    k:store(p.Z:view({ to, 0 }, { c.BM, c.D }), y)               -- Z[to[r], :] = row r
    k:atomic_add(p.G:view({ ids, 0 }, { c.BM, c.D }), y)         -- G[ids[r], :] += row r
  end,
}
