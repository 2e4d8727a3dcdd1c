-- grouped_matmul.lua: Y[rows of group g] = X[rows of group g] @ W[g] for G
-- groups of rows (a mixture of experts' tokens, sorted by expert), in one
-- launch.
--
-- X [T, K] holds the rows of all groups one after another; group g's are
-- rows offs[g] .. offs[g + 1] - 1 (offs: G + 1 int32 in a device tensor,
-- non-decreasing from offs[0] >= 0 to offs[G] <= T; a group may be empty).
-- Rows of Y outside every group (before offs[0], from offs[G] on: a buffer
-- padded to a capacity) are not written.  Offsets that break these rules
-- give wrong rows, never an access outside X, W or Y (every view is masked).  W is
-- [G, K, N] (layout kn) or [G, N, K] (layout nk, each group's weight
-- transposed, as nn.Linear stores it).  Y [T, N].
--
-- Programs: the grid's M axis has one slot per [BM]-row tile a group can
-- need, found on the device without a pass of its own: group g's tiles take
-- the slots from start(g) = offs[g] // BM + g on, cdiv(rows of g, BM) of
-- them, and start(g + 1) - start(g) >= that, so the slots never overlap and
-- T // BM + G of them cover every group.  A program finds its group by a
-- search of start over the groups (scalar loads of offs, 15 at a time),
-- runs its K loop (none for a slot no group uses) and stores only
-- the rows of its group, through Y:rows(lo, hi): rows of the next group
-- that the tile's last rows read from X are computed and dropped, never
-- stored.
local tile = require "tile"

return tile.kernel {
  name = "grouped_matmul",
  doc = "Y[offs[g]:offs[g+1]] = X[offs[g]:offs[g+1]] @ W[g] for groups g < G (tokens sorted by expert); "
     .. "offs: G + 1 int32 on the device, non-decreasing within [0, T]; rows outside [offs[0], offs[G]) "
     .. "are not written; f32 accumulation.",
  variants = { dtype = { "f16", "bf16" }, layout = { "kn", "nk" } },
  -- max_groups: the binary search's reach (G <= max_groups, the launcher checks)
  config = { BM = 128, BN = 256, BK = 64, stages = 3, threads = 256, group_m = 8, max_groups = 1024 },
  -- sm80: 128 x 256 with the group search's values live spilled 12 bytes (ptxas)
  target_config = { sm80 = { BN = 128 } },
  params = function(v)
    return {
      X = tile.tensor(v.dtype, { "T", "K" }),
      W = tile.tensor(v.dtype, v.layout == "kn" and { "G", "K", "N" } or { "G", "N", "K" }),
      offs = tile.tensor("i32", { "G1" }),
      Y = tile.tensor(v.dtype, { "T", "N" }),
    }
  end,
  body = function(k, p, c, v)
    local nk = v.layout == "nk"
    local BM, BK = c.BM, c.BK
    local BN = k.target == "gfx1100" and c.BN // 2 or c.BN
    if k.target == "gfx90a" or k.target == "gfx942" then BK = BK // 2 end   -- the LDS double buffer in 64 KB
    k:require(p.G1:eq(p.G + 1), "offs has G + 1 entries")
    k:require(p.G:le(c.max_groups), "at most max_groups groups (the config's binary search)")
    local slots, ntn = p.T // BM + p.G, tile.cdiv(p.N, BN)
    local slot, bn = tile.grouped(k:grid(slots * ntn), slots, ntn, c.group_m)
    -- the last group g with start(g) <= slot (start rises with g), by a
    -- search of radix 16: each round loads the starts of 15 candidates at
    -- once (independent loads, one memory latency a round), clamped to G,
    -- which never qualifies; 3 rounds for 1024 groups
    local g = 0
    local step = 1
    while step * 16 < c.max_groups do step = step * 16 end
    while step >= 1 do
      local pick = g
      for j = 1, 15 do
        if j * step >= c.max_groups then break end
        local h = tile.min(g + j * step, p.G)
        local start = k:load(p.offs:at({ h })) // BM + h
        pick = tile.max(pick, tile.where(tile.both(h:lt(p.G), start:le(slot)), h, g))
      end
      g = pick
      step = step // 16
    end
    local lo = k:load(p.offs:at({ g }))
    local hi = k:load(p.offs:at({ g + 1 }))
    local off = (slot - (lo // BM + g)) * BM   -- this tile's first row in the group
    local m0 = lo + off   -- ... and in X
    local used = tile.both(m0:ge(lo), m0:lt(hi))   -- a slot of this group's (else: before the first group, or past g's tiles)
    local kts = tile.where(used, tile.cdiv(p.K, BK), 0)   -- no K loop for an unused slot
    -- m0 as a row offset known to be >= 0 (it is, where the loop runs): with
    -- m0 itself, ptxas serialized the wgmmas of sm90a's cp.async kernel
    local r0 = tile.max(m0, 0)
    local As = k:shared(v.dtype, { BM, BK })
    local Bs = k:shared(v.dtype, nk and { BN, BK } or { BK, BN })
    local acc = k:fragment("f32", { BM, BN }, 0)
    local function mainloop(hi)
      k:pipelined(0, hi, c.stages, function(kt)
        k:copy(p.X:view({ r0, kt * BK }, { BM, BK }), As)
        k:copy(nk and p.W:tile({ g, bn, kt }, { 1, BN, BK }) or p.W:tile({ g, kt, bn }, { 1, BK, BN }), Bs)
        k:gemm(As, Bs, acc, { transpose_b = nk })
      end)
    end
    -- sm90a: the loop at the top of the body, so that it runs warp-specialized
    -- (an unused slot runs it zero times); elsewhere under a branch, as the
    -- mma.sync pipeline reads its first stage before the loop's test
    if k.target == "sm90a" then mainloop(kts) else k:when(used, function() mainloop(tile.cdiv(p.K, BK)) end) end
    -- only the rows of group g (an unused slot's tile has none of them):
    -- whole tiles of them go out by TMA stores on sm90a
    k:store(p.Y:rows(lo, hi):view({ off, bn * BN }, { BM, BN }), acc)
  end,
}
