-- hostile: target_config for every target, threads at each target's limit
local tile = require "tile"
return tile.kernel {
  name = "target_config_all",
  config = { BLOCK = 1024, threads = 1024 },
  target_config = { sm80 = { threads = 1024 }, sm90a = { threads = 32 }, gfx90a = { threads = 64 },
                    gfx942 = { threads = 1024 }, gfx1100 = { threads = 32 }, c = { threads = 1 } },
  params = function(v) return { X = tile.tensor("bf16", { "N" }), Y = tile.tensor("bf16", { "N" }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), tile.exp(k:load(p.X:tile({ i }, { c.BLOCK }))))
  end,
}
