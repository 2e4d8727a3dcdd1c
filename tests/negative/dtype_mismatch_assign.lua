-- expect: tests/negative/dtype_mismatch_assign.lua:13: error: dtype mismatch: the fragment is f32 but the value is bf16; cast it with :cast("f32")
local tile = require "tile"
return tile.kernel {
  name = "dtype_mismatch_assign",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("bf16", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local acc = k:fragment("f32", { c.BLOCK }, 0)
    local x = k:load(p.X:tile({ i }, { c.BLOCK }))
    k:assign(acc, x)
    k:store(p.Y:tile({ i }, { c.BLOCK }), acc)
  end,
}
