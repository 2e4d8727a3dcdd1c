
/* cp.async of a chunk in one 16-byte piece or two 8-byte ones (after cuda_mma.h; lower/copy.c, View.pieces). */

/* A 16-byte chunk of shared memory from an 8-byte aligned source whose
** row may start off the 16-byte grid, given as lt_cp_async16 is given it
** (the chunk's address, or the tensor's base where src_bytes is 0): one
** cp.async of 16 bytes where the source is 16-byte aligned, else two of 8
** (cp.async.ca: the size under 16).  Of the chunk's src_bytes (0..16) each
** piece reads those it holds and zero-fills the rest; one that holds none
** names src itself.  One asm statement, its cp.asyncs predicated on the
** source's alignment, and nothing kept for them outside it: the caller
** holds what it holds for lt_cp_async16 (a branch for each size, each a
** call with the tensor's base beside the address, pushed ptxas into
** spilling the sm_80 attention dK/dV kernels at D = 32 and 64). */
LT_FN void lt_cp_async_pieces(void *smem, const void *src, int src_bytes) {
  const unsigned a = (unsigned)__cvta_generic_to_shared(smem);
  asm volatile(
      "{\n"
      "  .reg .pred w16, p;\n"
      "  .reg .b32 n;\n"
      "  cvt.u32.u64 n, %1;\n"
      "  and.b32 n, n, 15;\n"
      "  setp.eq.u32 w16, n, 0;\n"                      /* one piece of 16, else two of 8 */
      "  @w16 cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
      "  min.s32 n, %2, 8;\n"                           /* bytes 0..7 */
      "  @!w16 cp.async.ca.shared.global [%0], [%1], 8, n;\n"
      "  sub.s32 n, %2, 8;\n"                           /* bytes 8..15 */
      "  max.s32 n, n, 0;\n"
      "  setp.gt.and.s32 p, n, 0, !w16;\n"
      "  @p cp.async.ca.shared.global [%0+8], [%1+8], 8, n;\n"
      "  setp.eq.and.s32 p, n, 0, !w16;\n"
      "  @p cp.async.ca.shared.global [%0+8], [%1], 8, 0;\n"
      "}\n" ::"r"(a),
      "l"(src), "r"(src_bytes)
      : "memory");
}
