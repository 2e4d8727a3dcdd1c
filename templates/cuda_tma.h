
/* Hopper's asynchronous copies and their barriers (sm_90; setmaxnreg
** sm_90a): what a warp-specialized stage ring is made of.  A producer
** thread copies tiles from global to shared memory with the bulk tensor
** copy engine (TMA), each copy signalling its bytes on the stage's "full"
** mbarrier; the consumers wait on that barrier's phase, read the stage
** (wgmma), and arrive on the stage's "empty" mbarrier, which the producer
** waits on before it fills the stage again.  The tensor maps the copies
** read are made on the host by lt_tma_encode (below) and passed to the
** kernel by value (const __grid_constant__ CUtensorMap).
** Shared addresses are the 32-bit .shared::cta ones (__cvta_generic_to_shared). */
#include <cuda.h>   /* CUtensorMap and its enums: types only, the program links no -lcuda */

/* ---- mbarrier (PTX ISA, "Parallel Synchronization and Communication
** Instructions: mbarrier") ----
** An mbarrier is a 64-bit object in shared memory (8-byte aligned) that
** counts a phase: the phase completes when its pending arrivals reach zero
** and its transaction count (tx-count: bytes announced by expect-tx and not
** yet delivered by complete-tx) is zero; then the next phase begins with
** the arrival count it was initialized with.  Waits name a phase by its
** parity: the current phase's or the one just before. */

/* mbarrier.init: `count` arrivals per phase (1 to 2^20 - 1), phase 0,
** tx-count 0.  One thread initializes; the others may use the barrier only
** after a barrier of the block that follows lt_mbar_init_fence. */
LT_FN void lt_mbar_init(uint64_t *bar, uint32_t count) {
  const uint32_t a = (uint32_t)__cvta_generic_to_shared(bar);
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(a), "r"(count) : "memory");
}
/* fence.mbarrier_init.release.cluster: the initializing thread's
** mbarrier.init operations are ordered before what other threads and the
** copy engine do with the barriers after the next block barrier (the only
** form the ISA has: release semantics, cluster scope). */
LT_FN void lt_mbar_init_fence(void) { asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory"); }
/* mbarrier.arrive: one arrival on the current phase, with release
** semantics (this thread's earlier memory accesses are ordered before what
** a thread that sees the phase complete does next).  The state it returns
** is not needed: waits go by parity, so the sink `_` takes it. */
LT_FN void lt_mbar_arrive(uint64_t *bar) {
  const uint32_t a = (uint32_t)__cvta_generic_to_shared(bar);
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(a) : "memory");
}
/* mbarrier.arrive.expect_tx: raises the current phase's tx-count by
** `bytes` (the bytes the copies that complete on this barrier will
** deliver), then arrives.  The phase cannot complete before those bytes
** are delivered, whatever order the arrival and the copies come in. */
LT_FN void lt_mbar_arrive_expect_tx(uint64_t *bar, uint32_t bytes) {
  const uint32_t a = (uint32_t)__cvta_generic_to_shared(bar);
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(a), "r"(bytes) : "memory");
}
/* mbarrier.try_wait.parity: 1 once the phase of that parity has completed
** (`parity` must be the current phase's or the previous one's: the wait
** for the current phase's parity returns 0 until it completes, the other
** parity names the phase before, complete already), with acquire
** semantics; 0 after a time limit the hardware chooses. */
LT_FN int lt_mbar_try_wait(uint64_t *bar, int parity) {
  const uint32_t a = (uint32_t)__cvta_generic_to_shared(bar);
  uint32_t done;
  asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
               : "=r"(done) : "r"(a), "r"(parity) : "memory");
  return (int)done;
}
/* Waits until the phase of parity `parity` has completed.  A ring of S
** stages whose fill i (0, 1, ...) uses stage i % S waits on the "full"
** barrier with parity (i / S) & 1, and the producer on the "empty" barrier
** with the other parity, ((i / S) & 1) ^ 1: its first pass over the ring
** names the phase before phase 0, complete from the start. */
LT_FN void lt_mbar_wait(uint64_t *bar, int parity) {
  while (!lt_mbar_try_wait(bar, parity)) {
  }
}

/* ---- proxies (PTX ISA, "Memory Consistency Model: proxies";
** "membar/fence": fence.proxy.async) ----
** The copy engine and wgmma access shared memory through the async proxy,
** ordinary loads and stores (and cp.async) through the generic proxy.
** Shared memory written by ordinary stores that the copy engine (a TMA
** store) or wgmma reads next needs this fence in each writing thread,
** before the barrier that hands the data over.  (Data a TMA load delivered
** needs no fence: the mbarrier phase it completed orders it.) */
LT_FN void lt_fence_proxy_async(void) { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }

/* bar.sync id, threads: a barrier of `threads` threads (a multiple of 32)
** on hardware barrier id (1 to 15; 0 is __syncthreads'), for a group of
** warps that syncs without the others: the consumer warpgroup handing its
** staged epilogue tile to the thread that stores it (PTX ISA, "bar,
** barrier"). */
LT_FN void lt_named_barrier(int id, int threads) { asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory"); }

/* bar.red.or.pred id, threads: lt_named_barrier that also returns whether
** `pred` held in any of its threads (PTX ISA, "bar, barrier": the
** reduction form), so that one thread's finding reaches the group. */
LT_FN int lt_named_barrier_or(int id, int threads, int pred) {
  int r;
  asm volatile("{\n .reg .pred p, q;\n setp.ne.s32 p, %1, 0;\n bar.red.or.pred q, %2, %3, p;\n selp.s32 %0, 1, 0, q;\n}\n"
               : "=r"(r) : "r"(pred), "r"(id), "r"(threads) : "memory");
  return r;
}

/* ---- split-K (gen/lower/splitk.c): the parts of a tile meet in a
** workspace in global memory.  Each part stores its partial accumulator
** (st.global.cg: to L2, where the other SMs read), fences it, and the
** warpgroup's first thread counts the part on the tile's counter; the
** part that counts last reads the others' (ld.global.cg, after a fence)
** and resets the counter to 0 for the next launch.  The CUDA
** programming guide's threadfence pattern ("Memory Fence Functions"). ---- */

/* Counts one part of `parts` on counter *sem; returns whether it was the
** last, then leaving the counter at 0. */
LT_FN int lt_split_arrive(unsigned *sem, int parts) {
  const int last = atomicAdd(sem, 1u) == (unsigned)parts - 1;
  if (last) atomicExch(sem, 0u);
  return last;
}
LT_FN void lt_split_fence(void) { __threadfence(); }
LT_FN void lt_split_store4(float *p, float a, float b, float c, float d) { __stcg((float4 *)p, make_float4(a, b, c, d)); }
LT_FN float4 lt_split_load4(const float *p) { return __ldcg((const float4 *)p); }

/* ---- bulk tensor copies (PTX ISA, "Data Movement and Conversion
** Instructions: cp.async.bulk.tensor"; "Tensor Access"; the tensor map:
** "Tensor-map") ----
** Coordinates are in elements, innermost dimension first (x: the column
** of a row-major matrix, y: its row), signed: a box that reaches past
** either edge of the tensor reads zeros there (the map's OOB fill) and a
** store writes only the elements inside.  The shared-memory tile is the
** box in row-major order, its 16-byte chunks swizzled as the map says
** (128-byte swizzle: chunk c of row r at c ^ (r % 8), the same pattern
** wgmma's descriptors read; the tile must be 1024-byte aligned for it). */

/* A box of the tensor `map` at (x, y) into shared memory at dst; its bytes
** (the whole box, filled elements too) complete on `bar` as transaction
** bytes, so the thread that issues it arrives on `bar` with expect-tx of
** the stage's bytes.  `map`: the address of a __grid_constant__ kernel
** parameter (or of a map in global or constant memory). */
LT_FN void lt_tma_load_2d(void *dst, const CUtensorMap *map, int x, int y, uint64_t *bar) {
  const uint32_t d = (uint32_t)__cvta_generic_to_shared(dst), b = (uint32_t)__cvta_generic_to_shared(bar);
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n"
               ::"r"(d), "l"((uint64_t)map), "r"(x), "r"(y), "r"(b) : "memory");
}
/* The same for the box at (x, y, z) of a 3-D map (a batch of matrices:
** z the matrix) and (x, y, z, w) of a 4-D one. */
LT_FN void lt_tma_load_3d(void *dst, const CUtensorMap *map, int x, int y, int z, uint64_t *bar) {
  const uint32_t d = (uint32_t)__cvta_generic_to_shared(dst), b = (uint32_t)__cvta_generic_to_shared(bar);
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];\n"
               ::"r"(d), "l"((uint64_t)map), "r"(x), "r"(y), "r"(z), "r"(b) : "memory");
}
LT_FN void lt_tma_load_4d(void *dst, const CUtensorMap *map, int x, int y, int z, int w, uint64_t *bar) {
  const uint32_t d = (uint32_t)__cvta_generic_to_shared(dst), b = (uint32_t)__cvta_generic_to_shared(bar);
  asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6];\n"
               ::"r"(d), "l"((uint64_t)map), "r"(x), "r"(y), "r"(z), "r"(w), "r"(b) : "memory");
}
/* The shared tile at src into the box of `map` at (x, y): only the
** elements inside the tensor are written.  The copy reads src after the
** issue, asynchronously: the writers of src fence (lt_fence_proxy_async)
** before the barrier that precedes the issue, and src is not written
** again before lt_tma_store_wait_read covers the copy's group. */
LT_FN void lt_tma_store_2d(const CUtensorMap *map, int x, int y, const void *src) {
  const uint32_t s = (uint32_t)__cvta_generic_to_shared(src);
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];\n"
               ::"l"((uint64_t)map), "r"(x), "r"(y), "r"(s) : "memory");
}
/* The same for the box at (x, y, z) of a 3-D map and (x, y, z, w) of a
** 4-D one. */
LT_FN void lt_tma_store_3d(const CUtensorMap *map, int x, int y, int z, const void *src) {
  const uint32_t s = (uint32_t)__cvta_generic_to_shared(src);
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%0, {%1, %2, %3}], [%4];\n"
               ::"l"((uint64_t)map), "r"(x), "r"(y), "r"(z), "r"(s) : "memory");
}
LT_FN void lt_tma_store_4d(const CUtensorMap *map, int x, int y, int z, int w, const void *src) {
  const uint32_t s = (uint32_t)__cvta_generic_to_shared(src);
  asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group [%0, {%1, %2, %3, %4}], [%5];\n"
               ::"l"((uint64_t)map), "r"(x), "r"(y), "r"(z), "r"(w), "r"(s) : "memory");
}
/* cp.reduce.async.bulk .add.f32: adds the `bytes` (a multiple of 16) of
** f32 at shared src to those at global dst (16-byte aligned, both), by the
** copy engine, each element's add atomic; in this thread's bulk group, as
** the TMA stores: src is not written again before lt_tma_store_wait_read
** covers the group, and its writers fence (lt_fence_proxy_async) before
** the barrier that precedes the issue. */
LT_FN void lt_bulk_reduce_add_f32(float *dst, const float *src, uint32_t bytes) {
  const uint32_t s = (uint32_t)__cvta_generic_to_shared(src);
  asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;\n"
               ::"l"(dst), "r"(s), "r"(bytes) : "memory");
}
/* cp.async.bulk.commit_group: this thread's bulk stores issued since the
** last commit form a group. */
LT_FN void lt_tma_store_commit(void) { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
/* cp.async.bulk.wait_group.read N: waits until at most N of this thread's
** groups still read their shared source (the source may then be written);
** lt_tma_store_wait<N>: until at most N are incomplete (their global
** writes done too). */
template <int N> static __device__ __forceinline__ void lt_tma_store_wait_read(void) {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}
template <int N> static __device__ __forceinline__ void lt_tma_store_wait(void) {
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory");
}
/* prefetch.tensormap: brings the map into the cache the copy engine reads
** it through, so the first copy does not wait for it. */
LT_FN void lt_tma_prefetch_map(const CUtensorMap *map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"((uint64_t)map) : "memory");
}

/* ---- the consumers' epilogue ----
** a / b to 2 ulp over the whole range (div.full.f32: a reciprocal and a
** product, scaled; not IEEE's rounding, but without its slow path, which
** is a call): the divisions plan.c makes fast, in the epilogues of
** warp-specialized kernels that round to f16 or bf16. */
LT_FN float lt_fdiv(float a, float b) {
  float y;
  asm("div.full.f32 %0, %1, %2;" : "=f"(y) : "f"(a), "f"(b));
  return y;
}

/* ---- the persistent grid, on the host ----
** The SMs of the current device, into *n: queried once a device
** (cudaDeviceGetAttribute), then cached; returns 0 or the runtime's error. */
static inline __attribute__((unused)) int lt_sm_count(int *n) {
  static int sms[64];   /* a race between host threads stores the same count */
  int dev = 0;
  cudaError_t err = cudaGetDevice(&dev);
  if (err != cudaSuccess) return (int)err;
  if (dev >= 0 && dev < 64 && sms[dev] > 0) {
    *n = sms[dev];
    return 0;
  }
  err = cudaDeviceGetAttribute(n, cudaDevAttrMultiProcessorCount, dev);
  if (err != cudaSuccess) return (int)err;
  if (dev >= 0 && dev < 64) sms[dev] = *n;
  return 0;
}

/* ---- registers (PTX ISA, "Miscellaneous Instructions: setmaxnreg";
** sm_90a) ----
** Sets the per-thread register limit of the executing warp to R (24 to
** 256, a multiple of 8): .dec gives registers back to the block's pool,
** .inc takes them from it, waiting until the pool has enough.  All four
** warps of a warpgroup execute the same one; it takes effect only in a
** kernel with a register limit at entry (__launch_bounds__(threads, 1)),
** and the compiler warns (C7508) when it cannot honour it.  A producer
** warpgroup that only issues copies goes down (40), consumer warpgroups
** that hold wgmma accumulators go up (232): 128 x 40 + 256 x 232 fits the
** 65536 registers of a 384-thread block. */
template <int R> static __device__ __forceinline__ void lt_setmaxnreg_inc(void) {
  static_assert(R >= 24 && R <= 256 && R % 8 == 0, "setmaxnreg: 24..256, a multiple of 8");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(R));
}
template <int R> static __device__ __forceinline__ void lt_setmaxnreg_dec(void) {
  static_assert(R >= 24 && R <= 256 && R % 8 == 0, "setmaxnreg: 24..256, a multiple of 8");
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(R));
}

/* ---- the tensor map, on the host (CUDA driver API,
** cuTensorMapEncodeTiled) ----
** The launcher encodes one map per tensor and box its copies read: a
** tensor of `rank` dimensions (1 to 5), dims[0] the innermost (the
** elements of a row, stride 1), strides[i] the elements from one index of
** dimension i + 1 to the next, read and written in boxes of box[0] x
** box[1] ...  The driver's function is reached through the runtime
** (cudaGetDriverEntryPointByVersion, or cudaGetDriverEntryPoint before
** CUDA 12.5), so nothing links -lcuda.  Returns 0, or an error the
** launcher answers by taking its cp.async path: cudaErrorInvalidValue when
** the tensor breaks a rule of the copy engine (checked here first: the
** base address and every stride 16-byte aligned, strides below 2^40 bytes,
** sizes 1 to 2^32, box sides 1 to 256, the box row a multiple of 16 bytes
** and no wider than the swizzle span) or the driver refuses it;
** cudaErrorNotSupported when the driver has no such function.  A
** dimension of size 1 has no stride to keep: any stride passes there (a
** batch of one matrix, whatever its batch stride).  Out-of-bounds elements
** of a box read as zero. */
enum { LT_TMA_F16 = 0, LT_TMA_BF16 = 1, LT_TMA_F32 = 2, LT_TMA_U8 = 3 };   /* U8: fp8's bytes, copied as they are */

typedef CUresult (*lt_tma_encode_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                                     const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                                     CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

static inline __attribute__((unused)) int lt_tma_encode(CUtensorMap *map, const void *base, int dtype, int rank,
                                                        const uint64_t *dims, const uint64_t *strides,
                                                        const uint32_t *box, int swizzle_bytes) {
  static lt_tma_encode_fn encode = NULL;   /* looked up once; a second lookup racing the first finds the same */
  const uint64_t esize = dtype == LT_TMA_F32 ? 4 : dtype == LT_TMA_U8 ? 1 : 2;
  const uint64_t span = swizzle_bytes == 0 ? 0 : (uint64_t)swizzle_bytes;
  if (!map || !base || rank < 1 || rank > 5 ||
      (dtype != LT_TMA_F16 && dtype != LT_TMA_BF16 && dtype != LT_TMA_F32 && dtype != LT_TMA_U8))
    return cudaErrorInvalidValue;
  if (swizzle_bytes != 0 && swizzle_bytes != 32 && swizzle_bytes != 64 && swizzle_bytes != 128) return cudaErrorInvalidValue;
  if ((uintptr_t)base % 16) return cudaErrorInvalidValue;
  cuuint64_t dim[5], stride[4];
  cuuint32_t boxd[5], step[5];
  for (int i = 0; i < rank; i++) {
    if (dims[i] == 0 || dims[i] > ((uint64_t)1 << 32) || box[i] == 0 || box[i] > 256) return cudaErrorInvalidValue;
    dim[i] = dims[i], boxd[i] = box[i], step[i] = 1;
  }
  for (int i = 1; i < rank; i++) {   /* in bytes; a dimension of one index: any 16-byte multiple will do */
    uint64_t b = dims[i] == 1 ? (i == 1 ? (dims[0] * esize + 15) / 16 * 16 : stride[i - 2] * dims[i - 1]) : strides[i - 1] * esize;
    if (b == 0 || b % 16 || b >= ((uint64_t)1 << 40)) return cudaErrorInvalidValue;
    stride[i - 1] = b;
  }
  if ((box[0] * esize) % 16 || (span && box[0] * esize > span)) return cudaErrorInvalidValue;
  if (!encode) {
    void *fn = NULL;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
    const cudaError_t err = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found);
#else
    const cudaError_t err = cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &fn, cudaEnableDefault, &found);
#endif
    if (err != cudaSuccess || found != cudaDriverEntryPointSuccess || !fn) return cudaErrorNotSupported;
    encode = (lt_tma_encode_fn)fn;
  }
  const CUtensorMapDataType dt = dtype == LT_TMA_F16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                 : dtype == LT_TMA_BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                 : dtype == LT_TMA_U8   ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                                                        : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  const CUtensorMapSwizzle sw = swizzle_bytes == 128 ? CU_TENSOR_MAP_SWIZZLE_128B
                                : swizzle_bytes == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                : swizzle_bytes == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                                      : CU_TENSOR_MAP_SWIZZLE_NONE;
  const CUresult r = encode(map, dt, (cuuint32_t)rank, (void *)base, dim, stride, boxd, step,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, sw, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS ? 0 : cudaErrorInvalidValue;
}

/* A row-major matrix of `rows` x `cols` elements, `ld` elements from one
** row to the next (ld >= cols), in boxes of box_rows x box_cols: the 2-D
** case of lt_tma_encode. */
static inline __attribute__((unused)) int lt_tma_encode_2d(CUtensorMap *map, const void *base, int dtype, uint64_t rows,
                                                           uint64_t cols, uint64_t ld, uint32_t box_rows,
                                                           uint32_t box_cols, int swizzle_bytes) {
  if (ld < cols) return cudaErrorInvalidValue;
  const uint64_t dims[2] = {cols, rows}, strides[1] = {ld};
  const uint32_t box[2] = {box_cols, box_rows};
  return lt_tma_encode(map, base, dtype, 2, dims, strides, box, swizzle_bytes);
}
