-- softmax_long.lua: Y[r, :] = softmax(X[r, :]) for rows of any length.
--
-- One program per row, two passes over BC-wide chunks of the row.  The
-- first keeps a running max m and a running sum s of exp(x - m), rescaling
-- s whenever m grows (the "online" softmax); the second writes
-- exp(x - m) / s.  X is read twice and Y written once.
local tile = require "tile"

return tile.kernel {
  name = "softmax_long",
  doc = "Row softmax over the last dim of X [R, C], any C; f32 accumulation.",
  variants = { dtype = { "f32", "f16" } },
  config = { BC = 512, threads = 128 },
  params = function(v, c)
    return {
      X = tile.tensor(v.dtype, { "R", "C" }),
      Y = tile.tensor(v.dtype, { "R", "C" }),
    }
  end,
  body = function(k, p, c)
    local row = k:grid(p.R)
    local nchunks = tile.cdiv(p.C, c.BC)
    local m = k:fragment("f32", { 1, 1 }, -math.huge)   -- running max
    local s = k:fragment("f32", { 1, 1 }, 0)            -- running sum of exp(x - m)
    k:serial(0, nchunks, function(j)
      local x = k:load(p.X:tile({ row, j }, { 1, c.BC }), -math.huge):cast("f32")
      local m_new = tile.max(m, k:reduce_max(x, 2))
      k:assign(s, s * tile.exp(m - m_new) + k:reduce_sum(tile.exp(x - m_new), 2))
      k:assign(m, m_new)
    end)
    local inv = 1 / s                                   -- one division per row
    k:serial(0, nchunks, function(j)
      local x = k:load(p.X:tile({ row, j }, { 1, c.BC }), -math.huge):cast("f32")
      k:store(p.Y:tile({ row, j }, { 1, c.BC }), tile.exp(x - m) * inv)
    end)
  end,
}
