-- hostile: tile shapes and view tables with metamethods that call back into the builder
local tile = require "tile"
local K
return tile.kernel {
  name = "tile_shape_metatable",
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) } end,
  body = function(k, p, c)
    K = k
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local ext = setmetatable({}, { __len = function() return 1 end,
      __index = function() K:fill(K:fragment("f32", { 256 }), 1) return c.BLOCK end })
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, ext)))
  end,
}
