-- expect: tests/negative/kernel_modified.lua:4: error: tile.kernel needs name = "an_identifier"
local tile = require "tile"
-- tile.kernel's result changed after it was checked: its fields are checked again where gen reads them
local K = tile.kernel {
  name = "kernel_modified",
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}
K.name = {}
return K
