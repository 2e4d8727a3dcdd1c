-- expect: tests/negative/params_shape_grown.lua:9: error: params.X: tensors have 1 to 4 dims, not 40
local tile = require "tile"
-- a tensor's shape table grown after tile.tensor returned: the params builder reads it again (LT_MAXRANK dims at most)

return tile.kernel {
  name = "params_shape_grown",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    local X = tile.tensor("f32", { "N" })
    for d = 2, 40 do X.shape[d] = "N" .. d end
    return { X = X, Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}
