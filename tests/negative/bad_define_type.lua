-- expect: tests/negative/bad_define_type.lua:4: error: -D BLOCK=big: config BLOCK is a number, so the value must be one too
-- args: --target sm80 -D BLOCK=big
local tile = require "tile"
return tile.kernel {
  name = "bad_define_type",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}
