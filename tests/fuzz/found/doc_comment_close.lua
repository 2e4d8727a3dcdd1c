-- a finding, fixed (gen/emit/text.c: ltE_comment_text, ltE_line): the kernel's doc is copied into the block comments at the top of the
-- generated source and header as it is, so a "*/" in it ends the comment and the rest
-- becomes code (here a #error; it could be any code).  gen exits 0.
--   build/gen tests/fuzz/found/doc_comment_close.lua --target c -o /tmp/x && cc -std=c11 -fsyntax-only /tmp/x/doc_comment_close.c
local tile = require "tile"
return tile.kernel {
  name = "doc_comment_close",
  doc = "Adds */ #error the doc became code /* one to each element.",
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })) + 1)
  end,
}
