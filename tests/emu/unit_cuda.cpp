/*
** unit_cuda.cpp: unit tests of the CUDA side of the emulator
** (templates/emu.h + emu_cuda.h), built with -Itemplates.
**
** 1. The PTX instructions against models written here from the PTX ISA
**    text, in the other direction where the ISA gives one: ldmatrix on a
**    known tile (rows scattered in shared memory), mma.sync on known
**    matrices (operands packed from row-major arrays by the fragment
**    formulas), ldmatrix + mma together in the usual addressing (A by
**    ldmatrix.x4, B by ldmatrix.x2.trans) against a plain matmul, cp.async
**    landing only at a covering wait, with its zero fill; wgmma (A and B
**    by descriptor, A from registers) on swizzled tiles stored by the
**    chunk formula.
** 2. Each detection on a kernel that has the bug (wgmma: operands or
**    accumulators changed in flight, no wait): the launch must fail
**    with the expected words in the message.
** 3. The checks of plain shared-memory loads and stores (unwritten reads,
**    races, __shared__ arrays cleared per block), when the build traces
**    them (clang's -fsanitize-coverage=...,trace-loads,trace-stores).
** Prints PASS / FAIL / SKIP lines.
*/
#define LT_EMU_WARP 32
#include "emu.h"
#include "emu_cuda.h"

static int fails;
static const char *label = "cuda";   /* argv[1]: names the build in the output */

static void verdict(const char *name, bool ok, const char *why) {
  printf("%s emu unit %s %s%s%s\n", ok ? "PASS" : "FAIL", label, name, ok ? "" : ": ", ok ? "" : why);
  if (!ok) fails++;
  fflush(stdout);
}

/* A launch that must fail with `words` in the emulator's message. */
static void expect_error(const char *name, int rc, int want_rc, const char *words) {
  char why[2300];
  bool ok = rc == want_rc && strstr(lt_emu::message(), words) != NULL;
  snprintf(why, sizeof why, "launch returned %d (want %d), message \"%s\" (want \"%s\")", rc, want_rc,
           lt_emu::message(), words);
  verdict(name, ok, why);
}

static uint16_t h16(float f) { return lt_emu::f32_to_f16(f); }
static uint16_t b16(float f) { return lt_emu::f32_to_bf16(f); }

/* ------------------------------------------------------------------ */
/* f16 / bf16 conversions against the host compiler's _Float16          */

/* binary16 bits -> value, by the definition (sign, 5-bit exponent with
** bias 15, 10-bit fraction; subnormals below 2^-14). */
static double f16_value(uint16_t h) {
  int e = (h >> 10) & 31, m = h & 1023;
  double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, e - 25);
  return h & 0x8000 ? -v : v;
}

/* x rounded to binary16, nearest even, by scaling in double. */
static double f16_round(double x) {
  double a = fabs(x);
  if (a >= 65520.0) return copysign(INFINITY, x);
  int e;
  frexp(a, &e);   /* a = f * 2^e, 0.5 <= f < 1 */
  double ulp = ldexp(1.0, (e - 1 < -14 ? -14 : e - 1) - 10);
  return copysign(nearbyint(a / ulp) * ulp, x);
}

static void test_conversions(void) {
  long bad = 0;
  long first = -1;
  for (uint32_t h = 0; h < 65536; h++) {   /* decode, every value */
    double want = f16_value((uint16_t)h);
    float got = __half2float(__half{(uint16_t)h});
    if (!(isnan(want) ? isnan(got) : got == (float)want) && bad++ == 0) first = h;
  }
  for (uint32_t h = 0; h < 65536; h++) {   /* encode: each value, the ties above it, and next to the ties */
    double x = f16_value((uint16_t)h), next = f16_value((uint16_t)(h + 1));
    if (isnan(x) || isinf(x)) continue;
    if (isnan(next) || (h & 0x7fff) == 0x7bff) next = copysign(65536.0, x);
    float mid = (float)((x + next) / 2);
    float probes[4] = {(float)x, mid, nextafterf(mid, 0.0f), nextafterf(mid, INFINITY)};
    for (float f : probes) {
      double got = f16_value(h16(f)), want = f16_round(f);
      if (got != want && bad++ == 0) first = (long)h;
    }
  }
  for (uint32_t u = 0; u < 0xffffffffu - 0xfffff; u += 0xfffffu) {   /* a third opinion: the compiler's _Float16 */
    float f;
    memcpy(&f, &u, 4);
    _Float16 r = (_Float16)f;
    uint16_t rb;
    memcpy(&rb, &r, 2);
    if (!isnan(f) && h16(f) != rb && bad++ == 0) first = u;
  }
  char why[96];
  snprintf(why, sizeof why, "%ld mismatches, first at %#lx", bad, first);
  verdict("f32 <-> f16 round to nearest even (every value, tie and near-tie)", bad == 0, why);
  struct { float f; uint16_t b; } cases[] = {{1.0f, 0x3f80}, {1.00390625f, 0x3f80}, {1.01171875f, 0x3f82},
                                             {-2.5f, 0xc020}, {3.0e38f, 0x7f62}, {INFINITY, 0x7f80}};
  bool ok = true;
  for (auto &c : cases) ok = ok && b16(c.f) == c.b && __bfloat162float(__nv_bfloat16{c.b}) == lt_emu::bits_f32((uint32_t)c.b << 16);
  ok = ok && isnan(__bfloat162float(__float2bfloat16_rn(NAN)));
  verdict("f32 <-> bf16 round to nearest even, ties and NaN", ok, "a known value rounds wrong");
}

/* ------------------------------------------------------------------ */
/* ldmatrix                                                             */

/* Value of element (row, col) of matrix m of the test tile. */
static uint16_t tile_val(int m, int row, int col) { return (uint16_t)(0x1000 * (m + 1) + 16 * row + col); }

/* Shared byte offset of row `row` of matrix m: rows scattered (stride of
** 3 rows of 16 bytes, matrices interleaved) to show rows come from the
** lanes' own addresses. */
static int row_off(int m, int row) { return (row * 4 + (3 - m)) * 48; }

/* Each lane writes the rows it will address, then all do ldmatrix. */
__global__ void ldm_kernel(uint32_t *out, int num, int trans) {
  extern __shared__ __align__(16) unsigned char lt_smem[];
  int l = threadIdx.x;
  int m = l / 8, row = l % 8;
  if (m < num) {
    uint16_t *p = (uint16_t *)(lt_smem + row_off(m, row));
    for (int c = 0; c < 8; c++) p[c] = tile_val(m, row, c);
  }
  __syncthreads();
  uint32_t r[4] = {0, 0, 0, 0};
  const void *addr = lt_smem + row_off(m < num ? m : 0, row);
  if (num == 4 && !trans) lt_ldmatrix_x4(r, addr);
  if (num == 4 && trans) lt_ldmatrix_x4_trans(r, addr);
  if (num == 2 && !trans) lt_ldmatrix_x2(r, addr);
  if (num == 2 && trans) lt_ldmatrix_x2_trans(r, addr);
  for (int i = 0; i < 4; i++) out[l * 4 + i] = r[i];
}

static void test_ldmatrix(void) {
  for (int num = 2; num <= 4; num += 2)
    for (int trans = 0; trans < 2; trans++) {
      uint32_t out[128];
      int rc = lt_emu_launch(ldm_kernel, dim3(1), dim3(32), 48 * 32, NULL, out, num, trans);
      /* PTX ISA, ldmatrix: "a group of four threads loads an entire row", thread 0
      ** receiving the first fragment: lane l holds row l/4, columns 2(l%4), +1;
      ** .trans loads the matrix column-major (rows and columns swapped). */
      int bad = -1;
      for (int l = 0; l < 32 && rc == 0; l++)
        for (int i = 0; i < num; i++) {
          int a = l / 4, b = 2 * (l % 4);
          uint16_t lo = trans ? tile_val(i, b, a) : tile_val(i, a, b);
          uint16_t hi = trans ? tile_val(i, b + 1, a) : tile_val(i, a, b + 1);
          if (out[l * 4 + i] != ((uint32_t)hi << 16 | lo) && bad < 0) bad = l * 4 + i;
        }
      char name[64], why[128];
      snprintf(name, sizeof name, "ldmatrix.x%d%s on a scattered tile", num, trans ? ".trans" : "");
      snprintf(why, sizeof why, "rc %d; lane %d register %d is %#x", rc, bad / 4, bad % 4, bad >= 0 ? out[bad] : 0);
      verdict(name, rc == 0 && bad < 0, why);
    }
}

/* ------------------------------------------------------------------ */
/* mma.sync m16n8k16                                                    */

/* Packs the operands of lane l from row-major A (16x16) and B (16x8, [k][n])
** by the fragment formulas of the PTX ISA, runs the mma, unpacks D. */
__global__ void mma_kernel(const uint16_t *A, const uint16_t *B, const float *C, float *D, int bf16) {
  int l = threadIdx.x, gid = l >> 2, tig = l % 4;
  uint32_t a[4], b[2];
  float d[4];
  for (int r = 0; r < 4; r++) {   /* a_{2r}, a_{2r+1} in register r */
    int i = 2 * r;
    int row = (i < 2 || (i >= 4 && i < 6)) ? gid : gid + 8;
    int col = tig * 2 + (i >= 4 ? 8 : 0);
    a[r] = (uint32_t)A[row * 16 + col] | (uint32_t)A[row * 16 + col + 1] << 16;
  }
  for (int r = 0; r < 2; r++) {
    int k = tig * 2 + (r ? 8 : 0);
    b[r] = (uint32_t)B[k * 8 + gid] | (uint32_t)B[(k + 1) * 8 + gid] << 16;
  }
  for (int i = 0; i < 4; i++) d[i] = C[(i < 2 ? gid : gid + 8) * 8 + tig * 2 + (i & 1)];
  if (bf16) lt_mma_16816_bf16(d, a, b);
  else lt_mma_16816_f16(d, a, b);
  for (int i = 0; i < 4; i++) D[(i < 2 ? gid : gid + 8) * 8 + tig * 2 + (i & 1)] = d[i];
}

/* Small integers: exact in f16 and bf16, exact sums in f32. */
static void fill_ints(float *f, int n, int seed) {
  for (int i = 0; i < n; i++) f[i] = (float)(((i * 7 + seed * 13) % 17) - 8);
}

static void test_mma(void) {
  for (int bf16 = 0; bf16 < 2; bf16++) {
    float Af[256], Bf[128], C[128], D[128];
    uint16_t A[256], B[128];
    fill_ints(Af, 256, 1), fill_ints(Bf, 128, 2), fill_ints(C, 128, 3);
    for (int i = 0; i < 256; i++) A[i] = bf16 ? b16(Af[i]) : h16(Af[i]);
    for (int i = 0; i < 128; i++) B[i] = bf16 ? b16(Bf[i]) : h16(Bf[i]);
    int rc = lt_emu_launch(mma_kernel, dim3(1), dim3(32), 0, NULL, A, B, C, D, bf16);
    int bad = -1;
    for (int i = 0; i < 16 && rc == 0; i++)
      for (int j = 0; j < 8; j++) {
        float ref = C[i * 8 + j];
        for (int k = 0; k < 16; k++) ref += Af[i * 16 + k] * Bf[k * 8 + j];
        if (D[i * 8 + j] != ref && bad < 0) bad = i * 8 + j;
      }
    char name[64], why[96];
    snprintf(name, sizeof name, "mma.sync.m16n8k16 %s on known matrices", bf16 ? "bf16" : "f16");
    snprintf(why, sizeof why, "rc %d; D[%d][%d] wrong", rc, bad / 8, bad % 8);
    verdict(name, rc == 0 && bad < 0, why);
  }
}

/* The usual sm80 addressing: A 16x16 row-major in shared memory, lane l
** addresses row l%16, columns 8*(l/16) (ldmatrix.x4 gives a0..a7); B
** stored [k][n] (16 rows of 8), lane l < 16 addresses row k = l
** (ldmatrix.x2.trans gives b0..b3); D from the C fragment formula. */
__global__ void ldm_mma_kernel(const uint16_t *A, const uint16_t *B, float *D) {
  extern __shared__ __align__(16) unsigned char lt_smem[];
  uint16_t *As = (uint16_t *)lt_smem, *Bs = As + 256;
  int l = threadIdx.x;
  for (int i = l; i < 256; i += 32) As[i] = A[i];
  for (int i = l; i < 128; i += 32) Bs[i] = B[i];
  __syncthreads();
  uint32_t a[4], b[2];
  lt_ldmatrix_x4(a, As + (l % 16) * 16 + 8 * (l / 16));
  lt_ldmatrix_x2_trans(b, Bs + (l % 16) * 8);
  float d[4] = {0, 0, 0, 0};
  lt_mma_16816_f16(d, a, b);
  int gid = l >> 2, tig = l % 4;
  for (int i = 0; i < 4; i++) D[(i < 2 ? gid : gid + 8) * 8 + tig * 2 + (i & 1)] = d[i];
}

static void test_ldmatrix_mma(void) {
  float Af[256], Bf[128], D[128];
  uint16_t A[256], B[128];
  fill_ints(Af, 256, 5), fill_ints(Bf, 128, 9);
  for (int i = 0; i < 256; i++) A[i] = h16(Af[i]);
  for (int i = 0; i < 128; i++) B[i] = h16(Bf[i]);
  int rc = lt_emu_launch(ldm_mma_kernel, dim3(1), dim3(32), 768, NULL, A, B, D);
  int bad = -1;
  for (int i = 0; i < 16 && rc == 0; i++)
    for (int j = 0; j < 8; j++) {
      float ref = 0;
      for (int k = 0; k < 16; k++) ref += Af[i * 16 + k] * Bf[k * 8 + j];
      if (D[i * 8 + j] != ref && bad < 0) bad = i * 8 + j;
    }
  char why[96];
  snprintf(why, sizeof why, "rc %d; D[%d][%d] wrong", rc, bad / 8, bad % 8);
  verdict("ldmatrix.x4 + ldmatrix.x2.trans + mma.sync = A*B", rc == 0 && bad < 0, why);
}

/* ------------------------------------------------------------------ */
/* wgmma m64nNk16                                                       */

/* One warpgroup, D = C + A B with A 64x16 and B 16x32 taken at k 16..31
** of tiles stored as sm90a's code stores them, here by the chunk formula
** (chunk c of a row at c ^ f(row)), not by address bits: A [64][64] and B
** [32 n][64 k] in 128-byte rows (chunk c ^ (r % 8)), A by descriptor
** (ss, both K-major); or B [16 k][32 n] in 64-byte rows (chunk c ^ (k / 2
** % 4), MN-major) with A from registers in the mma.sync A layout (rs).
** `bug`: 1 a thread stores to A after the issue, 2 a lane writes its
** accumulator, 3 no wait, 4 D read before the wait. */
__global__ void wgmma_kernel(const uint16_t *A, const uint16_t *B, const float *C, float *D, int rs, int bug) {
  extern __shared__ __align__(1024) unsigned char lt_smem[];
  uint16_t *As = (uint16_t *)lt_smem, *Bs = (uint16_t *)(lt_smem + 8192);
  int tid = threadIdx.x, w = tid / 32, l = tid % 32, gid = l >> 2, tig = l % 4;
  for (int i = tid; i < 64 * 64; i += 128) {
    int r = i / 64, c = i % 64;
    As[r * 64 + ((c / 8) ^ (r % 8)) * 8 + c % 8] = A[r * 16 + (c - 16 < 0 || c - 16 >= 16 ? 0 : c - 16)];
  }
  for (int i = tid; i < 32 * 64 && !rs; i += 128) {
    int n = i / 64, k = i % 64;
    Bs[n * 64 + ((k / 8) ^ (n % 8)) * 8 + k % 8] = B[(k - 16 < 0 || k - 16 >= 16 ? 0 : k - 16) * 32 + n];
  }
  for (int i = tid; i < 16 * 32 && rs; i += 128) {
    int k = i / 32, n = i % 32;
    Bs[k * 32 + ((n / 8) ^ (k / 2 % 4)) * 8 + n % 8] = B[k * 32 + n];
  }
  float d[16];
  for (int i = 0; i < 16; i++) d[i] = C[(16 * w + gid + 8 * (i / 8)) * 32 + 8 * (i % 8 / 2) + 2 * tig + i % 2];
  lt_wgmma_barrier();
  lt_wgmma_fence();
  if (rs) {
    uint32_t a[4];
    for (int r = 0; r < 4; r++) {
      int row = 16 * w + gid + 8 * (r % 2), col = 2 * tig + 8 * (r / 2);
      a[r] = (uint32_t)A[row * 16 + col] | (uint32_t)A[row * 16 + col + 1] << 16;
    }
    lt_emu::Wgmma(32, 1, __FILE__, __LINE__).rs<1>(d, a, lt_wgmma_desc(Bs, 1024, 512, 2), 1);
  } else {
    lt_emu::Wgmma(32, 1, __FILE__, __LINE__).ss<0, 0>(d, lt_wgmma_desc(As + 16, 16, 1024, 1),
                                                      lt_wgmma_desc(Bs + 16, 16, 1024, 1), 1);
  }
  lt_wgmma_commit();
  if (bug == 1 && tid == 5) As[64 * 3 + 9] = 0;   /* row 3, column 17 (chunk 2 stored at 2 ^ 3) */
  if (bug == 2 && tid == 9) d[3] = 1.0f;
  if (bug == 4)
    for (int i = 0; i < 16; i++) D[(16 * w + gid + 8 * (i / 8)) * 32 + 8 * (i % 8 / 2) + 2 * tig + i % 2] = d[i];
  if (bug != 3) lt_wgmma_wait<0>();
  if (bug == 4) return;
  for (int i = 0; i < 16; i++) D[(16 * w + gid + 8 * (i / 8)) * 32 + 8 * (i % 8 / 2) + 2 * tig + i % 2] = d[i];
}

static void test_wgmma(void) {
  static float Af[64 * 16], Bf[16 * 32], C[64 * 32], D[64 * 32];
  static uint16_t A[64 * 16], B[16 * 32];
  fill_ints(Af, 64 * 16, 4), fill_ints(Bf, 16 * 32, 6), fill_ints(C, 64 * 32, 8);
  for (int i = 0; i < 64 * 16; i++) A[i] = b16(Af[i]);
  for (int i = 0; i < 16 * 32; i++) B[i] = b16(Bf[i]);
  for (int rs = 0; rs < 2; rs++) {
    int rc = lt_emu_launch(wgmma_kernel, dim3(1), dim3(128), 16384, NULL, A, B, C, D, rs, 0);
    int bad = -1;
    for (int i = 0; i < 64 && rc == 0; i++)
      for (int j = 0; j < 32; j++) {
        float ref = C[i * 32 + j];
        for (int k = 0; k < 16; k++) ref += Af[i * 16 + k] * Bf[k * 32 + j];
        if (D[i * 32 + j] != ref && bad < 0) bad = i * 32 + j;
      }
    char why[96];
    snprintf(why, sizeof why, "rc %d; D[%d][%d] wrong", rc, bad / 32, bad % 32);
    verdict(rs ? "wgmma m64n32k16 bf16, A from registers, B MN-major in 64-byte swizzled rows = C + A*B"
               : "wgmma m64n32k16 bf16, A and B K-major in 128-byte swizzled rows from k 16 = C + A*B",
            rc == 0 && bad < 0, why);
  }
  expect_error("wgmma: shared memory it reads stored to before its wait",
               lt_emu_launch(wgmma_kernel, dim3(1), dim3(128), 16384, NULL, A, B, C, D, 0, 1), 719,
               "the shared memory of A (row 3, k 1) changed while the wgmma was in flight");
  expect_error("wgmma: accumulator written before its wait",
               lt_emu_launch(wgmma_kernel, dim3(1), dim3(128), 16384, NULL, A, B, C, D, 1, 2), 719,
               "lane 9 of warp 0 wrote its accumulator register 3 while the wgmma was in flight");
  expect_error("wgmma: no wait before the block ends",
               lt_emu_launch(wgmma_kernel, dim3(1), dim3(128), 16384, NULL, A, B, C, D, 0, 3), 719,
               "wgmma is still in flight when the block ends (missing wgmma.wait_group)");
  int rc = lt_emu_launch(wgmma_kernel, dim3(1), dim3(128), 16384, NULL, A, B, C, D, 0, 4), nan = 0;
  for (int i = 0; i < 64 * 32; i++) nan += isnan(D[i]);
  char why[96];
  snprintf(why, sizeof why, "rc %d; %d of %d elements NaN", rc, nan, 64 * 32);
  verdict("wgmma: accumulators read before the wait are NaN", rc == 0 && nan == 64 * 32, why);
}

/* ------------------------------------------------------------------ */
/* wgmma m64nNk32 e4m3 / e5m2, m64nNk8 tf32 (both operands K-major)     */

/* One warpgroup, D = C + A B, A 64 x K and B K x 32 (K: 32 fp8 bytes or 8
** f32 words) from the second 32 bytes of 128-byte swizzled rows (chunk c
** of row r at c ^ (r % 8)), A [64 rows][128 bytes], B [32 n][128 bytes],
** both by descriptor; kind as WgOp's (2 e4m3, 3 e5m2, 4 tf32). */
__global__ void wgmma8_kernel(const unsigned char *A, const unsigned char *B, const float *C, float *D, int kind) {
  extern __shared__ __align__(1024) unsigned char lt_smem[];
  unsigned char *As = lt_smem, *Bs = lt_smem + 8192;
  int tid = threadIdx.x, w = tid / 32, l = tid % 32, gid = l >> 2, tig = l % 4;
  for (int i = tid; i < 64 * 128; i += 128) {   /* bytes 32..63 of each row: the operand's, the rest 0 */
    int r = i / 128, c = i % 128;
    As[r * 128 + ((c / 16) ^ (r % 8)) * 16 + c % 16] = c >= 32 && c < 64 ? A[r * 32 + c - 32] : 0;
  }
  for (int i = tid; i < 32 * 128; i += 128) {
    int n = i / 128, c = i % 128;
    Bs[n * 128 + ((c / 16) ^ (n % 8)) * 16 + c % 16] = c >= 32 && c < 64 ? B[n * 32 + c - 32] : 0;
  }
  float d[16];
  for (int i = 0; i < 16; i++) d[i] = C[(16 * w + gid + 8 * (i / 8)) * 32 + 8 * (i % 8 / 2) + 2 * tig + i % 2];
  lt_wgmma_barrier();
  lt_wgmma_fence();
  lt_emu::Wgmma(32, kind, __FILE__, __LINE__).kk(d, lt_wgmma_desc(As + 32, 16, 1024, 1), lt_wgmma_desc(Bs + 32, 16, 1024, 1), 1);
  lt_wgmma_commit();
  lt_wgmma_wait<0>();
  for (int i = 0; i < 16; i++) D[(16 * w + gid + 8 * (i / 8)) * 32 + 8 * (i % 8 / 2) + 2 * tig + i % 2] = d[i];
}

static void test_wgmma8(void) {
  /* codes of known values (OCP fp8: e4m3 bias 7, e5m2 bias 15), not decoded by the emulator's formula */
  static const unsigned char e4[] = {0x38, 0x40, 0x44, 0xB8, 0x30, 0x00, 0xC4, 0x01, 0x7E, 0x20};
  static const double v4[] = {1, 2, 3, -1, 0.5, 0, -3, 0x1p-9, 448, 0.125};
  static const unsigned char e5[] = {0x3C, 0x40, 0x42, 0xBC, 0x38, 0x00, 0xC2, 0x01, 0x7B, 0x30};
  static const double v5[] = {1, 2, 3, -1, 0.5, 0, -3, 0x1p-16, 57344, 0.125};
  static unsigned char A[64 * 32], B[32 * 32];
  static double Av[64 * 32], Bv[32 * 32];
  static float C[64 * 32], D[64 * 32];
  fill_ints(C, 64 * 32, 8);
  for (int kind = 2; kind <= 4; kind++) {
    int K = kind == 4 ? 8 : 32;
    unsigned seed = 12345u + (unsigned)kind;
    for (int i = 0; i < 64 * K + 32 * K; i++) {
      seed = seed * 1103515245u + 12345u;
      int j = (int)(seed >> 16) % 10;
      double *v = i < 64 * K ? &Av[i] : &Bv[i - 64 * K];
      unsigned char *bytes = i < 64 * K ? A : B;
      int at = i < 64 * K ? i : i - 64 * K;
      if (kind < 4) {
        bytes[at] = kind == 2 ? e4[j] : e5[j];
        *v = kind == 2 ? v4[j] : v5[j];
      } else {   /* tf32: integers -4..4 with bits below tf32's 10-bit mantissa set, which the tensor cores drop */
        float x = (float)(j - 4) * (1.0f + 0x1p-13f);
        memcpy(bytes + 4 * at, &x, 4);
        *v = (double)(j - 4);
      }
    }
    int rc = lt_emu_launch(wgmma8_kernel, dim3(1), dim3(128), 16384, NULL, A, B, C, D, kind), bad = -1;
    for (int i = 0; i < 64 && rc == 0; i++)
      for (int j = 0; j < 32; j++) {
        double ref = C[i * 32 + j];
        for (int k = 0; k < K; k++) ref += Av[i * K + k] * Bv[j * K + k];
        if (D[i * 32 + j] != (float)ref && bad < 0) bad = i * 32 + j;
      }
    char why[96], name[128];
    snprintf(why, sizeof why, "rc %d; D[%d][%d] wrong", rc, bad / 32, bad % 32);
    snprintf(name, sizeof name, "wgmma m64n32k%d %s, A and B K-major in 128-byte swizzled rows from byte 32 = C + A*B", K,
             kind == 2 ? "e4m3" : kind == 3 ? "e5m2" : "tf32 (low 13 bits dropped)");
    verdict(name, rc == 0 && bad < 0, why);
  }
}

/* ------------------------------------------------------------------ */
/* cp.async                                                             */

/* Thread t copies 16 bytes to shared offset 16t (group 0), and thread t
** copies 16 bytes, of which only t%17 from global, to offset 512 + 16t
** (group 1).  out records what the thread sees before any wait, after
** wait_group 1 and after wait_group 0 (first 4 bytes of each). */
/* The 4 bytes at p, read past the emulator's checks of plain loads: the
** test looks at bytes a cp.async has not landed yet on purpose. */
__device__ __attribute__((noinline, LT_EMU_NO_SANITIZE)) uint32_t peek4(const unsigned char *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

__global__ void cp_kernel(const unsigned char *src, uint32_t *out) {
  extern __shared__ __align__(16) unsigned char lt_smem[];
  int t = threadIdx.x;
  lt_cp_async16(lt_smem + 16 * t, src + 16 * t, 16);
  lt_cp_async_commit();
  lt_cp_async16(lt_smem + 512 + 16 * t, src + 512 + 16 * t, t % 17);
  lt_cp_async_commit();
  uint32_t v;
  out[t * 8 + 0] = peek4(lt_smem + 16 * t);
  lt_cp_async_wait<1>();
  memcpy(&v, lt_smem + 16 * t, 4);
  out[t * 8 + 1] = v;
  out[t * 8 + 2] = peek4(lt_smem + 512 + 16 * t);
  lt_cp_async_wait<0>();
  memcpy(&v, lt_smem + 512 + 16 * t, 4);
  out[t * 8 + 3] = v;
  memcpy(&v, lt_smem + 512 + 16 * t + 12, 4);
  out[t * 8 + 4] = v;
}

static void test_cp_async(void) {
  unsigned char src[1024];
  for (int i = 0; i < 1024; i++) src[i] = (unsigned char)(i * 7 + 1);
  uint32_t out[256];
  int rc = lt_emu_launch(cp_kernel, dim3(1), dim3(32), 1024, NULL, src, out);
  bool stale = true, landed0 = true, pending1 = true, landed1 = true, zero = true;
  for (int t = 0; t < 32 && rc == 0; t++) {
    uint32_t g0, g1, g1hi;
    memcpy(&g0, src + 16 * t, 4);
    unsigned char want[16] = {0};
    memcpy(want, src + 512 + 16 * t, (size_t)(t % 17));
    memcpy(&g1, want, 4);
    memcpy(&g1hi, want + 12, 4);
    stale &= out[t * 8 + 0] == 0xffffffffu;
    landed0 &= out[t * 8 + 1] == g0;
    pending1 &= out[t * 8 + 2] == 0xffffffffu;
    landed1 &= out[t * 8 + 3] == g1;
    zero &= out[t * 8 + 4] == g1hi;
  }
  verdict("cp.async: data not in shared memory before a wait", rc == 0 && stale, "the copy landed at issue");
  verdict("cp.async.wait_group 1 lands the older group only", rc == 0 && landed0 && pending1, "wrong groups landed");
  verdict("cp.async.wait_group 0 lands the rest, src-size < 16 zero-fills", rc == 0 && landed1 && zero,
          "wrong data after wait_group 0");
}

/* ------------------------------------------------------------------ */
/* detections                                                           */

__global__ void early_exit_kernel(float *x) {
  if (threadIdx.x >= 48) return;
  __syncthreads();
  x[threadIdx.x] = 1;
}

__global__ void two_barriers_kernel(float *x) {
  if (threadIdx.x < 32) {
    __syncthreads();
  } else {
    x[threadIdx.x] = 2;
    __syncthreads();
  }
}

__global__ void partial_shfl_kernel(float *x) {
  float v = x[threadIdx.x];
  if (threadIdx.x % 32 < 8) v = __shfl_xor_sync(0xffffffffu, v, 1);
  x[threadIdx.x] = v;
}

__global__ void shfl_then_barrier_kernel(float *x) {
  float v = x[threadIdx.x];
  if (threadIdx.x % 32 < 8) v += __shfl_xor_sync(0xffffffffu, v, 1);
  __syncthreads();
  x[threadIdx.x] = v;
}

__global__ void shfl_missing_lane_kernel(float *x) {
  x[threadIdx.x] = __shfl_xor_sync(0xffffffffu, x[threadIdx.x], 16);   /* 48 threads: warp 1 has lanes 0-15 */
}

__global__ void shfl_ok_kernel(int *x) {
  int v = x[threadIdx.x];
  for (int o = 16; o >= 1; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  x[threadIdx.x] = v;
}

/* Each lane gets lane 3's value of its warp. */
__global__ void shfl_idx_kernel(int *x) { x[threadIdx.x] = __shfl_sync(0xffffffffu, x[threadIdx.x], 3); }

/* Each lane's vote: x[i] != 0; each lane gets its warp's answer in x. */
__global__ void any_kernel(int *x) {
  int p = x[threadIdx.x] != 0;
  x[threadIdx.x] = __any_sync(0xffffffffu, p);
}

/* Stores n bytes of value v at p one by one, as plain stores (memset
** would be one call, which the tracing of loads and stores does not see). */
__device__ void fill(unsigned char *p, int v, int n) {
  for (int i = 0; i < n; i++) ((volatile unsigned char *)p)[i] = (unsigned char)v;
}

/* ldmatrix of shared rows: mode 0 none written, 1 written by another
** thread with no barrier, 2 written by a cp.async not waited for, 3 rows
** past the launch's dynamic shared memory. */
__global__ void ldm_bad_kernel(const unsigned char *g, int mode) {
  extern __shared__ __align__(16) unsigned char lt_smem[];
  int l = threadIdx.x;
  if (mode == 1) fill(lt_smem + 16 * ((l + 1) % 32), 1, 16);
  if (mode == 2) {
    lt_cp_async16(lt_smem + 16 * l, g + 16 * l, 16);
    lt_cp_async_commit();
  }
  uint32_t r[4];
  lt_ldmatrix_x4(r, lt_smem + 16 * l + (mode == 3 ? 608 : 0));
}

/* Shared-memory races the shadow state sees: mode 0 a cp.async over bytes
** another thread read (ldmatrix) since the barrier; 1 a plain store into a
** cp.async in flight; 2 a plain store over bytes an ldmatrix read since the
** barrier; 3 a misaligned cp.async. */
__global__ void race_kernel(const unsigned char *g, int mode) {
  extern __shared__ __align__(16) unsigned char lt_smem[];
  int l = threadIdx.x;
  fill(lt_smem + 16 * l, 2, 16);
  __syncthreads();
  if (mode == 0) {
    uint32_t r[4];
    lt_ldmatrix_x4(r, lt_smem + 16 * l);
    lt_cp_async16(lt_smem + 16 * ((l + 1) % 32), g, 16);
  }
  if (mode == 1) {
    lt_cp_async16(lt_smem + 16 * l, g, 16);
    lt_smem[16 * l + 3] = 7;
  }
  if (mode == 2) {
    uint32_t r[4];
    lt_ldmatrix_x4(r, lt_smem + 16 * l);
    lt_smem[16 * ((l + 1) % 32) + 5] = 9;
  }
  if (mode == 3) lt_cp_async16(lt_smem + 16 * l + 4, g, 16);
  __syncthreads();
}

__global__ void mma_lane_exits_kernel(float *x) {
  uint32_t a[4] = {0, 0, 0, 0}, b[2] = {0, 0};
  float d[4] = {0, 0, 0, 0};
  if (threadIdx.x == 5) return;
  lt_mma_16816_f16(d, a, b);
  x[threadIdx.x] = d[0];
}

__global__ void big_smem_kernel(float *x) {
  extern __shared__ __align__(16) unsigned char lt_smem[];
  lt_smem[threadIdx.x] = 1;
  x[threadIdx.x] = lt_smem[threadIdx.x];
}

/* (not the sanitizer's alignment check: the emulator's own is tested) */
__global__ __attribute__((no_sanitize("alignment"))) void misaligned_vector_kernel(const unsigned char *g, uint4 *out) {
  out[threadIdx.x] = ((const uint4 *)(g + 4))[threadIdx.x];   /* 16-byte loads 4 bytes off */
}

__global__ void static_race_kernel(int *x, int v) {
  __shared__ int flag[1];
  if (threadIdx.x == 0) flag[0] = v;
  x[threadIdx.x] = flag[0];   /* no barrier between */
}

/* Plain shared-memory accesses the tracing sees (dynamic lt_smem, and the
** __shared__ array s), by mode, on 64 threads: 0 a reduction over the two
** warps' slots that reads a third slot no warp wrote; 1 a read of dynamic bytes nobody wrote; 2 a read of another
** warp's store with no barrier; 3 a store over a byte other threads read
** since the barrier; 4 two threads of different warps storing one byte;
** 5 a lane's store read by another lane of its warp after a shuffle (fine);
** 6 the same with no shuffle between; 7 block 0 fills s, the others only
** half of it, all read all of it; 8 a plain load past the launch's
** dynamic shared memory; 9 the reduction done right (fine).  In the
** forward order the last thread to reach a barrier goes on first. */
__global__ void plain_shared_kernel(int *x, int mode) {
  extern __shared__ __align__(16) unsigned char lt_smem[];
  __shared__ float s[8];
  int t = threadIdx.x, v = 0;
  if (mode == 0 || mode == 9) {
    if (t % 32 == 0) s[t / 32] = (float)t;
    __syncthreads();
    for (int w = 0; w < (mode == 0 ? 3 : 2); w++) v += (int)s[w];
  }
  if (mode == 1) v = lt_smem[t + 3];
  if (mode == 2) {
    if (t == 0) lt_smem[0] = 1;
    if (t == 32) v = lt_smem[0];
  }
  if (mode == 3 || mode == 4) {
    lt_smem[t] = 1;
    __syncthreads();
    if (mode == 3) v = lt_smem[0];
    if (mode == 3 && t == 62) lt_smem[0] = 2;
    if (mode == 4 && t % 32 == 0) lt_smem[0] = (unsigned char)t;
  }
  if (mode == 5 || mode == 6) {
    if (t % 32 == 0) lt_smem[t] = 7;
    if (mode == 5) v = __shfl_xor_sync(0xffffffffu, v, 1);
    v += lt_smem[t / 32 * 32];
  }
  if (mode == 7) {
    if ((blockIdx.x == 0 && t < 8) || t < 4) s[t] = 1.0f;
    __syncthreads();
    for (int w = 0; w < 8; w++) v += (int)s[w];
  }
  if (mode == 8) v = lt_smem[1024 + t];
  x[blockIdx.x * blockDim.x + t] = v;
}

/* The checks of plain shared-memory loads and stores: each mode of
** plain_shared_kernel, with its report.  SKIP when this build does not
** trace them (FAIL when run.sh says it should: LT_EMU_EXPECT_TRACED=1). */
static void test_plain_shared(void) {
  static int x[2 * 64];
  int rc = lt_emu_launch(plain_shared_kernel, dim3(1), dim3(64), 64, NULL, x, 9);
  if (!lt_emu::traced()) {
    const char *e = getenv("LT_EMU_EXPECT_TRACED");
    if (e && *e == '1') verdict("plain shared-memory accesses are traced", false, "the launch was not traced");
    else printf("SKIP emu unit %s plain shared-memory access checks: not built with -fsanitize-coverage=func,inline-bool-flag,"
                "trace-loads,trace-stores (clang)\n", label);
    return;
  }
  verdict("a reduction through a __shared__ array with its barrier passes", rc == 0 && x[5] == 0 + 32, "it failed");
  struct {
    const char *name;
    int mode, blocks, smem;
    const char *words;
  } cases[] = {
      {"a reduction reads a __shared__ slot no warp wrote", 0, 1, 64,
       "reads a __shared__ array (static, at "},
      {"the report names the slot as unwritten", 0, 1, 64, "that no thread wrote in this block"},
      {"a plain load of dynamic shared memory no thread wrote", 1, 1, 128,
       "thread 0 reads shared memory (dynamic, offset 3) that no thread wrote in this block"},
      {"a plain load of another warp's store with no barrier (read after write)", 2, 1, 64,
       "thread 32 reads shared memory (dynamic, offset 0) that thread 0 wrote since the last barrier (missing barrier)"},
      {"a plain store over bytes other threads read since the barrier (write after read)", 3, 1, 64,
       "a plain store of thread 62 overwrote shared memory (dynamic, offset 0) that several threads read since the last "
       "barrier (missing barrier before the store)"},
      {"two warps store one byte with no barrier between (write after write)", 4, 1, 64,
       "a plain store of thread 32 overwrote shared memory (dynamic, offset 0) that thread 0 wrote since the last barrier"},
      {"a lane reads another lane's store with no warp operation between", 6, 1, 64,
       "thread 1 reads shared memory (dynamic, offset 0) that thread 0 wrote since the last barrier"},
      {"a __shared__ array counts as unwritten at the start of every block", 7, 2, 64,
       "block (1,0,0): thread 63 reads a __shared__ array (static, at "},
      {"a plain load past the launch's dynamic shared memory", 8, 1, 1024,
       "thread 0 reads dynamic shared offset 1024..1024, outside the 1024 bytes of the launch"},
  };
  for (auto &c : cases)
    expect_error(c.name, lt_emu_launch(plain_shared_kernel, dim3(c.blocks), dim3(64), c.smem, NULL, x, c.mode), 719,
                 c.words);
  rc = lt_emu_launch(plain_shared_kernel, dim3(1), dim3(64), 64, NULL, x, 5);
  verdict("a lane reads another lane's store after a shuffle of their warp", rc == 0 && x[1] == 7 && x[33] == 7,
          lt_emu::message());
}

static void test_detections(void) {
  float x[256];
  for (int i = 0; i < 256; i++) x[i] = (float)i;
  unsigned char g[1024] __attribute__((aligned(16)));
  memset(g, 3, sizeof g);
  expect_error("barrier some threads never reach (they return)",
               lt_emu_launch(early_exit_kernel, dim3(2), dim3(64), 0, NULL, x), 719,
               "__syncthreads reached by only some threads: threads 0-47 wait at it; threads 48-63 finished");
  expect_error("threads at different barriers", lt_emu_launch(two_barriers_kernel, dim3(1), dim3(64), 0, NULL, x), 719,
               "reached by only some threads: threads 0-31 wait there; threads 32-63 wait at the __syncthreads");
  expect_error("shuffle some lanes never reach (they finish)",
               lt_emu_launch(partial_shfl_kernel, dim3(1), dim3(32), 0, NULL, x), 719,
               "__shfl_xor_sync reached by only some lanes of warp 0: lanes 0-7 wait at it; lane 8 finished");
  expect_error("shuffle some lanes never reach (they wait at a barrier)",
               lt_emu_launch(shfl_then_barrier_kernel, dim3(1), dim3(64), 0, NULL, x), 719,
               "lanes 0-7 wait at it; lane 8 waits at a barrier");
  expect_error("shuffle from a lane that does not exist",
               lt_emu_launch(shfl_missing_lane_kernel, dim3(1), dim3(48), 0, NULL, x), 719, "which does not exist");
  int xi[64], good = 1;
  for (int i = 0; i < 64; i++) xi[i] = i;
  int rc = lt_emu_launch(shfl_ok_kernel, dim3(1), dim3(64), 0, NULL, xi);
  for (int i = 0; i < 64; i++) good &= xi[i] == (i < 32 ? 496 : 1520);
  verdict("__shfl_xor_sync butterfly sums each warp", rc == 0 && good, "wrong sums");
  for (int i = 0; i < 64; i++) xi[i] = 7 * i + 1;
  rc = lt_emu_launch(shfl_idx_kernel, dim3(1), dim3(64), 0, NULL, xi);
  good = 1;
  for (int i = 0; i < 64; i++) good &= xi[i] == (i < 32 ? 22 : 7 * 35 + 1);
  verdict("__shfl_sync: each lane reads lane 3 of its own warp", rc == 0 && good, "wrong values");
  for (int i = 0; i < 64; i++) xi[i] = 0;
  xi[45] = 1;   /* warp 1's lane 13 alone: warp 0 votes no, warp 1 yes */
  rc = lt_emu_launch(any_kernel, dim3(1), dim3(64), 0, NULL, xi);
  good = 1;
  for (int i = 0; i < 64; i++) good &= xi[i] == (i >= 32);
  verdict("__any_sync: one lane's predicate reaches its warp's lanes, not the other warp's", rc == 0 && good,
          "wrong votes");
  expect_error("ldmatrix of shared memory no thread wrote",
               lt_emu_launch(ldm_bad_kernel, dim3(1), dim3(32), 1024, NULL, g, 0), 719, "that no thread wrote");
  expect_error("ldmatrix of rows another thread wrote with no barrier",
               lt_emu_launch(ldm_bad_kernel, dim3(1), dim3(32), 1024, NULL, g, 1), 719,
               "wrote since the last barrier (missing barrier)");
  expect_error("ldmatrix of a cp.async destination with no wait",
               lt_emu_launch(ldm_bad_kernel, dim3(1), dim3(32), 1024, NULL, g, 2), 719,
               "is still copying (missing cp.async wait)");
  expect_error("ldmatrix past the launch's dynamic shared memory",
               lt_emu_launch(ldm_bad_kernel, dim3(1), dim3(32), 600, NULL, g, 3), 719, "is outside the 600 bytes");
  expect_error("cp.async over bytes another thread read since the barrier",
               lt_emu_launch(race_kernel, dim3(1), dim3(32), 1024, NULL, g, 0), 719,
               "read since the last barrier (missing barrier before the copy)");
  rc = lt_emu_launch(race_kernel, dim3(1), dim3(32), 1024, NULL, g, 1);   /* traced: seen at the store, of thread 31 first */
  expect_error("a write into a cp.async in flight", rc, 719,
               lt_emu::traced() ? "a plain store of thread 31 wrote shared memory (dynamic, offset 499) while a cp.async of "
                                  "thread 31 to it was in flight"
                                : "a plain store wrote shared memory (dynamic, offset 3) while a cp.async of thread 0 to "
                                  "it was in flight");
  rc = lt_emu_launch(race_kernel, dim3(1), dim3(32), 1024, NULL, g, 2);
  expect_error("a plain store over bytes an ldmatrix read since the barrier", rc, 719,
               lt_emu::traced() ? "a plain store of thread 30 overwrote shared memory (dynamic, offset 501) that thread 31 "
                                  "read since the last barrier"
                                : "a plain store overwrote shared memory (dynamic, offset 5) that a thread read with ldmatrix "
                                  "since the last barrier");
  expect_error("misaligned cp.async", lt_emu_launch(race_kernel, dim3(1), dim3(32), 1024, NULL, g, 3), 719,
               "is not 16-byte aligned");
  uint4 vout[32];
  expect_error("a uint4 load from an address not 16-byte aligned",
               lt_emu_launch(misaligned_vector_kernel, dim3(1), dim3(32), 0, NULL, g, vout), 719,
               "16-byte vector access at");
  expect_error("mma.sync with a lane gone", lt_emu_launch(mma_lane_exits_kernel, dim3(1), dim3(32), 0, NULL, x), 719,
               "reached by only some lanes of warp 0: lanes 0-4, 6-31 wait at it; lane 5 finished");
  expect_error("more than 48 KiB of dynamic shared memory without the opt-in",
               lt_emu_launch(big_smem_kernel, dim3(1), dim3(32), 64 * 1024, NULL, x), cudaErrorInvalidValue,
               "more than the kernel's opt-in");
  rc = cudaFuncSetAttribute(big_smem_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024);
  int rc2 = lt_emu_launch(big_smem_kernel, dim3(1), dim3(32), 64 * 1024, NULL, x);
  verdict("64 KiB of dynamic shared memory after cudaFuncSetAttribute", rc == 0 && rc2 == 0 && x[3] == 1,
          "the opted-in launch failed");
  verdict("cudaFuncSetAttribute above the target's limit fails",
          cudaFuncSetAttribute(big_smem_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 300 * 1024) ==
              cudaErrorInvalidValue,
          "accepted 300 KiB");
  expect_error("a block of 2048 threads", lt_emu_launch(big_smem_kernel, dim3(1), dim3(2048), 0, NULL, x),
               cudaErrorInvalidConfiguration, "invalid configuration");
  verdict("cudaGetLastError returns the last launch error once",
          cudaGetLastError() == cudaErrorInvalidConfiguration && cudaGetLastError() == cudaSuccess, "wrong codes");
  /* A race on a __shared__ array: the result depends on the order threads
  ** run in, which LT_EMU_SCHEDULE changes; traced, it is reported in
  ** either order. */
  int fw[32], rv[32], fw_ok = 1, rv_ok = 1;
  setenv("LT_EMU_SCHEDULE", "forward", 1);
  int r1 = lt_emu_launch(static_race_kernel, dim3(1), dim3(32), 0, NULL, fw, 42);
  char m1[2048];
  snprintf(m1, sizeof m1, "%s", lt_emu::message());
  setenv("LT_EMU_SCHEDULE", "reverse", 1);
  int r2 = lt_emu_launch(static_race_kernel, dim3(1), dim3(32), 0, NULL, rv, 43);
  unsetenv("LT_EMU_SCHEDULE");
  if (lt_emu::traced()) {
    verdict("a race on a __shared__ array, forward order: a read after write",
            r1 == 719 && strstr(m1, "thread 1 reads a __shared__ array (static, at ") &&
                strstr(m1, "that thread 0 wrote since the last barrier (missing barrier)"),
            m1);
    expect_error("a race on a __shared__ array, reverse order", r2, 719,
                 "thread 31 reads a __shared__ array (static, at ");
  } else {
    for (int i = 0; i < 32; i++) fw_ok &= fw[i] == 42, rv_ok &= rv[i] == 43;
    verdict("a race on a __shared__ array hides in forward order, shows in reverse",
            r1 == 0 && r2 == 0 && fw_ok && !rv_ok, "the schedules did not change the racy result");
  }
}

/* Thread 0 spins on a flag no one sets (run by run.sh with LT_EMU_TIMEOUT). */
__global__ void spin_kernel(volatile int *flag) {
  while (threadIdx.x == 0 && flag[0] == 0) {
  }
}

/* lt_divisor_of / lt_div / lt_mod (the persistent grid's division by
** multiply and shift, gen's pass/fastdiv.c) against the C operators: every
** divisor up to 4096 and about 2^k and 3 2^k up to 2^31 - 1, random ones,
** each with dividends at its multiples' edges, at 0 and 2^31 - 1, and
** random ones. */
static void test_divisor(void) {
  uint64_t x = 0x9e3779b97f4a7c15ull;
  auto rnd = [&x](uint32_t below) { x = x * 6364136223846793005ull + 1442695040888963407ull; return (uint32_t)(x >> 33) % below; };
  char why[200] = "";
  auto one = [&](int d) {
    lt_divisor v = lt_divisor_of(d);
    int ns[16] = {0, 1, d - 1, d, d + 1, 2147483647, 2147483646, 2147483647 - 2147483647 % d,
                  2147483647 - 2147483647 % d - 1, (int)rnd(2147483647u), (int)rnd(2147483647u), (int)rnd(1u << 20),
                  (int)rnd(1u << 20), d / 2 * 3, (int)((int64_t)rnd(1u << 12) * d % 2147483647), 65535};
    for (int n : ns) {
      if (n < 0) continue;
      if (!*why && (lt_div(n, v) != n / d || lt_mod(n, v) != n % d))
        snprintf(why, sizeof why, "%d / %d: %d rem %d (want %d rem %d)", n, d, lt_div(n, v), lt_mod(n, v), n / d, n % d);
    }
  };
  for (int d = 1; d <= 4096; d++) one(d);
  for (int k = 12; k < 31; k++)
    for (int j = 0; j < 4; j++) {
      const int64_t p = (int64_t)1 << k, d = j < 3 ? p - 1 + j : 3 * (p >> 1);
      if (d < 2147483648ll) one((int)d);
    }
  one(2147483647);
  for (int i = 0; i < 20000; i++) one(1 + (int)rnd(2147483647u));
  verdict("lt_div / lt_mod: the C quotient and remainder", !*why, why);
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--hang") == 0) {
    int flag = 0;
    return lt_emu_launch(spin_kernel, dim3(1), dim3(32), 0, NULL, &flag);
  }
  if (argc > 1) label = argv[1];
  test_conversions();
  test_ldmatrix();
  test_mma();
  test_ldmatrix_mma();
  test_wgmma();
  test_wgmma8();
  test_cp_async();
  test_detections();
  test_plain_shared();
  test_divisor();
  printf("# emu unit %s: done\n", label);   /* run.sh: the run was not cut short */
  return fails ? 1 : 0;
}
