-- expect: tests/negative/string_rep_empty.lua:5: error: rep returned 0 bytes
local tile = require "tile"
-- string.rep of an empty string looped 2^60 times in C, out of reach of the step limit
local s = ("").rep("", 2^60)
error("rep returned " .. #s .. " bytes")
return tile.kernel {
  name = "string_rep_empty",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}
