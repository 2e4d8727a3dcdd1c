-- expect: tests/negative/tuned/too_many_buckets.lua:24: error: tuned_too_many_buckets_f32 has 25 tuned buckets and alternatives, more than the 24 kernels one launcher takes; merge buckets or drop an alternative
-- args: --target sm80 --tuned tests/negative/tuned/too_many_buckets.lua
local tile = require "tile"
return tile.kernel {
  name = "tuned_too_many_buckets",
  variants = { dtype = { "f32", "bf16" } },
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor(v.dtype, { "R", "N" }), Y = tile.tensor(v.dtype, { "R", "N" }) }
  end,
  body = function(k, p, c)
    local r, i = k:grid(p.R, tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ r, i }, { 1, c.BLOCK }), k:load(p.X:tile({ r, i }, { 1, c.BLOCK })))
  end,
}
