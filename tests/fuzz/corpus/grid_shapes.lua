-- hostile: grid extents from lets, constants at the limits, three axes
local tile = require "tile"
return tile.kernel {
  name = "grid_shapes",
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f32", { "B", "N" }), Y = tile.tensor("f32", { "B", "N" }) } end,
  body = function(k, p, c)
    local n = tile.cdiv(p.N, c.BLOCK)
    local b = p.B * 1 + 0
    local i, j, z = k:grid(n, b, 2147483647)
    k:store(p.Y:tile({ j, i }, { 1, c.BLOCK }), k:load(p.X:tile({ j, i }, { 1, c.BLOCK })))
  end,
}
