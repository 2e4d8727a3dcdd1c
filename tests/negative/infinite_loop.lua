-- expect: tests/negative/infinite_loop.lua:10: error: the kernel file ran for over 400 million Lua steps (an endless loop?)
local tile = require "tile"
return tile.kernel {
  name = "infinite_loop",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    while true do end
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}
