-- embedding.lua: an embedding table's rows gathered by index (forward),
-- and the gradient added back into the table's rows (backward).
--
-- forward:   Y[i, :] = W[I[i], :] for the N indices I, rows of D elements.
--            One program per [BM, BD] tile of Y: its BM indices are
--            loaded as a [BM, 1] column, and W's rows are gathered
--            through a view whose row offsets are that column.  An index
--            outside W (a -1) gives a row of zeros.
-- backward:  dW[I[i], :] += dY[i, :] for every i with I[i] != pad (torch's
--            padding_idx; -1 for none), by f32 atomic adds into dW, which
--            must hold zeros (or what to add to) first.  Rows named by
--            several indices get several adds, in an order that varies
--            from run to run on a GPU.  An index outside dW is dropped.
-- The index tensor I is declared [N, 1] (a torch [N] tensor is passed as
-- is), int32, or int64 in the i64 variants (PyTorch's own index dtype: no
-- conversion pass before the call; pad is then int64 too).
local tile = require "tile"

return tile.kernel {
  name = "embedding",
  doc = "Embedding rows by index: forward Y[i] = W[I[i]]; backward dW[I[i]] += dY[i] (f32, atomic).",
  variants = { dtype = { "f32", "f16", "bf16" }, pass = { "fwd", "bwd" }, i64 = { false, true } },
  config = { BM = 8, BD = 1024, threads = 256 },
  params = function(v, c)
    local it = v.i64 and "i64" or "i32"   -- the indices' dtype
    if v.pass == "fwd" then
      return {
        W = tile.tensor(v.dtype, { "V", "D" }),
        I = tile.tensor(it, { "N", 1 }),
        Y = tile.tensor(v.dtype, { "N", "D" }),
      }
    end
    return {
      dY = tile.tensor(v.dtype, { "N", "D" }),
      I = tile.tensor(it, { "N", 1 }),
      pad = tile.scalar(it),
      dW = tile.tensor("f32", { "V", "D" }),
    }
  end,
  body = function(k, p, c, v)
    local bm, bd = k:grid(tile.cdiv(p.N, c.BM), tile.cdiv(p.D, c.BD))
    local ids = k:load(p.I:tile({ bm, 0 }, { c.BM, 1 }), -1)   -- [BM, 1]; -1 past the last index
    if v.pass == "fwd" then
      local w = k:load(p.W:view({ ids, bd * c.BD }, { c.BM, c.BD }))
      k:store(p.Y:tile({ bm, bd }, { c.BM, c.BD }), w)
    else
      local dy = k:load(p.dY:tile({ bm, bd }, { c.BM, c.BD })):cast("f32")
      k:atomic_add(p.dW:view({ ids, bd * c.BD }, { c.BM, c.BD }), dy, { mask = ids:ne(p.pad) })
    end
  end,
}
