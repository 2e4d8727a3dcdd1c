-- expect: tests/negative/sm_count_clash.lua:11: error: k:sm_count's value is passed to the kernel as sm_count, which names a parameter already (line 8); rename it
local tile = require "tile"
-- a parameter named sm_count, and k:sm_count

return tile.kernel {
  name = "sm_count_clash",
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }), sm_count = tile.scalar("i32") } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local n = k:sm_count()
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}
