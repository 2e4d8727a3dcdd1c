-- strided.lua: explicit strides, a rank-3 tensor, views at element offsets.
--
-- A holds B matrices of M x N, each stored column-major, at a batch stride
-- given at run time.  The kernel writes Y = A + 1 row-major; T = A, stored
-- column-major through strides (with ldt = M, each matrix of T is, in
-- memory, the row-major N x M transpose: a transpose is a store through
-- strides); and D[b, m, n] = A[b, m, n + 1] (a view one column to the
-- right; the last column reads 0).
local tile = require "tile"

return tile.kernel {
  name = "strided",
  doc = "Y = A + 1 (row-major), T = A (strided), D = A shifted left by one column.",
  config = { BM = 16, BN = 32, threads = 64 },
  params = function(v, c)
    return {
      A = tile.tensor("f32", { "B", "M", "N" }, { "sab", 1, "lda" }),   -- A[b, m, n] at b*sab + m + n*lda
      Y = tile.tensor("f32", { "B", "M", "N" }),                        -- row-major
      T = tile.tensor("f32", { "B", "M", "N" }, { "stb", 1, "ldt" }),   -- T[b, m, n] at b*stb + m + n*ldt
      D = tile.tensor("f32", { "B", "M", "N" }),
    }
  end,
  body = function(k, p, c)
    assert(p.A.rank == 3 and p.A.dtype == "f32")
    k:require(p.lda:ge(p.M), "A's matrices are column-major: lda >= M")   -- checked by the launcher
    local bm, bn, b = k:grid(tile.cdiv(p.M, c.BM), tile.cdiv(p.N, c.BN), p.B)
    local a = k:load(p.A:tile({ b, bm, bn }, { 1, c.BM, c.BN }))
    k:store(p.Y:tile({ b, bm, bn }, { 1, c.BM, c.BN }), a + 1)
    k:store(p.T:tile({ b, bm, bn }, { 1, c.BM, c.BN }), a)
    local m0, n0 = bm * c.BM, bn * c.BN
    local d = k:load(p.A:view({ b, m0, n0 + 1 }, { 1, c.BM, c.BN }))
    k:store(p.D:view({ b, m0, n0 }, { 1, c.BM, c.BN }), d)
  end,
}
