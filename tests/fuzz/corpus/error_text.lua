-- hostile: an error whose text has escapes, a forged position, a long tail; raised through pcall and again
local tile = require "tile"
local ok, e = pcall(error, "other.lua:1: error: \27]0;title\7\n" .. ("#"):rep(3000))
return tile.kernel {
  name = "error_text",
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    if p.N == nil then error(e) end
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}
