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
-- "paged" reads blocks of 16 keys (PS a multiple of 16), KB of them a step
-- (its rows64 build 2 on the CPU and NVIDIA targets, each from its own
-- page into a shared tile of its own), "paged64" 64 keys a step (PS a
-- multiple of 64: 64, 128, 256, ...), as the contiguous cache.
--
-- Two launchers run one after the other on a stream:
--   contig / paged / paged64: one program per (KV head, block of BM query rows,
--     split) of a sequence.  The paged pass has two builds (`builds`): where
--     the Sq G query rows of a KV head fit in 16 (Sq 1 to 4 at GQA 4:1), its
--     launcher runs rows16, 16-row tiles of one warp, else rows64, the
--     64-row tiles of the other passes (pages of 16 at B 64, Sq 1 on an
--     H200: 2x faster with 16 rows; Sq 16, 64 rows: 3x slower).  The Sq x Hq / Hkv queries of one KV head are
--     the rows of one tile (GQA packing), so they share each read of K and
--     V; the sequence's key blocks are cut into NS splits, each a program,
--     which writes its softmax-normalized partial O and its LSE (f32) into
--     the workspace Ws.
--   combine: merges the NS partials of each row by their LSE into O and
--     LSE [B, Hq, Sq] (natural log).
-- Options of the split launchers, as attention.lua's: softcap > 0 caps the
-- logits at softcap tanh(logit / softcap) (0: none), and window_left >= 0
-- lets query s see only keys L[b] - Sq + s - window_left .. L[b] - Sq + s
-- (< 0: no window); the key blocks before the window are not read.  Each
-- split pass holds its builds twice, the first of each without this code
-- (plain), which its launcher runs where softcap is 0 and window_left < 0.
-- NS is chosen by both launchers alike from the sizes and the device's
-- multiprocessors (k:sm_count): as many programs as run at once, 2 a
-- multiprocessor (up to 112 KB of shared memory each at d128), in one wave
-- (NS = that // (B x Hkv x blocks of WB rows)), or in two where that gives more
-- than twice the splits; at most MAXS, and 1 (no split) once the programs
-- of one split fill two waves.  The combine runs CM rows a program
-- and reads the partials of CU splits at a time, their loads in flight
-- together.  The workspace Ws [B, Hkv, WR, D + 4] f32 needs WR >= the rows that
-- `<launcher>_workspace_rows(B, Sq, Hq, Hkv)` returns (the launchers
-- check: a split's rows start every WB x ceil(Sq G / WB) rows, whatever
-- build wrote them, so the combine reads both alike); the launchers allocate nothing and never wait on the device, so
-- a call can be captured in a CUDA graph.  A row with no visible key (a
-- sequence of length 0) gets O = 0 and LSE = +inf, as attention.lua.
-- Lengths are clamped to [0, Smax] (contig) or [0, MP x PS] (paged); in
-- the paged cache a key block whose page number is outside [0, pages) is
-- left out (never read).
local tile = require "tile"

local LOG2E = 1.4426950408889634
local LN2 = 0.69314718055994531

-- The number of splits, the blocks of WB rows of a KV head (a split's rows
-- in Ws) and the group size Hq / Hkv: every pass and build computes them
-- alike from the same sizes.
local function splits(k, p, c)
  local G = p.Hq // p.Hkv
  local nrb = tile.cdiv(p.Sq * G, c.WB)
  local progs = p.B * p.Hkv * nrb
  local want = 2 * k:sm_count()
  -- one wave (w1 splits) unless two waves take more than twice the splits
  -- (each then less than half as long): 160 programs on 264 slots take 3
  local w1, w2 = want // progs, 2 * want // progs
  return tile.max(1, tile.min(c.MAXS, tile.where(w2:gt(2 * w1), w2, w1))), nrb, G
end

-- The partials a split leaves for each row.  Where the Sq G rows of a KV
-- head fit in SUB = 16 (the paged pass's rows16 build), SUBS of them, at
-- rows r, SUB + r, 2 SUB + r, ... of the split's block of WB rows (rows
-- that the tile of 16 rows leaves free): rows16 runs SUBS programs a split
-- (sub-splits), each a part of its keys, as a multiprocessor holds several
-- programs of one warp where it holds 2 of 4 warps; a 64-row program there
-- writes LSE -inf into its rows from SUB on (no partial: the combine skips
-- it).  1 elsewhere, and where there are more than SUBNS splits: the
-- combine then reads NS x SUBS partials a row, CU at a time, one after
-- the other, which cost more than the sub-splits gave on short caches (B 1,
-- NS 33: 1K keys in 34 us against 21 without; H200,
-- bench/results/2026-11-26-h200-attention-decode-subsplit.txt).
local SUB = 16
local SUBNS = 8
local function slots(p, G, c, NS)
  if c.SUBS > c.WB // SUB then
    error(("SUBS = %d: a split's block of WB = %d rows holds %d partials of %d rows"):format(c.SUBS, c.WB, c.WB // SUB,
                                                                                         SUB))
  end
  return tile.both((p.Sq * G):le(SUB), NS:le(SUBNS)):cast("i32") * (c.SUBS - 1) + 1
end

-- Row r of a KV head's tile is query s = r / G of head hk G + r % G; the
-- rows past Sq G (`inside` false) are padding, read as 0 and never stored.
local function rows(p, G, hk, r)
  return tile.min(r // G, p.Sq - 1), hk * G + r % G, r:lt(p.Sq * G)
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
  -- WB: the rows of Ws a split takes come in blocks of WB (BM of rows64)
  -- KB: the key blocks of BN keys a step (the paged pass: its pages of 16 keys, each copied from its own page)
  -- SUBS: the sub-splits of a split where a KV head's rows fit 16 (slots, above)
  -- OPTS: 1, the split passes hold the softcap and window code; 0, neither (their plain builds)
  config = { BM = 64, BN = 64, KB = 1, stages = 3, threads = 128, MAXS = 64, CM = 8, CU = 8, WB = 64, SUBS = 3, OPTS = 1 },
  -- a key block lies in one page: 16 keys for every page size that is a
  -- multiple of 16, 64 for the multiples of 64.  The contiguous cache on
  -- sm90a: blocks of 32 keys, 5 stages (3 blocks in flight a program, 96 KB
  -- at d128; on an H200 3-10% faster than 64 keys in 3 stages, where a
  -- program has one in flight: bench/results/2026-11-25-attention-decode-configs.txt)
  variant_config = function(v, target)
    if v.pass == "paged" then return { BN = 16, stages = 6 } end
    if v.pass == "contig" and target == "sm90a" then return { BN = 32, stages = 5 } end
  end,
  -- the paged pass (16-key blocks): 16-row tiles of one warp (wave) where
  -- the body's k:runs_when holds, the 64-row ones elsewhere.  On the CPU
  -- and NVIDIA targets rows64 takes 2 blocks a step, each a plain copy
  -- from its page into a shared tile of its own, in 4 stages (H200, Sq 16,
  -- B 8: 1035 / 91.6 us against 1198 / 99.9 for one block in 6 stages at
  -- 64K / 4K keys, bench/results/2026-11-26-h200-attention-decode-blocks.txt);
  -- rows16 keeps one (2 or 4 a step: 2 programs of one warp a
  -- multiprocessor at B 8 went no faster, and fewer fitted at B 64), in 4
  -- stages: 37 KB a program at d128 with the block's reserve, so that 6
  -- programs, SUBS = 3 of each split, share a multiprocessor (B 8: 1.45-2.2x
  -- from 4K keys; bench/results/2026-11-26-h200-attention-decode-subsplit.txt).  On AMD one block a step in both (the 32-key
  -- blocks spilled SGPRs there at d128).
  -- Every split pass also has each build twice: first "plain" (OPTS = 0),
  -- without the softcap and window code, run where the call has neither,
  -- then with it (OPTS = 1), for every call.  The code a plain program runs
  -- is shorter, and the small caches wait on instruction fetch: on an H200
  -- up to 10% faster from 1K to 16K keys at B 1 and 8 and B 64 x 1K
  -- (bench/results/2026-11-26-h200-attention-decode-qcopy.txt).
  builds = function(v, target)
    if v.pass == "combine" then return nil end
    if v.pass ~= "paged" then return { { "plain", { OPTS = 0 } }, { "opts", {} } } end
    local warp = (target == "gfx90a" or target == "gfx942") and 64 or 32
    local r16, r64 = { BM = 16, threads = warp, stages = 4 }, { KB = 2, stages = 4 }
    if target:match("^gfx") then r16, r64 = { BM = 16, threads = warp }, {} end
    local function plain(t)
      local u = { OPTS = 0 }
      for key, val in pairs(t) do u[key] = val end
      return u
    end
    return { { "rows16plain", plain(r16) }, { "rows16", r16 }, { "rows64plain", plain(r64) }, { "rows64", r64 } }
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
    ps.softcap = tile.scalar("f32")       -- > 0: logits softcap tanh(logit / softcap); 0: none
    ps.window_left = tile.scalar("i32")   -- >= 0: a query sees that many keys before its own at most; < 0: all
    return ps
  end,
  body = function(k, p, c, v)
    local D = tonumber(v.hdim:sub(2))
    local BM, BN = c.BM, c.BN
    k:require((p.Hq % p.Hkv):eq(0), "Hq is a multiple of Hkv (each key/value head serves Hq / Hkv query heads)")
    local WB = c.WB
    local NS, nrb, G = splits(k, p, c)
    if WB % BM ~= 0 then error(("BM = %d does not divide WB = %d: a split's rows in the workspace come in blocks of WB"
                                .. " rows, each of whole row tiles"):format(BM, WB)) end
    k:export("workspace_rows", NS * nrb * WB, "the rows WR of Ws a call needs: Ws holds B x Hkv x WR x (D + 4) f32")
    k:require(p.WR:ge(NS * nrb * WB), "the workspace has the rows <launcher>_workspace_rows gives")
    if v.pass == "combine" then
      -- CM rows a program (a divisor of WB, so one block of a split's rows
      -- holds them); its splits' partials are read CU at a time, all CU
      -- loads in flight before the first is used
      local CM, CU = c.CM, c.CU
      if WB % CM ~= 0 then error(("CM = %d does not divide WB = %d: a combine program's rows must lie in one block of "
                                  .. "a split's rows"):format(CM, WB)) end
      local nrc = tile.cdiv(p.Sq * G, CM)
      local prog = k:grid(nrc * p.B * p.Hkv)
      local rc = prog % nrc   -- this program's block of CM rows
      local b, hk = prog // nrc // p.Hkv, prog // nrc % p.Hkv
      local s, h, inside = rows(p, G, hk, k:iota({ CM, 1 }, 1) + rc * CM)
      local rb0, off = rc * CM // WB, rc * CM % WB   -- the rows' block of WB rows, and their first row in it
      local m = k:fragment("f32", { CM, 1 }, -math.huge)   -- running max of the partials' LSE
      local l = k:fragment("f32", { CM, 1 }, 0)            -- sum of exp(LSE_i - m)
      local o = k:fragment("f32", { CM, D }, 0)            -- sum of exp(LSE_i - m) O_i
      local R = slots(p, G, c, NS)   -- the partials of a split a row has
      k:serial(0, tile.cdiv(NS * R, CU), function(i)   -- (the padding rows and the partials past NS R are not read)
        local lse, oi = {}, {}
        for u = 1, CU do
          local sp = i * CU + (u - 1)   -- partial sp: split sp / R, slot sp % R (past NS R: clamped to the last, not read)
          local spc = tile.min(sp, NS * R - 1)
          local r0 = (spc // R * nrb + rb0) * WB + spc % R * SUB + off
          local ok = tile.both(inside, sp:lt(NS * R))
          lse[u] = k:load(p.Ws:view({ b, hk, r0, D }, { 1, 1, CM, 1 }), -math.huge, { mask = ok })
          oi[u] = k:load(p.Ws:view({ b, hk, r0, 0 }, { 1, 1, CM, D }), 0, { mask = ok })
        end
        local m_new = m
        for u = 1, CU do m_new = tile.max(m_new, lse[u]) end
        local mc = tile.where(m_new:eq(-math.huge), 0, m_new)   -- 0: nothing seen yet
        local alpha = tile.exp2((m - mc) * LOG2E)
        local l_new, o_new = l * alpha, o * alpha
        for u = 1, CU do
          local w = tile.exp2((lse[u] - mc) * LOG2E)
          -- (where a split has no partial, its O is not written: LSE -inf)
          l_new, o_new = l_new + w, o_new + tile.where(lse[u]:gt(-math.huge), oi[u] * w, 0)
        end
        k:assign(l, l_new)
        k:assign(o, o_new)
        k:assign(m, m_new)
      end)
      local seen = l:gt(0)
      k:store(p.O:view({ b, s, h, 0 }, { 1, 1, CM, D }), o * tile.where(seen, 1 / l, 0), { mask = inside })
      k:store(p.LSE:view({ b, h, s, 0 }, { 1, 1, CM, 1 }), tile.where(seen, m + tile.log(l), math.huge),
              { mask = inside })
      return
    end

    local opts = c.OPTS == 1   -- the softcap and window code (plain builds: none)
    -- the build this is (builds, above): rows16 where a KV head's rows fit
    -- one tile, plain where the call has neither softcap nor window; the
    -- last (rows64 or the only one, with that code) runs for every call
    local fits = BM < WB and (p.Sq * p.Hq):le(BM * p.Hkv) or nil
    local plain = not opts and tile.both(p.softcap:eq(0), p.window_left:lt(0)) or nil
    local rows_text = ("the Sq x Hq / Hkv query rows of a KV head are %d or fewer"):format(BM)
    if fits and plain then
      k:runs_when(tile.both(fits, plain), rows_text .. ", and no softcap and no window")
    elseif fits or plain then
      k:runs_when(fits or plain, fits and rows_text or "no softcap (0) and no window (window_left < 0)")
    end
    -- one program per row block of a KV head of a sequence, and split
    local ntb = tile.cdiv(p.Sq * G, BM)   -- the row tiles of a KV head
    -- rows16: R programs a split (sub-splits, slots above), each a part of its keys
    local R = BM < WB and slots(p, G, c, NS) or nil
    local parts = R and NS * R or NS
    local prog, part = k:grid(ntb * p.B * p.Hkv, parts)
    local split, sub = part, 0   -- part: split, sub-split sub of it
    if R then split, sub = part // R, part % R end
    local rb = prog % ntb
    local b, hk = prog // ntb // p.Hkv, prog // ntb % p.Hkv
    local paged = v.pass ~= "contig"
    local Sk = paged and p.MP * p.PS or p.Smax   -- the keys the cache can hold
    if paged then
      k:require((p.PS % BN):eq(0), ("the page size is a multiple of %d"):format(BN))
      k:require((p.MP * p.PS):lt(2^30), "a sequence's pages hold below 2^30 keys")
    end
    k:require(p.softcap:ge(0), "softcap is 0 (none) or positive")
    k:require(p.window_left:lt(2^30), "window_left below 2^30, as sizes")
    local wl = opts and p.window_left or nil   -- (nil: the build holds no window code)
    local KB = c.KB
    local W = KB * BN   -- the keys of a step: KB blocks of BN
    local len = tile.min(tile.max(k:load(p.L:at({ b })), 0), Sk)
    local nkb = tile.cdiv(len, W)
    -- the steps [kb0, nkb) hold every visible key (query 0's window
    -- starts at key len - Sq - wl), cut into a chunk a part
    local kb0 = opts and tile.where(wl:lt(0), 0, tile.min(tile.max(len - p.Sq - wl, 0) // W, nkb)) or 0
    local chunk = tile.cdiv(nkb - kb0, parts)
    local first = tile.min(nkb, kb0 + part * chunk)
    local last = tile.min(nkb, first + chunk)

    local s0, h0, inside = rows(p, G, hk, k:iota({ BM, 1 }, 1) + rb * BM)
    local Qs = k:shared(v.dtype, { BM, D })
    -- Sq 1: the tile's rows are the query heads from hk G + rb BM on, one
    -- row stride apart, so Q is copied whole (16-byte chunks, 8 a thread at
    -- d128); its rows past G are other heads' queries (past Hq: zeros), never
    -- stored.  Else a row gather in registers: 32 chunks of 4 bytes a
    -- thread, each with its own address and tests, about 1,000 of the
    -- program's instructions on sm90a, where a program that reads few key
    -- blocks waits on instruction fetch (84b2dd3f's ncu: 56% of its stalls).
    k:when(p.Sq:eq(1), function()
      k:copy(p.Q:view({ b, 0, hk * G + rb * BM, 0 }, { 1, 1, BM, D }), Qs)
    end, function()
      k:copy(k:load(p.Q:view({ b, s0, h0, 0 }, { 1, 1, BM, D }), 0, { mask = inside }), Qs)
    end)
    local Kq, Vq, Ks, Vs = {}, {}   -- block q of a step in Kq[q], Vq[q] (Ks, Vs: locals that name the tiles)
    for q = 1, KB do
      Ks = k:shared(v.dtype, { BN, D })
      Vs = k:shared(v.dtype, { BN, D })
      Kq[q], Vq[q] = Ks, Vs
    end
    local o = k:fragment("f32", { BM, D }, 0)
    local m = k:fragment("f32", { BM, 1 }, -math.huge)   -- running max of the logits, log2 units
    local l = k:fragment("f32", { BM, 1 }, 0)            -- running sum of exp2(logit - m)
    -- the page of block jb (-1 past MP: outside K; KB > 1, -1 past the
    -- sequence's length: a block of the last step there is never read)
    local function page_of(jb)
      local page = k:load(p.BT:at({ b, jb * BN // p.PS }), -1)
      return KB == 1 and page or tile.where((jb * BN):lt(len), page, -1)
    end
    k:pipelined(first, last, c.stages, function(j)
      for q = 1, KB do
        if paged then
          local jb = KB == 1 and j or j * KB + (q - 1)
          local page = page_of(jb)
          k:copy(p.K:view({ page, hk, jb * BN % p.PS, 0 }, { 1, 1, BN, D }), Kq[q])
          k:copy(p.V:view({ page, hk, jb * BN % p.PS, 0 }, { 1, 1, BN, D }), Vq[q])
        else
          k:copy(p.K:tile({ b, hk, j * KB + (q - 1), 0 }, { 1, 1, BN, D }), Kq[q])
          k:copy(p.V:tile({ b, hk, j * KB + (q - 1), 0 }, { 1, 1, BN, D }), Vq[q])
        end
      end
      -- held[q] / lost[q]: block q's page is inside the cache / outside it (the copies' page is theirs only)
      local sq, held, lost = {}, {}, {}
      for q = 1, KB do
        local s = k:fragment("f32", { BM, BN }, 0)
        k:gemm(Qs, Kq[q], s, { transpose_b = true, warps = { c.threads // k.warp, 1 } })
        sq[q] = s
        if paged and KB > 1 then
          local pg = page_of(j * KB + (q - 1))
          held[q], lost[q] = tile.both(pg:ge(0), pg:lt(p.NP)), tile.either(pg:lt(0), pg:ge(p.NP))
        end
      end
      -- one step of the online softmax, in place in s; `masked` for a step
      -- that holds a key some query must not see (or, KB > 1, a page
      -- outside the cache)
      local function step(masked)
        for q = 1, KB do
          -- to log2 units, through the softcap where there is one
          local function scaled() k:assign(sq[q], sq[q] * (p.scale * LOG2E)) end
          if opts then
            k:when(p.softcap:gt(0), function()
              k:assign(sq[q], tile.tanh(sq[q] * (p.scale / p.softcap)) * (p.softcap * LOG2E))
            end, scaled)
          else
            scaled()
          end
          if masked then   -- query sq sees the keys from len - Sq + sq - wl (wl >= 0) up to len - Sq + sq
            local diag = (k:iota({ BM, 1 }, 1) + rb * BM) // G + (len - p.Sq - (j * KB + (q - 1)) * BN)   -- its own key, in block columns
            local col = k:iota({ BM, BN }, 2)
            local function seen(x) return held[q] and tile.both(x, held[q]) or x end   -- (an expression: no array)
            local vis = opts and tile.both(col:le(diag), tile.either(wl:lt(0), col:ge(diag - wl))) or col:le(diag)
            k:assign(sq[q], tile.where(seen(vis), sq[q], -math.huge))
          end
        end
        local m_new = m
        for q = 1, KB do m_new = tile.max(m_new, k:reduce_max(sq[q], 2)) end
        local mc = tile.where(m_new:eq(-math.huge), 0, m_new)   -- 0: a row with nothing visible yet
        for q = 1, KB do k:assign(sq[q], tile.exp2(sq[q] - mc)) end
        local alpha = tile.exp2(m - mc)
        local function total(n)   -- the row sums of blocks 1 .. n
          return n == 1 and k:reduce_sum(sq[1], 2) or total(n - 1) + k:reduce_sum(sq[n], 2)
        end
        k:assign(l, l * alpha + total(KB))
        k:assign(o, o * alpha)
        for q = 1, KB do k:gemm(sq[q]:cast(v.dtype), Vq[q], o) end
        k:assign(m, m_new)
      end
      local cuts = ((j + 1) * W):gt(len - p.Sq + 1)
      if opts then cuts = tile.either(cuts, tile.both(wl:ge(0), (j * W):lt(len - 1 - wl))) end
      for q = 1, #lost do cuts = tile.either(cuts, lost[q]) end
      local function run()
        k:when(cuts, function() step(true) end, function() step(false) end)
      end
      if paged and KB == 1 then   -- a page number outside the cache read zeros: its keys are left out
        local pg = k:load(p.BT:at({ b, j * BN // p.PS }), -1)   -- (the copies' page is theirs only)
        k:when(tile.both(pg:ge(0), pg:lt(p.NP)), run)
      else
        run()
      end
    end)
    local seen = l:gt(0)
    -- this program's first row of Ws
    local ws_row = R and split * nrb * WB + rb * BM + sub * SUB or split * nrb * WB + rb * BM
    k:store(p.Ws:view({ b, hk, ws_row, 0 }, { 1, 1, BM, D }), o * tile.where(seen, 1 / l, 0), { mask = inside })
    if R then
      k:store(p.Ws:view({ b, hk, ws_row, D }, { 1, 1, BM, 1 }), tile.where(seen, m * LN2 + tile.log(l), -math.huge),
              { mask = inside })
    else   -- where a split has several slots, those past the first get LSE -inf: no partial there (slots, above)
      k:store(p.Ws:view({ b, hk, ws_row, D }, { 1, 1, BM, 1 }),
              tile.where(tile.both(seen, inside), m * LN2 + tile.log(l), -math.huge),
              { mask = tile.either(inside, slots(p, G, c, NS):gt(1)) })
    end
  end,
}
