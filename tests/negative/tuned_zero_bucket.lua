-- expect: tests/negative/tuned/zero_bucket.lua:4: error: bad bucket "N=0": N=0 is not a size (at least 1)
-- args: --target sm80 --tuned tests/negative/tuned/zero_bucket.lua
local tile = require "tile"
return tile.kernel {
  name = "tuned_zero_bucket",
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
