-- loops.lua: runtime loops and branches, and generation-time Lua.
--
-- For each row of X [R, C]: lo = the row's minimum (of |x| in the variant
-- "absolute"), read two BC-wide chunks per loop trip; then Y = X - lo and
-- S[r, :] = (lo, 1 if the row took more than one chunk else 0).
local tile = require "tile"

return tile.kernel {
  name = "loops",
  doc = "Row minimum (of |x| when absolute) in S[:, 0], Y = X - it.",
  variants = { absolute = { false, true } },
  config = { BC = 128, threads = 64 },
  params = function(v, c)
    return {
      X = tile.tensor("f32", { "R", "C" }),
      Y = tile.tensor("f32", { "R", "C" }),
      S = tile.tensor("f32", { "R", 2 }),
    }
  end,
  body = function(k, p, c, v)
    assert(#p.S.shape == 2 and p.S.shape[2] == 2)
    local row = k:grid(p.R)
    local n = tile.cdiv(p.C, c.BC)
    local lo = k:fragment("f32", { 1, 1 }, math.huge)
    -- a Lua function: each call emits the code for one chunk
    local function chunk(j)
      local x = k:load(p.X:tile({ row, j }, { 1, c.BC }), math.huge)
      if v.absolute then x = tile.abs(x) end                    -- chosen at generation time
      k:assign(lo, tile.min(lo, k:reduce_min(x, 2)))
    end
    -- j = 0, 2, 4, ...; the k:when condition is uniform (j and n are the
    -- same in every thread of the block)
    k:serial(0, n, 2, function(j)
      chunk(j)
      k:when((j + 1):lt(n), function() chunk(j + 1) end)
    end)
    k:store(p.S:tile({ row, 0 }, { 1, 1 }), lo)
    local flag = k:fragment("f32", { 1, 1 })
    k:when(n:gt(1), function() k:fill(flag, 1) end, function() k:fill(flag, 0) end)
    k:store(p.S:tile({ row, 1 }, { 1, 1 }), flag)
    k:serial(0, n, function(j)
      local x = k:load(p.X:tile({ row, j }, { 1, c.BC }))
      k:when(v.absolute, function()                             -- a Lua boolean: no branch
        k:store(p.Y:tile({ row, j }, { 1, c.BC }), tile.abs(x) - lo)
      end, function()
        k:store(p.Y:tile({ row, j }, { 1, c.BC }), x - lo)
      end)
    end)
  end,
}
