-- expect: tests/negative/tuned/alternative_type.lua:5: error: alternative must be a table of config name = value (the keys that differ from the entry's config), or a list of such tables, not "BLOCK=512"
-- args: --target sm80 --tuned tests/negative/tuned/alternative_type.lua
local tile = require "tile"
return tile.kernel {
  name = "tuned_alternative_type",
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
