-- hostile: a doc string and lines with comment closers, a trailing backslash and trigraphs
local tile = require "tile"
return tile.kernel {
  name = "doc_comment_breakers",
  doc = "adds */ int evil; /* and ??/ and \\",
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK)) -- ends in a backslash \
    local x = k:load(p.X:tile({ i }, { c.BLOCK })) -- */ ??/
    k:store(p.Y:tile({ i }, { c.BLOCK }), x) -- ??/
  end,
}
