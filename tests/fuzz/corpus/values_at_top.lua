-- hostile: DSL values made at the top level and in unsupported(), before any variant is built
local tile = require "tile"
local early = pcall(tile.exp, 1)
local also = pcall(tile.where, true, 1, 2)
return tile.kernel {
  name = "values_at_top",
  config = { BLOCK = 256, threads = 256 },
  unsupported = function(v, target) local ok = pcall(tile.cast, 1, "f16") end,
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}
