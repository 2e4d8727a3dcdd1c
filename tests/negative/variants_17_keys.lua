-- expect: tests/negative/variants_17_keys.lua:6: error: variants has more than 16 keys; a kernel has at most 16
local tile = require "tile"
-- the 17th variant key was dropped without a word
local vars = {}
for j = 1, 17 do vars[("k%02d"):format(j)] = { true } end
return tile.kernel {
  name = "variants_17_keys",
  variants = vars,
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}
