-- expect: tests/negative/tuned_as_key.lua:3: error: tuned_as.widht: the kernel has no variant 'widht'
local tile = require "tile"
return tile.kernel {
  name = "tuned_as_key",
  variants = { width = { "w1", "w3", "w4" } },
  config = { BLOCK = 256, threads = 256 },
  tuned_as = { widht = { w3 = "w4" } },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}
