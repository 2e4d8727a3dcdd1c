-- hostile: every k:copy direction, with masked loads and odd fill values
local tile = require "tile"
return tile.kernel {
  name = "copies_all",
  config = { BR = 16, BC = 32, threads = 64 },
  params = function(v) return { X = tile.tensor("bf16", { "M", "N" }), Y = tile.tensor("bf16", { "M", "N" }) } end,
  body = function(k, p, c)
    local r, q = k:grid(tile.cdiv(p.M, c.BR), tile.cdiv(p.N, c.BC))
    local s = k:shared("bf16", { c.BR, c.BC })
    local f = k:fragment("bf16", { c.BR, c.BC })
    k:copy(p.X:tile({ r, q }, { c.BR, c.BC }), s, -1.5)
    k:copy(s, f)
    k:fill(s, 0)
    k:copy(f, s)
    k:copy(p.X:tile({ r, q }, { c.BR, c.BC }), f, 7)
    k:copy(f, p.Y:tile({ r, q }, { c.BR, c.BC }))
  end,
}
