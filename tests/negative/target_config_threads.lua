-- expect: tests/negative/target_config_threads.lua:3: error: config threads = 96: a block needs a power of two of threads, a multiple of the sm80 warp (32) and at most 1024
local tile = require "tile"
return tile.kernel {
  name = "target_config_threads",
  config = { BLOCK = 256, threads = 256 },
  target_config = { sm80 = { threads = 96 }, gfx90a = { threads = 64 } },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}
