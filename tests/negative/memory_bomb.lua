-- expect: tests/negative/memory_bomb.lua: error: the kernel file used over 1 GiB of memory
local tile = require "tile"
local s = "x"
for _ = 1, 40 do s = s .. s end
return tile.kernel {
  name = "memory_bomb",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}
