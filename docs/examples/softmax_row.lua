-- softmax_row.lua: Y[r, :] = softmax(X[r, :]) for rows that fit one tile.
--
-- One program per row.  The row is read once into a [1, BC] register tile,
-- reduced twice (max, then the sum of exponentials) and written once.
-- It handles C <= BC only: with C > BC, columns past BC are never written.
-- softmax_long.lua handles rows of any length.
local tile = require "tile"

return tile.kernel {
  name = "softmax_row",
  doc = "Row softmax over the last dim of X [R, C], C <= BC; f32 accumulation.",
  variants = { dtype = { "f32", "bf16" } },
  config = { BC = 1024, threads = 128 },
  params = function(v, c)
    return {
      X = tile.tensor(v.dtype, { "R", "C" }),
      Y = tile.tensor(v.dtype, { "R", "C" }),
    }
  end,
  body = function(k, p, c)
    local row = k:grid(p.R)
    -- columns past C read as -inf, so they change neither the max nor the sum
    local x = k:load(p.X:tile({ row, 0 }, { 1, c.BC }), -math.huge):cast("f32")
    local m = k:reduce_max(x, 2)      -- [1, 1]: the row's max
    local e = tile.exp(x - m)         -- [1, BC] - [1, 1] broadcasts m along the row
    local s = k:reduce_sum(e, 2)
    k:store(p.Y:tile({ row, 0 }, { 1, c.BC }), e / s)
  end,
}
