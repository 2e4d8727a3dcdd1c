-- expect: tests/negative/second_variant_fails.lua:16: error: dtype mismatch: the fragment is f32 but the value is bf16; cast it with :cast("f32")
-- args: --target c
local tile = require "tile"
-- the f32 variant is fine; the bf16 one fails: no file of the f32 one may be left
return tile.kernel {
  name = "second_variant_fails",
  variants = { dtype = { "f32", "bf16" } },
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor(v.dtype, { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local acc = k:fragment("f32", { c.BLOCK }, 0)
    local x = k:load(p.X:tile({ i }, { c.BLOCK }))
    k:assign(acc, x)
    k:store(p.Y:tile({ i }, { c.BLOCK }), acc)
  end,
}
