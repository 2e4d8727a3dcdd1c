-- expect: tests/negative/error_call.lua:10: error: BLOCK must be at least 1024 for this kernel
local tile = require "tile"
return tile.kernel {
  name = "error_call",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    if c.BLOCK < 1024 then error("BLOCK must be at least 1024 for this kernel") end
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}
