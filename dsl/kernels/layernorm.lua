-- layernorm.lua: LayerNorm forward,
-- Y[r, :] = (X[r, :] - mean) * rsqrt(var + eps) * W + B, var the biased variance.
--
-- One program per row.  A row of at most BC elements stays in registers:
-- the mean, then the variance of the centred values (exact two-pass, with
-- the masked tail zeroed), then one write.  A longer row takes three passes
-- of BC elements: sum, sum of squared deviations, write.
local tile = require "tile"

return tile.kernel {
  name = "layernorm",
  doc = "LayerNorm forward over the last dim of X [R, C] with weight W [C] and bias B [C]; f32 accumulation.",
  variants = { dtype = { "f32", "f16", "bf16" } },
  config = { BC = 4096, threads = 256 },
  params = function(v)
    return {
      X = tile.tensor(v.dtype, { "R", "C" }),
      W = tile.tensor(v.dtype, { "C" }),
      B = tile.tensor(v.dtype, { "C" }),
      Y = tile.tensor(v.dtype, { "R", "C" }),
      eps = tile.scalar("f32"),
    }
  end,
  body = function(k, p, c)
    local row = k:grid(p.R)
    local nchunks = tile.cdiv(p.C, c.BC)
    k:when(nchunks:eq(1), function()
      local x = k:load(p.X:tile({ row, 0 }, { 1, c.BC })):cast("f32")
      local mean = k:reduce_sum(x, 2) / p.C
      local col = k:iota({ 1, c.BC }, 2)
      local d = tile.where(col:lt(p.C), x - mean, 0)
      local rstd = tile.rsqrt(k:reduce_sum(d * d, 2) / p.C + p.eps)
      local w = k:load(p.W:tile({ 0 }, { c.BC })):cast("f32")
      local b = k:load(p.B:tile({ 0 }, { c.BC })):cast("f32")
      k:store(p.Y:tile({ row, 0 }, { 1, c.BC }), d * rstd * w + b)
    end, function()
      local sum = k:fragment("f32", { 1, 1 }, 0)
      k:serial(0, nchunks, function(j)
        local x = k:load(p.X:tile({ row, j }, { 1, c.BC })):cast("f32")
        k:assign(sum, sum + k:reduce_sum(x, 2))
      end)
      local mean = sum / p.C
      local ssd = k:fragment("f32", { 1, 1 }, 0)
      k:serial(0, nchunks, function(j)
        local x = k:load(p.X:tile({ row, j }, { 1, c.BC })):cast("f32")
        local col = k:iota({ 1, c.BC }, 2) + j * c.BC
        local d = tile.where(col:lt(p.C), x - mean, 0)
        k:assign(ssd, ssd + k:reduce_sum(d * d, 2))
      end)
      local rstd = tile.rsqrt(ssd / p.C + p.eps)
      k:serial(0, nchunks, function(j)
        local x = k:load(p.X:tile({ row, j }, { 1, c.BC })):cast("f32")
        local w = k:load(p.W:tile({ j }, { c.BC })):cast("f32")
        local b = k:load(p.B:tile({ j }, { c.BC })):cast("f32")
        k:store(p.Y:tile({ row, j }, { 1, c.BC }), (x - mean) * rstd * w + b)
      end)
    end)
  end,
}
