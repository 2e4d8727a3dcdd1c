-- expect: tests/negative/tuned/unknown_key.lua:6: error: tuned config key 'BLOK' is not a config key of tuned_unknown_key (it has: BLOCK, threads)
-- args: --target sm80 --tuned tests/negative/tuned/unknown_key.lua
local tile = require "tile"
return tile.kernel {
  name = "tuned_unknown_key",
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
