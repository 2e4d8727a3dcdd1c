-- rmsnorm.lua: RMSNorm forward, Y[r, :] = X[r, :] * rsqrt(mean(X[r, :]^2) + eps) * W.
--
-- One program per row.  A row of at most BC elements is read once and kept
-- in registers; a longer row is read twice (sum of squares, then the
-- scaled write), BC elements at a time.  Accumulation is in f32.
local tile = require "tile"

return tile.kernel {
  name = "rmsnorm",
  doc = "RMSNorm forward over the last dim of X [R, C] with weight W [C]; f32 accumulation.",
  variants = { dtype = { "f32", "f16", "bf16" } },
  config = { BC = 4096, threads = 256 },
  params = function(v)
    return {
      X = tile.tensor(v.dtype, { "R", "C" }),
      W = tile.tensor(v.dtype, { "C" }),
      Y = tile.tensor(v.dtype, { "R", "C" }),
      eps = tile.scalar("f32"),
    }
  end,
  body = function(k, p, c)
    local row = k:grid(p.R)
    local nchunks = tile.cdiv(p.C, c.BC)
    k:when(nchunks:eq(1), function()
      local x = k:load(p.X:tile({ row, 0 }, { 1, c.BC })):cast("f32")
      local rstd = tile.rsqrt(k:reduce_sum(x * x, 2) / p.C + p.eps)
      local w = k:load(p.W:tile({ 0 }, { c.BC })):cast("f32")
      k:store(p.Y:tile({ row, 0 }, { 1, c.BC }), x * rstd * w)
    end, function()
      local ss = k:fragment("f32", { 1, 1 }, 0)
      k:serial(0, nchunks, function(j)
        local x = k:load(p.X:tile({ row, j }, { 1, c.BC })):cast("f32")
        k:assign(ss, ss + k:reduce_sum(x * x, 2))
      end)
      local rstd = tile.rsqrt(ss / p.C + p.eps)
      k:serial(0, nchunks, function(j)
        local x = k:load(p.X:tile({ row, j }, { 1, c.BC })):cast("f32")
        local w = k:load(p.W:tile({ j }, { c.BC })):cast("f32")
        k:store(p.Y:tile({ row, j }, { 1, c.BC }), x * rstd * w)
      end)
    end)
  end,
}
