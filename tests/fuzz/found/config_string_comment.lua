-- a finding, fixed (gen/emit/text.c: ltE_comment_text, ltE_line): a config value that is a string is copied into the "Config:" line of
-- the block comment at the top of the generated source as it is, so a "*/" in it ends the
-- comment (here the rest is a #error).  gen exits 0.
--   build/gen tests/fuzz/found/config_string_comment.lua --target c -o /tmp/x && cc -std=c11 -fsyntax-only /tmp/x/config_string_comment.c
local tile = require "tile"
return tile.kernel {
  name = "config_string_comment",
  config = { BLOCK = 256, threads = 256, NOTE = "*/ #error a config string became code /*" },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}
