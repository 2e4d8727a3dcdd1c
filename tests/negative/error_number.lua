-- expect: tests/negative/error_number.lua:11: error: 42
local tile = require "tile"
return tile.kernel {
  name = "error_number",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    error(42)
  end,
}
