-- expect: tests/negative/tuned/alternative_no_tile.lua:5: error: the alternative of bucket N=4096: tuned_alternative_no_tile_f32 has no k:gemm and no k:fragment, so no tile to weigh its programs by; an alternative needs one
-- args: --target sm80 --tuned tests/negative/tuned/alternative_no_tile.lua
local tile = require "tile"
return tile.kernel {
  name = "tuned_alternative_no_tile",
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
