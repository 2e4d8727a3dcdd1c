-- attention_varlen.lua: FlashAttention-2 forward over packed sequences of
-- different lengths (variable-length prefill).
--
-- B sequences lie one after another in Q [total_q, Hq, D] and K, V
-- [total_k, Hkv, D]: sequence b's queries are the rows cu_seqlens_q[b] ..
-- cu_seqlens_q[b + 1] - 1, its keys cu_seqlens_k[b] .. cu_seqlens_k[b + 1]
-- - 1 (int32, B + 1 entries each).  One program per (slot, query head):
-- sequence b's blocks of BM query rows take the slots from start(b) =
-- cu_seqlens_q[b] // BM + b on, cdiv(its rows, BM) of them, and start(b +
-- 1) - start(b) >= that, so total_q // BM + B slots cover every block of
-- every sequence (grouped_matmul.lua's groups).  A program finds its
-- sequence by a search of start over the sequences (scalar loads of
-- cu_seqlens_q, 15 at a time, no pass of its own and no host sync); the
-- slots run from the last one down, the last sequence's last block first,
-- all query heads of a slot together.
-- The few slots no block uses (at most one a sequence) copy nothing and
-- store nothing.  The sequence's rows are views of X:rows(start, end):
-- every copy and store masks at the sequence's end, so rows of other
-- sequences (or padding between them) are never read or written.  The
-- body is attention.lua's (online softmax, GQA, windows, causal
-- bottom-right per sequence, LSE) with the lengths read from memory.
--
-- On sm90a at d128 (the config's `tma = true`) the body runs on the dense
-- forward's warp-specialized TMA ring (a producer warpgroup, O += P V one
-- iteration late, scale folded into the exponentials), one program a
-- block: its copies of X:rows views go through tensor maps that zero-fill
-- from the sequence's end on (docs/dsl.md, "Views"), and a slot with no
-- block of rows runs no key block (its Q copy reads zeros, its stores
-- write nothing).  H200, on the mix 12, 37, 1000, 4096, 8191: 0.84x the
-- dense kernel causal and 0.93x full (the cp.async ring 0.84x and 0.85x),
-- on one sequence 0.94-1.00x (the ring 0.84-0.86x; docs/performance.md).
-- Elsewhere (and with -D tma=false) the key blocks go through the
-- cp.async ring, the two warpgroups taking turns at S = Q K^T on sm90a.
--
-- A sequence's start is clamped to [0, total] and its end to [start,
-- total]; its queries past max_seqlen_q are not computed (their O and LSE
-- rows are left as they were) and its keys past max_seqlen_k are not seen,
-- while the causal / window alignment stays that of the whole lengths.  O
-- and LSE rows of no sequence are left as they were; a query row with no
-- visible key gets O = 0 and LSE = +inf, as attention.lua.  cu_seqlens_q
-- must not decrease (the search assumes it): where it does, some rows are
-- not computed, and still nothing outside the sequences' rows is touched.
local tile = require "tile"

local LOG2E = 1.4426950408889634
local LN2 = 0.69314718055994531

return tile.kernel {
  name = "attention_varlen",
  doc = "FlashAttention-2 forward over packed variable-length sequences (cu_seqlens): O and LSE, with GQA, causal / "
     .. "window.",
  variants = {
    dtype = { "f16", "bf16" },
    hdim = { "d64", "d128" },
  },
  -- max_seqs: the search's reach (B <= max_seqs, the launcher checks): 3 rounds
  -- tma: the warp-specialized TMA build on sm90a (above); dynamic: its grid (below)
  config = { BM = 128, BN = 64, stages = 2, threads = 256, max_seqs = 4096, tma = false, dynamic = false },
  -- the dense forward's tuned tiles on the same head dims (dsl/tuned/attention.lua), but
  -- for sm80 at d128: its 128 threads (BN 32) spilled here (ptxas, sm_80: 28 bytes), with
  -- the sequence's bounds live across the loop; 256 threads and BN 64 do not.  The TMA
  -- build where it wins, sm90a d128 (f16 d64 on the mix: 0.51-0.56x dense, the ring 0.76-0.78x)
  variant_config = function(v, target)
    if target == "sm90a" and v.hdim == "d128" then return { BN = 128, stages = 3, tma = true } end
    if target == "sm80" and v.hdim == "d64" then return { threads = 128 } end
  end,
  params = function(v)
    local D = tonumber(v.hdim:sub(2))
    local ps = {
      Q = tile.tensor(v.dtype, { "Hq", "TQ", D }, { "sqh", "sqt", 1 }),     -- [total_q, Hq, D]
      K = tile.tensor(v.dtype, { "Hkv", "TK", D }, { "skh", "skt", 1 }),    -- [total_k, Hkv, D]
      V = tile.tensor(v.dtype, { "Hkv", "TK", D }, { "svh", "svt", 1 }),
      O = tile.tensor(v.dtype, { "Hq", "TQ", D }, { "soh", "sot", 1 }),     -- [total_q, Hq, D]
      LSE = tile.tensor("f32", { "Hq", "TQ", 1 }),                           -- [Hq, total_q]
      cu_seqlens_q = tile.tensor("i32", { "B1" }),                           -- B1 = B + 1
      cu_seqlens_k = tile.tensor("i32", { "B1" }),
      max_seqlen_q = tile.scalar("i32"),
      max_seqlen_k = tile.scalar("i32"),
      scale = tile.scalar("f32", { positive = true }),
      window_left = tile.scalar("i32"),
      window_right = tile.scalar("i32"),
    }
    return ps
  end,
  body = function(k, p, c, v)
    local D = tonumber(v.hdim:sub(2))
    local rdna = k.target == "gfx1100"
    local BM, BN = c.BM, (rdna and D >= 128) and c.BN // 2 or c.BN
    k:require(tile.both(p.max_seqlen_q:ge(1), p.max_seqlen_q:lt(2^30)), "max_seqlen_q in [1, 2^30)")
    k:require(tile.both(p.max_seqlen_k:ge(0), p.max_seqlen_k:lt(2^30)), "max_seqlen_k in [0, 2^30)")
    k:require((p.Hq % p.Hkv):eq(0), "Hq is a multiple of Hkv (each key/value head serves Hq / Hkv query heads)")
    k:require(tile.both(p.window_left:lt(2^30), p.window_right:lt(2^30)), "windows below 2^30, as sizes")
    k:require((p.B1 - 1):le(c.max_seqs), "at most max_seqs sequences (B1 - 1 <= max_seqs: the config's search)")
    local nseq = p.B1 - 1
    local slots = p.TQ // BM + nseq
    -- the query heads of one slot next to each other, the last slot first:
    -- under a causal mask a sequence's last block has the most keys, so the
    -- longest programs start first and the short ones fill the last wave
    -- One program a block, not the TMA build's persistent grid: the
    -- programs' lengths differ by sequence (a 12-row sequence's block has
    -- one key block, an 8191-row one's last block 64), which blocks walking
    -- the grid statically share out unevenly (H200, the mix: causal 1645
    -- against 1512 us); the hardware hands the blocks out in this order as
    -- SMs free up.  -D dynamic=true: the persistent grid, its blocks taking
    -- the programs in this order from a counter as they free up (k:grid's
    -- dynamic; H200, the mix: 1524 against 1463 us causal, 2705 against
    -- 2579 full, docs/performance.md)
    local pid = k:grid(slots * p.Hq, c.dynamic and { dynamic = true } or { persistent = false })
    local h = pid % p.Hq
    local slot = slots - 1 - pid // p.Hq
    local hk = h // (p.Hq // p.Hkv)
    -- start(b): sequence b's first slot, its start clamped to [0, TQ]
    local function start(cand) return tile.min(tile.max(k:load(p.cu_seqlens_q:at({ cand })), 0), p.TQ) // BM + cand end
    -- the last sequence b with start(b) <= slot (start rises with b), by a
    -- search of radix 16: each round loads the starts of 15 candidates at
    -- once (independent loads, one memory latency a round), clamped to B,
    -- which never qualifies, and moves b by step for each that does (a
    -- count, not a max of selects: with the selects ptxas spilled 120 bytes
    -- on sm90a at d128, the main loop's registers at 247 of 255).  With
    -- dynamic, to B + 1, past cu_seqlens_q, so not loaded: the persistent
    -- build's producer (40 registers) issued its loads one at a time, and
    -- the rounds above the sequences now load nothing (H200, the mix:
    -- 1611 -> 1562 us causal)
    local b = 0
    local step = 1
    while step * 16 < c.max_seqs do step = step * 16 end
    while step >= 1 do
      local n = 0
      for j = 1, 15 do
        if j * step >= c.max_seqs then break end
        local cand = tile.min(b + j * step, c.dynamic and p.B1 or nseq)
        n = n + tile.both(cand:lt(nseq), start(cand):le(slot)):cast("i32")
      end
      b = b + n * step
      step = step // 16
    end
    -- the sequence's rows [q_lo, q_lo + Sq) of Q and [k_lo, k_lo + Sk) of K,
    -- clamped to the tensors and to max_seqlen
    local q_lo = tile.min(tile.max(k:load(p.cu_seqlens_q:at({ b })), 0), p.TQ)
    local q_hi = tile.min(tile.max(k:load(p.cu_seqlens_q:at({ b + 1 })), q_lo), p.TQ)
    local k_lo = tile.min(tile.max(k:load(p.cu_seqlens_k:at({ b })), 0), p.TK)
    local k_hi = tile.min(tile.max(k:load(p.cu_seqlens_k:at({ b + 1 })), k_lo), p.TK)
    local Sq, Sk = tile.min(q_hi - q_lo, p.max_seqlen_q), tile.min(k_hi - k_lo, p.max_seqlen_k)
    local diag = (k_hi - k_lo) - (q_hi - q_lo)   -- query i is aligned with key i + diag (bottom-right)
    -- this slot's block of the sequence starts at its row q0: Sq or more
    -- (no rows) for the slot a sequence leaves unused and for a slot before
    -- the first sequence's (cu_seqlens_q[0] > 0)
    local qb = slot - (q_lo // BM + b)
    local q0 = tile.where(qb:lt(0), Sq, qb * BM)
    -- (TMA: rows known not negative, below)
    if c.tma then q0 = tile.max(q0, 0) end
    -- the block's rows of Q, O and LSE, [q_lo + q0, q_lo + Sq) (at most
    -- BM of them), and the sequence's keys; rd: the key aligned with the
    -- block's first row
    local m0, q_end, rd = q_lo + q0, q_lo + Sq, q0 + diag
    local Qb, Ob, LSEb = p.Q:rows(m0, q_end), p.O:rows(m0, q_end), p.LSE:rows(m0, q_end)
    local Kb, Vb = p.K:rows(k_lo, k_lo + Sk), p.V:rows(k_lo, k_lo + Sk)
    local wl, wr = p.window_left, p.window_right
    -- key blocks [first, last) hold every key visible to a query of this
    -- block; none for a block past the sequence's end
    local nkb = tile.cdiv(Sk, BN)
    local lo_key, hi_key = rd - wl, rd + BM - 1 + wr
    local first = tile.where(wl:lt(0), 0, tile.min(nkb, tile.max(lo_key, 0) // BN))
    if c.tma then first = tile.max(first, 0) end
    local last = tile.where(wr:lt(0), nkb, tile.where(hi_key:lt(0), 0, tile.min(nkb, hi_key // BN + 1)))
    last = tile.max(first, last)
    -- TMA: the loop at the top of the body (the warp-specialized ring's
    -- rule), so a slot with no block of rows (q0 >= Sq) visits no key
    -- block, its Q copy reading zeros (no row of its view is inside)
    if c.tma then last = tile.where(q0:lt(Sq), last, first) end

    local Qs = k:shared(v.dtype, { BM, D })
    local Ks = k:shared(v.dtype, { BN, D })
    local Vs = k:shared(v.dtype, { BN, D })
    local o = k:fragment("f32", { BM, D }, 0)
    local m = k:fragment("f32", { BM, 1 }, -math.huge)   -- running max of s (units: below)
    local l = k:fragment("f32", { BM, 1 }, 0)            -- running sum of exp2(logit - m)
    -- m in the units of s, as attention.lua: on sm90a the logits unscaled,
    -- scale times log2(e) going into each exponential's FFMA (scale > 0);
    -- elsewhere s is scaled to log2 units first
    local c2 = c.tma and k.target == "sm90a" and p.scale * LOG2E
    local function log2units(x) return c2 and x * c2 or x end
    local function blocks()
      k:copy(Qb:tile({ h, 0, 0 }, { 1, BM, D }), Qs)
      k:pipelined(first, last, c.stages, function(j)
        k:copy(Kb:tile({ hk, j, 0 }, { 1, BN, D }), Ks)
        k:copy(Vb:tile({ hk, j, 0 }, { 1, BN, D }), Vs)
        local s = k:fragment("f32", { BM, BN }, 0)
        k:gemm(Qs, Ks, s, { transpose_b = true, warps = { c.threads // k.warp, 1 } })
        -- one step of the online softmax, in place in s; `masked` for blocks
        -- that cut the causal / window boundary or the sequence's end: query
        -- row sees the key columns [lo, hi) of this block
        local function step(masked)
          if not c2 then k:assign(s, s * (p.scale * LOG2E)) end
          if masked then
            local row = k:iota({ BM, 1 }, 1) + (rd - j * BN)   -- the key aligned with the row, in block columns
            local lo = tile.where(wl:lt(0), 0, row - wl)
            local hi = tile.min(Sk - j * BN, tile.where(wr:lt(0), BN, row + wr + 1))
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
        local cuts = tile.either(kend:gt(Sk), tile.either(tile.both(wr:ge(0), kend:gt(rd + wr + 1)),
                                                           tile.both(wl:ge(0), (j * BN):lt(rd + BM - 1 - wl))))
        k:when(cuts, function() step(true) end, function() step(false) end)
      end)
    end
    -- the ring: a slot with no block of rows copies nothing and stores nothing
    if c.tma then blocks() else k:when(q0:lt(Sq), blocks) end
    local seen = l:gt(0)
    k:store(Ob:tile({ h, 0, 0 }, { 1, BM, D }), o * tile.where(seen, 1 / l, 0))
    k:store(LSEb:tile({ h, 0, 0 }, { 1, BM, 1 }), tile.where(seen, m * (c2 and p.scale or LN2) + tile.log(l), math.huge))
  end,
}
