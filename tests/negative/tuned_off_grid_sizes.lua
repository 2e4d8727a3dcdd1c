-- expect: tests/negative/tuned/off_grid_sizes.lua:4: error: bad off_grid "N=2048": an off_grid bucket names the one size that its entry's bucket (N=4096,R=64) names
-- args: --target sm80 --tuned tests/negative/tuned/off_grid_sizes.lua
local tile = require "tile"
return tile.kernel {
  name = "tuned_off_grid_sizes",
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
