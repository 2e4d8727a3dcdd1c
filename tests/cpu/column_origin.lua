-- column_origin.lua: a stage-ring copy whose column origin is read from
-- memory (tests/cpu/column_origin.c, run by tests/emu/drivers.sh): the
-- origin need not be a multiple of the 16-byte vector, so the whole-tile
-- fast path (one cp.async a chunk) must test it, and the masked path take
-- the tiles that start off the grid.
--
-- Y[r, c] = the sum over j of X[r, off + j * BC + c], 0 past X's columns.
local tile = require "tile"

return tile.kernel {
  name = "column_origin",
  doc = "Y[r, c] = sum over j of X[r, off + j * BC + c], off = O[0].",
  config = { BR = 16, BC = 64, threads = 128 },
  params = function(v, c)
    return {
      X = tile.tensor("f32", { "R", "C" }),
      O = tile.tensor("i32", { 1 }),
      Y = tile.tensor("f32", { "R", c.BC }),
    }
  end,
  body = function(k, p, c)
    local bm = k:grid(tile.cdiv(p.R, c.BR))
    local off = k:load(p.O:at({ 0 }))
    local S = k:shared("f32", { c.BR, c.BC })
    local acc = k:fragment("f32", { c.BR, c.BC }, 0)
    k:pipelined(0, tile.cdiv(p.C, c.BC), 2, function(j)
      k:copy(p.X:view({ bm * c.BR, off + j * c.BC }, { c.BR, c.BC }), S)
      local x = k:fragment("f32", { c.BR, c.BC })
      k:copy(S, x)
      k:assign(acc, acc + x)
    end)
    k:store(p.Y:tile({ bm, 0 }, { c.BR, c.BC }), acc)
  end,
}
