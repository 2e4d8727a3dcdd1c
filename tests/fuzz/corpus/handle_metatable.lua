-- hostile: the values' metatable is out of reach; their fields and operators with wrong operands
local tile = require "tile"
return tile.kernel {
  name = "handle_metatable",
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local x = k:load(p.X:tile({ i }, { c.BLOCK }))
    local mt = getmetatable(x)
    local ok1 = pcall(function() return x[1] end)
    local ok2 = pcall(function() return x .. "s" end)
    local ok3 = pcall(function() return p.X + 1 end)
    local shape, dtype = x.shape, p.X.dtype
    k:store(p.Y:tile({ i }, { shape[1] }), x * #tostring(x))
  end,
}
