-- fp8.lua: quantizing to fp8 with a scale, and reading fp8 back.
local tile = require "tile"

return tile.kernel {
  name = "fp8",
  doc = "Q = X * scale as e4m3, R as e5m2 (saturating); D[0] = Q / scale, D[1] = E * scale; X, E [N].",
  config = { BLOCK = 256, threads = 64 },
  params = function(v, c)
    return {
      X = tile.tensor("f32", { "N" }),
      E = tile.tensor("fp8e4m3", { "N" }),
      Q = tile.tensor("fp8e4m3", { "N" }),
      R = tile.tensor("fp8e5m2", { "N" }),
      D = tile.tensor("f32", { 2, "N" }),
      scale = tile.scalar("f32"),
    }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local x = k:load(p.X:tile({ i }, { c.BLOCK })) * p.scale
    local q = x:cast("fp8e4m3")                   -- nearest even, saturated at +-448, NaN kept
    k:store(p.Q:tile({ i }, { c.BLOCK }), q)
    k:store(p.R:tile({ i }, { c.BLOCK }), x)      -- a store converts as the cast does
    k:store(p.D:tile({ 0, i }, { 1, c.BLOCK }), q:cast("f32") / p.scale)
    local e = k:load(p.E:tile({ i }, { c.BLOCK }))   -- fp8e4m3, held as f32
    k:store(p.D:tile({ 1, i }, { 1, c.BLOCK }), e:cast("f32") * p.scale)
  end,
}
