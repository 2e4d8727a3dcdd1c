#!/usr/bin/env gen
-- hostile: a #! line (Lua skips it) and a kernel that is otherwise plain
local tile = require "tile"
return tile.kernel {
  name = "bom_shebang",
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f16", { "N" }), Y = tile.tensor("f16", { "N" }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })) * 2)
  end,
}
