-- attention_bwd_post.lua: the last step of the FlashAttention-2 backward pass
-- with dQ by atomics: dQ = dQacc, the f32 sum attention_bwd_dkdv's
-- dq_atomic variants added into (scale included), in dQ's dtype and
-- strides.  One program per BM query rows of one (batch, head).
local tile = require "tile"

return tile.kernel {
  name = "attention_bwd_post",
  doc = "FlashAttention-2 backward with atomic dQ, last step: dQ = dQacc in dQ's dtype.",
  variants = { dtype = { "f16", "bf16" }, hdim = { "d32", "d64", "d96", "d128", "d256" } },
  config = { BM = 32, threads = 128 },
  -- the d256 backward's limits (attention_bwd_dkdv.lua): with dQ by atomics
  -- only on the c target
  unsupported = function(v, target)
    if v.hdim ~= "d256" or target == "c" then return nil end
    if target:match("^gfx") then return "the d256 backward needs more than the 64 KB of LDS a block gets on " .. target .. " (Q, dO, K and V tiles of 256 columns)" end
    return "dK, dV and dQ of a 256-wide key block do not fit in registers (sm80: 184 bytes of spills at the best config); take dQ from attention_bwd_dq (dq_atomic = false)"
  end,
  params = function(v)
    local D = tonumber(v.hdim:sub(2))
    return {
      -- as wide as the tiles (128 at d96): attention_bwd_dkdv.lua
      dQacc = tile.tensor("f32", { "B", "Hq", "Sq", D == 96 and 128 or D }),
      dQ = tile.tensor(v.dtype, { "B", "Hq", "Sq", D }, { "sdqb", "sdqh", "sdqs", 1 }),
    }
  end,
  body = function(k, p, c, v)
    -- the tiles' width: D, or 128 for D = 96 (gen's tiles are powers of two;
    -- the columns past 96 load as zeros and are not stored)
    local D = tonumber(v.hdim:sub(2))
    D = D == 96 and 128 or D
    local qb, bh = k:grid(tile.cdiv(p.Sq, c.BM), p.B * p.Hq)
    local b, h = bh // p.Hq, bh % p.Hq
    local dq = k:load(p.dQacc:tile({ b, h, qb, 0 }, { 1, 1, c.BM, D }))
    k:store(p.dQ:tile({ b, h, qb, 0 }, { 1, 1, c.BM, D }), dq:cast(v.dtype))
  end,
}
