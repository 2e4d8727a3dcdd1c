-- layernorm.lua: LayerNorm forward,
-- Y[r, :] = (X[r, :] - mean) * rsqrt(var + eps) * W + B, var the biased variance.
--
-- One program per RB rows (config RB, 1 by default; short rows want more).
-- A row of at most BC elements stays in registers:
-- the mean, then the variance of the centred values (exact two-pass, with
-- the masked tail zeroed), then one write.  A longer row takes two passes
-- of BC elements: both statistics at once (shifted sums per lane, combined
-- across the block), then the write.
-- Config keep_row (for long rows): the first pass asks L2 to keep the row
-- (cache = "keep") and the second pass's loads of X and stores stream
-- through (cache = "stream"), so that the second pass finds the row in L2
-- while the other rows in flight go by.
-- Config resident (for long rows, CUDA targets): gen keeps the row in shared
-- memory between the passes (the first pass's loads also store it there, the
-- second reads it back; docs/dsl.md, "resident"), where it fits.
-- Config one_pass (for a bucket whose rows are at most BC): the kernel has
-- the one-pass body only, and the launcher refuses C > BC.  The two-pass
-- body, never run there, no longer sets the kernel's registers (its s, s1,
-- s2 and x a lane), so more blocks fit an SM and more of X is in flight.
local tile = require "tile"

return tile.kernel {
  name = "layernorm",
  doc = "LayerNorm forward over the last dim of X [R, C] with weight W [C] and bias B [C]; f32 accumulation.",
  variants = { dtype = { "f32", "f16", "bf16" } },
  config = { BC = 1024, RB = 1, threads = 128, keep_row = false, resident = false, one_pass = false },
  -- runtime/tune.lua's search space: chunk width, rows a program, block size.
  -- Short rows want several a program (RB), so a block still moves enough bytes.
  tune = {
    space = { BC = { 1024, 2048, 4096, 8192 }, RB = { 1, 2, 4, 8 }, threads = { 64, 128, 256, 512 } },
    constraint = function(c)   -- 1 to 32 elements a thread, at most 8192 a program
      local n = c.BC * c.RB
      return n <= 8192 and n >= c.threads and n <= 32 * c.threads
    end,
    shapes = { { R = 32768, C = 4096 }, { R = 8192, C = 8192 }, { R = 65536, C = 1024 }, { R = 4096, C = 16384 } },
    bytes = function(shape, v) return 2 * shape.R * shape.C * (v.dtype == "f32" and 4 or 2) end,
  },
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
    local rb = k:grid(tile.cdiv(p.R, c.RB))   -- rows RB * rb .. RB * rb + RB - 1
    local nchunks = tile.cdiv(p.C, c.BC)
    local keep = c.keep_row and { cache = "keep" } or {}       -- the first pass's loads
    local stream = c.keep_row and { cache = "stream" } or {}   -- the second pass's loads of X and stores
    local function one_pass()
      local x = k:load(p.X:tile({ rb, 0 }, { c.RB, c.BC })):cast("f32")
      -- W and B are loaded before the reductions, so their latency hides
      -- behind the row's instead of adding to it.
      local w = k:load(p.W:tile({ 0 }, { c.BC })):cast("f32")
      local b = k:load(p.B:tile({ 0 }, { c.BC })):cast("f32")
      local mean = k:reduce_sum(x, 2) / p.C
      local col = k:iota({ c.RB, c.BC }, 2)
      local d = tile.where(col:lt(p.C), x - mean, 0)
      local rstd = tile.rsqrt(k:reduce_sum(d * d, 2) / p.C + p.eps)
      k:store(p.Y:tile({ rb, 0 }, { c.RB, c.BC }), d * rstd * w + b)
    end
    if c.one_pass then
      k:require(p.C:le(c.BC), "C <= BC: config one_pass holds a row in one chunk")
      one_pass()
      return
    end
    k:when(nchunks:eq(1), one_pass, function()
      -- One read of the row for both statistics.  Each lane keeps, over the
      -- chunks, the sum and the sum of squares of its n values shifted by its
      -- first one (s): s1 = sum(x - s), s2 = sum((x - s)^2).  Then
      -- mean = sum(n s + s1) / C, and the lane's squared deviations from it
      -- are s2 + (s - mean) (2 s1 + n (s - mean)), exactly.  Shifting by a
      -- value of the lane bounds the cancellation by the lane's own spread,
      -- unlike sum(x^2) - C mean^2.
      local s = k:load(p.X:tile({ rb, 0 }, { c.RB, c.BC }), 0, keep):cast("f32")   -- chunk 0 is whole: C > BC
      local s1 = k:fragment("f32", { c.RB, c.BC }, 0)
      local s2 = k:fragment("f32", { c.RB, c.BC }, 0)
      k:serial(1, nchunks, function(j)
        local x = k:load(p.X:tile({ rb, j }, { c.RB, c.BC }), 0, keep):cast("f32")
        local col = k:iota({ c.RB, c.BC }, 2) + j * c.BC
        local d = tile.where(col:lt(p.C), x - s, 0)
        k:assign(s1, s1 + d)
        k:assign(s2, s2 + d * d)
      end)
      -- values a lane holds: the chunks j with j BC + its column < C (at least 1)
      local n = ((p.C - k:iota({ c.RB, c.BC }, 2) - 1) // c.BC + 1):cast("f32")
      local mean = k:reduce_sum(n * s + s1, 2) / p.C
      local ssd = s2 + (s - mean) * (2 * s1 + n * (s - mean))
      local rstd = tile.rsqrt(k:reduce_sum(ssd, 2) / p.C + p.eps)
      k:serial(0, nchunks, function(j)
        local x = k:load(p.X:tile({ rb, j }, { c.RB, c.BC }), 0, stream):cast("f32")
        local w = k:load(p.W:tile({ j }, { c.BC })):cast("f32")
        local b = k:load(p.B:tile({ j }, { c.BC })):cast("f32")
        k:store(p.Y:tile({ rb, j }, { c.RB, c.BC }), (x - mean) * rstd * w + b, stream)
      end)
    end)
  end,
}
