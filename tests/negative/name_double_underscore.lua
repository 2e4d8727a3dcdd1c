-- expect: tests/negative/name_double_underscore.lua:5: error: kernel name '__fast' holds __, which C and C++ reserve; pick another, e.g. "fast"
local tile = require "tile"
-- names with __ are reserved in C and C++

return tile.kernel {
  name = "__fast",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}
