-- expect: tests/negative/config_threads_huge.lua:5: error: config threads = 4294967424: a block needs a power of two of threads, a multiple of the sm80 warp (32) and at most 1024
local tile = require "tile"
-- threads = 2^32 + 128 was read as 128

return tile.kernel {
  name = "config_threads_huge",
  config = { BLOCK = 256, threads = 4294967424 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}
