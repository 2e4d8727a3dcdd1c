-- rmsnorm.lua: RMSNorm forward, Y[r, :] = X[r, :] * rsqrt(mean(X[r, :]^2) + eps) * W.
--
-- One program per RB rows (config RB, 1 by default; short rows want more).
-- A row of at most BC elements is read once and kept
-- in registers; a longer row is read twice (sum of squares, then the
-- scaled write), BC elements at a time.  Accumulation is in f32.
-- Config keep_row (for long rows): the first pass asks L2 to keep the row
-- (cache = "keep") and the second pass's loads of X and stores stream
-- through (cache = "stream"), so that the second pass finds the row in L2
-- while the other rows in flight go by.
-- Config resident (for long rows, CUDA targets): gen keeps the row in shared
-- memory between the passes (the first pass's loads also store it there, the
-- second reads it back; docs/dsl.md, "resident"), where it fits.
local tile = require "tile"

return tile.kernel {
  name = "rmsnorm",
  doc = "RMSNorm forward over the last dim of X [R, C] with weight W [C]; f32 accumulation.",
  variants = { dtype = { "f32", "f16", "bf16" } },
  config = { BC = 1024, RB = 2, threads = 256, keep_row = false, resident = false },
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
      Y = tile.tensor(v.dtype, { "R", "C" }),
      eps = tile.scalar("f32"),
    }
  end,
  body = function(k, p, c)
    local rb = k:grid(tile.cdiv(p.R, c.RB))   -- rows RB * rb .. RB * rb + RB - 1
    local nchunks = tile.cdiv(p.C, c.BC)
    local keep = c.keep_row and { cache = "keep" } or {}       -- the first pass's loads
    local stream = c.keep_row and { cache = "stream" } or {}   -- the second pass's loads of X and stores
    k:when(nchunks:eq(1), function()
      local x = k:load(p.X:tile({ rb, 0 }, { c.RB, c.BC })):cast("f32")
      local w = k:load(p.W:tile({ 0 }, { c.BC })):cast("f32")   -- before the reduction: its latency hides behind X's
      local rstd = tile.rsqrt(k:reduce_sum(x * x, 2) / p.C + p.eps)
      k:store(p.Y:tile({ rb, 0 }, { c.RB, c.BC }), x * rstd * w)
    end, function()
      -- squares summed lane by lane over the chunks (no barrier in the
      -- loop), then across the block once
      local ss = k:fragment("f32", { c.RB, c.BC }, 0)
      k:serial(0, nchunks, function(j)
        local x = k:load(p.X:tile({ rb, j }, { c.RB, c.BC }), 0, keep):cast("f32")
        k:assign(ss, ss + x * x)
      end)
      local rstd = tile.rsqrt(k:reduce_sum(ss, 2) / p.C + p.eps)
      k:serial(0, nchunks, function(j)
        local x = k:load(p.X:tile({ rb, j }, { c.RB, c.BC }), 0, stream):cast("f32")
        local w = k:load(p.W:tile({ j }, { c.BC })):cast("f32")
        k:store(p.Y:tile({ rb, j }, { c.RB, c.BC }), x * rstd * w, stream)
      end)
    end)
  end,
}
