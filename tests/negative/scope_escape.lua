-- expect: tests/negative/scope_escape.lua:17: error: a value made inside a k:serial or k:when body (line 14) is used outside it; declare a k:fragment before the block and k:assign it inside
local tile = require "tile"
return tile.kernel {
  name = "scope_escape",
  config = { BC = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "R", "C" }), Y = tile.tensor("f32", { "R", "C" }) }
  end,
  body = function(k, p, c)
    local row = k:grid(p.R)
    local last
    k:serial(0, tile.cdiv(p.C, c.BC), function(j)
      local x = k:load(p.X:tile({ row, j }, { 1, c.BC }))
      last = x * 2
    end)
    -- `last` was made inside the loop body: it does not exist out here
    k:store(p.Y:tile({ row, 0 }, { 1, c.BC }), last)
  end,
}
