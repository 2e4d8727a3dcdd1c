-- expect: tests/negative/bad_define_key.lua:4: error: -D BOGUS=1: the kernel has no config or variant 'BOGUS' (it has: BLOCK, threads, dtype)
-- args: --target sm80 -D BOGUS=1
local tile = require "tile"
return tile.kernel {
  name = "bad_define_key",
  variants = { dtype = { "f32", "bf16" } },
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor(v.dtype, { "N" }), Y = tile.tensor(v.dtype, { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}
