-- expect: tests/negative/globals_metatable.lua:4: error: cannot change a protected metatable
local tile = require "tile"
-- setmetatable(_G, nil) turned the undefined-global check off
setmetatable(_G, nil)
undefined_name = 1
return tile.kernel {
  name = "globals_metatable",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}
