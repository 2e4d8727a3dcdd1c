-- hostile: a long chain of values, named every few steps so that it stays under the depth limit
local tile = require "tile"
return tile.kernel {
  name = "long_chain",
  config = { BLOCK = 256, threads = 256, STEPS = 150 },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local a = k:load(p.X:tile({ i }, { c.BLOCK }))
    local x = a
    for s = 1, c.STEPS do x = tile.max(x * 0.5, a) - s end
    k:store(p.Y:tile({ i }, { c.BLOCK }), x)
  end,
}
