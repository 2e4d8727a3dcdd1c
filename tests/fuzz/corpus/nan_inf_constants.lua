-- hostile: NaN, infinities, -0.0 and denormals as values, masked-load fills and initial values
local tile = require "tile"
return tile.kernel {
  name = "nan_inf_constants",
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local acc = k:fragment("f32", { c.BLOCK }, 0 / 0)
    local x = k:load(p.X:tile({ i }, { c.BLOCK }), -math.huge)
    k:assign(acc, tile.where(x:gt(1e-45), x * math.huge, -0.0))
    k:store(p.Y:tile({ i }, { c.BLOCK }), acc + 0 / 0)
  end,
}
