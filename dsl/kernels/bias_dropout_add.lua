-- bias_dropout_add.lua: Y[m, n] = R[m, n] + dropout(X[m, n] + B[n], p), the
-- residual branch of a transformer block in training.
--
-- Dropout keeps an element where its uniform number is < 1 - p and scales
-- it by 1 / (1 - p), as F.dropout does.  The numbers are Philox4x32-10's
-- (docs/dsl.md, tile.rand): row m takes the Philox blocks (counters)
-- offset + m * ceil(N / 4) on, four words each, element n word n % 4 of
-- block n // 4, that is tile.rand(seed, 4 * (offset + m * ceil(N / 4)) + n).
-- A thread's four consecutive columns from a multiple of 4 share one block,
-- so the compiler runs one Philox for them, not four (the kernel is bound by
-- Philox's integer work, not by memory, otherwise).  A call takes
-- M * ceil(N / 4) blocks: the next call's offset is that much further.  The
-- mask is never stored: a backward pass makes it again from the same seed
-- and offset.  Programs tile Y in BM x BN blocks; the bias row is loaded
-- once per block.  f16 and bf16 compute in f32 and round once, on the
-- store.  On sm90a four builds (`builds`), 16 elements a thread in each
-- (in 16 bits two 16-byte vectors of X and two of R): 2 x 2048 tiles where
-- N is a multiple of 2048, 4 x 1024 where it is one of 1024, 32 x 128 for
-- other N whose rows start on the 16-byte grid (N a multiple of 8 in 16
-- bits, of 4 in f32), whose last column tile then ends less than 128
-- columns past N (a tile's columns past N still run their Philox), and
-- 16 x 256 for the rest: there rows start off the grid and a load takes
-- the two vectors a piece straddles, and a warp of 16 x 256 tiles covers
-- one row, so all its lanes take the same path (32 x 128 puts two rows in
-- a warp, one on the grid and one off it: 1.33x the time at 12289 x 4100).
local tile = require "tile"

return tile.kernel {
  name = "bias_dropout_add",
  doc = "Y = R + dropout(X + B, p) over [M, N] (B [N] broadcast over the rows): an element is kept, times "
     .. "1 / (1 - p), where tile.rand(seed, 4 * (offset + m * ceil(N / 4)) + n) < 1 - p (Philox block "
     .. "offset + m * ceil(N / 4) + n // 4, word n % 4); 0 <= p < 1; a call takes M * ceil(N / 4) blocks.",
  variants = { dtype = { "f32", "f16", "bf16" } },
  -- ONGRID = 1: the build runs only where rows start on the 16-byte grid
  config = { BM = 4, BN = 1024, threads = 256, ONGRID = 0 },
  -- sm90a: wider tiles where N allows, narrower ones where it is ragged
  -- (bench/results/2026-11-25-h200-dropout-tiles.txt,
  -- 2026-11-26-h200-dropout-ragged.txt); a build of BN >= 1024 runs where N
  -- is a multiple of BN, one of ONGRID = 1 where rows start on the 16-byte
  -- grid (the body's k:runs_when)
  builds = function(v, target)
    if target ~= "sm90a" then return nil end
    return { { "wide", { BM = 2, BN = 2048 } }, { "rows", {} }, { "ragged", { BM = 32, BN = 128, ONGRID = 1 } },
             { "offgrid", { BM = 16, BN = 256 } } }
  end,
  params = function(v)
    return {
      X = tile.tensor(v.dtype, { "M", "N" }),
      B = tile.tensor(v.dtype, { "N" }),
      R = tile.tensor(v.dtype, { "M", "N" }),
      Y = tile.tensor(v.dtype, { "M", "N" }),
      p = tile.scalar("f32"),
      seed = tile.scalar("i64"),
      offset = tile.scalar("i64"),
    }
  end,
  body = function(k, p, c, v)
    k:require(tile.both(p.offset:ge(0), p.offset:le(2 ^ 53)), "0 <= offset <= 2^53 (Philox blocks: the counters' int64 math cannot overflow)")
    if k.target == "sm90a" and c.BN >= 1024 then
      k:runs_when((p.N % c.BN):eq(0), ("N is a multiple of %d"):format(c.BN))
    elseif k.target == "sm90a" and c.ONGRID == 1 then
      local vec = v.dtype == "f32" and 4 or 8   -- elements in 16 bytes
      k:runs_when((p.N % vec):eq(0), ("rows start on the 16-byte grid (N a multiple of %d)"):format(vec))
    end
    local bn, bm = k:grid(tile.cdiv(p.N, c.BN), tile.cdiv(p.M, c.BM))
    local h = k:load(p.X:tile({ bm, bn }, { c.BM, c.BN })):cast("f32") + k:load(p.B:tile({ bn }, { c.BN })):cast("f32")
    local r = k:load(p.R:tile({ bm, bn }, { c.BM, c.BN })):cast("f32")
    local row = (k:iota({ c.BM, c.BN }, 1) + bm * c.BM):cast("i64")
    local col = k:iota({ c.BM, c.BN }, 2) + bn * c.BN
    -- 4 * (offset + m * ceil(N / 4)) + n, written as block * 4 + word, so
    -- that the compiler sees one block for the four columns of a quad
    local block = row * tile.cdiv(p.N, 4) + p.offset + (col >> 2):cast("i64")
    local keep = tile.rand(p.seed, block * 4 + (col & 3):cast("i64")):lt(1 - p.p)
    local scale = 1 / (1 - p.p)
    k:store(p.Y:tile({ bm, bn }, { c.BM, c.BN }), r + tile.where(keep, h * scale, 0))
  end,
}
