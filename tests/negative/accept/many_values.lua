-- accept: 12,000 values named y, y_2, ... and 12,000 used far from where they are made: gen takes
-- them in about a second (naming them looked each name up in every symbol, and inline.c
-- scanned from each value to its use: minutes)
local tile = require "tile"
return tile.kernel {
  name = "many_values",
  config = { BLOCK = 256, threads = 256, N = 12000 },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local x = k:load(p.X:tile({ i }, { c.BLOCK }))
    local f = k:fragment("f32", { c.BLOCK }, 0)
    for j = 1, c.N do local y = x * j; k:assign(f, f + y) end
    local far = {}
    for j = 1, c.N do far[j] = x * j end
    for j = 1, c.N do k:assign(f, f + far[j]) end
    k:store(p.Y:tile({ i }, { c.BLOCK }), f)
  end,
}
