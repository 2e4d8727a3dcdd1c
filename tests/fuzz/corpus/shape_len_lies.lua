-- hostile: a shape table whose __len and __index lie to the C code reading it
local tile = require "tile"
local shape = setmetatable({}, { __len = function() return 2 ^ 31 + 1 end, __index = function(_, i) return "N" end })
return tile.kernel {
  name = "shape_len_lies",
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f32", shape), Y = tile.tensor("f32", { "N" }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}
