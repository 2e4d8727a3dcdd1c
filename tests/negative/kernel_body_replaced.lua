-- expect: tests/negative/kernel_body_replaced.lua:4: error: tile.kernel needs body = function(k, p, c, v) ... end
local tile = require "tile"
-- tile.kernel's body replaced by a number after tile.kernel checked it
local K = tile.kernel {
  name = "kernel_body_replaced",
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}
K.body = 5
return K
