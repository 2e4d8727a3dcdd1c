-- accept: a kernel file's math, string and table are its own copies: changing them leaves the
-- prelude's tile.max (which calls math.max) and gen working; string patterns still match
local tile = require "tile"
math.max = nil
math.min = nil
table.insert = nil
local width = tonumber(("block256"):match("block(%d+)"))
string.rep = nil
return tile.kernel {
  name = "lib_copies",
  config = { BLOCK = width, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, tile.max(c.BLOCK, 128)))
    local x = k:load(p.X:tile({ i }, { c.BLOCK }))
    k:store(p.Y:tile({ i }, { c.BLOCK }), tile.max(x, 0))
  end,
}
