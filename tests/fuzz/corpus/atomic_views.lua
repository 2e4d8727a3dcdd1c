-- hostile: atomic adds into overlapping views, views past the tensor's end
local tile = require "tile"
return tile.kernel {
  name = "atomic_views",
  config = { BR = 8, BC = 128, threads = 32 },
  params = function(v) return { X = tile.tensor("f32", { "M", 100 }), Y = tile.tensor("f32", { 100 }) } end,
  body = function(k, p, c)
    local r = k:grid(tile.cdiv(p.M, c.BR))
    local x = k:load(p.X:tile({ r, 1 }, { c.BR, c.BC }), 0)
    k:atomic_add(p.Y:view({ 50 }, { c.BC }), k:reduce_sum(x, 1))
    k:atomic_add(p.Y:view({ 0 }, { c.BC }), 1)
  end,
}
