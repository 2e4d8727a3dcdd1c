-- residual.lua: Z = X + gate * Y, a gated residual add over vectors of any length.
--
-- One program handles BLOCK consecutive elements; the last one is masked.
-- f16 and bf16 are computed in f32 and rounded once, on the store.
local tile = require "tile"

return tile.kernel {
  name = "residual",
  doc = "Z = X + gate * Y over vectors of length N; f16 and bf16 are computed in f32.",
  variants = { dtype = { "f32", "f16", "bf16" } },
  config = { BLOCK = 2048, threads = 256 },
  params = function(v, c)
    return {
      X = tile.tensor(v.dtype, { "N" }),
      Y = tile.tensor(v.dtype, { "N" }),
      Z = tile.tensor(v.dtype, { "N" }),
      gate = tile.scalar("f32"),
    }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local x = k:load(p.X:tile({ i }, { c.BLOCK })):cast("f32")
    local y = k:load(p.Y:tile({ i }, { c.BLOCK })):cast("f32")
    k:store(p.Z:tile({ i }, { c.BLOCK }), x + p.gate * y)
  end,
}
