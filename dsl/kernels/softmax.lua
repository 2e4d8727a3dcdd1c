-- softmax.lua: row softmax, Y[r, :] = exp(X[r, :] - max) / sum, over rows of any length.
--
-- One program per RB rows (config RB, 1 by default; short rows want more).
-- A row of at most BC elements is read once into
-- registers, reduced twice (max, then sum of exponentials) and written once.
-- A longer row takes two passes over BC-wide chunks: the first keeps a
-- running max and a running sum rescaled as the max grows (online softmax),
-- the second writes exp(x - max) / sum.  exp(x) is computed as exp2(x * log2 e)
-- and the division as one reciprocal per row: both cheaper on a GPU.
-- Config keep_row (for long rows): the first pass asks L2 to keep the row
-- (cache = "keep") and the second pass's loads and stores stream through
-- (cache = "stream"), so that the second pass finds the row in L2 while
-- the other rows in flight go by.
-- Config resident (for long rows, CUDA targets): gen keeps the row in shared
-- memory between the passes (the first pass's loads also store it there, the
-- second reads it back; docs/dsl.md, "resident"), where it fits.
local tile = require "tile"
local LOG2E = 1.4426950408889634

return tile.kernel {
  name = "softmax",
  doc = "Row softmax over the last dim of X [R, C]; f32 accumulation.",
  variants = { dtype = { "f32", "f16", "bf16" } },
  config = { BC = 4096, RB = 1, threads = 256, keep_row = false, resident = false },
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
    reference = "softmax",
  },
  params = function(v)
    return {
      X = tile.tensor(v.dtype, { "R", "C" }),
      Y = tile.tensor(v.dtype, { "R", "C" }),
    }
  end,
  body = function(k, p, c)
    local rb = k:grid(tile.cdiv(p.R, c.RB))   -- rows RB * rb .. RB * rb + RB - 1
    local nchunks = tile.cdiv(p.C, c.BC)
    local keep = c.keep_row and { cache = "keep" } or {}       -- the first pass's loads
    local stream = c.keep_row and { cache = "stream" } or {}   -- the second pass's loads and stores
    k:when(nchunks:eq(1), function()
      local x = k:load(p.X:tile({ rb, 0 }, { c.RB, c.BC }), -math.huge):cast("f32")
      local m = k:reduce_max(x, 2)
      local e = tile.exp2((x - m) * LOG2E)
      local inv = 1 / k:reduce_sum(e, 2)
      k:store(p.Y:tile({ rb, 0 }, { c.RB, c.BC }), e * inv)
    end, function()
      local m = k:fragment("f32", { c.RB, 1 }, -math.huge)
      local s = k:fragment("f32", { c.RB, 1 }, 0)
      k:serial(0, nchunks, function(j)
        local x = k:load(p.X:tile({ rb, j }, { c.RB, c.BC }), -math.huge, keep):cast("f32")
        local m_new = tile.max(m, k:reduce_max(x, 2))
        k:assign(s, s * tile.exp2((m - m_new) * LOG2E) + k:reduce_sum(tile.exp2((x - m_new) * LOG2E), 2))
        k:assign(m, m_new)
      end)
      local inv = 1 / s
      k:serial(0, nchunks, function(j)
        local x = k:load(p.X:tile({ rb, j }, { c.RB, c.BC }), -math.huge, stream):cast("f32")
        k:store(p.Y:tile({ rb, j }, { c.RB, c.BC }), tile.exp2((x - m) * LOG2E) * inv, stream)
      end)
    end)
  end,
}
