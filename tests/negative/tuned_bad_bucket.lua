-- expect: tests/negative/tuned/bad_bucket.lua:4: error: bad bucket "N=1000,R=64": N=1000 is not a power of two (a bucket of several sizes names powers of two; one of a single size may name any)
-- args: --target sm80 --tuned tests/negative/tuned/bad_bucket.lua
local tile = require "tile"
return tile.kernel {
  name = "tuned_bad_bucket",
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
