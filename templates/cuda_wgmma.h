
/* wgmma (sm_90a; PTX ISA, "Asynchronous Warpgroup Level Matrix Multiply-
** Accumulate").  A warpgroup of four consecutive warps issues each
** wgmma.mma_async together; B is read from shared memory by the tensor
** cores through a descriptor, A the same way or from registers (each
** warp's 16 rows, the mma.sync A fragment), and the result lands in the
** mma.sync result layout of each warp's 16 rows. */

/* The descriptor of a shared-memory operand: the address of its first
** element, the byte offsets of the next 64 columns (lbo; MN-major only)
** and of the next 8 rows (sbo), and the swizzle (1: 128-byte rows, 2: 64,
** 3: 32) its tile is stored with. */
LT_FN uint64_t lt_wgmma_desc(const void *p, uint32_t lbo, uint32_t sbo, uint32_t swizzle) {
  const uint32_t a = (uint32_t)__cvta_generic_to_shared(p);
  return (uint64_t)((a & 0x3FFFF) >> 4) | (uint64_t)(lbo >> 4) << 16 | (uint64_t)(sbo >> 4) << 32 |
         (uint64_t)swizzle << 62;
}
/* Orders this thread's register writes (accumulators, A fragments) before
** the wgmmas that follow; every warp of the warpgroup runs it. */
LT_FN void lt_wgmma_fence(void) { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
/* Closes the wgmmas issued so far into a group; lt_wgmma_wait<N> waits
** until at most N groups are in flight. */
LT_FN void lt_wgmma_commit(void) { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> static __device__ __forceinline__ void lt_wgmma_wait(void) {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
/* An accumulator's or the A fragments' registers, pinned here: the
** compiler moves neither their writes below the fence nor their reads
** above the wait. */
template <int N> static __device__ __forceinline__ void lt_wgmma_settle(float (&d)[N]) {
  #pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(d[i])::"memory");
}
template <int K> static __device__ __forceinline__ void lt_wgmma_settle(uint32_t (&a)[K][1][4]) {
  #pragma unroll
  for (int i = 0; i < K * 4; ++i) asm volatile("" : "+r"(a[i / 4][0][i % 4])::"memory");
}
template <int N> static __device__ __forceinline__ void lt_wgmma_settle(uint32_t (&a)[N]) {   /* one slot of them */
  #pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+r"(a[i])::"memory");
}
/* The two warpgroups of a 256-thread block taking turns at the tensor
** cores (ping-pong): named barrier 1 + g is warpgroup g's turn.
** lt_wg_turn_wait(g) waits for it (the group's 128 threads sync with the
** other group's 128 arrivals); lt_wg_turn_pass(g) hands the turn to the
** other group without waiting.  Barrier 0 stays __syncthreads'. */
LT_FN void lt_wg_turn_wait(int g) {
  if (g == 0) asm volatile("bar.sync 1, 256;\n" ::: "memory");
  else asm volatile("bar.sync 2, 256;\n" ::: "memory");
}
LT_FN void lt_wg_turn_pass(int g) {
  if (g == 0) asm volatile("bar.arrive 2, 256;\n" ::: "memory");
  else asm volatile("bar.arrive 1, 256;\n" ::: "memory");
}
/* The block barrier, with what the tensor cores read next in shared memory
** made visible to them first: ordinary and cp.async stores are in the
** generic proxy, wgmma's reads in the async proxy. */
LT_FN void lt_wgmma_barrier(void) {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
}
