-- hostile: reductions of 1-wide tiles, of bools cast to numbers, along both axes, chained
local tile = require "tile"
return tile.kernel {
  name = "reductions_edge",
  config = { R = 1, C = 1024, threads = 1024 },
  params = function(v) return { X = tile.tensor("f32", { "M", "N" }), Y = tile.tensor("f32", { "M" }) } end,
  body = function(k, p, c)
    local r = k:grid(tile.cdiv(p.M, c.R))
    local x = k:load(p.X:tile({ r, 0 }, { c.R, c.C }))
    local m = k:reduce_max(k:reduce_min(x, 1), 2)
    local s = k:reduce_sum(x:gt(m):cast("f32"), 2)
    k:store(p.Y:view({ r * c.R }, { c.R }), k:reduce_sum(s + m, 2))
  end,
}
