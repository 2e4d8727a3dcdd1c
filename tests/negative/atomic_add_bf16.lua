-- expect: tests/negative/atomic_add_bf16.lua:12: error: k:atomic_add adds to f32 tensors only, but Y is bf16; accumulate in an f32 tensor and convert it afterwards
local tile = require "tile"
return tile.kernel {
  name = "atomic_add_bf16",
  config = { BN = 128, threads = 128 },
  params = function()
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("bf16", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BN))
    local x = k:load(p.X:tile({ i }, { c.BN }))
    k:atomic_add(p.Y:tile({ i }, { c.BN }), x)
  end,
}
