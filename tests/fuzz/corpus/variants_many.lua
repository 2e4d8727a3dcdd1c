-- hostile: many variant values, booleans, numbers and names that make odd variant names
local tile = require "tile"
return tile.kernel {
  name = "variants_many",
  variants = { a = { true, false }, b = { 1, 2, 3, 0 }, c = { "x", "y" }, d = { false } },
  config = { BLOCK = 256, threads = 256 },
  unsupported = function(v, target) if v.b == 3 and target == "c" then return "no" end end,
  variant_config = function(v, target) if v.a then return { BLOCK = 128 } end end,
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) } end,
  body = function(k, p, c, v)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local x = k:load(p.X:tile({ i }, { c.BLOCK }))
    k:store(p.Y:tile({ i }, { c.BLOCK }), v.a and x * v.b or x)
  end,
}
