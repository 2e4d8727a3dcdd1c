-- expect: tests/negative/tuned/duplicate.lua:6: error: a second entry for sm80, NVIDIA H200, tuned_duplicate_f32, bucket M=64,N=4096 (the first is at line 4)
-- args: --target sm80 --tuned tests/negative/tuned/duplicate.lua
local tile = require "tile"
return tile.kernel {
  name = "tuned_duplicate",
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
