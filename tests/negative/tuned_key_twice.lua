-- expect: tests/negative/tuned/key_twice.lua:5: error: BLOCK is given twice in one table (also at line 4)
-- args: --target sm80 --tuned tests/negative/tuned/key_twice.lua
local tile = require "tile"
return tile.kernel {
  name = "tuned_key_twice",
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
