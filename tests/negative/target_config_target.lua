-- expect: tests/negative/target_config_target.lua:3: error: target_config.gfx1200: no such target (targets: sm80, sm90a, gfx90a, gfx942, gfx1100, c)
local tile = require "tile"
return tile.kernel {
  name = "target_config_target",
  config = { BLOCK = 256, threads = 256 },
  target_config = { gfx1200 = { threads = 128 } },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}
