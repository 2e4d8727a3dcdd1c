-- fp8_fnuz.lua: AMD's FNUZ fp8 dtypes: quantizing with a scale, reading
-- the values back, and converting OCP e4m3 bytes to e4m3fnuz.
local tile = require "tile"

return tile.kernel {
  name = "fp8_fnuz",
  doc = "Q = X * scale as e4m3fnuz, R as e5m2fnuz (saturating); D[0] = Q / scale, D[1] = R / scale; "
    .. "Z = O (e4m3) as e4m3fnuz; X, O [N].",
  config = { BLOCK = 256, threads = 64 },
  params = function(v, c)
    return {
      X = tile.tensor("f32", { "N" }),
      O = tile.tensor("fp8e4m3", { "N" }),
      Q = tile.tensor("fp8e4m3fnuz", { "N" }),
      R = tile.tensor("fp8e5m2fnuz", { "N" }),
      Z = tile.tensor("fp8e4m3fnuz", { "N" }),
      D = tile.tensor("f32", { 2, "N" }),
      scale = tile.scalar("f32"),
    }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local x = k:load(p.X:tile({ i }, { c.BLOCK })) * p.scale
    local q = x:cast("fp8e4m3fnuz")   -- nearest even, saturated at +-240, NaN to 0x80, a zero +0
    local r = x:cast("fp8e5m2fnuz")   -- saturated at +-57344: infinities too
    k:store(p.Q:tile({ i }, { c.BLOCK }), q)
    k:store(p.R:tile({ i }, { c.BLOCK }), r)
    k:store(p.D:tile({ 0, i }, { 1, c.BLOCK }), q:cast("f32") / p.scale)
    k:store(p.D:tile({ 1, i }, { 1, c.BLOCK }), r:cast("f32") / p.scale)
    local o = k:load(p.O:tile({ i }, { c.BLOCK }))   -- fp8e4m3 (OCP), held as f32
    k:store(p.Z:tile({ i }, { c.BLOCK }), o)          -- a store converts as the cast does: 256 to 448 saturate to 240
  end,
}
