-- expect: tests/negative/uneven_tile.lua:12: error: a [1, 1000] register tile cannot be spread evenly over the block's 256 threads: the threads take the power-of-two parts of its sides (1 rows x 8 columns); make a side a multiple of a larger power of two, or use fewer threads (config threads)
-- 1000 = 8 x 125 is a multiple of 8, but only 8 threads divide it evenly.
local tile = require "tile"
return tile.kernel {
  name = "uneven_tile",
  config = { BLOCK = 1000, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local x = k:load(p.X:tile({ i }, { c.BLOCK }))
    k:store(p.Y:tile({ i }, { c.BLOCK }), x * 2)
  end,
}
