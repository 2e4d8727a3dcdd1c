-- expect: tests/negative/param_reserved.lua:10: error: parameter name 'tid' is reserved for the generated code's own variables (tid, tx, ty, lane, warp, ri, ci, vi, ei, wi, gr, gc, off, ok, raw, acc, vec, h, base, ptr, grid, block, stream, row0, col0, warp_row, warp_col, dev, sm_err); rename it
local tile = require "tile"
-- a parameter named like a variable of the generated code
return tile.kernel {
  name = "param_reserved",
  config = { BLOCK = 256, threads = 256 },
  params = function(v, c)
    return {
      X = tile.tensor("f32", { "N" }),
      tid = tile.scalar("i32"),
    }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.X:tile({ i }, { c.BLOCK }), 0)
  end,
}
