-- hostile: every cast between the dtypes, of constants, scalars and tiles
local tile = require "tile"
return tile.kernel {
  name = "casts_all",
  variants = { from = { "f32", "f16", "bf16", "i32" }, to = { "f32", "f16", "bf16", "i32" } },
  config = { BLOCK = 128, threads = 128 },
  params = function(v) return { X = tile.tensor(v.from, { "N" }), Y = tile.tensor(v.to, { "N" }), s = tile.scalar("f32") } end,
  body = function(k, p, c, v)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local x = k:load(p.X:tile({ i }, { c.BLOCK }))
    k:store(p.Y:tile({ i }, { c.BLOCK }), x:cast(v.to) + p.s:cast(v.to) + tile.cast(3, v.to))
  end,
}
