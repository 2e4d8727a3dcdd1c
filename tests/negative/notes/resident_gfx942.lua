-- note: tests/negative/notes/resident_gfx942.lua:5: note: config resident has no effect on gfx942 (CUDA targets only)
-- args: --target gfx942
-- A row read twice, config resident on an AMD target: the kernel reads global memory twice.
local tile = require "tile"
return tile.kernel {
  name = "resident_gfx942",
  config = { BC = 1024, threads = 128, resident = true },
  params = function()
    return { X = tile.tensor("f32", { "R", "C" }), Y = tile.tensor("f32", { "R", "C" }) }
  end,
  body = function(k, p, c)
    local r = k:grid(p.R)
    local nchunks = tile.cdiv(p.C, c.BC)
    local s = k:fragment("f32", { 1, c.BC }, 0)
    k:serial(0, nchunks, function(j)
      k:assign(s, s + k:load(p.X:tile({ r, j }, { 1, c.BC })))
    end)
    local total = k:reduce_sum(s, 2)
    k:serial(0, nchunks, function(j)
      k:store(p.Y:tile({ r, j }, { 1, c.BC }), k:load(p.X:tile({ r, j }, { 1, c.BC })) / total)
    end)
  end,
}
