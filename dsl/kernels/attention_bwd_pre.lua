-- attention_bwd_pre.lua: the first step of the FlashAttention-2 backward pass,
-- Delta[b, h, i] = sum over d of dO[b, h, i, d] * O[b, h, i, d], in f32.
-- The dq_atomic variants also clear dQacc, the f32 sum that
-- attention_bwd_dkdv's dq_atomic variants add dQ into.
--
-- One program per BM query rows of one (batch, head); each thread multiplies
-- the elements it holds and the row sums meet across the threads.
local tile = require "tile"

return tile.kernel {
  name = "attention_bwd_pre",
  doc = "FlashAttention-2 backward, step 1: Delta = rowsum(dO * O) in f32 (dq_atomic: and dQacc = 0).",
  variants = { dtype = { "f16", "bf16" }, hdim = { "d32", "d64", "d96", "d128", "d256" }, dq_atomic = { false, true } },
  config = { BM = 32, threads = 128 },
  -- the d256 backward's limits (attention_bwd_dkdv.lua, attention_bwd_dq.lua)
  unsupported = function(v, target)
    if v.hdim ~= "d256" or target == "c" then return nil end
    if target:match("^gfx") then return "the d256 backward needs more than the 64 KB of LDS a block gets on " .. target .. " (Q, dO, K and V tiles of 256 columns)" end
    if v.dq_atomic then return "dK, dV and dQ of a 256-wide key block do not fit in registers (sm80: 184 bytes of spills at the best config); take dQ from attention_bwd_dq (dq_atomic = false)" end
  end,
  params = function(v)
    local D = tonumber(v.hdim:sub(2))
    local ps = {
      O = tile.tensor(v.dtype, { "B", "Hq", "Sq", D }, { "sob", "soh", "sos", 1 }),
      dO = tile.tensor(v.dtype, { "B", "Hq", "Sq", D }, { "sdob", "sdoh", "sdos", 1 }),
      Delta = tile.tensor("f32", { "B", "Hq", "Sq", 1 }),   -- [B, Hq, Sq], as one column
    }
    -- dQacc's rows are as wide as the tiles (128 at d96; FlashAttention-2 rounds
    -- its dq_accum's head dim up too): its atomic adds need no column mask
    if v.dq_atomic then ps.dQacc = tile.tensor("f32", { "B", "Hq", "Sq", D == 96 and 128 or D }) end
    return ps
  end,
  body = function(k, p, c, v)
    -- the tiles' width: D, or 128 for D = 96 (gen's tiles are powers of two;
    -- the columns past 96 load as zeros and are not stored)
    local D = tonumber(v.hdim:sub(2))
    D = D == 96 and 128 or D
    local qb, bh = k:grid(tile.cdiv(p.Sq, c.BM), p.B * p.Hq)
    local b, h = bh // p.Hq, bh % p.Hq
    local o = k:load(p.O:tile({ b, h, qb, 0 }, { 1, 1, c.BM, D })):cast("f32")
    local prod = k:load(p.dO:tile({ b, h, qb, 0 }, { 1, 1, c.BM, D })):cast("f32") * o
    k:store(p.Delta:tile({ b, h, qb, 0 }, { 1, 1, c.BM, 1 }), k:reduce_sum(prod, 2))
    if v.dq_atomic then k:store(p.dQacc:tile({ b, h, qb, 0 }, { 1, 1, c.BM, D }), 0) end
  end,
}
