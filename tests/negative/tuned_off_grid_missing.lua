-- expect: tests/negative/tuned/off_grid_missing.lua:5: error: off_grid "N=2048" names no entry of sm80, NVIDIA H200, tuned_off_grid_missing_f32; it names another bucket of the variant
-- args: --target sm80 --tuned tests/negative/tuned/off_grid_missing.lua
local tile = require "tile"
return tile.kernel {
  name = "tuned_off_grid_missing",
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
