-- hostile: params and body that return, yield odd values, and a kernel table with extra keys removed
local tile = require "tile"
local K = tile.kernel {
  name = "weird_returns",
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }, 1, 2 end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
    return k, p, c
  end,
}
K.config = { BLOCK = 128, threads = 128 }
return K, "extra"
