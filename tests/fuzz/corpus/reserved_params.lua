-- hostile: parameters and sizes named like C keywords and library functions
local tile = require "tile"
return tile.kernel {
  name = "reserved_params",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { src = tile.tensor("f32", { "rows", "cols" }), dst = tile.tensor("f32", { "rows", "cols" }), scale = tile.scalar("f32") }
  end,
  body = function(k, p, c)
    local i = k:grid(p.rows)
    local x = k:load(p.src:view({ i, 0 }, { 1, c.BLOCK }))
    k:store(p.dst:view({ i, 0 }, { 1, c.BLOCK }), x * p.scale)
  end,
}
