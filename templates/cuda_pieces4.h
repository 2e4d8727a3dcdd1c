
/* cp.async of a chunk in four 4-byte pieces (after cuda_pieces.h; lower/copy.c, View.pieces). */

/* A 16-byte chunk of shared memory from a 4-byte aligned source, given
** as lt_cp_async16 is given it (the chunk's address, or the tensor's base
** where src_bytes is 0): four cp.async.ca of 4 bytes, each reading its
** part of the chunk's src_bytes (0..16) and zero-filling the rest; one
** that holds none names src itself.  The chunks of a row 16- or 8-byte
** aligned take lt_cp_async_pieces (a branch apart: predicated in one asm
** with those, the 4-byte pieces cost every chunk their instructions, and
** the tn GEMM at M = 100 fell from 0.60x to 0.46x cuBLAS, H200). */
LT_FN void lt_cp_async_pieces4(void *smem, const void *src, int src_bytes) {
  const unsigned a = (unsigned)__cvta_generic_to_shared(smem);
  asm volatile(
      "{\n"
      "  .reg .pred p;\n"
      "  .reg .b32 n;\n"
      "  min.s32 n, %2, 4;\n"                           /* bytes 0..3 */
      "  cp.async.ca.shared.global [%0], [%1], 4, n;\n"
      "  sub.s32 n, %2, 4;\n"                           /* bytes 4..7 */
      "  min.s32 n, n, 4;\n"
      "  max.s32 n, n, 0;\n"
      "  setp.gt.s32 p, n, 0;\n"
      "  @p cp.async.ca.shared.global [%0+4], [%1+4], 4, n;\n"
      "  @!p cp.async.ca.shared.global [%0+4], [%1], 4, 0;\n"
      "  sub.s32 n, %2, 8;\n"                           /* bytes 8..11 */
      "  min.s32 n, n, 4;\n"
      "  max.s32 n, n, 0;\n"
      "  setp.gt.s32 p, n, 0;\n"
      "  @p cp.async.ca.shared.global [%0+8], [%1+8], 4, n;\n"
      "  @!p cp.async.ca.shared.global [%0+8], [%1], 4, 0;\n"
      "  sub.s32 n, %2, 12;\n"                          /* bytes 12..15 */
      "  max.s32 n, n, 0;\n"
      "  setp.gt.s32 p, n, 0;\n"
      "  @p cp.async.ca.shared.global [%0+12], [%1+12], 4, n;\n"
      "  @!p cp.async.ca.shared.global [%0+12], [%1], 4, 0;\n"
      "}\n" ::"r"(a),
      "l"(src), "r"(src_bytes)
      : "memory");
}
