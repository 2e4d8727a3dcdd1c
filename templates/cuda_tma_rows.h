
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
** the stage's barrier).  A row at a time, its chunks unrolled (panels,
** span and cols are constants where the call is inlined): those of rows
** in [y, h) go by cp.async (16 bytes, the part past `cols` zero-filled),
** all in flight together and waited for once, the others are stored as
** zeros.  With a load a chunk, each waited for before the next, and the
** chunk's indices divided out of a flat loop, the copies of the 12- and
** 37-row sequences at the tensors' start held up the mix 12, 37, 1000,
** 4096, 8191 of attention_varlen -D tma=true (H200: 1671 us causal, 1598
** with the chunks by cp.async in that flat loop; bench/results/
** 2026-11-25-h200-attention-varlen-persistent.txt).  Byte by byte where
** src or rs is off the 16-byte grid (no tensor map is made then: kept for
** the helper's contract).  No data passes through registers: inlined into
** a producer warpgroup at 40 registers, unrolled loads and stores of
** uint4 spilled (ptxas 13.0, attention_varlen -D tma=true: 204 bytes). */
LT_FN void lt_tma_rows_copy(void *dst, const char *src, int64_t rs, int y, int hi, int n, int box, int panels, int span,
                            int64_t cols) {
  const int h = hi < 0 ? 0 : hi < n ? hi : n, chunks = span / 16;
  const bool vec = ((uintptr_t)src | (uint64_t)rs) % 16 == 0;
  #pragma unroll 1
  for (int r = 0; r < box; ++r) {
    const bool in = y + r < h;
    const int x = r * span / 128 % chunks;   /* the row's swizzle */
    const char *g = src + (int64_t)(y + r) * rs;
    #pragma unroll
    for (int i = 0; i < panels * chunks; ++i) {
      const int c = i % chunks, p = i / chunks;
      const int64_t col = (int64_t)p * span + c * 16;   /* bytes */
      char *d = (char *)dst + (p * box + r) * span + ((c ^ x) * 16);
      if (in && col < cols && vec) {
        const unsigned a = (unsigned)__cvta_generic_to_shared(d);
        const int bytes = col + 16 <= cols ? 16 : (int)(cols - col);   /* the rest of the 16 zero-filled */
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(a), "l"(g + col), "r"(bytes) : "memory");
      } else {
        uint4 v;
        v.x = v.y = v.z = v.w = 0;
        if (in && col < cols)
          for (int b = 0; b < 16 && col + b < cols; ++b) ((char *)&v)[b] = g[col + b];
        *(uint4 *)d = v;
      }
    }
  }
  asm volatile("cp.async.wait_all;\n" ::: "memory");   /* this thread's chunks have landed */
  lt_fence_proxy_async();
}
