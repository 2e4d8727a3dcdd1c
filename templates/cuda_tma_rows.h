
/* Tensor maps of X:rows(lo, hi) views (gen's TensorMap.rows; included
** where a kernel's TMA copies read one).  Such a map has two row
** dimensions, both with the rows' stride: r, of `box` indices (the box's
** rows; the tensor's n rows where fewer), and e after it, of n - box + 1
** (1 where n < box), from the tensor's own base, so element (r, e) is row
** r + e.  A box of rows y .. y + box - 1 (y >= lo >= 0) lies at e =
** lt_tma_rows_e(y, hi, n, box), r = lt_tma_rows_r(y, e, box): e = y where
** the box ends at or before hi (and n), else e = h - box (h: hi clamped to
** [0, n]), so that its rows from h on have r >= box, outside the map, read
** as zeros (where e < 0 the whole box is outside).  The copy engine reads
** no row outside [0, h).  That leaves the boxes whose rows cross an h
** below box (a short sequence at the tensor's start): e would be negative,
** so lt_tma_rows_by_thread says the issuing thread copies those itself
** (lt_tma_rows_copy), before it arms the stage's barrier. */
LT_FN int lt_tma_rows_e(int y, int hi, int n, int box) {
  const int h = hi < 0 ? 0 : hi < n ? hi : n;
  return (long long)y + box <= h ? y : h - box;
}
LT_FN int lt_tma_rows_r(int y, int e, int box) {
  const long long r = (long long)y - e;
  return (int)(r < box ? r : box);
}
LT_FN bool lt_tma_rows_by_thread(int y, int hi, int n, int box) {
  const int h = hi < 0 ? 0 : hi < n ? hi : n;
  return h < box && y < h && (long long)y + box > h;
}
/* The box of rows y .. y + box - 1 (lt_tma_rows_by_thread's) by this
** thread, as the copy engine would land it: `panels` panels of `box` rows
** of `span` bytes (the swizzle's: 32, 64 or 128), 16-byte chunk c of row r
** of a panel at c ^ (r * span / 128 % (span / 16)), into dst (1024-byte
** aligned); the rows in [y, h) and the columns below `cols` bytes from
** src (row 0's first column; `rs`: the rows' stride in bytes), every
** other byte 0.  Then fenced for the async proxy (wgmma reads it after
** the stage's barrier).  Byte by byte where src or rs is off the 16-byte
** grid.  One chunk at a time, not unrolled: inlined into a producer
** warpgroup at 40 registers, the unrolled loops spilled (ptxas 13.0,
** attention_varlen -D tma=true: 204 bytes). */
LT_FN void lt_tma_rows_copy(void *dst, const char *src, int64_t rs, int y, int hi, int n, int box, int panels, int span,
                            int64_t cols) {
  const int h = hi < 0 ? 0 : hi < n ? hi : n, chunks = span / 16;
  const bool vec = ((uintptr_t)src | (uint64_t)rs) % 16 == 0;
  #pragma unroll 1
  for (int i = 0; i < panels * box * chunks; ++i) {   /* one 16-byte chunk at a time: few registers */
    const int c = i % chunks, r = i / chunks % box, p = i / chunks / box;
    const int64_t col = (int64_t)p * span + c * 16;   /* bytes */
    uint4 v;
    v.x = v.y = v.z = v.w = 0;
    if (y + r < h && col < cols) {
      const char *g = src + (int64_t)(y + r) * rs + col;
      if (vec && col + 16 <= cols) v = *(const uint4 *)g;
      else
        for (int b = 0; b < 16 && col + b < cols; ++b) ((char *)&v)[b] = g[b];
    }
    *(uint4 *)((char *)dst + (p * box + r) * span + ((c ^ (r * span / 128 % chunks)) * 16)) = v;
  }
  lt_fence_proxy_async();
}
