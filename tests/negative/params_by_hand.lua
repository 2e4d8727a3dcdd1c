-- expect: tests/negative/params_by_hand.lua:7: error: params.X must be tile.tensor(...) or tile.scalar(...)
local tile = require "tile"
-- a params entry built by hand like tile.tensor's descriptor, with 40 dims
return tile.kernel {
  name = "params_by_hand",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    local shape = {}
    for d = 1, 40 do shape[d] = "N" .. d end
    return { X = { lt_param = "tensor", dtype = "f32", shape = shape, seq = 1, line = 7 }, Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.Y:tile({ i }, { c.BLOCK })))
  end,
}
