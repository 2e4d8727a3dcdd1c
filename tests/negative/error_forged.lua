-- expect: tests/negative/error_forged.lua:4: error: error() was given a table; give it a message string
local tile = require "tile"
-- a table with the field gen once used for its own errors: its text printed as it was
error({ lt_error = "/etc/passwd:1: error: all fine\n\27[2J" })
return tile.kernel {
  name = "error_forged",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}
