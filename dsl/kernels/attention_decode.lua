-- attention_decode.lua: attention for decoding, a few new queries per
-- sequence against a long KV cache, with the keys split across programs.
--
-- Queries Q [B, Sq, Hq, D] (Sq small: 1 for plain decoding, up to 16 for
-- speculative decoding), causal bottom-right among the new tokens: query
-- s of sequence b sees keys 0 .. L[b] - Sq + s, where L[b] (int32) is the
-- sequence's length in the cache, the new tokens' keys included.  The
-- cache is contiguous, K and V [B, Smax, Hkv, D] (pass = "contig"), or
-- paged: K and V [pages, PS, Hkv, D] and a block table BT [B, MP] of page
-- numbers, key t of sequence b at row t % PS of page BT[b, t / PS]; pass =
-- "paged" reads 16 keys at a time (PS a multiple of 16), "paged64" 64 (PS
-- a multiple of 64: 64, 128, 256, ...), as the contiguous cache.
--
-- Two launchers run one after the other on a stream:
--   contig / paged / paged64: one program per (KV head, block of BM query rows,
--     split) of a sequence.  The Sq x Hq / Hkv queries of one KV head are
--     the rows of one tile (GQA packing), so they share each read of K and
--     V; the sequence's key blocks are cut into NS splits, each a program,
--     which writes its softmax-normalized partial O and its LSE (f32) into
--     the workspace Ws.
--   combine: merges the NS partials of each row by their LSE into O and
--     LSE [B, Hq, Sq] (natural log).
-- NS is chosen by both launchers alike from the sizes and the device's
-- multiprocessors (k:sm_count): enough programs for 2 a multiprocessor (as
-- many as fit at once: 112 KB of shared memory each at d128), 1 (no split)
-- once B x Hkv x row blocks reach that, at most MAXS.  The
-- workspace Ws [B, Hkv, WR, D + 4] f32 needs WR >= the rows that
-- `<launcher>_workspace_rows(B, Sq, Hq, Hkv)` returns (the launchers
-- check); the launchers allocate nothing and never wait on the device, so
-- a call can be captured in a CUDA graph.  A row with no visible key (a
-- sequence of length 0) gets O = 0 and LSE = +inf, as attention.lua.
-- Lengths are clamped to [0, Smax] (contig) or [0, MP x PS] (paged); in
-- the paged cache a key block whose page number is outside [0, pages) is
-- left out (never read).
local tile = require "tile"

local LOG2E = 1.4426950408889634
local LN2 = 0.69314718055994531

-- The number of splits, the row blocks of a KV head and the group size
-- Hq / Hkv: both passes compute them alike from the same sizes.
local function splits(k, p, c)
  local G = p.Hq // p.Hkv
  local nrb = tile.cdiv(p.Sq * G, c.BM)
  local progs = p.B * p.Hkv * nrb
  local want = 2 * k:sm_count()
  return tile.where(progs:ge(want), 1, tile.min(c.MAXS, tile.cdiv(want, progs))), nrb, G
end

return tile.kernel {
  name = "attention_decode",
  doc = "Split-KV attention decode: Sq new queries against a contiguous or paged KV cache (GQA packed), then the "
     .. "partials combined by LSE.",
  variants = {
    dtype = { "f16", "bf16" },
    hdim = { "d64", "d128" },
    pass = { "contig", "paged", "paged64", "combine" },
  },
  config = { BM = 64, BN = 64, stages = 3, threads = 128, MAXS = 64 },
  -- a key block lies in one page: 16 keys for every page size that is a
  -- multiple of 16, 64 for the multiples of 64
  variant_config = function(v)
    if v.pass == "paged" then return { BN = 16, stages = 6 } end
  end,
  params = function(v, c)
    local D = tonumber(v.hdim:sub(2))
    local function workspace() return tile.tensor("f32", { "B", "Hkv", "WR", D + 4 }) end
    local ps = {}
    if v.pass == "combine" then
      ps.O = tile.tensor(v.dtype, { "B", "Sq", "Hq", D }, { "sob", "sos", "soh", 1 })
      ps.LSE = tile.tensor("f32", { "B", "Hq", "Sq", 1 })   -- [B, Hq, Sq]
      ps.Ws = workspace()
      return ps
    end
    ps.Q = tile.tensor(v.dtype, { "B", "Sq", "Hq", D }, { "sqb", "sqs", "sqh", 1 })
    if v.pass == "contig" then
      ps.K = tile.tensor(v.dtype, { "B", "Hkv", "Smax", D }, { "skb", "skh", "sks", 1 })   -- [B, Smax, Hkv, D]
      ps.V = tile.tensor(v.dtype, { "B", "Hkv", "Smax", D }, { "svb", "svh", "svs", 1 })
    else
      ps.K = tile.tensor(v.dtype, { "NP", "Hkv", "PS", D }, { "skp", "skh", "sks", 1 })    -- [pages, PS, Hkv, D]
      ps.V = tile.tensor(v.dtype, { "NP", "Hkv", "PS", D }, { "svp", "svh", "svs", 1 })
      ps.BT = tile.tensor("i32", { "B", "MP" })
    end
    ps.L = tile.tensor("i32", { "B" })
    ps.Ws = workspace()
    ps.scale = tile.scalar("f32", { positive = true })
    return ps
  end,
  body = function(k, p, c, v)
    local D = tonumber(v.hdim:sub(2))
    local BM, BN = c.BM, c.BN
    k:require((p.Hq % p.Hkv):eq(0), "Hq is a multiple of Hkv (each key/value head serves Hq / Hkv query heads)")
    local NS, nrb, G = splits(k, p, c)
    k:export("workspace_rows", NS * nrb * BM, "the rows WR of Ws a call needs: Ws holds B x Hkv x WR x (D + 4) f32")
    k:require(p.WR:ge(NS * nrb * BM), "the workspace has the rows <launcher>_workspace_rows gives")
    -- one program per row block of a KV head of a sequence, and split
    local prog, split
    if v.pass == "combine" then prog = k:grid(nrb * p.B * p.Hkv) else prog, split = k:grid(nrb * p.B * p.Hkv, NS) end
    local rb = prog % nrb
    local b, hk = prog // nrb // p.Hkv, prog // nrb % p.Hkv
    -- Row r of the tile is query s = r / G of head hk G + r % G; the rows
    -- past Sq G (`inside` false) are padding, read as 0 and never stored.
    local function rows()
      local r = k:iota({ BM, 1 }, 1) + rb * BM
      return tile.min(r // G, p.Sq - 1), hk * G + r % G, r:lt(p.Sq * G)
    end

    if v.pass == "combine" then
      local m = k:fragment("f32", { BM, 1 }, -math.huge)   -- running max of the partials' LSE
      local l = k:fragment("f32", { BM, 1 }, 0)            -- sum of exp(LSE_i - m)
      local o = k:fragment("f32", { BM, D }, 0)            -- sum of exp(LSE_i - m) O_i
      local _, _, inside = rows()
      k:serial(0, NS, function(i)   -- (the padding rows are neither written nor read)
        local r0 = (i * nrb + rb) * BM
        local lse = k:load(p.Ws:view({ b, hk, r0, D }, { 1, 1, BM, 1 }), -math.huge, { mask = inside })
        local oi = k:load(p.Ws:view({ b, hk, r0, 0 }, { 1, 1, BM, D }), 0, { mask = inside })
        local m_new = tile.max(m, lse)
        local mc = tile.where(m_new:eq(-math.huge), 0, m_new)   -- 0: nothing seen yet
        local alpha = tile.exp2((m - mc) * LOG2E)
        local w = tile.exp2((lse - mc) * LOG2E)
        k:assign(l, l * alpha + w)
        k:assign(o, o * alpha + oi * w)
        k:assign(m, m_new)
      end)
      local s, h = rows()
      local seen = l:gt(0)
      k:store(p.O:view({ b, s, h, 0 }, { 1, 1, BM, D }), o * tile.where(seen, 1 / l, 0), { mask = inside })
      k:store(p.LSE:view({ b, h, s, 0 }, { 1, 1, BM, 1 }), tile.where(seen, m + tile.log(l), math.huge),
              { mask = inside })
      return
    end

    local paged = v.pass ~= "contig"
    local Sk = paged and p.MP * p.PS or p.Smax   -- the keys the cache can hold
    if paged then
      k:require((p.PS % BN):eq(0), ("the page size is a multiple of %d"):format(BN))
      k:require((p.MP * p.PS):lt(2^30), "a sequence's pages hold below 2^30 keys")
    end
    local len = tile.min(tile.max(k:load(p.L:at({ b })), 0), Sk)
    local nkb = tile.cdiv(len, BN)
    local chunk = tile.cdiv(nkb, NS)
    local first = tile.min(nkb, split * chunk)
    local last = tile.min(nkb, first + chunk)

    local s0, h0, inside = rows()
    local Qs = k:shared(v.dtype, { BM, D })
    k:copy(k:load(p.Q:view({ b, s0, h0, 0 }, { 1, 1, BM, D }), 0, { mask = inside }), Qs)
    local Ks = k:shared(v.dtype, { BN, D })
    local Vs = k:shared(v.dtype, { BN, D })
    local o = k:fragment("f32", { BM, D }, 0)
    local m = k:fragment("f32", { BM, 1 }, -math.huge)   -- running max of the logits, log2 units
    local l = k:fragment("f32", { BM, 1 }, 0)            -- running sum of exp2(logit - m)
    k:pipelined(first, last, c.stages, function(j)
      if paged then
        local page = k:load(p.BT:at({ b, j * BN // p.PS }), -1)   -- -1 past MP: outside K
        k:copy(p.K:view({ page, hk, j * BN % p.PS, 0 }, { 1, 1, BN, D }), Ks)
        k:copy(p.V:view({ page, hk, j * BN % p.PS, 0 }, { 1, 1, BN, D }), Vs)
      else
        k:copy(p.K:tile({ b, hk, j, 0 }, { 1, 1, BN, D }), Ks)
        k:copy(p.V:tile({ b, hk, j, 0 }, { 1, 1, BN, D }), Vs)
      end
      local s = k:fragment("f32", { BM, BN }, 0)
      k:gemm(Qs, Ks, s, { transpose_b = true, warps = { c.threads // k.warp, 1 } })
      -- one step of the online softmax, in place in s; `masked` for a block
      -- that holds a key some query must not see
      local function step(masked)
        k:assign(s, s * (p.scale * LOG2E))
        if masked then   -- query sq sees the keys up to len - Sq + sq
          local sq = (k:iota({ BM, 1 }, 1) + rb * BM) // G
          k:assign(s, tile.where((k:iota({ BM, BN }, 2) + j * BN):le(len - p.Sq + sq), s, -math.huge))
        end
        local m_new = tile.max(m, k:reduce_max(s, 2))
        local mc = tile.where(m_new:eq(-math.huge), 0, m_new)   -- 0: a row with nothing visible yet
        k:assign(s, tile.exp2(s - mc))
        local alpha = tile.exp2(m - mc)
        k:assign(l, l * alpha + k:reduce_sum(s, 2))
        k:assign(o, o * alpha)
        k:gemm(s:cast(v.dtype), Vs, o)
        k:assign(m, m_new)
      end
      local cuts = ((j + 1) * BN):gt(len - p.Sq + 1)
      local function run()
        k:when(cuts, function() step(true) end, function() step(false) end)
      end
      if paged then   -- a page number outside the cache read zeros: its keys are left out
        local pg = k:load(p.BT:at({ b, j * BN // p.PS }), -1)   -- (the copies' page is theirs only)
        k:when(tile.both(pg:ge(0), pg:lt(p.NP)), run)
      else
        run()
      end
    end)
    local seen = l:gt(0)
    local ws_row = (split * nrb + rb) * BM   -- this program's first row of Ws
    k:store(p.Ws:view({ b, hk, ws_row, 0 }, { 1, 1, BM, D }), o * tile.where(seen, 1 / l, 0), { mask = inside })
    k:store(p.Ws:view({ b, hk, ws_row, D }, { 1, 1, BM, 1 }), tile.where(seen, m * LN2 + tile.log(l), -math.huge),
            { mask = inside })
  end,
}
