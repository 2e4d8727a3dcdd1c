-- attention_bwd_dq.lua: FlashAttention-2 backward, dQ.
--
-- One program per [BM] block of query rows of one (batch, head), like the
-- forward pass: Q and dO stay in shared memory while the key and value
-- blocks stream through a pipelined loop.  Per key block: S = Q K^T is
-- recomputed, P = exp(S - LSE) (LSE from the forward pass, so no running
-- max), dP = dO V^T, dS = P * (dP - Delta), and dQ += dS K with dS fed to
-- the gemm from registers where the target allows.  No atomics: each
-- program owns its rows of dQ, so the result is deterministic.  The key
-- blocks visited and masked are the forward pass's.
local tile = require "tile"

local LOG2E = 1.4426950408889634

return tile.kernel {
  name = "attention_bwd_dq",
  doc = "FlashAttention-2 backward, dQ = scale * dS K, with GQA, causal / window, softcap; deterministic.",
  variants = { dtype = { "f16", "bf16" }, hdim = { "d32", "d64", "d96", "d128", "d256" }, softcap = { false, true } },
  config = { BM = 64, BN = 64, stages = 2, threads = 128 },
  unsupported = function(v, target)
    if v.hdim == "d256" and target:match("^gfx") then
      return "the d256 backward needs more than the 64 KB of LDS a block gets on " .. target .. " (Q, dO, K and V tiles of 256 columns)"
    end
  end,
  -- d256: 32 keys a step (Q, dO and two stages of K and V in shared memory),
  -- and on sm90a 8 warps of 16 rows (at 4 warps dQ spilled: 392 bytes)
  variant_config = function(v, target)
    if v.hdim == "d256" then
      return target == "sm90a" and { threads = 256, BM = 128, BN = 32 } or { threads = 128, BM = 64, BN = 32 }
    end
  end,
  -- d96 runs d128's tiles (128 wide): it takes d128's tuned configs
  tuned_as = { hdim = { d96 = "d128" } },
  -- runtime/tune.lua's search space.  Each warp owns BM / (threads / 32)
  -- query rows of dQ (16 or 32); BN keys a step.  The tuner leaves out the
  -- configs that spill.
  tune = {
    space = { threads = { 128, 256 }, BM = { 64, 128 }, BN = { 32, 64, 128 } },
    constraint = function(c) return c.BM // (c.threads // 32) >= 16 end,
    shapes = { { B = 4, Hq = 16, Sq = 4096, Hkv = 16, Sk = 4096 } },
    check_shapes = { { B = 1, Hq = 2, Sq = 67, Hkv = 1, Sk = 67 }, { B = 2, Hq = 2, Sq = 300, Hkv = 2, Sk = 257 } },
    scalars = { scale = 0.125, softcap = 30, window_left = -1, window_right = -1 },
    flops = function(s, v) return 6 * s.B * s.Hq * s.Sq * s.Sk * tonumber(v.hdim:sub(2)) end,
  },
  params = function(v)
    local D = tonumber(v.hdim:sub(2))
    local ps = {
      Q = tile.tensor(v.dtype, { "B", "Hq", "Sq", D }, { "sqb", "sqh", "sqs", 1 }),
      K = tile.tensor(v.dtype, { "B", "Hkv", "Sk", D }, { "skb", "skh", "sks", 1 }),
      V = tile.tensor(v.dtype, { "B", "Hkv", "Sk", D }, { "svb", "svh", "svs", 1 }),
      dO = tile.tensor(v.dtype, { "B", "Hq", "Sq", D }, { "sdob", "sdoh", "sdos", 1 }),
      LSE = tile.tensor("f32", { "B", "Hq", "Sq", 1 }),
      Delta = tile.tensor("f32", { "B", "Hq", "Sq", 1 }),
      dQ = tile.tensor(v.dtype, { "B", "Hq", "Sq", D }, { "sdqb", "sdqh", "sdqs", 1 }),
      scale = tile.scalar("f32"),
    }
    if v.softcap then ps.softcap = tile.scalar("f32") end
    ps.window_left = tile.scalar("i32")
    ps.window_right = tile.scalar("i32")
    return ps
  end,
  body = function(k, p, c, v)
    -- the tiles' width: D, or 128 for D = 96 (gen's tiles are powers of two;
    -- the columns past 96 load as zeros and are not stored)
    local D = tonumber(v.hdim:sub(2))
    D = D == 96 and 128 or D
    local rdna = k.target == "gfx1100"
    local BM = c.BM
    local BN = (rdna and D >= 128) and c.BN // 2 or c.BN   -- gfx1100: dS also goes through the 64 KB of LDS
    local nqb = tile.cdiv(p.Sq, BM)
    local pid, bh = k:grid(nqb, p.B * p.Hq)
    local qb = nqb - 1 - pid
    local b, h = bh // p.Hq, bh % p.Hq
    local hk = h // (p.Hq // p.Hkv)
    k:require((p.Hq % p.Hkv):eq(0), "Hq is a multiple of Hkv (each key/value head serves Hq / Hkv query heads)")
    k:require(tile.both(p.window_left:lt(2^30), p.window_right:lt(2^30)), "windows below 2^30, as sizes")
    local wl, wr = p.window_left, p.window_right
    local q0 = qb * BM
    local diag = p.Sk - p.Sq
    local nkb = tile.cdiv(p.Sk, BN)
    local lo_key, hi_key = q0 + diag - wl, q0 + BM - 1 + diag + wr
    local first = tile.where(wl:lt(0), 0, tile.max(lo_key, 0) // BN)
    local last = tile.where(wr:lt(0), nkb, tile.where(hi_key:lt(0), 0, tile.min(nkb, hi_key // BN + 1)))

    local Qs = k:shared(v.dtype, { BM, D })
    local dOs = k:shared(v.dtype, { BM, D })
    local Ks = k:shared(v.dtype, { BN, D })
    local Vs = k:shared(v.dtype, { BN, D })
    k:copy(p.Q:tile({ b, h, qb, 0 }, { 1, 1, BM, D }), Qs)
    k:copy(p.dO:tile({ b, h, qb, 0 }, { 1, 1, BM, D }), dOs)
    -- LSE in log2 units; +inf (a row with no visible key) makes P = 0
    local lse2 = k:load(p.LSE:tile({ b, h, qb, 0 }, { 1, 1, BM, 1 })) * LOG2E
    local delta = k:load(p.Delta:tile({ b, h, qb, 0 }, { 1, 1, BM, 1 }))
    local dq = k:fragment("f32", { BM, D }, 0)
    k:pipelined(first, last, c.stages, function(j)
      k:copy(p.K:tile({ b, hk, j, 0 }, { 1, 1, BN, D }), Ks)
      k:copy(p.V:tile({ b, hk, j, 0 }, { 1, 1, BN, D }), Vs)
      local s = k:fragment("f32", { BM, BN }, 0)
      k:gemm(Qs, Ks, s, { transpose_b = true, warps = { c.threads // k.warp, 1 } })
      local dp = k:fragment("f32", { BM, BN }, 0)
      k:gemm(dOs, Vs, dp, { transpose_b = true })
      local function step(masked)
        local t   -- softcap: the tanh, for its derivative
        if v.softcap then
          t = k:fragment("f32", { BM, BN })
          k:assign(t, tile.tanh(s * (p.scale / p.softcap)))
          k:assign(s, t * (p.softcap * LOG2E))
        else
          k:assign(s, s * (p.scale * LOG2E))
        end
        if masked then
          -- the key columns [lo, hi) of this block that the row sees (as the forward)
          local row = k:iota({ BM, 1 }, 1) + (q0 + diag - j * BN)
          local lo = tile.where(wl:lt(0), 0, row - wl)
          local hi = tile.min(p.Sk - j * BN, tile.where(wr:lt(0), BN, row + wr + 1))
          local col = k:iota({ BM, BN }, 2)
          k:assign(s, tile.where(tile.both(col:ge(lo), col:lt(hi)), s, -math.huge))
        end
        k:assign(s, tile.exp2(s - lse2))   -- P
        local ds = s * (dp - delta)
        if v.softcap then ds = ds * (1 - t * t) end
        k:gemm(ds:cast(v.dtype), Ks, dq)
      end
      local kend = (j + 1) * BN
      local cuts = tile.either(kend:gt(p.Sk), tile.either(tile.both(wr:ge(0), kend:gt(q0 + diag + wr + 1)),
                                                            tile.both(wl:ge(0), (j * BN):lt(q0 + BM - 1 + diag - wl))))
      k:when(cuts, function() step(true) end, function() step(false) end)
    end)
    k:store(p.dQ:tile({ b, h, qb, 0 }, { 1, 1, BM, D }), dq * p.scale)
  end,
}
