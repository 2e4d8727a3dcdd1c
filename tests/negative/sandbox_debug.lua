-- expect: tests/negative/sandbox_debug.lua:3: error: undefined global 'debug'; kernel files run sandboxed, without os, io, debug, package, load, loadfile, dofile and collectgarbage
local tile = require "tile"
local up = debug.getupvalue(tile.max, 1)
return tile.kernel {
  name = "sandbox_debug",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}
