-- A tile of 2^21 f32 elements (8 MB, within gen's limit of 2^24): on the c
-- target its arrays cannot sit on an 8 MB stack; tests/cpu/bigtile.c runs it.
local tile = require "tile"
return tile.kernel {
  name = "bigtile",
  params = function() return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) } end,
  config = { BN = 2097152 },
  body = function(k, p, c)
    local pid = k:grid(tile.cdiv(p.N, c.BN))
    local x = k:load(p.X:view({ pid * c.BN }, { c.BN }), 0)
    local y = x * 2 + 1
    k:store(p.Y:view({ pid * c.BN }, { c.BN }), y)
  end,
}
