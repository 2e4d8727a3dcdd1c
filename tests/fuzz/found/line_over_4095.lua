-- a finding, fixed (gen/emit/text.c: ltE_comment_text, ltE_line): emit.c formats each generated line into a 4096-byte buffer
-- (line(), lane_line()), so a longer line is cut short: here a chain of 150
-- steps that inline.c folds into one expression (within the 1000-deep limit)
-- makes a statement of about 4100 characters, cut before its end.  gen exits 0.
--   build/gen tests/fuzz/found/line_over_4095.lua --target c -o /tmp/x && cc -std=c11 -fsyntax-only /tmp/x/line_over_4095.c
local tile = require "tile"
return tile.kernel {
  name = "line_over_4095",
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local a = k:load(p.X:tile({ i }, { c.BLOCK }))
    local x = a
    for s = 1, 150 do x = tile.max(x * 0.5, a) - s end
    k:store(p.Y:tile({ i }, { c.BLOCK }), x)
  end,
}
