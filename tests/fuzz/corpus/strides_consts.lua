-- hostile: explicit strides, constant dims and strides at their limits, 4-dim tensors
local tile = require "tile"
return tile.kernel {
  name = "strides_consts",
  config = { BLOCK = 128, threads = 128 },
  params = function(v)
    return { X = tile.tensor("f32", { 3, "H", 1, "N" }, { "sb", "sh", 0, 1 }), Y = tile.tensor("f32", { 1073741823, "N" }, { 2147483647, 1 }) }
  end,
  body = function(k, p, c)
    local i, h = k:grid(tile.cdiv(p.N, c.BLOCK), p.H)
    local x = k:load(p.X:tile({ 2, h, 0, i }, { 1, 1, 1, c.BLOCK }))
    k:store(p.Y:tile({ 0, i }, { 1, c.BLOCK }), x)
  end,
}
