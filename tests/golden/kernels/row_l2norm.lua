-- row_l2norm.lua (golden): Y[r, :] = X[r, :] / max(||X[r, :]||, eps), one
-- program per row.  Covers: a row reduction across warps, a runtime k:when
-- (one chunk or many), a k:serial loop with a fragment accumulator, iota
-- masking of the ragged tail, reduce_max, sqrt and max; a target_config
-- (gfx942 runs 512 threads, sm80 and c the config's 256).
local tile = require "tile"

return tile.kernel {
  name = "row_l2norm",
  doc = "Rows of X [R, C] scaled to unit L2 norm.",
  variants = { dtype = { "f16" } },
  config = { BC = 1024, threads = 256 },
  target_config = { gfx942 = { threads = 512 } },
  params = function(v)
    return {
      X = tile.tensor(v.dtype, { "R", "C" }),
      Y = tile.tensor(v.dtype, { "R", "C" }),
      Amax = tile.tensor("f32", { "R" }),
    }
  end,
  body = function(k, p, c)
    local row = k:grid(p.R)
    local nchunks = tile.cdiv(p.C, c.BC)
    k:when(nchunks:eq(1), function()
      local x = k:load(p.X:tile({ row, 0 }, { 1, c.BC })):cast("f32")
      local col = k:iota({ 1, c.BC }, 2)
      local ax = tile.where(col:lt(p.C), tile.abs(x), 0)
      k:store(p.Amax:tile({ row }, { 1 }), k:reduce_max(ax, 2))
      local inv = 1 / tile.max(tile.sqrt(k:reduce_sum(x * x, 2)), 1e-12)
      k:store(p.Y:tile({ row, 0 }, { 1, c.BC }), x * inv)
    end, function()
      local ss = k:fragment("f32", { 1, 1 }, 0)
      local amax = k:fragment("f32", { 1, 1 }, 0)
      k:serial(0, nchunks, function(j)
        local x = k:load(p.X:tile({ row, j }, { 1, c.BC })):cast("f32")
        k:assign(ss, ss + k:reduce_sum(x * x, 2))
        k:assign(amax, tile.max(amax, k:reduce_max(tile.abs(x), 2)))
      end)
      k:store(p.Amax:tile({ row }, { 1 }), amax)
      local inv = 1 / tile.max(tile.sqrt(ss), 1e-12)
      k:serial(0, nchunks, function(j)
        local x = k:load(p.X:tile({ row, j }, { 1, c.BC })):cast("f32")
        k:store(p.Y:tile({ row, j }, { 1, c.BC }), x * inv)
      end)
    end)
  end,
}
