-- expect: tests/negative/target_config_key.lua:3: error: target_config.gfx90a.BLOK: config has no 'BLOK'; only the values config names can change
local tile = require "tile"
return tile.kernel {
  name = "target_config_key",
  config = { BLOCK = 256, threads = 256 },
  target_config = { gfx90a = { BLOK = 128 } },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}
