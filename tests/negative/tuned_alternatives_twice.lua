-- expect: tests/negative/tuned/alternatives_twice.lua:5: error: alternative 2 gives the config of alternative 1; give each a config of its own
-- args: --target sm80 --tuned tests/negative/tuned/alternatives_twice.lua
local tile = require "tile"
return tile.kernel {
  name = "tuned_alternatives_twice",
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
