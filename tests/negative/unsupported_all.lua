-- expect: tests/negative/unsupported_all.lua:9: error: nothing to generate for sm80: unsupported_all_f16 is unsupported there (no f16 here); pick a variant (-D) or a target that runs it
-- args: --target sm80 -D dtype=f16
-- -D picks the one variant the target leaves out
local tile = require "tile"
return tile.kernel {
  name = "unsupported_all",
  variants = { dtype = { "f32", "f16" } },
  config = { BLOCK = 256, threads = 256 },
  unsupported = function(v, target)
    if v.dtype == "f16" then return "no f16 here" end
  end,
  params = function(v)
    return { X = tile.tensor(v.dtype, { "N" }), Y = tile.tensor(v.dtype, { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}
