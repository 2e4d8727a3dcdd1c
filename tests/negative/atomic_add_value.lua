-- expect: tests/negative/atomic_add_value.lua:12: error: k:atomic_add's value is bf16; it must be f32 like the tensor: cast it with :cast("f32")
local tile = require "tile"
return tile.kernel {
  name = "atomic_add_value",
  config = { BN = 128, threads = 128 },
  params = function()
    return { X = tile.tensor("bf16", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BN))
    local x = k:load(p.X:tile({ i }, { c.BN }))
    k:atomic_add(p.Y:tile({ i }, { c.BN }), x)
  end,
}
