
/* Tensor-core helpers (PTX, sm_80 and later). */

/* ldmatrix .x4: lanes 8i..8i+7 give the addresses of the eight 16-byte rows
** of matrix i; r[i] receives this lane's part of matrix i: row lane / 4,
** elements 2 (lane % 4) and 2 (lane % 4) + 1 (in the low and high halves).
** _trans delivers each matrix transposed. */
LT_FN void lt_ldmatrix_x4(uint32_t r[4], const void *row) {
  const unsigned a = (unsigned)__cvta_generic_to_shared(row);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));
}
LT_FN void lt_ldmatrix_x4_trans(uint32_t r[4], const void *row) {
  const unsigned a = (unsigned)__cvta_generic_to_shared(row);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));
}

/* Two floats rounded to f16 / bf16 in one register, the first in the low
** half: how an mma operand register holds two consecutive k (one cvt). */
LT_FN uint32_t lt_pack_f16x2(float lo, float hi) {
  __half2 v = __floats2half2_rn(lo, hi);
  return *(uint32_t *)&v;
}
LT_FN uint32_t lt_pack_bf16x2(float lo, float hi) {
  __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *(uint32_t *)&v;
}

/* d += a @ b for one 16x8x16 tile of the warp, f32 accumulate (fragment
** layouts: PTX ISA, "Matrix Fragments for mma.m16n8k16"). */
LT_FN void lt_mma_16816_f16(float d[4], const uint32_t a[4], const uint32_t b[2]) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
               "{%8, %9}, {%0, %1, %2, %3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
LT_FN void lt_mma_16816_bf16(float d[4], const uint32_t a[4], const uint32_t b[2]) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
               "{%8, %9}, {%0, %1, %2, %3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* An f32 rounded to tf32 (10-bit mantissa, to nearest, ties away), in the
** f32 bits an m16n8k8 tf32 operand register holds. */
LT_FN uint32_t lt_tf32(float x) {
  uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return r;
}

/* d += a @ b for one 16x8x8 tile of the warp in tf32, f32 accumulate
** (PTX ISA, "Matrix Fragments for mma.m16n8k8"; d is laid out as above). */
LT_FN void lt_mma_1688_tf32(float d[4], const uint32_t a[4], const uint32_t b[2]) {
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
               "{%8, %9}, {%0, %1, %2, %3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* cp.async: 16 bytes from global to shared without passing through
** registers; src_bytes (0..16) are read, the rest zero-filled.  The copy
** lands when a wait covers its commit group. */
LT_FN void lt_cp_async16(void *smem, const void *gmem, int src_bytes) {
  const unsigned a = (unsigned)__cvta_generic_to_shared(smem);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(a), "l"(gmem), "r"(src_bytes) : "memory");
}
LT_FN void lt_cp_async_commit(void) { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
/* Waits until at most N of this thread's commit groups are in flight. */
template <int N> static __device__ __forceinline__ void lt_cp_async_wait(void) {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}
