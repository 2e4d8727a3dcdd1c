-- expect: tests/negative/params_too_many.lua:7: error: too many parameters (at most 64)
local tile = require "tile"
-- 65 parameters
return tile.kernel {
  name = "params_too_many",
  config = { BLOCK = 256, threads = 256 },
  params = function(v, c)
    local t = { X = tile.tensor("f32", { "N" }) }
    for j = 1, 64 do t["s" .. j] = tile.scalar("i32") end
    return t
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.X:tile({ i }, { c.BLOCK }), 0)
  end,
}
