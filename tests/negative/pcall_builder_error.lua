-- expect: tests/negative/pcall_builder_error.lua:9: error: the loop start must be a number or a value, not table
local tile = require "tile"
-- a k: method that fails has half made its statement: pcall cannot catch that error and go on
return tile.kernel {
  name = "pcall_builder_error",
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) } end,
  body = function(k, p, c)
    local ok = pcall(k.serial, k, {}, 1, function() end)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}
