/*
** unit_hip.cpp: unit tests of the HIP side of the emulator (templates/emu.h
** + emu_hip.h), built with -Itemplates.
**
** The matrix instructions on known matrices.  Operands are packed by the
** element-to-register formulas of AMD's matrix instruction calculator
** ("A[i][k] GPR / Lane"), and D is read back by them too ("C or D[i][j]
** GPR / Lane"); the emulator itself works the other way round (register
** and lane to element), so a slip in either shows.  Then the wavefront
** rules: MFMA needs 64 lanes, WMMA 32 with lanes 16-31 repeating 0-15,
** __shfl_xor spans the wavefront, lt_syncthreads.  Then the checks of plain
** LDS loads and stores, when the build traces them.  CDNA3's fp8 MFMA
** (32x32x16, 16x16x32; fp8 and bf8, FNUZ bytes) likewise, with the bytes
** encoded by the formats' definitions here, and templates/fp8_fnuz.h's
** mapping of OCP bytes on all 256 of each format.
** Prints PASS / FAIL / SKIP lines.
*/
#define LT_EMU_WARP 64
#include "emu.h"
#include "emu_hip.h"
#include "fp8.h"
#include "fp8_fnuz.h"

static int fails;
static const char *label = "hip";   /* argv[1]: names the build in the output */

static void verdict(const char *name, bool ok, const char *why) {
  printf("%s emu unit %s %s%s%s\n", ok ? "PASS" : "FAIL", label, name, ok ? "" : ": ", ok ? "" : why);
  if (!ok) fails++;
  fflush(stdout);
}

static void expect_error(const char *name, int rc, const char *words) {
  char why[2300];
  bool ok = rc == hipErrorLaunchFailure && strstr(lt_emu::message(), words) != NULL;
  snprintf(why, sizeof why, "launch returned %d, message \"%s\" (want \"%s\")", rc, lt_emu::message(), words);
  verdict(name, ok, why);
}

/* Launches on a wavefront of `warp` lanes (the macro's is LT_EMU_WARP). */
#define launch_w(warp, k, grid, block, ...) \
  lt_emu::launch(#k, __FILE__, __LINE__, warp, LT_EMU_HIP_LDS, k, grid, block, 0, NULL, __VA_ARGS__)

enum { S32x32x8, S16x16x16, W16x16x16 };

/* Calculator formulas, element to (register, lane): for A[i][k] (and
** B[k][j] with j for i) the 16-bit slot (register * 2 + half) and lane;
** for D[i][j] the register and lane. */
static void a_slot(int shape, int i, int k, int *slot, int *lane) {
  if (shape == S32x32x8) *lane = 32 * (k / 4) + i, *slot = 2 * ((k / 2) % 2) + k % 2;
  else if (shape == S16x16x16) *lane = 16 * (k / 4) + i, *slot = 2 * ((k / 2) % 2) + k % 2;
  else *lane = i, *slot = k;   /* WMMA: register floor(k/2), half k%2; also in lane i + 16 */
}

static void d_slot(int shape, int i, int j, int *reg, int *lane) {
  if (shape == S32x32x8) *reg = 4 * (i / 8) + i % 4, *lane = (32 * (i / 4)) % 64 + j;
  else if (shape == S16x16x16) *reg = i % 4, *lane = 16 * (i / 4) + j;
  else *reg = i / 2, *lane = 16 * (i % 2) + j;
}

/* Operands per lane, packed on the host: 8 registers of A, 8 of B, 16 of D. */
struct LaneOps {
  uint32_t a[8], b[8];
  float d[16];
};

__global__ void matrix_kernel(LaneOps *ops, int shape, int bf16) {
  LaneOps *o = &ops[threadIdx.x];
  if (shape == S32x32x8 && !bf16) lt_mfma_32x32x8_f16(o->d, o->a, o->b);
  if (shape == S32x32x8 && bf16) lt_mfma_32x32x8_bf16(o->d, o->a, o->b);
  if (shape == S16x16x16 && !bf16) lt_mfma_16x16x16_f16(o->d, o->a, o->b);
  if (shape == S16x16x16 && bf16) lt_mfma_16x16x16_bf16(o->d, o->a, o->b);
  if (shape == W16x16x16 && !bf16) lt_wmma_16x16x16_f16(o->d, o->a, o->b);
  if (shape == W16x16x16 && bf16) lt_wmma_16x16x16_bf16(o->d, o->a, o->b);
}

static uint16_t bits16(float f, int bf16) {
  if (bf16) return lt_f32_to_bf16(f);
  _Float16 h = (_Float16)f;
  uint16_t u;
  memcpy(&u, &h, 2);
  return u;
}

static void put16(uint32_t *regs, int slot, uint16_t v) {
  uint32_t *r = &regs[slot / 2];
  *r = slot % 2 ? (*r & 0xffffu) | (uint32_t)v << 16 : (*r & 0xffff0000u) | v;
}

static void test_matrix(int shape, int bf16) {
  const int M = shape == S32x32x8 ? 32 : 16, K = shape == S32x32x8 ? 8 : 16, lanes = shape == W16x16x16 ? 32 : 64;
  static float A[32][16], B[16][32], C[32][32];
  static LaneOps ops[64];
  memset(ops, 0, sizeof ops);
  for (int i = 0; i < M; i++)
    for (int k = 0; k < K; k++) A[i][k] = (float)((i * 5 + k * 3 + bf16) % 13 - 6), B[k][i] = (float)((i * 7 + k) % 11 - 5);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < M; j++) C[i][j] = (float)((i + 2 * j) % 9 - 4);
  for (int i = 0; i < M; i++)
    for (int k = 0; k < K; k++) {
      int slot, lane;
      a_slot(shape, i, k, &slot, &lane);
      put16(ops[lane].a, slot, bits16(A[i][k], bf16));
      put16(ops[lane].b, slot, bits16(B[k][i], bf16));
      if (shape == W16x16x16) {
        put16(ops[lane + 16].a, slot, bits16(A[i][k], bf16));
        put16(ops[lane + 16].b, slot, bits16(B[k][i], bf16));
      }
    }
  for (int i = 0; i < M; i++)
    for (int j = 0; j < M; j++) {
      int reg, lane;
      d_slot(shape, i, j, &reg, &lane);
      ops[lane].d[reg] = C[i][j];
    }
  int rc = launch_w(lanes, matrix_kernel, dim3(1), dim3(lanes), ops, shape, bf16);
  int bad = -1;
  for (int i = 0; i < M && rc == 0; i++)
    for (int j = 0; j < M; j++) {
      float ref = C[i][j];
      for (int k = 0; k < K; k++) ref += A[i][k] * B[k][j];
      int reg, lane;
      d_slot(shape, i, j, &reg, &lane);
      if (ops[lane].d[reg] != ref && bad < 0) bad = i * 32 + j;
    }
  static const char *const names[] = {"v_mfma_f32_32x32x8", "v_mfma_f32_16x16x16", "v_wmma_f32_16x16x16"};
  char name[96], why[96];
  snprintf(name, sizeof name, "%s %s on known matrices", names[shape], bf16 ? "bf16" : "f16");
  snprintf(why, sizeof why, "rc %d; D[%d][%d] wrong", rc, bad / 32, bad % 32);
  verdict(name, rc == 0 && bad < 0, why);
}

/* An FNUZ byte's value by the formats' definitions (e4m3fnuz: bias 8,
** e5m2fnuz: bias 16; 0x80 NaN), and the byte of value v (v must have one). */
static double fnuz_value(uint8_t b, int bf8) {
  if (b == 0x80) return NAN;
  int man = bf8 ? 2 : 3, bias = bf8 ? 16 : 8, e = (b & 0x7f) >> man, m = b & ((1 << man) - 1);
  double frac = (double)m / (1 << man), v = e ? pow(2.0, e - bias) * (1 + frac) : pow(2.0, 1 - bias) * frac;
  return b & 0x80 ? -v : v;
}
static uint8_t fnuz_byte(double v, int bf8) {
  for (int b = 0; b < 256; b++)
    if (fnuz_value((uint8_t)b, bf8) == v) return (uint8_t)b;
  printf("FAIL emu unit hip: no FNUZ byte for %g\n", v);
  exit(1);
}

/* The fp8 shapes: A[i][k] in lane rows * (k / 8) + i, byte k % 8 (register
** k % 8 / 4, byte k % 4); D as the 16-bit shapes of as many rows. */
__global__ void fp8_kernel(LaneOps *ops, int rows, int bf8) {
  LaneOps *o = &ops[threadIdx.x];
  if (rows == 32 && !bf8) lt_mfma_32x32x16_fp8(o->d, o->a, o->b);
  if (rows == 32 && bf8) lt_mfma_32x32x16_bf8(o->d, o->a, o->b);
  if (rows == 16 && !bf8) lt_mfma_16x16x32_fp8(o->d, o->a, o->b);
  if (rows == 16 && bf8) lt_mfma_16x16x32_bf8(o->d, o->a, o->b);
}

static void test_fp8_matrix(int rows, int bf8) {
  const int M = rows, K = 512 / rows, shape = rows == 32 ? S32x32x8 : S16x16x16;
  static double A[32][32], B[32][32], C[32][32];
  static LaneOps ops[64];
  memset(ops, 0, sizeof ops);
  for (int i = 0; i < M; i++)
    for (int k = 0; k < K; k++) {
      A[i][k] = ((i * 5 + k * 3 + bf8) % 13 - 6) * 0.25, B[k][i] = ((i * 7 + k) % 11 - 5) * 0.125;
      if ((i + k) % 17 == 0) A[i][k] = bf8 ? 0x1p-17 : 0x1p-10;   /* the least subnormal */
      int lane = rows * (k / 8) + i, byte = k % 8;
      ops[lane].a[byte / 4] |= (uint32_t)fnuz_byte(A[i][k], bf8) << 8 * (byte % 4);
      ops[lane].b[byte / 4] |= (uint32_t)fnuz_byte(B[k][i], bf8) << 8 * (byte % 4);
    }
  for (int i = 0; i < M; i++)
    for (int j = 0; j < M; j++) {
      int reg, lane;
      C[i][j] = (i + 2 * j) % 9 - 4;
      d_slot(shape, i, j, &reg, &lane);
      ops[lane].d[reg] = (float)C[i][j];
    }
  int rc = launch_w(64, fp8_kernel, dim3(1), dim3(64), ops, rows, bf8);
  int bad = -1;
  for (int i = 0; i < M && rc == 0; i++)
    for (int j = 0; j < M; j++) {
      double ref = C[i][j];
      for (int k = 0; k < K; k++) ref += A[i][k] * B[k][j];
      int reg, lane;
      d_slot(shape, i, j, &reg, &lane);
      if (ops[lane].d[reg] != (float)ref && bad < 0) bad = i * 32 + j;
    }
  char name[96], why[96];
  snprintf(name, sizeof name, "v_mfma_f32_%s_%s on known matrices", rows == 32 ? "32x32x16" : "16x16x32",
           bf8 ? "bf8_bf8" : "fp8_fp8");
  snprintf(why, sizeof why, "rc %d; D[%d][%d] wrong", rc, bad / 32, bad % 32);
  verdict(name, rc == 0 && bad < 0, why);
}

/* templates/fp8_fnuz.h on every OCP byte, four at a time: the FNUZ byte
** of half the value; NaN (e4m3 S.1111.111; e5m2's infinities and NaNs)
** to the FNUZ NaN, -0 to 0. */
static void test_fnuz_map(int bf8) {
  int bad = -1;
  for (int b = 0; b < 256 && bad < 0; b++) {
    uint32_t w = (uint32_t)b | (uint32_t)(b ^ 0x80) << 8 | (uint32_t)(255 - b) << 16 | (uint32_t)(b * 7 % 256) << 24;
    uint32_t f = bf8 ? lt_fp8e5m2x4_fnuz(w) : lt_fp8e4m3x4_fnuz(w);
    for (int i = 0; i < 4; i++) {
      uint8_t in = (uint8_t)(w >> 8 * i), out = (uint8_t)(f >> 8 * i);
      double ocp = bf8 ? lt_fp8e5m2_to_f32(in) : lt_fp8e4m3_to_f32(in), got = fnuz_value(out, bf8);
      bool ok = std::isnan(ocp) || std::isinf(ocp) ? out == 0x80 : got == ocp / 2 && out != 0x80;
      if (!ok) bad = in;
    }
  }
  char why[64];
  snprintf(why, sizeof why, "byte 0x%02x", bad);
  verdict(bf8 ? "lt_fp8e5m2x4_fnuz: OCP e5m2 bytes to e5m2fnuz of half the value" :
                "lt_fp8e4m3x4_fnuz: OCP e4m3 bytes to e4m3fnuz of half the value", bad < 0, why);
}

/* A documented spot value: v_mfma_f32_16x16x16f16, A[0][4] sits in the low
** half of register 0 of lane 16. */
__global__ void spot_kernel(float *out) {
  uint32_t a[2] = {0, 0}, b[2] = {0, 0};
  float d[4] = {0, 0, 0, 0};
  int l = threadIdx.x;
  if (l == 16) a[0] = 0x3c00;            /* A[0][4] = 1.0 */
  if (l == 20) b[0] = 0x4000;            /* B[4][4] = 2.0 (lane 16*(k/4) + j, slot k%4 = 0) */
  lt_mfma_16x16x16_f16(d, a, b);
  for (int v = 0; v < 4; v++) out[l * 4 + v] = d[v];
}

static void test_spot(void) {
  float out[256];
  int rc = launch_w(64, spot_kernel, dim3(1), dim3(64), out);
  int nonzero = 0, at = -1;
  for (int i = 0; i < 256; i++)
    if (out[i] != 0) nonzero++, at = i;
  /* A[0][4] * B[4][4] = 2 lands in D[0][4]: register 0 of lane 4 (D: lane 16*(i/4) + j). */
  verdict("v_mfma_f32_16x16x16f16: A[0][4] in lane 16, B[4][4] in lane 20 give D[0][4] in lane 4",
          rc == 0 && nonzero == 1 && at == 4 * 4 + 0 && out[at] == 2.0f, "the product landed elsewhere");
}

__global__ void mfma_on_wave32_kernel(float *x) {
  uint32_t a[2] = {0, 0}, b[2] = {0, 0};
  float d[16] = {0};
  lt_mfma_32x32x8_f16(d, a, b);
  x[threadIdx.x] = d[0];
}

__global__ void wmma_not_repeated_kernel(float *x) {
  uint32_t a[8] = {0}, b[8] = {0};
  float d[8] = {0};
  if (threadIdx.x == 21) a[3] = 0x3c00;   /* lane 21 differs from lane 5 */
  lt_wmma_16x16x16_f16(d, a, b);
  x[threadIdx.x] = d[0];
}

__global__ void wave_shfl_kernel(int *x) {
  x[threadIdx.x] = __shfl_xor(x[threadIdx.x], 32);
}

__global__ void hip_barrier_kernel(float *x) {
  if (threadIdx.x >= 100) return;
  lt_syncthreads();
  x[threadIdx.x] = 0;
}

/* MFMA operands through a __shared__ array (LDS), as the AMD matmul loads
** them, on one block of two wave64 wavefronts: each wave stores its tile,
** then the waves read each other's.  mode 0 with the barrier between
** (fine); 1 without it (a read of the other wave's store, racing); 2 with
** only a shuffle between, which orders lanes of one wave but not the
** other wave (wave 1 reads wave 0's tile); 3 block 0 stores both tiles, block 1 only wave 0's (block
** 1 must not see block 0's). */
__global__ void lds_exchange_kernel(float *x, int mode) {
  __shared__ _Float16 tile[2][64];
  int t = threadIdx.x, w = t / 64, l = t % 64;
  if (mode != 3 || w == 0 || blockIdx.x == 0) tile[w][l] = (_Float16)(float)t;
  if (mode == 0 || mode == 3) lt_syncthreads();
  if (mode == 2) x[t] = (float)__shfl_xor(t, 1);
  if (mode != 2 || w == 1) x[t] = (float)tile[1 - w][l];
}

/* The checks of plain LDS accesses when this build traces them (clang's
** -fsanitize-coverage=func,inline-bool-flag,trace-loads,trace-stores),
** else SKIP (FAIL when run.sh says it should: LT_EMU_EXPECT_TRACED=1). */
static void test_lds(void) {
  static float x[128];
  int rc = launch_w(64, lds_exchange_kernel, dim3(1), dim3(128), x, 0);
  if (!lt_emu::traced()) {
    const char *e = getenv("LT_EMU_EXPECT_TRACED");
    if (e && *e == '1') verdict("plain LDS accesses are traced", false, "the launch was not traced");
    else printf("SKIP emu unit %s plain LDS access checks: not built with -fsanitize-coverage=func,inline-bool-flag,"
                "trace-loads,trace-stores (clang)\n", label);
    return;
  }
  verdict("waves exchange tiles through LDS across lt_syncthreads", rc == 0 && x[0] == 64 && x[127] == 63,
          lt_emu::message());
  expect_error("a wave reads the other wave's LDS tile with no barrier",
               launch_w(64, lds_exchange_kernel, dim3(1), dim3(128), x, 1),
               "thread 0 reads a __shared__ array (static, at ");
  verdict("the report says the tile was not written yet", strstr(lt_emu::message(), "that no thread wrote in this block"),
          lt_emu::message());
  expect_error("a shuffle does not order the waves' LDS accesses", launch_w(64, lds_exchange_kernel, dim3(1), dim3(128), x, 2),
               "thread 127 reads a __shared__ array (static, at ");
  verdict("the report names the writer, of the other wave", strstr(lt_emu::message(), "that thread 63 wrote since the "
          "last barrier (missing barrier)"), lt_emu::message());
  expect_error("an LDS tile no wave of this block stored", launch_w(64, lds_exchange_kernel, dim3(2), dim3(128), x, 3),
               "block (1,0,0): thread 0 reads a __shared__ array (static, at ");
  verdict("the report says the tile was not written", strstr(lt_emu::message(), "that no thread wrote in this block"),
          lt_emu::message());
}

static void test_wavefront(void) {
  float x[256] = {0};
  expect_error("MFMA on a 32-lane wavefront", launch_w(32, mfma_on_wave32_kernel, dim3(1), dim3(64), x),
               "needs a wavefront of 64 lanes, not 32");
  expect_error("WMMA with lanes 16-31 not repeating 0-15",
               launch_w(32, wmma_not_repeated_kernel, dim3(1), dim3(32), x),
               "operand A of lane 21 differs from lane 5 (register 3)");
  int xi[128], ok64 = 1, ok32 = 1;
  for (int i = 0; i < 128; i++) xi[i] = i;
  int rc = launch_w(64, wave_shfl_kernel, dim3(1), dim3(128), xi);
  for (int i = 0; i < 128; i++) ok64 &= xi[i] == (i ^ 32);
  verdict("__shfl_xor(v, 32) crosses the halves of a 64-lane wavefront", rc == 0 && ok64, "wrong lanes");
  for (int i = 0; i < 128; i++) xi[i] = i;
  rc = launch_w(32, wave_shfl_kernel, dim3(1), dim3(128), xi);
  for (int i = 0; i < 128; i++) ok32 &= xi[i] == i;
  verdict("__shfl_xor(v, 32) on a 32-lane wavefront reads the lane itself", rc == 0 && ok32, "wrong lanes");
  expect_error("lt_syncthreads some threads never reach", launch_w(64, hip_barrier_kernel, dim3(1), dim3(256), x),
               "lt_syncthreads reached by only some threads: threads 0-99 wait at it; threads 100-255 finished");
}

int main(int argc, char **argv) {
  if (argc > 1) label = argv[1];
  for (int shape = 0; shape < 3; shape++)
    for (int bf16 = 0; bf16 < 2; bf16++) test_matrix(shape, bf16);
  for (int bf8 = 0; bf8 < 2; bf8++) {
    test_fp8_matrix(32, bf8);
    test_fp8_matrix(16, bf8);
    test_fnuz_map(bf8);
  }
  test_spot();
  test_wavefront();
  test_lds();
  printf("# emu unit %s: done\n", label);   /* run.sh: the run was not cut short */
  return fails ? 1 : 0;
}
