-- attention.lua: FlashAttention-2 forward, O = softmax(scale * Q K^T) V.
--
-- One program per [BM] block of query rows of one (batch, head).  The key
-- and value blocks stream through shared memory in a pipelined loop; for
-- each, S = Q K^T lands in registers (a gemm accumulator), its rows are
-- reduced to a running max and sum (online softmax: the output so far is
-- rescaled when the max grows), and P = exp(S - max), rounded to the input
-- type, is the first operand of the second gemm O += P V, straight from
-- registers where the target allows.  Exponentials are exp2; on sm90a
-- without a softcap, scale times log2(e) is folded into each one's FFMA
-- and the running max is taken over the unscaled logits, which holds for
-- scale > 0 only (the launchers of every target refuse other scales: one
-- contract).  Only the key blocks that hold a visible key are visited, and
-- only those that cut the causal / window boundary or the end of K are
-- masked.  GQA / MQA: query head h reads key/value head h / (Hq / Hkv).
--
-- A query row with no visible key gets O = 0 and LSE = +inf (as
-- FlashAttention-2), so that the backward pass gives it zero gradients.
local tile = require "tile"

local LOG2E = 1.4426950408889634
local LN2 = 0.69314718055994531

return tile.kernel {
  name = "attention",
  doc = "FlashAttention-2 forward: O = softmax(scale * Q K^T, masked) V and LSE, with GQA, causal / window, softcap.",
  variants = {
    dtype = { "f16", "bf16" },
    hdim = { "d32", "d64", "d96", "d128", "d256" },
    softcap = { false, true },
  },
  config = { BM = 128, BN = 64, stages = 2, threads = 256 },
  unsupported = function(v, target)
    if v.hdim == "d256" and target == "gfx1100" then
      return "Q, K and V tiles of 256 columns, with P, need more than gfx1100's 64 KB of LDS"
    end
  end,
  -- d96 runs d128's tiles (128 wide): it takes d128's tuned configs
  tuned_as = { hdim = { d96 = "d128" } },
  -- runtime/tune.lua's search space: query block, block size and key block
  -- width.  The threads hold S (BM x BN) and O (BM x D) in registers, a warp
  -- 16 or 32 rows of them (16: what wgmma takes on sm90a); the configs left
  -- out spill (ptxas, sm_90): at 32 rows a warp, BN = 128 but at D = 32,
  -- BN = 64 at D = 128, and BN = 32 at D = 32 and with a softcap at D = 128.
  tune = {
    space = { threads = { 128, 256 }, BN = { 32, 64, 128 }, BM = { 64, 128 } },
    constraint = function(c)
      local rows = c.BM // (c.threads // 32)
      if rows ~= 32 then return rows == 16 end
      if c.BN == 128 then return c.hdim == "d32" and not c.softcap end
      if c.BN == 64 then return c.hdim ~= "d128" end
      return c.hdim ~= "d32" and not (c.hdim == "d128" and c.softcap)
    end,
    shapes = { { B = 4, Hq = 16, Sq = 4096, Hkv = 16, Sk = 4096 } },
    check_shapes = { { B = 1, Hq = 2, Sq = 67, Hkv = 1, Sk = 67 }, { B = 2, Hq = 2, Sq = 300, Hkv = 2, Sk = 257 } },
    scalars = { scale = 0.125, softcap = 30, window_left = -1, window_right = -1 },
    flops = function(s, v) return 4 * s.B * s.Hq * s.Sq * s.Sk * tonumber(v.hdim:sub(2)) end,
  },
  params = function(v)
    local D = tonumber(v.hdim:sub(2))
    local ps = {
      Q = tile.tensor(v.dtype, { "B", "Hq", "Sq", D }, { "sqb", "sqh", "sqs", 1 }),
      K = tile.tensor(v.dtype, { "B", "Hkv", "Sk", D }, { "skb", "skh", "sks", 1 }),
      V = tile.tensor(v.dtype, { "B", "Hkv", "Sk", D }, { "svb", "svh", "svs", 1 }),
      O = tile.tensor(v.dtype, { "B", "Hq", "Sq", D }, { "sob", "soh", "sos", 1 }),
      LSE = tile.tensor("f32", { "B", "Hq", "Sq", 1 }),   -- [B, Hq, Sq]: one column, so rows store as one
      scale = tile.scalar("f32", { positive = true }),
    }
    if v.softcap then ps.softcap = tile.scalar("f32", { positive = true }) end
    ps.window_left = tile.scalar("i32")
    ps.window_right = tile.scalar("i32")
    return ps
  end,
  body = function(k, p, c, v)
    -- the tiles' width: D, or 128 for D = 96 (gen's tiles are powers of two;
    -- the columns past 96 load as zeros and are not stored)
    local D = tonumber(v.hdim:sub(2))
    D = D == 96 and 128 or D
    -- d256: narrower key blocks (shared memory), and on AMD half the rows: Q, K and V
    -- share 64 KB of LDS (on gfx1100 with P, which goes through LDS to the second gemm)
    local rdna, cdna = k.target == "gfx1100", k.target:match("^gfx9") ~= nil
    local BM = (D >= 256 and (rdna or cdna)) and c.BM // 2 or c.BM
    local BN = (D >= 256 or (rdna and D >= 128)) and c.BN // 2 or c.BN
    -- The order of the programs.  On sm90a, grouped (tile.grouped): the
    -- heads come in groups of about 128 programs (a wave), each group's query
    -- blocks from the last one down, across the group's heads.  Under a
    -- causal mask the last blocks have the most keys, so the long programs
    -- start first and the short ones fill the end; the group's K and V
    -- (128 BM D 4 bytes) stay in L2.  Against one head at a time on an
    -- H100: up to 14% faster from 4K tokens, level at D = 128 full, within
    -- 2% at 1K (bench/results/2026-11-22-h100-attention-order.txt).
    -- Elsewhere one head at a time, the last query block first: on sm80 at
    -- D = 32 the grouped order's indices, live across the loop, spill.
    -- The 256-thread sm90a kernels (d96, d128, d256) run on a persistent
    -- grid, a block taking every gridDim.x-th program (in snake order, gen's
    -- plan): under a mask that shortens the programs along the order (a
    -- right window: causal) a group's mix of long and short programs left
    -- the blocks unequal (H200, 4K and 16K causal: 0.66-0.73x the grid of
    -- one program a block), so there the query blocks go from the last one
    -- down across every head (each round of programs about equally long).
    local nqb = tile.cdiv(p.Sq, BM)
    local bh, pid
    if k.target == "sm90a" then
      local n = tile.max(nqb, 1)   -- = nqb; the generator then knows the indices are not negative
      local prog = k:grid(nqb * p.B * p.Hq)
      bh, pid = tile.grouped(prog, p.B * p.Hq, n, tile.max(1, 128 // n))
      if c.threads == 256 then
        local lpt = p.window_right:ge(0)
        bh, pid = tile.where(lpt, prog % (p.B * p.Hq), bh), tile.where(lpt, prog // (p.B * p.Hq), pid)
      end
    else
      pid, bh = k:grid(nqb, p.B * p.Hq)
    end
    local qb = nqb - 1 - pid
    local b, h = bh // p.Hq, bh % p.Hq
    local hk = h // (p.Hq // p.Hkv)
    k:require((p.Hq % p.Hkv):eq(0), "Hq is a multiple of Hkv (each key/value head serves Hq / Hkv query heads)")
    k:require(tile.both(p.window_left:lt(2^30), p.window_right:lt(2^30)), "windows below 2^30, as sizes")
    local wl, wr = p.window_left, p.window_right
    local q0 = qb * BM
    local diag = p.Sk - p.Sq   -- query i is aligned with key i + diag (bottom-right)
    -- key blocks [first, last) hold every key visible to a query of this block
    local nkb = tile.cdiv(p.Sk, BN)
    local lo_key, hi_key = q0 + diag - wl, q0 + BM - 1 + diag + wr
    local first = tile.where(wl:lt(0), 0, tile.max(lo_key, 0) // BN)
    local last = tile.where(wr:lt(0), nkb, tile.where(hi_key:lt(0), 0, tile.min(nkb, hi_key // BN + 1)))

    local Qs = k:shared(v.dtype, { BM, D })
    local Ks = k:shared(v.dtype, { BN, D })
    local Vs = k:shared(v.dtype, { BN, D })
    k:copy(p.Q:tile({ b, h, qb, 0 }, { 1, 1, BM, D }), Qs)
    local o = k:fragment("f32", { BM, D }, 0)
    local m = k:fragment("f32", { BM, 1 }, -math.huge)   -- running max of s (units: below)
    local l = k:fragment("f32", { BM, 1 }, 0)            -- running sum of exp2(logit - m)
    -- m is kept in the units of s.  On sm90a without a softcap those are the
    -- logits unscaled, and the scale (times log2(e)) goes into each
    -- exponential's FFMA, exp2(s c2 - m c2), which needs scale > 0 (H100,
    -- d128: +1-5%, bench/results/2026-11-23-h100-attention-ab.txt).
    -- Elsewhere s is scaled first, to log2 units: the sm80 code at 255
    -- registers spilled with the fold (sm_80: 16-44 bytes), and a softcap's
    -- multiply comes with its tanh (folded, ptxas spilled at d32 and d128).
    local c2 = not v.softcap and k.target == "sm90a" and p.scale * LOG2E
    local function log2units(x) return c2 and x * c2 or x end
    k:pipelined(first, last, c.stages, function(j)
      k:copy(p.K:tile({ b, hk, j, 0 }, { 1, 1, BN, D }), Ks)
      k:copy(p.V:tile({ b, hk, j, 0 }, { 1, 1, BN, D }), Vs)
      local s = k:fragment("f32", { BM, BN }, 0)
      k:gemm(Qs, Ks, s, { transpose_b = true, warps = { c.threads // k.warp, 1 } })
      -- one step of the online softmax, in place in s; `masked` for blocks that
      -- cut a boundary.  Each query row sees the key columns [lo, hi) of this
      -- block: two bounds per row, so each element is two compares against
      -- numbers in registers (per-element offsets would cost a scalar register
      -- each on AMD).
      local function step(masked)
        if v.softcap then
          k:assign(s, tile.tanh(s * (p.scale / p.softcap)) * (p.softcap * LOG2E))
        elseif not c2 then
          k:assign(s, s * (p.scale * LOG2E))
        end
        if masked then
          local row = k:iota({ BM, 1 }, 1) + (q0 + diag - j * BN)   -- the key aligned with the row, in block columns
          local lo = tile.where(wl:lt(0), 0, row - wl)
          local hi = tile.min(p.Sk - j * BN, tile.where(wr:lt(0), BN, row + wr + 1))
          local col = k:iota({ BM, BN }, 2)
          k:assign(s, tile.where(tile.both(col:ge(lo), col:lt(hi)), s, -math.huge))
        end
        local m_new = tile.max(m, k:reduce_max(s, 2))
        local mc = tile.where(m_new:eq(-math.huge), 0, log2units(m_new))   -- 0: a row with nothing visible yet
        k:assign(s, tile.exp2(log2units(s) - mc))
        local alpha = tile.exp2(log2units(m) - mc)
        k:assign(l, l * alpha + k:reduce_sum(s, 2))
        k:assign(o, o * alpha)
        k:gemm(s:cast(v.dtype), Vs, o)
        k:assign(m, m_new)
      end
      local kend = (j + 1) * BN
      local cuts = tile.either(kend:gt(p.Sk), tile.either(tile.both(wr:ge(0), kend:gt(q0 + diag + wr + 1)),
                                                            tile.both(wl:ge(0), (j * BN):lt(q0 + BM - 1 + diag - wl))))
      k:when(cuts, function() step(true) end, function() step(false) end)
    end)
    local seen = l:gt(0)
    k:store(p.O:tile({ b, h, qb, 0 }, { 1, 1, BM, D }), o * tile.where(seen, 1 / l, 0))
    k:store(p.LSE:tile({ b, h, qb, 0 }, { 1, 1, BM, 1 }), tile.where(seen, m * (c2 and p.scale or LN2) + tile.log(l), math.huge))
  end,
}
