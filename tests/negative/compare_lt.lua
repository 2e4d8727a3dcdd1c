-- expect: tests/negative/compare_lt.lua:12: error: values cannot be compared with < <= == (Lua needs a boolean now, the value exists only at run time); use a:lt(b), a:le(b), a:eq(b) ...
local tile = require "tile"
return tile.kernel {
  name = "compare_lt",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local x = k:load(p.X:tile({ i }, { c.BLOCK }))
    local pos = tile.where(x < 0, 0, x)
    k:store(p.Y:tile({ i }, { c.BLOCK }), pos)
  end,
}
