-- attention_varlen_bwd.lua: FlashAttention-2 backward over packed sequences
-- of different lengths (cu_seqlens), the forward's attention_varlen.lua.
--
-- Two passes, as attention_bwd_dq.lua and attention_bwd_dkdv.lua with the
-- sequences' rows read and written through X:rows(start, end) views (every
-- copy and store masks at the sequence's end: no row of another sequence,
-- nor of padding between them, is read into a result or written):
--   dq:   one program per (block of BM query rows, query head); Q and dO
--         stay in shared memory while the sequence's key blocks stream:
--         P = exp(S - LSE), dP = dO V^T, dS = P (dP - Delta), dQ += dS K;
--   dkdv: one program per (block of BN key rows, key/value head); K and V
--         stay while the query blocks of the group's query heads stream:
--         dV += P^T dO, dK += dS^T Q, summed over the group (no atomics).
-- Delta = rowsum(dO * O) comes from attention_bwd_pre (B = 1, Sq = total_q:
-- the packed rows are one sequence to it).  The blocks go on the grid as in
-- the forward: for dq, sequence b's query blocks take the slots from
-- cu_seqlens_q[b] // BM + b on, total_q // BM + B slots a query head; for
-- dkdv its key blocks from cu_seqlens_k[b] // BN + b, total_k // BN + B a
-- key/value head.  A program finds its sequence by a radix-16 search of
-- those cu_seqlens on the device; the slots run from the last down, the
-- heads of a slot together.
-- Causal and windows are bottom-right per sequence; a query row with no
-- visible key (LSE +inf) adds nothing.  cu_seqlens entries are clamped to
-- the tensors and must not decrease (where they do, some rows are not
-- computed; nothing outside the sequences' rows is touched either way).
local tile = require "tile"

local LOG2E = 1.4426950408889634

return tile.kernel {
  name = "attention_varlen_bwd",
  doc = "FlashAttention-2 backward over packed variable-length sequences (cu_seqlens): dQ (pass dq), or dK and dV "
     .. "summed over the GQA group (pass dkdv); causal / window; deterministic.",
  variants = { dtype = { "f16", "bf16" }, hdim = { "d64", "d128" }, pass = { "dq", "dkdv" } },
  -- max_seqs: the search's reach (B <= max_seqs, the launcher checks): 3 rounds
  config = { BM = 64, BN = 64, stages = 2, threads = 128, max_seqs = 4096 },
  -- dkdv at 128 threads spilled: sm80 and sm90a 4-8 bytes (ptxas), CDNA
  -- 28-67 SGPRs (clang-19), the sequence's bounds live beside dK and dV; at
  -- 256 none.  sm90a d128: 64 queries a step (BM 128, halved below), S^T
  -- and dP^T as m64n32 wgmmas instead of m64n16: 12.2 -> 8.4 ms on the H200
  -- (bench/attention_varlen_bwd.sh); 128 keys spilled 24-68 bytes.  3
  -- stages of Q and dO ran full 16.0 -> 15.5 ms (causal level), but the
  -- emulator caught st_sh (P^T, dS^T for their wgmmas) rewritten while
  -- dK's wgmma still read it: 2 stages
  variant_config = function(v, target)
    if v.pass == "dkdv" and target == "sm90a" and v.hdim == "d128" then return { threads = 256, BN = 64, BM = 128 } end
    if v.pass == "dkdv" and (target == "sm80" or target == "sm90a" or target == "gfx90a" or target == "gfx942") then
      return { threads = 256 }
    end
  end,
  params = function(v)
    local D = tonumber(v.hdim:sub(2))
    local dkdv = v.pass == "dkdv"
    local ps = {
      Q = tile.tensor(v.dtype, { "Hq", "TQ", D }, { "sqh", "sqt", 1 }),     -- [total_q, Hq, D]
      K = tile.tensor(v.dtype, { "Hkv", "TK", D }, { "skh", "skt", 1 }),    -- [total_k, Hkv, D]
      V = tile.tensor(v.dtype, { "Hkv", "TK", D }, { "svh", "svt", 1 }),
      dO = tile.tensor(v.dtype, { "Hq", "TQ", D }, { "sdoh", "sdot", 1 }),
      -- [Hq, total_q]: dkdv takes a query block's as a row (queries along its columns)
      LSE = tile.tensor("f32", dkdv and { "Hq", 1, "TQ" } or { "Hq", "TQ", 1 }),
      Delta = tile.tensor("f32", dkdv and { "Hq", 1, "TQ" } or { "Hq", "TQ", 1 }),
      cu_seqlens_q = tile.tensor("i32", { "B1" }),                           -- B1 = B + 1
      cu_seqlens_k = tile.tensor("i32", { "B1" }),
      scale = tile.scalar("f32", { positive = true }),
      window_left = tile.scalar("i32"),
      window_right = tile.scalar("i32"),
    }
    if dkdv then
      ps.dK = tile.tensor(v.dtype, { "Hkv", "TK", D }, { "sdkh", "sdkt", 1 })
      ps.dV = tile.tensor(v.dtype, { "Hkv", "TK", D }, { "sdvh", "sdvt", 1 })
    else
      ps.dQ = tile.tensor(v.dtype, { "Hq", "TQ", D }, { "sdqh", "sdqt", 1 })
    end
    return ps
  end,
  body = function(k, p, c, v)
    local D = tonumber(v.hdim:sub(2))
    local dkdv = v.pass == "dkdv"
    local BM, BN = c.BM, c.BN
    if k.target == "gfx1100" and (D >= 128 or dkdv) then BN = BN // 2 end   -- the 64 KB of LDS, WMMA's registers
    -- dkdv: half the queries a step at d128 (dK, dV, S^T and dP^T in
    -- registers), and on AMD at every width (CDNA at d64 with 64 queries
    -- spilled 2-12 SGPRs, clang-19)
    if dkdv and (D >= 128 or k.target:sub(1, 3) == "gfx") then BM = BM // 2 end
    k:require((p.Hq % p.Hkv):eq(0), "Hq is a multiple of Hkv (each key/value head serves Hq / Hkv query heads)")
    k:require(tile.both(p.window_left:lt(2^30), p.window_right:lt(2^30)), "windows below 2^30, as sizes")
    k:require((p.B1 - 1):le(c.max_seqs), "at most max_seqs sequences (B1 - 1 <= max_seqs: the config's search)")
    local nseq = p.B1 - 1
    -- the slots: of query blocks (dq) or key blocks (dkdv), over the query
    -- heads or the key/value heads
    local CU, T, BS, H = p.cu_seqlens_q, p.TQ, BM, p.Hq
    if dkdv then CU, T, BS, H = p.cu_seqlens_k, p.TK, BN, p.Hkv end
    local slots = T // BS + nseq
    local pid = k:grid(slots * H)
    local h = pid % H
    local slot = slots - 1 - pid // H
    -- start(b): sequence b's first slot, its start clamped to [0, T]
    local function start(cand) return tile.min(tile.max(k:load(CU:at({ cand })), 0), T) // BS + cand end
    -- the last sequence b with start(b) <= slot, by a search of radix 16 (as
    -- attention_varlen.lua's): b moves by step for each of the 15 candidates
    -- of a round at or below the slot
    local b = 0
    local step = 1
    while step * 16 < c.max_seqs do step = step * 16 end
    while step >= 1 do
      local n = 0
      for j = 1, 15 do
        if j * step >= c.max_seqs then break end
        local cand = tile.min(b + j * step, nseq)
        n = n + tile.both(cand:lt(nseq), start(cand):le(slot)):cast("i32")
      end
      b = b + n * step
      step = step // 16
    end
    -- the sequence's rows [q_lo, q_lo + Sq) of Q and [k_lo, k_lo + Sk) of K
    local q_lo = tile.min(tile.max(k:load(p.cu_seqlens_q:at({ b })), 0), p.TQ)
    local q_hi = tile.min(tile.max(k:load(p.cu_seqlens_q:at({ b + 1 })), q_lo), p.TQ)
    local k_lo = tile.min(tile.max(k:load(p.cu_seqlens_k:at({ b })), 0), p.TK)
    local k_hi = tile.min(tile.max(k:load(p.cu_seqlens_k:at({ b + 1 })), k_lo), p.TK)
    local Sq, Sk = q_hi - q_lo, k_hi - k_lo
    local diag = Sk - Sq   -- query i is aligned with key i + diag (bottom-right)
    local wl, wr = p.window_left, p.window_right
    local Qb, dOb = p.Q:rows(q_lo, q_hi), p.dO:rows(q_lo, q_hi)
    local Kb, Vb = p.K:rows(k_lo, k_hi), p.V:rows(k_lo, k_hi)
    -- this slot's block of its sequence; a block of no rows (the slot a
    -- sequence leaves unused, or one before the first sequence's) runs no loop
    local lo = dkdv and k_lo or q_lo
    local blk = slot - (lo // BS + b)
    local S = dkdv and Sk or Sq
    local used = tile.both(blk:ge(0), (blk * BS):lt(S))

    if not dkdv then
      local q0 = blk * BM
      local nkb = tile.cdiv(Sk, BN)
      local lo_key, hi_key = q0 + diag - wl, q0 + BM - 1 + diag + wr
      local first = tile.where(wl:lt(0), 0, tile.min(nkb, tile.max(lo_key, 0) // BN))
      local last = tile.where(wr:lt(0), nkb, tile.where(hi_key:lt(0), 0, tile.min(nkb, hi_key // BN + 1)))
      last = tile.max(first, last)
      local hk = h // (p.Hq // p.Hkv)
      local Qs = k:shared(v.dtype, { BM, D })
      local dOs = k:shared(v.dtype, { BM, D })
      local Ks = k:shared(v.dtype, { BN, D })
      local Vs = k:shared(v.dtype, { BN, D })
      local dq = k:fragment("f32", { BM, D }, 0)
      k:when(used, function()
        k:copy(Qb:tile({ h, blk, 0 }, { 1, BM, D }), Qs)
        k:copy(dOb:tile({ h, blk, 0 }, { 1, BM, D }), dOs)
        -- LSE in log2 units; +inf (a row with no visible key) makes P = 0;
        -- the rows past the sequence's end load as 0 and are not stored
        local lse2 = k:load(p.LSE:rows(q_lo, q_hi):tile({ h, blk, 0 }, { 1, BM, 1 })) * LOG2E
        local delta = k:load(p.Delta:rows(q_lo, q_hi):tile({ h, blk, 0 }, { 1, BM, 1 }))
        k:pipelined(first, last, c.stages, function(j)
          k:copy(Kb:tile({ hk, j, 0 }, { 1, BN, D }), Ks)
          k:copy(Vb:tile({ hk, j, 0 }, { 1, BN, D }), Vs)
          local s = k:fragment("f32", { BM, BN }, 0)
          k:gemm(Qs, Ks, s, { transpose_b = true, warps = { c.threads // k.warp, 1 } })
          local dp = k:fragment("f32", { BM, BN }, 0)
          k:gemm(dOs, Vs, dp, { transpose_b = true })
          local function step(masked)
            k:assign(s, s * (p.scale * LOG2E))
            if masked then
              -- the key columns [lo, hi) of this block that the row sees (as the forward)
              local row = k:iota({ BM, 1 }, 1) + (q0 + diag - j * BN)
              local klo = tile.where(wl:lt(0), 0, row - wl)
              local khi = tile.min(Sk - j * BN, tile.where(wr:lt(0), BN, row + wr + 1))
              local col = k:iota({ BM, BN }, 2)
              k:assign(s, tile.where(tile.both(col:ge(klo), col:lt(khi)), s, -math.huge))
            end
            k:assign(s, tile.exp2(s - lse2))   -- P
            k:gemm((s * (dp - delta)):cast(v.dtype), Ks, dq)
          end
          local kend = (j + 1) * BN
          local cuts = tile.either(kend:gt(Sk), tile.either(tile.both(wr:ge(0), kend:gt(q0 + diag + wr + 1)),
                                                             tile.both(wl:ge(0), (j * BN):lt(q0 + BM - 1 + diag - wl))))
          k:when(cuts, function() step(true) end, function() step(false) end)
        end)
      end)
      k:store(p.dQ:rows(q_lo, q_hi):tile({ h, blk, 0 }, { 1, BM, D }), dq * p.scale)
      return
    end

    -- WN warps across the columns where the key rows would leave a warp
    -- under 16 of them (gfx1100's halved block: P^T and dS^T then reach
    -- their gemms through shared memory)
    local WN = 1
    while BN // (c.threads // k.warp // WN) < 16 do WN = WN * 2 end
    local k0 = blk * BN
    local hk = h
    local group = p.Hq // p.Hkv
    -- query blocks [first, last) hold every query that sees a key of this block
    local nqb = tile.cdiv(Sq, BM)
    local lo_q, hi_q = k0 - diag - wr, k0 + BN - 1 - diag + wl
    local first = tile.where(wr:lt(0), 0, tile.min(nqb, tile.max(lo_q, 0) // BM))
    local last = tile.where(wl:lt(0), nqb, tile.where(hi_q:lt(0), 0, tile.min(nqb, hi_q // BM + 1)))
    last = tile.max(first, last)
    local Ks = k:shared(v.dtype, { BN, D })
    local Vs = k:shared(v.dtype, { BN, D })
    local Qs = k:shared(v.dtype, { BM, D })
    local dOs = k:shared(v.dtype, { BM, D })
    local dk = k:fragment("f32", { BN, D }, 0)
    local dv = k:fragment("f32", { BN, D }, 0)
    k:when(used, function()
      k:copy(Kb:tile({ hk, blk, 0 }, { 1, BN, D }), Ks)
      k:copy(Vb:tile({ hk, blk, 0 }, { 1, BN, D }), Vs)
      k:serial(0, group, function(g)
        local hq = hk * group + g
        k:pipelined(first, last, c.stages, function(j)
          k:copy(Qb:tile({ hq, j, 0 }, { 1, BM, D }), Qs)
          k:copy(dOb:tile({ hq, j, 0 }, { 1, BM, D }), dOs)
          -- the block's LSE and Delta as rows, loaded into registers (not
          -- copied through the ring: the block starts at any row of the
          -- packed tensor, not on a 16-byte boundary), before the gemms so
          -- that the loads' latency passes under them; a column past the
          -- sequence's end takes LSE +inf and Delta 0, so its P^T and dS^T
          -- are 0 whatever that memory holds
          local inside = { mask = k:iota({ 1, BM }, 2):lt(Sq - j * BM) }
          local lse = k:load(p.LSE:view({ hq, 0, q_lo + j * BM }, { 1, 1, BM }), math.huge, inside)
          local delta = k:load(p.Delta:view({ hq, 0, q_lo + j * BM }, { 1, 1, BM }), 0, inside)
          local st = k:fragment("f32", { BN, BM }, 0)
          k:gemm(Ks, Qs, st, { transpose_b = true, warps = { c.threads // k.warp // WN, WN } })
          local dpt = k:fragment("f32", { BN, BM }, 0)
          k:gemm(Vs, dOs, dpt, { transpose_b = true })
          local function step(masked)
            k:assign(st, st * (p.scale * LOG2E))
            if masked then
              -- the query columns [lo, hi) of this block that see the key row
              -- (none for a key past the sequence's end)
              local key = k:iota({ BN, 1 }, 1)
              local row = key + (k0 - j * BM - diag)   -- the query aligned with the key, in block columns
              local qlo = tile.where(wr:lt(0), 0, row - wr)
              local qhi = tile.where(key:lt(Sk - k0), tile.min(Sq - j * BM, tile.where(wl:lt(0), BM, row + wl + 1)), 0)
              local col = k:iota({ BN, BM }, 2)
              k:assign(st, tile.where(tile.both(col:ge(qlo), col:lt(qhi)), st, -math.huge))
            end
            k:assign(st, tile.exp2(st - lse * LOG2E))   -- P^T
            k:gemm(st:cast(v.dtype), dOs, dv)
            k:gemm((st * (dpt - delta)):cast(v.dtype), Qs, dk)
          end
          local qend = (j + 1) * BM
          local cuts = tile.either(tile.either(qend:gt(Sq), (k0 + BN):gt(Sk)),
                                   tile.either(tile.both(wr:ge(0), (k0 + BN - 1):gt(j * BM + diag + wr)),
                                               tile.both(wl:ge(0), k0:lt(qend - 1 + diag - wl))))
          k:when(cuts, function() step(true) end, function() step(false) end)
        end)
      end)
    end)
    k:store(p.dK:rows(k_lo, k_hi):tile({ hk, blk, 0 }, { 1, BN, D }), dk * p.scale)
    k:store(p.dV:rows(k_lo, k_hi):tile({ hk, blk, 0 }, { 1, BN, D }), dv)
  end,
}
