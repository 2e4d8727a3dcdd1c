-- hostile: runtime blocks nested as deep as the builder allows, and deeper through Lua booleans
local tile = require "tile"
return tile.kernel {
  name = "deep_nesting",
  config = { BLOCK = 256, threads = 256, DEPTH = 20 },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local acc = k:fragment("f32", { c.BLOCK }, 0)
    local function nest(d)
      if d == 0 then k:assign(acc, acc + k:load(p.X:tile({ i }, { c.BLOCK }))) return end
      k:when(p.N:gt(d), function() k:when(true, function() nest(d - 1) end) end)
    end
    nest(c.DEPTH)
    k:store(p.Y:tile({ i }, { c.BLOCK }), acc)
  end,
}
