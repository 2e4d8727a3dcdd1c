-- expect: tests/negative/too_many_values.lua:12: error: the variant makes more than 65536 values, tiles and parameters (a Lua loop that builds without end?); gen's passes take time growing with their square
local tile = require "tile"
-- 70,000 values in one variant: over the 65,536 symbols gen's passes take
return tile.kernel {
  name = "too_many_values",
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local x = k:load(p.X:tile({ i }, { c.BLOCK }))
    local f = k:fragment("f32", { c.BLOCK }, 0)
    for j = 1, 70000 do k:assign(f, f + x) end
    k:store(p.Y:tile({ i }, { c.BLOCK }), f)
  end,
}
