-- expect: tests/negative/memory_gen_arena.lua: error: the kernel file used over 1 GiB of memory
local tile = require "tile"
-- gen's own memory (the IR of 100 million tensor views) counts against the 1 GiB limit too
return tile.kernel {
  name = "memory_gen_arena",
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local x = k:load(p.X:tile({ i }, { c.BLOCK }))
    for j = 1, 1e8 do local y = p.X:tile({ j }, { c.BLOCK }) end
    k:store(p.Y:tile({ i }, { c.BLOCK }), x)
  end,
}
