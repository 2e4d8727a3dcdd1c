-- expect: tests/negative/tuned_as_value.lua:3: error: tuned_as.width: w5 is not one of the variant's values
local tile = require "tile"
return tile.kernel {
  name = "tuned_as_value",
  variants = { width = { "w1", "w3", "w4" } },
  config = { BLOCK = 256, threads = 256 },
  tuned_as = { width = { w3 = "w5" } },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}
