#!/usr/bin/env -S gen --target c -o out
-- accept: a first line starting with #, as Lua's loadfile skips it
local tile = require "tile"
return tile.kernel {
  name = "shebang",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}
