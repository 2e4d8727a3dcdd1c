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
-- det:       the backward again, deterministic: the same sums in one order
--            whatever the run, no atomics.  The caller sorts the indices
--            (stably) first: S [N] the sorted indices, P [N] the position in
--            dY of each (the sort's permutation), E [N] the end of each
--            one's run of equal indices (the first position past it).  The
--            program of sorted position j owns row S[j] when S[j - 1] differs
--            (j = 0 always): it adds the rows dY[P[j]], dY[P[j + 1]], ... up
--            to E[j] in that order, UNROLL at a time, in f32, and stores the
--            sum rounded once to dW's dtype; programs of the other positions
--            do nothing.  Rows named by no index are not written (the caller
--            zeroes dW), nor pad's, nor an index outside dW.
-- The index tensor I is declared [N, 1] (a torch [N] tensor is passed as
-- is), int32, or int64 in the i64 variants (PyTorch's own index dtype: no
-- conversion pass before the call; pad is then int64 too).
local tile = require "tile"

return tile.kernel {
  name = "embedding",
  doc = "Embedding rows by index: forward Y[i] = W[I[i]]; backward dW[I[i]] += dY[i] (f32, atomic); "
     .. "det: dW[S[j]] = sum of dY[P[i]] over S's run j .. E[j] - 1 of equal sorted indices, in order (deterministic).",
  variants = { dtype = { "f32", "f16", "bf16" }, pass = { "fwd", "bwd", "det" }, i64 = { false, true } },
  config = { BM = 8, BD = 1024, threads = 256, UNROLL = 4 },
  params = function(v, c)
    local it = v.i64 and "i64" or "i32"   -- the indices' dtype
    if v.pass == "fwd" then
      return {
        W = tile.tensor(v.dtype, { "V", "D" }),
        I = tile.tensor(it, { "N", 1 }),
        Y = tile.tensor(v.dtype, { "N", "D" }),
      }
    end
    if v.pass == "det" then
      return {
        dY = tile.tensor(v.dtype, { "N", "D" }),
        S = tile.tensor(it, { "N" }),
        P = tile.tensor("i32", { "N" }),
        E = tile.tensor("i32", { "N" }),
        pad = tile.scalar(it),
        dW = tile.tensor(v.dtype, { "V", "D" }),
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
    if v.pass == "det" then
      local j, bd = k:grid(p.N, tile.cdiv(p.D, c.BD))
      local row = k:load(p.S:at({ j }))
      local prev = k:load(p.S:at({ j - 1 }), -1)   -- j = 0: -1, never a row of dW
      k:when(tile.both(prev:ne(row), row:ne(p.pad)), function()
        local e = tile.min(k:load(p.E:at({ j })), p.N)   -- (an end past N: the run stops at N; sizes < 2^30, so i + u fits)
        local acc = k:fragment("f32", { 1, c.BD }, 0)
        k:serial(j, e, c.UNROLL, function(i)
          for u = 0, c.UNROLL - 1 do   -- UNROLL rows in flight; those past the run read row -1: zeros
            local r = k:load(p.P:at({ i + u }), -1)
            r = tile.where((i + u):lt(e), r, -1)
            k:assign(acc, acc + k:load(p.dY:view({ r, bd * c.BD }, { 1, c.BD })):cast("f32"))
          end
        end)
        k:store(p.dW:view({ row, bd * c.BD }, { 1, c.BD }), acc)
      end)
      return
    end
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
