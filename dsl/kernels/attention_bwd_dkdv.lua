-- attention_bwd_dkdv.lua: FlashAttention-2 backward, dK and dV.
--
-- One program per [BN] block of keys of one (batch, key/value head); K and
-- V stay in shared memory while the query heads of the group (GQA) and
-- their query blocks stream through a pipelined loop.  The program works
-- on the transposed scores, keys down the rows: S^T = K Q^T, P^T =
-- exp(S^T - LSE) with LSE along the columns, dV += P^T dO, dP^T = V dO^T,
-- dS^T = P^T * (dP^T - Delta), dK += dS^T Q.  Both register tiles P^T and
-- dS^T are the first operand of their gemm, from registers where the
-- target allows.  Each program owns its rows of dK and dV and sums the
-- group's heads itself: no atomics, a deterministic result.  Only the
-- query blocks that see one of the keys are visited, and only those that
-- cut the causal / window boundary or the end of Q or K are masked.
local tile = require "tile"

local LOG2E = 1.4426950408889634

return tile.kernel {
  name = "attention_bwd_dkdv",
  doc = "FlashAttention-2 backward, dK = scale * dS^T Q and dV = P^T dO, summed over the GQA group; deterministic.",
  variants = { dtype = { "f16", "bf16" }, hdim = { "d32", "d64", "d96", "d128", "d256" }, softcap = { false, true },
               dq_atomic = { false, true } },
  config = { BM = 64, BN = 64, WN = 1, stages = 2, threads = 128 },
  -- d96 runs d128's tiles (128 wide): it takes d128's tuned configs
  tuned_as = { hdim = { d96 = "d128" } },
  -- CDNA: 4 waves a block.  With 2, gfx90a's bf16 d128 softcap dq_atomic
  -- kept one SGPR in a VGPR lane (gfx90a has fewer SGPRs than gfx942);
  -- at 256 threads every CDNA variant compiles without spills (clang-19;
  -- at d96, once the copies tested a chunk's columns once: gen/lower/copy.c).
  target_config = { gfx90a = { threads = 256 }, gfx942 = { threads = 256 } },
  unsupported = function(v, target)
    if v.hdim ~= "d256" or target == "c" then return nil end
    if target:match("^gfx") then return "the d256 backward needs more than the 64 KB of LDS a block gets on " .. target .. " (Q, dO, K and V tiles of 256 columns)" end
    if v.dq_atomic then return "dK, dV and dQ of a 256-wide key block do not fit in registers (sm80: 184 bytes of spills at the best config); take dQ from attention_bwd_dq (dq_atomic = false)" end
  end,
  -- d256: 8 warps, each 16 key rows and half the columns of dK and dV; 64 queries a step
  -- (32 after the halving below), in one stage on sm80 (shared memory); on sm90a 128 (64),
  -- two stages, warp-specialized (ws, below)
  variant_config = function(v, target)
    if v.hdim == "d256" then return { threads = 256, WN = 2, BN = 64, BM = target == "sm90a" and 128 or 64, stages = target == "sm80" and 1 or 2 } end
    -- d96 on sm90a: d128's 256 threads and 128 keys (warp-specialized) spilled
    -- 8 bytes in the cp.async twin (f16), so its own 128 threads and 64 keys
    if v.hdim == "d96" and target == "sm90a" and not v.softcap and not v.dq_atomic then return { threads = 128, BN = 64 } end
    -- dQ by atomics at d96 / d128 on sm90a: two warpgroups of 64 keys each
    -- (the body's dSs); 32 queries a step, as at 64 both the warp-specialized
    -- kernel and its cp.async twin spilled (nvcc 13: 20-80 bytes)
    if (v.hdim == "d96" or v.hdim == "d128") and target == "sm90a" and v.dq_atomic and not v.softcap then
      return { threads = 256, WN = 1, BN = 128, BM = 32, stages = 2 }
    end
  end,
  -- runtime/tune.lua's search space.  The warps form a (threads / 32 / WN)
  -- x WN grid; each warp owns 16 or 32 key rows of dK and dV; BM queries a
  -- step (half that at D = 128; BN with dq_atomic).  The tuner leaves out the
  -- configs that spill.
  tune = {
    space = { threads = { 128, 256 }, BN = { 32, 64, 128 }, BM = { 32, 64, 128 }, WN = { 1, 2 } },
    constraint = function(c) return c.BN // (c.threads // 32 // c.WN) >= 16 end,
    shapes = { { B = 4, Hq = 16, Sq = 4096, Hkv = 16, Sk = 4096 } },
    check_shapes = { { B = 1, Hq = 2, Sq = 67, Hkv = 1, Sk = 67 }, { B = 2, Hq = 2, Sq = 300, Hkv = 2, Sk = 257 } },
    scalars = { scale = 0.125, softcap = 30, window_left = -1, window_right = -1 },
    flops = function(s, v) return 8 * s.B * s.Hq * s.Sq * s.Sk * tonumber(v.hdim:sub(2)) end,
  },
  params = function(v)
    local D = tonumber(v.hdim:sub(2))
    local ps = {
      Q = tile.tensor(v.dtype, { "B", "Hq", "Sq", D }, { "sqb", "sqh", "sqs", 1 }),
      K = tile.tensor(v.dtype, { "B", "Hkv", "Sk", D }, { "skb", "skh", "sks", 1 }),
      V = tile.tensor(v.dtype, { "B", "Hkv", "Sk", D }, { "svb", "svh", "svs", 1 }),
      dO = tile.tensor(v.dtype, { "B", "Hq", "Sq", D }, { "sdob", "sdoh", "sdos", 1 }),
      LSE = tile.tensor("f32", { "B", "Hq", 1, "Sq" }),     -- [B, Hq, Sq], as one row: queries run along columns
      Delta = tile.tensor("f32", { "B", "Hq", 1, "Sq" }),
      dK = tile.tensor(v.dtype, { "B", "Hkv", "Sk", D }, { "sdkb", "sdkh", "sdks", 1 }),
      dV = tile.tensor(v.dtype, { "B", "Hkv", "Sk", D }, { "sdvb", "sdvh", "sdvs", 1 }),
      scale = tile.scalar("f32"),
    }
    if v.softcap then ps.softcap = tile.scalar("f32") end
    -- dQacc's rows are as wide as the tiles (128 at d96; FlashAttention-2 rounds
    -- its dq_accum's head dim up too): its atomic adds need no column mask
    if v.dq_atomic then ps.dQacc = tile.tensor("f32", { "B", "Hq", "Sq", D == 96 and 128 or D }) end
    ps.window_left = tile.scalar("i32")
    ps.window_right = tile.scalar("i32")
    return ps
  end,
  body = function(k, p, c, v)
    -- the tiles' width: D, or 128 for D = 96 (gen's tiles are powers of two;
    -- the columns past 96 load as zeros and are not stored)
    local D = tonumber(v.hdim:sub(2))
    D = D == 96 and 128 or D
    local BN = c.BN
    -- Half the keys where the full block does not fit:
    --  - dq_atomic on AMD: at D = 128 so that K, V, Q and dO fit in the 64 KB
    --    of LDS; at D = 32 and 64 because a wave's 32 rows of dK, dV and dQ
    --    took every VGPR and spilled SGPRs (16 rows: 101-142 VGPRs, 2-3
    --    waves a SIMD);
    --  - dq_atomic at D = 128 under 8 warps, which cannot hold dK, dV and dQ of
    --    64 keys in registers (sm80: 196 bytes of spills);
    --  - gfx1100, always: a WMMA operand takes 16 elements a lane, and a warp's
    --    16 rows of dK and dV (WN = 1) with the operands spilled 6-363
    --    registers; at half the keys the warps split D (WN = 2);
    --  - CDNA at D = 128 with a softcap (1-7 registers spilled).
    local amd = k.target:sub(1, 3) == "gfx"
    if k.target == "gfx1100" or (amd and D >= 128 and v.softcap) or (v.dq_atomic and (amd or (D >= 128 and c.threads < 256))) then
      BN = BN // 2
    end
    -- WN warps across the columns (P^T and dS^T then reach their gemms through
    -- shared memory), more where the rows would leave a warp under 16 of them
    local WN = c.WN
    while BN // (c.threads // k.warp // WN) < 16 do WN = WN * 2 end
    -- d128: half the queries per step, so dK, dV, S^T and dP^T fit in registers
    -- (on gfx1100 that also keeps P^T and dS^T, which go through LDS, within 64 KB);
    -- dq_atomic: BM = BN, as dQ's [BM, D] shares the warps' rows with dK's [BN, D], but BM of the
    -- config in the warp-specialized loop (ws, below), whose warpgroups split D (WN = 2: dQ's [BM, D]
    -- too; d256's dK and dV, 256 registers a thread in one warpgroup), or own whole rows (WN = 1: dSs)
    local ws = k.target == "sm90a" and c.threads >= 256 and (WN == 1 or (v.dq_atomic and D >= 128) or D == 256)
    local BM = v.dq_atomic and (ws and c.BM or BN) or D >= 128 and c.BM // 2 or c.BM
    local nkb = tile.cdiv(p.Sk, BN)
    local pid, bh = k:grid(nkb, p.B * p.Hkv)
    local kb = nkb - 1 - pid
    local b, hk = bh // p.Hkv, bh % p.Hkv
    local group = p.Hq // p.Hkv
    k:require((p.Hq % p.Hkv):eq(0), "Hq is a multiple of Hkv (each key/value head serves Hq / Hkv query heads)")
    k:require(tile.both(p.window_left:lt(2^30), p.window_right:lt(2^30)), "windows below 2^30, as sizes")
    local wl, wr = p.window_left, p.window_right
    local k0 = kb * BN
    local diag = p.Sk - p.Sq   -- query i is aligned with key i + diag
    -- query blocks [first, last) hold every query that sees a key of this block
    local nqb = tile.cdiv(p.Sq, BM)
    local lo_q, hi_q = k0 - diag - wr, k0 + BN - 1 - diag + wl
    local first = tile.where(wr:lt(0), 0, tile.max(lo_q, 0) // BM)
    local last = tile.where(wl:lt(0), nqb, tile.where(hi_q:lt(0), 0, tile.min(nqb, hi_q // BM + 1)))

    local Ks = k:shared(v.dtype, { BN, D })
    local Vs = k:shared(v.dtype, { BN, D })
    local Qs = k:shared(v.dtype, { BM, D })
    local dOs = k:shared(v.dtype, { BM, D })
    -- LSE and Delta of the query block come through the copy pipeline too:
    -- loaded a step ahead with Q and dO, not waited for on their own
    local lses = k:shared("f32", { 1, BM })
    local deltas = k:shared("f32", { 1, BM })
    -- dQ by atomics in warpgroups that own whole rows of dK and dV (WN = 1,
    -- sm90a): FlashAttention-2's 7 gemms, dS^T stored once in shared memory
    -- for dQ^T = K^T dS^T, whose [D, BM] is added transposed into dQacc
    local dSs = ws and WN == 1 and v.dq_atomic and not v.softcap and k:shared(v.dtype, { BN, BM }) or nil
    k:copy(p.K:tile({ b, hk, kb, 0 }, { 1, 1, BN, D }), Ks)
    k:copy(p.V:tile({ b, hk, kb, 0 }, { 1, 1, BN, D }), Vs)
    local dk = k:fragment("f32", { BN, D }, 0)
    local dv = k:fragment("f32", { BN, D }, 0)
    -- One step: the copies of query block jq() of head hq(), then the work
    -- on them, which takes the head and block again after the gemms (in the
    -- flat loop below a scalar among the copies is the copies' own, computed
    -- for the step they fill; each call gives a fresh expression, which the
    -- copies inline: as named scalars they spilled the cp.async twin)
    local function iteration(hq, jq)
      -- at D = 128, with dK and dV held in registers, issuing the next copies
      -- after S^T's wgmmas (gen's default on sm90a) spilled: copies first
      k:copy(p.Q:tile({ b, hq(), jq(), 0 }, { 1, 1, BM, D }), Qs)
      k:copy(p.dO:tile({ b, hq(), jq(), 0 }, { 1, 1, BM, D }), dOs)
      k:copy(p.LSE:tile({ b, hq(), 0, jq() }, { 1, 1, 1, BM }), lses)
      k:copy(p.Delta:tile({ b, hq(), 0, jq() }, { 1, 1, 1, BM }), deltas)
      local st = k:fragment("f32", { BN, BM }, 0)
      k:gemm(Ks, Qs, st, { transpose_b = true, warps = { c.threads // k.warp // WN, WN } })
      local dpt = k:fragment("f32", { BN, BM }, 0)
      k:gemm(Vs, dOs, dpt, { transpose_b = true })
      local h, j = hq(), jq()
      local function step(masked)
        local t   -- softcap: the tanh's derivative, 1 - tanh^2
        if v.softcap then
          t = k:fragment("f32", { BN, BM })
          k:assign(t, tile.tanh(st * (p.scale / p.softcap)))
          k:assign(st, t * (p.softcap * LOG2E))
          k:assign(t, 1 - t * t)
        else
          k:assign(st, st * (p.scale * LOG2E))
        end
        if masked then
          -- the query columns [lo, hi) of this block that see the key row: two
          -- bounds per row (see attention.lua); none for a key past the end
          local key = k:iota({ BN, 1 }, 1)
          local row = key + (k0 - j * BM - diag)   -- the query aligned with the key, in block columns
          local lo = tile.where(wr:lt(0), 0, row - wr)
          local hi = tile.where(key:lt(p.Sk - k0), tile.min(p.Sq - j * BM, tile.where(wl:lt(0), BM, row + wl + 1)), 0)
          local col = k:iota({ BN, BM }, 2)
          k:assign(st, tile.where(tile.both(col:ge(lo), col:lt(hi)), st, -math.huge))
        end
        local lse = k:fragment("f32", { 1, BM })
        k:copy(lses, lse)
        k:assign(st, tile.exp2(st - lse * LOG2E))   -- P^T
        if dSs then
          -- dS^T into dP^T's registers before dV's gemm (which then runs
          -- beside the rest with only P^T packed live); dS^T to shared
          -- memory once, read by the dQ^T = K^T dS^T gemm of both warpgroups
          local delta = k:fragment("f32", { 1, BM })
          k:copy(deltas, delta)
          k:assign(dpt, st * (dpt - delta))
          k:gemm(st:cast(v.dtype), dOs, dv)
          k:copy(dpt:cast(v.dtype), dSs)
          k:gemm(dpt:cast(v.dtype), Qs, dk)
          local dqt = k:fragment("f32", { D, BM }, 0)
          k:gemm(Ks, dSs, dqt, { transpose_a = true })
          k:atomic_add(p.dQacc:tile({ b, h, j, 0 }, { 1, 1, BM, D }), dqt * p.scale, { transpose = true })
          return
        end
        k:gemm(st:cast(v.dtype), dOs, dv)
        local delta = k:fragment("f32", { 1, BM })
        k:copy(deltas, delta)
        local dst = st * (dpt - delta)
        if v.softcap then dst = dst * t end
        k:gemm(dst:cast(v.dtype), Qs, dk)
        if v.dq_atomic then
          -- dQ += scale * dS K for this query block, added into dQacc by every key block
          local dq = k:fragment("f32", { BM, D }, 0)
          k:gemm(dst:cast(v.dtype), Ks, dq, { transpose_a = true })
          k:atomic_add(p.dQacc:tile({ b, h, j, 0 }, { 1, 1, BM, D }), dq * p.scale)
        end
      end
      local qend = (j + 1) * BM
      local cuts = tile.either(tile.either(qend:gt(p.Sq), (k0 + BN):gt(p.Sk)),
                               tile.either(tile.both(wr:ge(0), (k0 + BN - 1):gt(j * BM + diag + wr)),
                                           tile.both(wl:ge(0), k0:lt(qend - 1 + diag - wl))))
      k:when(cuts, function() step(true) end, function() step(false) end)
    end
    -- gen runs a k:pipelined loop warp-specialized only at the top of the
    -- kernel's body (docs/hopper.md): where it can (sm90a, two consumer
    -- warpgroups, wgmma: WN = 1, or with WN = 2 dQ by atomics at D = 128 and
    -- D = 256, whose warpgroups split D and stage P^T and dS^T) the group's query
    -- heads go into the one loop, nqh query blocks each, the ring running on
    -- from one head to the next (step i: head hk * group + i // nqh, block
    -- first + i % nqh); elsewhere a loop over the heads around the pipelined
    -- one (the flat loop's divisions spilled the 128-thread cp.async kernels
    -- at d96)
    if ws then
      local nqh = last - first
      local function head(i) return hk * group + i // tile.max(nqh, 1) end
      local function qblock(i) return first + i % tile.max(nqh, 1) end
      k:pipelined(0, group * nqh, c.stages, { copies_first = D >= 128 }, function(i)
        iteration(function() return head(i) end, function() return qblock(i) end)
      end)
    else
      k:serial(0, group, function(g)
        local h = hk * group + g
        k:pipelined(first, last, c.stages, { copies_first = D >= 128 }, function(j)
          iteration(function() return h end, function() return j end)
        end)
      end)
    end
    k:store(p.dK:tile({ b, hk, kb, 0 }, { 1, 1, BN, D }), dk * p.scale)
    k:store(p.dV:tile({ b, hk, kb, 0 }, { 1, 1, BN, D }), dv)
  end,
}
