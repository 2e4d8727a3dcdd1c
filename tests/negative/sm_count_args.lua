-- expect: tests/negative/sm_count_args.lua:11: error: k:sm_count() takes no arguments
local tile = require "tile"
-- k:sm_count takes nothing

return tile.kernel {
  name = "sm_count_args",
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }), s = tile.scalar("i32") } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local n = k:sm_count(2)
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}
