-- hostile: names at and past the length limits, and locals that need renaming
local tile = require "tile"
local long = ("n"):rep(64)
return tile.kernel {
  name = "long_names",
  variants = { width = { ("w"):rep(40), "short" } },
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f32", { long }), Y = tile.tensor("f32", { long }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p[long], c.BLOCK))
    local __x = k:load(p.X:tile({ i }, { c.BLOCK }))
    local lt_y = __x * 2
    local x_ = lt_y + 1
    local cudaMalloc = x_ - __x
    k:store(p.Y:tile({ i }, { c.BLOCK }), cudaMalloc)
  end,
}
