/*
** unit_tma.cpp: unit tests of the emulator's model of Hopper's
** asynchronous copies (templates/emu_cuda.h, the part after wgmma; the
** primitives of templates/cuda_tma.h), built with -Itemplates.
**
** 1. Tensor maps: lt_tma_encode_2d refuses what cuTensorMapEncodeTiled's
**    documentation refuses.
** 2. TMA loads of random data into shared memory, every swizzle (none, 32,
**    64, 128 bytes), bf16 and f32, boxes reaching past each edge of the
**    tensor, at a 1024-byte aligned destination and at one that is not:
**    the shared bytes are compared with a placement written here from the
**    swizzle's chunk formula (chunk c of row r at c ^ f(r)), the elements
**    outside the tensor with zero.
**    Maps of X:rows(lo, hi) views (a dimension of row ends,
**    templates/cuda_tma_rows.h), with the issuing thread's copy where the
**    map cannot mask: the rows below the end, zeros past it.
** 3. mbarrier phases: arrivals and transaction bytes in either order, parity
**    waits of the current and the previous phase.
** 4. A warp-specialized ring (a producer warpgroup issuing TMA into a ring
**    of full / empty mbarriers, one or two consumer warpgroups running
**    wgmma m64n64k16, setmaxnreg, a TMA-store epilogue) on random ragged
**    matrices, B in both layouts, against float64; and the same kernel with
**    one bug each, which the named detector must report: a wrong parity, a
**    missing expect-tx (before and after the copy), a stage released before
**    its reader's wgmma finished (read, and still in flight), a producer
**    overwriting a stage still being filled, a parity that never completes
**    (a hang), a warp reading a stage it did not wait for, a missing
**    fence.proxy.async before a TMA store, a staging buffer written again
**    before the store read it, setmaxnreg misuse, an mbarrier used before
**    its init is visible, too many arrivals.
** 5. wgmma reading ordinary stores with no fence.proxy.async.
** 6. cp.reduce.async.bulk .add.f32 (lt_bulk_reduce_add_f32): rows of random
**    f32 added by several blocks into the same global rows, against the
**    sums done here; and a size that is not a multiple of 16, a global
**    address off the 16-byte grid, the row written again before the
**    wait_group.read, which the emulator must report.
** Prints PASS / FAIL lines.
*/
#define LT_EMU_WARP 32
#include "emu.h"
#include "emu_cuda.h"
#include <vector>

static int fails;
static const char *label = "tma";

static void verdict(const char *name, bool ok, const char *why) {
  printf("%s emu unit %s %s%s%s\n", ok ? "PASS" : "FAIL", label, name, ok ? "" : ": ", ok ? "" : why);
  if (!ok) fails++;
  fflush(stdout);
}

/* A launch that must fail with `words` in the emulator's message. */
static void expect_error(const char *name, int rc, const char *words) {
  char why[2300];
  bool ok = rc == 719 && strstr(lt_emu::message(), words) != NULL;
  snprintf(why, sizeof why, "launch returned %d (want 719), message \"%s\" (want \"%s\")", rc, lt_emu::message(), words);
  verdict(name, ok, why);
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (uint32_t)(rng >> 16);
}
/* A random bf16 in [-1, 1). */
static uint16_t rnd_bf16(void) { return lt_emu::f32_to_bf16((float)(rnd() % 65536) / 32768.0f - 1.0f); }

/* ------------------------------------------------------------------ */
/* 1. tensor maps                                                       */

static void test_encode(void) {
  static uint16_t buf[4096 + 64] __attribute__((aligned(64)));
  CUtensorMap m;
  struct {
    const char *name;
    const void *base;
    int dtype;
    unsigned long long rows, cols, ld;
    unsigned br, bc;
    int sw, want;
  } cases[] = {
      {"bf16 64 x 64, box 64 x 64, 128-byte swizzle", buf, LT_TMA_BF16, 64, 64, 64, 64, 64, 128, 0},
      {"f32, box 8 x 32, 128-byte swizzle", buf, LT_TMA_F32, 16, 40, 40, 8, 32, 128, 0},
      {"no swizzle, a box of 200 x 24 bf16", buf, LT_TMA_BF16, 300, 100, 104, 200, 24, 0, 0},
      {"a base not 16-byte aligned", buf + 1, LT_TMA_BF16, 64, 64, 64, 64, 64, 128, cudaErrorInvalidValue},
      {"a row pitch not a multiple of 16 bytes", buf, LT_TMA_BF16, 64, 60, 60, 64, 32, 64, cudaErrorInvalidValue},
      {"a pitch shorter than a row", buf, LT_TMA_BF16, 64, 64, 56, 64, 64, 128, cudaErrorInvalidValue},
      {"a box side over 256", buf, LT_TMA_BF16, 1024, 64, 64, 257, 64, 128, cudaErrorInvalidValue},
      {"a box row of 20 bytes (not a multiple of 16)", buf, LT_TMA_BF16, 64, 64, 64, 8, 10, 0, cudaErrorInvalidValue},
      {"a box row wider than the swizzle span", buf, LT_TMA_BF16, 64, 64, 64, 8, 64, 64, cudaErrorInvalidValue},
      {"a swizzle of 48 bytes", buf, LT_TMA_BF16, 64, 64, 64, 8, 16, 48, cudaErrorInvalidValue},
      {"a swizzled box narrower than its span (not modelled)", buf, LT_TMA_BF16, 64, 64, 64, 8, 32, 128,
       cudaErrorNotSupported},
  };
  int bad = 0;
  char why[256] = "";
  for (auto &c : cases) {
    int rc = lt_tma_encode_2d(&m, c.base, c.dtype, c.rows, c.cols, c.ld, c.br, c.bc, c.sw);
    if (rc != c.want && !bad++) snprintf(why, sizeof why, "%s: %d, want %d", c.name, rc, c.want);
  }
  verdict("lt_tma_encode_2d keeps cuTensorMapEncodeTiled's rules (11 cases)", bad == 0, why);
}

/* ------------------------------------------------------------------ */
/* 2. TMA loads                                                         */

/* Thread 0 loads the box at (x, y) into lt_smem + off through an
** mbarrier; then every thread copies the box's bytes out. */
__global__ void tma_box_kernel(const __grid_constant__ CUtensorMap map, int x, int y, int off, int bytes, unsigned char *out) {
  extern __shared__ __align__(1024) unsigned char lt_smem[];
  uint64_t *bar = (uint64_t *)(lt_smem + 32768);
  if (threadIdx.x == 0) {
    lt_mbar_init(bar, 1);
    lt_mbar_init_fence();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    lt_mbar_arrive_expect_tx(bar, bytes);
    lt_tma_load_2d(lt_smem + off, &map, x, y, bar);
  }
  lt_mbar_wait(bar, 0);
  for (int i = threadIdx.x; i < bytes; i += blockDim.x) out[i] = lt_smem[off + i];
}

static void test_tma_load(void) {
  const int R = 37, C = 72;   /* a ragged tensor in a pitch of 80 elements */
  static unsigned char g[R * 80 * 4] __attribute__((aligned(16)));
  static unsigned char out[32768];
  for (size_t i = 0; i < sizeof g; i++) g[i] = (unsigned char)rnd();
  struct { int dtype, esize, sw, br, bc; } kinds[] = {
      {LT_TMA_BF16, 2, 128, 24, 64}, {LT_TMA_BF16, 2, 64, 16, 32}, {LT_TMA_BF16, 2, 32, 40, 16},
      {LT_TMA_BF16, 2, 0, 9, 24},    {LT_TMA_F32, 4, 128, 16, 32}, {LT_TMA_F32, 4, 0, 20, 12}};
  const int at[][2] = {{0, 0}, {8, 5}, {-16, -3}, {C - 16, R - 7}, {C + 8, 2}, {-64, -40}};
  const int offs[] = {1024, 512 + 1024};   /* 1024-aligned, and only 128-aligned (rows start at address row 4) */
  int bad = 0, n = 0;
  char why[256] = "";
  for (auto &k : kinds)
    for (auto &p : at)
      for (int off : offs) {
        CUtensorMap m;
        int rc = lt_tma_encode_2d(&m, g, k.dtype, R, C, 80, k.br, k.bc, k.sw);
        const int row = k.bc * k.esize, bytes = row * k.br;
        rc = rc ? rc : lt_emu_launch(tma_box_kernel, dim3(1), dim3(64), 32768 + 8, NULL, m, p[0], p[1], off, bytes, out);
        n++;
        if (rc) {
          if (!bad++) snprintf(why, sizeof why, "launch %d: %s", rc, lt_emu::message());
          continue;
        }
        /* element (r, c) of the box: its 16-byte chunk q = c * esize / 16 of row r goes to chunk q ^ f(R) of that row,
        ** R the row's index in the 1024-byte period of shared memory (off / row rows before the box) */
        for (int r = 0; r < k.br; r++)
          for (int c = 0; c < k.bc; c++) {
            const int ar = off % 1024 / (k.sw ? k.sw : 1) + r, q = c * k.esize / 16;
            const int f = k.sw == 128 ? ar % 8 : k.sw == 64 ? ar / 2 % 4 : k.sw == 32 ? ar / 4 % 2 : 0;
            const int at_byte = r * row + (q ^ f) * 16 + c * k.esize % 16;
            const int gy = p[1] + r, gx = p[0] + c;
            for (int b = 0; b < k.esize; b++) {
              unsigned char want = gy >= 0 && gy < R && gx >= 0 && gx < C ? g[(gy * 80 + gx) * k.esize + b] : 0;
              if (out[at_byte + b] != want && !bad++)
                snprintf(why, sizeof why, "swizzle %d, box %dx%d at (%d,%d), offset %d: element (%d,%d) byte %d is %#x, "
                         "want %#x", k.sw, k.br, k.bc, p[0], p[1], off, r, c, b, out[at_byte + b], want);
            }
          }
      }
  char name[160];
  snprintf(name, sizeof name, "TMA loads of random bf16 / f32 boxes, swizzles 0/32/64/128, past every edge, two alignments "
           "(%d boxes) land as the swizzle's chunk formula says, zero outside", n);
  verdict(name, bad == 0, why);
}

/* The box of rows y .. y + 15 of a map of X:rows(lo, hi) views (gen's
** TensorMap.rows: rows r of 16, row ends e; templates/cuda_tma_rows.h) into
** lt_smem, as a producer issues it: by the copy engine at (0, r, e), or by
** thread 0 (lt_tma_rows_copy) where lt_tma_rows_by_thread says so, before
** it arms the barrier; then every thread copies the box's bytes out. */
__global__ void rows_box_kernel(const __grid_constant__ CUtensorMap map, const char *src, int64_t rs, int y, int hi,
                                int n, int64_t cols, unsigned char *out) {
  extern __shared__ __align__(1024) unsigned char lt_smem[];
  uint64_t *bar = (uint64_t *)(lt_smem + 4096);
  if (threadIdx.x == 0) {
    lt_mbar_init(bar, 1);
    lt_mbar_init_fence();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    const int e = lt_tma_rows_e(y, hi, n, 16);
    const bool by_thread = lt_tma_rows_by_thread(y, hi, n, 16);
    if (by_thread) lt_tma_rows_copy(lt_smem, src, rs, y, hi, n, 16, 1, 128, cols);
    lt_mbar_arrive_expect_tx(bar, by_thread ? 0 : 2048);
    if (!by_thread) lt_tma_load_3d(lt_smem, &map, 0, lt_tma_rows_r(y, e, 16), e, bar);
  }
  lt_mbar_wait(bar, 0);
  for (int i = threadIdx.x; i < 2048; i += blockDim.x) out[i] = lt_smem[i];
}

/* Maps of rows, encoded as the launchers encode them, for tensors of 37 and
** of 9 rows (fewer than a box): every box from a row y in 0..40 with row
** end hi in -3..45 holds the rows in [y, min(hi, n)) and zeros elsewhere,
** swizzled, whether the copy engine or the thread copied it. */
static void test_rows_map(void) {
  const int C = 64, P = 80;   /* bf16 rows of 64 in a pitch of 80 elements */
  static uint16_t g[37 * 80] __attribute__((aligned(16)));
  static unsigned char out[2048];
  for (auto &x : g) x = rnd_bf16();
  int bad = 0, n_box = 0, n_thread = 0;
  char why[256] = "";
  for (int n : {37, 9}) {
    const uint64_t dims[3] = {(uint64_t)C, (uint64_t)(n < 16 ? n : 16), (uint64_t)(n < 16 ? 1 : n - 15)};
    const uint64_t strides[2] = {P, P};
    const uint32_t box[3] = {64, 16, 1};
    CUtensorMap m;
    int rc = lt_tma_encode(&m, g, LT_TMA_BF16, 3, dims, strides, box, 128);
    for (int y = 0; y <= 40 && !rc; y++)
      for (int hi = -3; hi <= 45; hi += 2) {
        rc = lt_emu_launch(rows_box_kernel, dim3(1), dim3(64), 4096 + 8, NULL, m, (const char *)g, (int64_t)P * 2, y, hi,
                           n, (int64_t)C * 2, out);
        if (rc) break;
        n_box++;
        n_thread += lt_tma_rows_by_thread(y, hi, n, 16);
        const int h = hi < 0 ? 0 : hi < n ? hi : n;
        for (int r = 0; r < 16; r++)
          for (int c = 0; c < C; c++) {
            const int at = r * 128 + ((c * 2 / 16) ^ (r % 8)) * 16 + c * 2 % 16;
            const uint16_t want = y + r < h ? g[(y + r) * P + c] : 0, got = (uint16_t)(out[at] | out[at + 1] << 8);
            if (got != want && !bad++)
              snprintf(why, sizeof why, "%d rows, box from row %d, end %d: element (%d, %d) is %#x, want %#x", n, y,
                       hi, r, c, got, want);
          }
      }
    if (rc && !bad++) snprintf(why, sizeof why, "%d rows: encode or launch %d: %s", n, rc, lt_emu::message());
  }
  char name[200];
  snprintf(name, sizeof name, "maps of X:rows views: %d boxes (%d by the thread) hold the rows below the end, zeros "
           "past it", n_box, n_thread);
  verdict(name, bad == 0 && n_thread > 0 && n_thread < n_box, why);
}

/* ------------------------------------------------------------------ */
/* 3. mbarrier phases                                                   */

/* count 2: lane 0 arrives with expect-tx and then copies (phase 0), lane 1
** arrives; the others wait for parity 0 and read.  Phase 1: the copy is
** issued first, the arrivals come after.  A try_wait of parity 1 on the
** fresh barrier names the phase before phase 0 and returns at once. */
__global__ void phase_kernel(const __grid_constant__ CUtensorMap map, float *out) {
  extern __shared__ __align__(1024) unsigned char lt_smem[];
  uint64_t *bar = (uint64_t *)(lt_smem + 8192);
  const int l = threadIdx.x;
  if (l == 0) {
    lt_mbar_init(bar, 2);
    lt_mbar_init_fence();
  }
  __syncthreads();
  if (l == 5) out[64] = (float)lt_mbar_try_wait(bar, 1);
  __syncthreads();
  if (l == 0) {
    lt_mbar_arrive_expect_tx(bar, 4096);
    lt_tma_load_2d(lt_smem, &map, 0, 0, bar);
  }
  if (l == 1) lt_mbar_arrive(bar);
  if (l >= 2) {
    lt_mbar_wait(bar, 0);
    out[l] = ((float *)lt_smem)[l];
  }
  __syncthreads();
  if (l == 0) lt_tma_load_2d(lt_smem + 4096, &map, 0, 32, bar);
  __syncthreads();
  if (l == 0) lt_mbar_arrive(bar);
  if (l == 1) lt_mbar_arrive_expect_tx(bar, 4096);
  if (l >= 2) {
    lt_mbar_wait(bar, 1);
    out[32 + l] = ((float *)lt_smem)[1024 + l];
  }
}

static void test_phases(void) {
  static float g[64 * 32] __attribute__((aligned(16)));
  static float out[65];
  for (int i = 0; i < 64 * 32; i++) g[i] = (float)(rnd() % 1000);
  CUtensorMap m;
  int rc = lt_tma_encode_2d(&m, g, LT_TMA_F32, 64, 32, 32, 32, 32, 0);
  out[64] = -1;
  rc = rc ? rc : lt_emu_launch(phase_kernel, dim3(1), dim3(32), 8192 + 8, NULL, m, out);
  bool ok = rc == 0 && out[64] == 1.0f;
  for (int l = 2; l < 32; l++) ok = ok && out[l] == g[l] && out[32 + l] == g[32 * 32 + l];
  verdict("mbarrier phases: arrivals and transaction bytes in either order, parity of the current and the previous "
          "phase", ok, rc ? lt_emu::message() : "wrong values");
}

/* ------------------------------------------------------------------ */
/* 4. the warp-specialized ring                                         */

enum {
  RING_OK,
  RING_COPY_FIRST,         /* (fine) the producer copies first, then arrives with expect-tx */
  RING_WRONG_PARITY,       /* consumers wait on full with the other parity */
  RING_NO_EXPECT_TX,       /* the producer copies, then arrives with no expect-tx */
  RING_NO_EXPECT_TX_AFTER, /* the producer arrives with no expect-tx, then copies */
  RING_EARLY_RELEASE,      /* consumers arrive on empty before their wgmma wait */
  RING_EARLY_RELEASE_FLIGHT, /* one stage; consumers keep a wgmma group in flight and release its stage */
  RING_NO_EMPTY_WAIT,      /* the producer fills stages without waiting on empty (copying first) */
  RING_EMPTY_PARITY,       /* the producer waits on empty with the parity of a phase that never completes */
  RING_WRONG_STAGE_WAIT,   /* warps 1-3 of a consumer warpgroup wait on the other stage's full barrier */
  RING_NO_FENCE,           /* no fence.proxy.async before the TMA store */
  RING_NO_STORE_WAIT,      /* the staging tile is written again before the store read it */
  RING_SETMAXNREG_SPLIT,   /* one consumer warp asks for another register count */
  RING_SETMAXNREG_POOL,    /* consumers ask for more registers than the producer gives back */
  RING_NO_INIT_BARRIER,    /* no __syncthreads between the mbarrier init and its use */
  RING_EXTRA_ARRIVE,       /* the producer arrives with expect-tx once per copy on a barrier of one arrival */
};

/* C[M, N] = A[M, K] @ B (B [K, N], or [N, K] with nt), bf16, f32 accumulate:
** one 64 x 64 tile per consumer warpgroup (rows 64 cw), 64-wide steps of K
** through a ring of `stages` stages.  Warpgroup pwg produces (its thread
** 0 issues the copies), the others consume.  Shared memory: stage s at
** 24576 s: A (128 rows of 128 bytes), then B (64 rows of 128 bytes); the
** staging tiles of C at 49152 (one 64 x 64 per consumer warpgroup); the
** mbarriers at 65536. */
__global__ void __launch_bounds__(384, 1)
ring_kernel(const __grid_constant__ CUtensorMap A_map, const __grid_constant__ CUtensorMap B_map,
            const __grid_constant__ CUtensorMap C_map, int K, int nt, int stages, int pwg, int mode) {
  extern __shared__ __align__(1024) unsigned char lt_smem[];
  uint64_t *full = (uint64_t *)(lt_smem + 65536), *empty = full + 2;
  const int tid = threadIdx.x, wg = tid / 128, ncw = blockDim.x / 128 - 1;
  const int kts = (K + 63) / 64, a_bytes = 64 * ncw * 128;
  if (tid == 0) {
    for (int s = 0; s < stages; ++s) {
      lt_mbar_init(&full[s], 1);
      lt_mbar_init(&empty[s], 4 * ncw);
    }
    lt_mbar_init_fence();
  }
  if (mode != RING_NO_INIT_BARRIER) __syncthreads();
  if (wg == pwg) {
    if (mode != RING_SETMAXNREG_POOL) lt_setmaxnreg_dec<40>();
    if (tid % 128 == 0) {
      int stage = 0, phase = 0;
      for (int kt = 0; kt < kts; ++kt) {
        if (mode != RING_NO_EMPTY_WAIT) lt_mbar_wait(&empty[stage], mode == RING_EMPTY_PARITY ? phase : phase ^ 1);
        unsigned char *As = lt_smem + stage * 24576, *Bs = As + 16384;
        const int copy_first = mode == RING_COPY_FIRST || mode == RING_NO_EMPTY_WAIT || mode == RING_NO_EXPECT_TX;
        if (mode == RING_NO_EXPECT_TX_AFTER) lt_mbar_arrive(&full[stage]);
        else if (mode == RING_EXTRA_ARRIVE) lt_mbar_arrive_expect_tx(&full[stage], a_bytes);
        else if (!copy_first) lt_mbar_arrive_expect_tx(&full[stage], a_bytes + 8192);
        lt_tma_load_2d(As, &A_map, kt * 64, 0, &full[stage]);
        if (mode == RING_EXTRA_ARRIVE) lt_mbar_arrive_expect_tx(&full[stage], 8192);
        if (nt) lt_tma_load_2d(Bs, &B_map, kt * 64, 0, &full[stage]);
        else lt_tma_load_2d(Bs, &B_map, 0, kt * 64, &full[stage]);
        if (mode == RING_NO_EXPECT_TX) lt_mbar_arrive(&full[stage]);
        else if (copy_first) lt_mbar_arrive_expect_tx(&full[stage], a_bytes + 8192);
        if (++stage == stages) stage = 0, phase ^= 1;
      }
    }
    return;
  }
  const int cw = wg - (wg > pwg), warp = tid / 32 % 4, lane = tid % 32;
  if (mode == RING_SETMAXNREG_SPLIT && warp == 2) lt_setmaxnreg_inc<224>();
  else lt_setmaxnreg_inc<232>();
  float acc[32];
  int stage = 0, phase = 0;
  for (int kt = 0; kt < kts; ++kt) {
    if (mode == RING_WRONG_STAGE_WAIT && warp > 0) lt_mbar_wait(&full[stage ^ 1], phase);
    else lt_mbar_wait(&full[stage], mode == RING_WRONG_PARITY ? phase ^ 1 : phase);
    unsigned char *As = lt_smem + stage * 24576 + cw * 8192, *Bs = lt_smem + stage * 24576 + 16384;
    lt_wgmma_fence();
    for (int kk = 0; kk < 64; kk += 16) {
      const uint64_t da = lt_wgmma_desc(As + kk * 2, 16, 1024, 1);
      if (nt) lt_emu::Wgmma(64, 1, __FILE__, __LINE__).ss<0, 0>(acc, da, lt_wgmma_desc(Bs + kk * 2, 16, 1024, 1), kt || kk);
      else lt_emu::Wgmma(64, 1, __FILE__, __LINE__).ss<0, 1>(acc, da, lt_wgmma_desc(Bs + kk * 128, 8192, 1024, 1), kt || kk);
    }
    lt_wgmma_commit();
    if (mode == RING_EARLY_RELEASE && lane == 0) lt_mbar_arrive(&empty[stage]);
    if (mode == RING_EARLY_RELEASE_FLIGHT) {
      lt_wgmma_wait<1>();
      if (lane == 0) lt_mbar_arrive(&empty[stage]);
    } else {
      lt_wgmma_wait<0>();
      if (mode != RING_EARLY_RELEASE && lane == 0) lt_mbar_arrive(&empty[stage]);
    }
    if (++stage == stages) stage = 0, phase ^= 1;
  }
  lt_wgmma_wait<0>();
  /* epilogue, twice over the same staging tile (the second time as a tile
  ** of the next output would be): 64 x 64 bf16 in 128-byte swizzled rows */
  unsigned char *Cs = lt_smem + 49152 + cw * 8192;
  for (int round = 0; round < 2; ++round) {
    if (tid % 128 == 0 && mode != RING_NO_STORE_WAIT) lt_tma_store_wait_read<0>();
    lt_named_barrier(1 + cw, 128);
    for (int i = 0; i < 32; i += 2) {
      const int r = warp * 16 + lane / 4 + 8 * (i / 16), c = 8 * (i % 16 / 2) + 2 * (lane % 4);
      *(uint32_t *)(Cs + r * 128 + (((c / 8) ^ (r % 8)) << 4) + (c % 8) * 2) = lt_pack_bf16x2(acc[i], acc[i + 1]);
    }
    if (mode != RING_NO_FENCE) lt_fence_proxy_async();
    lt_named_barrier(1 + cw, 128);
    if (tid % 128 == 0) {
      lt_tma_store_2d(&C_map, 0, cw * 64, Cs);
      lt_tma_store_commit();
    }
  }
  if (tid % 128 == 0) lt_tma_store_wait<0>();
}

/* One ring GEMM; returns the launch's result, *err the largest error
** relative to the float64 reference (|err| / (|ref| + rms / 100)),
** *guard whether every C element outside the M x N matrix kept its poison. */
static int ring_run(int M, int N, int K, int nt, int ncw, int stages, int pwg, int mode, double *err, bool *guard) {
  const int LDC = N + 24;
  std::vector<uint16_t> A((size_t)M * K), B((size_t)K * N), C((size_t)(M + 3) * LDC, 0xffff);
  for (auto &v : A) v = rnd_bf16();
  for (auto &v : B) v = rnd_bf16();
  CUtensorMap am, bm, cm;
  int rc = lt_tma_encode_2d(&am, A.data(), LT_TMA_BF16, M, K, K, 64 * ncw, 64, 128);
  rc = rc ? rc : nt ? lt_tma_encode_2d(&bm, B.data(), LT_TMA_BF16, N, K, K, 64, 64, 128)
                    : lt_tma_encode_2d(&bm, B.data(), LT_TMA_BF16, K, N, N, 64, 64, 128);
  rc = rc ? rc : lt_tma_encode_2d(&cm, C.data(), LT_TMA_BF16, M, N, LDC, 64, 64, 128);
  rc = rc ? rc : cudaFuncSetAttribute(ring_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536 + 32);
  rc = rc ? rc : lt_emu_launch(ring_kernel, dim3(1), dim3(128 * (ncw + 1)), 65536 + 32, NULL, am, bm, cm, K, nt, stages, pwg, mode);
  *err = 0, *guard = true;
  if (rc) return rc;
  const double rms = sqrt(K / 9.0);
  for (int i = 0; i < M + 3; i++)
    for (int j = 0; j < LDC; j++) {
      uint16_t got = C[(size_t)i * LDC + j];
      if (i >= M || j >= N) {
        *guard = *guard && got == 0xffff;
        continue;
      }
      double ref = 0;
      for (int k = 0; k < K; k++)
        ref += (double)lt_emu::bf16_to_f32(A[(size_t)i * K + k]) *
               lt_emu::bf16_to_f32(nt ? B[(size_t)j * K + k] : B[(size_t)k * N + j]);
      double e = fabs(lt_emu::bf16_to_f32(got) - ref) / (fabs(ref) + rms / 100);
      if (!(e <= *err)) *err = e;   /* NaN too */
    }
  return 0;
}

static void test_ring(void) {
  struct { int M, N, K, nt, ncw, stages, pwg, mode; } good[] = {
      {50, 40, 200, 1, 1, 2, 1, RING_OK}, {50, 40, 200, 0, 1, 2, 1, RING_OK}, {128, 64, 264, 1, 2, 2, 0, RING_OK},
      {100, 56, 136, 0, 2, 1, 0, RING_OK}, {64, 64, 320, 1, 1, 2, 0, RING_COPY_FIRST}};
  const char *orders[] = {"forward", "reverse", "warps", "random:5"};
  for (auto &c : good)
    for (const char *order : orders) {
    setenv("LT_EMU_SCHEDULE", order, 1);
    double err;
    bool guard;
    int rc = ring_run(c.M, c.N, c.K, c.nt, c.ncw, c.stages, c.pwg, c.mode, &err, &guard);
    char name[260], why[2300];
    snprintf(name, sizeof name, "warp-specialized ring, %s, %dx%dx%d, %d consumer warpgroup(s), %d stage(s), producer "
             "warpgroup %d%s, %s order: C = A B (float64, max rel err < 1e-2), nothing stored outside C",
             c.nt ? "B [N, K]" : "B [K, N]", c.M, c.N, c.K, c.ncw, c.stages, c.pwg,
             c.mode == RING_COPY_FIRST ? ", copies before the expect-tx" : "", order);
    snprintf(why, sizeof why, "rc %d (%s), max rel err %.3g, guard %s", rc, rc ? lt_emu::message() : "", err,
             guard ? "kept" : "written");
    verdict(name, rc == 0 && err < 1e-2 && guard, why);
    }
  setenv("LT_EMU_SCHEDULE", "forward", 1);   /* the detections below: each is the first report in this order */
  struct {
    const char *name;
    int mode, stages, ncw, traced;   /* traced: the detector needs plain stores traced */
    const char *words;
  } bugs[] = {
      {"a wrong parity: consumers pass the full barrier before the copy lands", RING_WRONG_PARITY, 2, 1, 0,
       "the reader has not waited for phase 0 of the mbarrier"},
      {"a missing expect-tx (copy first): the phase completes without the copy's bytes", RING_NO_EXPECT_TX, 2, 1, 0,
       "had not delivered its 8192 bytes: no expect-tx announced them"},
      {"a missing expect-tx (arrive first): the waiters go on before the copy lands", RING_NO_EXPECT_TX_AFTER, 2, 1, 0,
       "with no transaction bytes before the copy was issued, so its waiters went on without the copy (a missing "
       "arrive.expect_tx)"},
      {"a stage released before its reader's wgmma finished, then refilled", RING_EARLY_RELEASE, 2, 1, 0,
       "read after its last release that this thread has acquired: the stage was released (mbarrier arrive) before "
       "its reader was done with it"},
      {"a stage released while its wgmma is still in flight, then refilled", RING_EARLY_RELEASE_FLIGHT, 1, 1, 0,
       "which a wgmma in flight still reads"},
      {"a producer overwriting a stage still being filled and read (no wait on empty)", RING_NO_EMPTY_WAIT, 2, 1, 0,
       "is still filling: the stage is filled again before its readers waited for it and released it"},
      {"a parity whose phase never completes is reported as a hang", RING_EMPTY_PARITY, 2, 1, 0,
       "threads 128 wait for phase 0 (parity 0) of the mbarrier at offset 65552 (4 of 4 arrivals missing"},
      {"warps that waited on another stage's full barrier read this stage", RING_WRONG_STAGE_WAIT, 2, 1, 0,
       "and its warp has not waited for that phase"},
      {"a TMA store of a tile written with no fence.proxy.async", RING_NO_FENCE, 2, 1, 1,
       "TMA store reads shared memory (dynamic, offset 49152) that thread 0 wrote through the generic proxy"},
      {"a staging tile written again before the TMA store read it", RING_NO_STORE_WAIT, 2, 1, 1,
       "still reads it (missing cp.async.bulk.wait_group.read"},
      {"setmaxnreg with another count in one warp of a warpgroup", RING_SETMAXNREG_SPLIT, 2, 1, 0,
       "all four warps of a warpgroup execute the same one"},
      {"setmaxnreg.inc beyond what the block's pool can give is a hang", RING_SETMAXNREG_POOL, 2, 2, 0,
       "warps 4-11 wait in setmaxnreg.inc 232 for registers the block's pool never frees"},
      {"an mbarrier used before a barrier makes its init visible", RING_NO_INIT_BARRIER, 2, 1, 0,
       "with no barrier since (the init is seen by the others after lt_mbar_init_fence and __syncthreads)"},
      {"a second arrival in a phase of a one-arrival mbarrier (an expect-tx per copy)", RING_EXTRA_ARRIVE, 2, 1, 0,
       "has had its 1 arrivals already"},
  };
  for (auto &b : bugs) {
    double err;
    bool guard;
    int rc = ring_run(b.ncw == 1 ? 50 : 100, 40, 200, 1, b.ncw, b.stages, b.ncw == 1 ? 1 : 0, b.mode, &err, &guard);
    if (b.traced && !lt_emu::traced()) {
      printf("SKIP emu unit %s %s: plain stores are not traced in this build\n", label, b.name);
      continue;
    }
    expect_error(b.name, rc, b.words);
  }
  unsetenv("LT_EMU_SCHEDULE");
}

/* ------------------------------------------------------------------ */
/* 5. wgmma after ordinary stores                                       */

/* A and B (64 x 16, K-major, 32-byte rows... here 128-byte swizzled rows of
** 64 bf16) stored by ordinary stores; fence: lt_wgmma_barrier (fence +
** __syncthreads), else __syncthreads alone. */
__global__ void fence_kernel(float *out, int fence) {
  extern __shared__ __align__(1024) unsigned char lt_smem[];
  for (int i = threadIdx.x; i < 16384 / 2; i += 128) ((uint16_t *)lt_smem)[i] = 0x3f80;   /* 1.0 */
  if (fence) lt_wgmma_barrier();
  else __syncthreads();
  float d[32];
  lt_wgmma_fence();
  lt_emu::Wgmma(64, 1, __FILE__, __LINE__).ss<0, 0>(d, lt_wgmma_desc(lt_smem, 16, 1024, 1), lt_wgmma_desc(lt_smem + 8192, 16, 1024, 1), 0);
  lt_wgmma_commit();
  lt_wgmma_wait<0>();
  out[threadIdx.x] = d[0];
}

static void test_fence(void) {
  static float out[128];
  int rc = lt_emu_launch(fence_kernel, dim3(1), dim3(128), 16384, NULL, out, 1);
  verdict("wgmma after ordinary stores, fence.proxy.async and a barrier", rc == 0 && out[7] == 16.0f, lt_emu::message());
  if (lt_emu::traced())
    expect_error("wgmma reads ordinary stores with no fence.proxy.async",
                 lt_emu_launch(fence_kernel, dim3(1), dim3(128), 16384, NULL, out, 0),
                 "with no fence.proxy.async of that thread since");
  else
    printf("SKIP emu unit %s wgmma reads ordinary stores with no fence.proxy.async: plain stores are not traced in this build\n", label);
}

/* Each block adds rows of its own values (v + block) into out's 8 rows of
** 64 f32 at out + off, one cp.reduce.async.bulk a row by threads 0..7.
** mode 1: a size of 20 bytes; mode 2: the rows written again before the
** wait_group.read. */
__global__ void bulk_reduce_kernel(float *out, const float *v, int off, int mode) {
  extern __shared__ __align__(1024) unsigned char lt_smem[];
  float (*rows)[72] = (float (*)[72])lt_smem;   /* 64 f32 a row and 8 of padding */
  for (int i = threadIdx.x; i < 8 * 64; i += 128) rows[i / 64][i % 64] = v[i] + (float)blockIdx.x;
  lt_fence_proxy_async();
  __syncthreads();
  if (threadIdx.x < 8) {
    lt_bulk_reduce_add_f32(out + off + threadIdx.x * 64, &rows[threadIdx.x][0], mode == 1 ? 20 : 256);
    lt_tma_store_commit();
  }
  if (mode == 2) rows[threadIdx.x / 64][threadIdx.x % 64] = 0.0f;
  if (threadIdx.x < 8) lt_tma_store_wait_read<0>();
}

static void test_bulk_reduce(void) {
  alignas(16) static float out[8 * 64 + 4];
  static float want[8 * 64 + 4], v[8 * 64];
  for (int i = 0; i < 8 * 64; i++) v[i] = (float)(rnd() % 65536) / 32768.0f - 1.0f;
  for (int i = 0; i < 8 * 64 + 4; i++) out[i] = want[i] = (float)(rnd() % 1024) / 256.0f;
  int rc = lt_emu_launch(bulk_reduce_kernel, dim3(3), dim3(128), 8 * 72 * 4, NULL, out, v, 0, 0);
  for (int b = 0; b < 3; b++)   /* the blocks run one after another, in order */
    for (int i = 0; i < 8 * 64; i++) want[i] += v[i] + (float)b;
  bool same = rc == 0;
  for (int i = 0; i < 8 * 64 + 4; i++) same = same && out[i] == want[i];
  verdict("cp.reduce.async.bulk .add.f32: 3 blocks add their rows into the same 8 rows", same, lt_emu::message());
  expect_error("cp.reduce.async.bulk of 20 bytes", lt_emu_launch(bulk_reduce_kernel, dim3(1), dim3(128), 8 * 72 * 4, NULL,
                                                                 out, v, 0, 1), "a nonzero multiple of 16");
  expect_error("cp.reduce.async.bulk to a global address off the 16-byte grid",
               lt_emu_launch(bulk_reduce_kernel, dim3(1), dim3(128), 8 * 72 * 4, NULL, out, v, 1, 0), "not 16-byte aligned");
  if (lt_emu::traced())
    expect_error("a row written again before cp.async.bulk.wait_group.read",
                 lt_emu_launch(bulk_reduce_kernel, dim3(1), dim3(128), 8 * 72 * 4, NULL, out, v, 0, 2),
                 "missing cp.async.bulk.wait_group.read");
  else
    printf("SKIP emu unit %s a row written again before cp.async.bulk.wait_group.read: plain stores are not traced in this "
           "build\n", label);
}

int main(int argc, char **argv) {
  if (argc > 1) label = argv[1];
  test_encode();
  test_tma_load();
  test_rows_map();
  test_phases();
  test_ring();
  test_fence();
  test_bulk_reduce();
  printf("# emu unit %s: done\n", label);   /* run.sh: the run was not cut short */
  return fails ? 1 : 0;
}
