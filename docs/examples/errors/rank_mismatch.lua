-- rank_mismatch.lua: two indices for a 1-dim tensor (gen rejects this file; see docs/dsl.md, "Errors").
local tile = require "tile"

return tile.kernel {
  name = "rank_mismatch",
  config = { BLOCK = 256, threads = 64 },
  params = function(v, c)
    return {
      X = tile.tensor("f32", { "N" }),
      Y = tile.tensor("f32", { "N" }),
    }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local x = k:load(p.X:tile({ i, 0 }, { c.BLOCK, 1 }))
    k:store(p.Y:tile({ i }, { c.BLOCK }), x)
  end,
}
