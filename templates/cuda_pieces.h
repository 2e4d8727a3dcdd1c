
/* cp.async of 8- and 4-byte pieces (after cuda_mma.h; lower/copy.c, View.pieces). */

/* A 16-byte chunk of shared memory from a source off the 16-byte grid:
** cp.async of 8-byte pieces (lt_cp_async8x2: a source 8-byte aligned) or
** of 4-byte ones (lt_cp_async4x4: 4-byte aligned), cp.async.ca (the sizes
** under 16); of the chunk's src_bytes (0..16), each piece reads those it
** holds and zero-fills the rest, and one that holds none names `none` (the
** tensor's base, as lt_cp_async16 is given for a chunk outside). */
LT_FN void lt_cp_async8x2(void *smem, const void *gmem, const void *none, int src_bytes) {
  const unsigned a = (unsigned)__cvta_generic_to_shared(smem);
  const char *g = (const char *)gmem;
  const int n0 = min(max(src_bytes, 0), 8), n1 = min(max(src_bytes - 8, 0), 8);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(a), "l"(n0 > 0 ? g : none), "r"(n0) : "memory");
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(a + 8), "l"(n1 > 0 ? g + 8 : none), "r"(n1)
               : "memory");
}
LT_FN void lt_cp_async4x4(void *smem, const void *gmem, const void *none, int src_bytes) {
  const unsigned a = (unsigned)__cvta_generic_to_shared(smem);
  const char *g = (const char *)gmem;
#pragma unroll
  for (int p = 0; p < 4; ++p) {
    const int n = min(max(src_bytes - 4 * p, 0), 4);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(a + 4 * p), "l"(n > 0 ? g + 4 * p : none),
                 "r"(n) : "memory");
  }
}
