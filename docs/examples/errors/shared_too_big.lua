-- shared_too_big.lua: shared tiles over the 163 KB of sm80 (gen rejects this file; see docs/dsl.md, "Errors").
local tile = require "tile"

return tile.kernel {
  name = "shared_too_big",
  config = { BLOCK = 256, threads = 64 },
  params = function(v, c)
    return {
      X = tile.tensor("f32", { "M", "N" }),
      Y = tile.tensor("f32", { "M", "N" }),
    }
  end,
  body = function(k, p, c)
    local bm = k:grid(tile.cdiv(p.M, 256))
    local S = k:shared("f32", { 256, 256 })
    local x = k:fragment("f32", { 256, 256 })
    k:copy(p.X:tile({ bm, 0 }, { 256, 256 }), S)
    k:copy(S, x)
    k:store(p.Y:tile({ bm, 0 }, { 256, 256 }), x)
  end,
}
