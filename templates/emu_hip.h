/*
** templates/emu_hip.h: the HIP side of gen --emulate, after emu.h.
**
** Gives generated .hip code what it uses from the HIP headers (_Float16 is
** the host compiler's own; lt_bf16 and its conversions, __shfl_xor with
** the wavefront as width, error codes) and the helpers of templates/hip.h,
** with the matrix instructions of the AMD targets modelled from AMD's
** documentation (CDNA3 ISA and the matrix instruction calculator for
** MFMA, RDNA3 ISA for WMMA): see each function.  The wavefront size comes
** from LT_EMU_WARP, which gen defines before emu.h (64 for gfx90a/gfx942,
** 32 for gfx1100); 64 when a file does not define it.
*/
#ifndef LT_EMU_WARP
#define LT_EMU_WARP 64
#endif

#define LT_EMU_HIP_LDS (64 * 1024)   /* LDS per workgroup on gfx90a, gfx942 and gfx1100 */

namespace lt_emu {
namespace {

/* The bits of a float, and the float of some bits. */
LT_EMU_FN uint32_t f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

LT_EMU_FN float bits_f32(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* bf16 bits -> f32 (exact). */
LT_EMU_FN float bf16_to_f32(uint16_t b) { return bits_f32((uint32_t)b << 16); }

/* One 16-bit element of a packed register (half 0: low bits) as f32:
** an IEEE binary16 (via the compiler's _Float16) or a bf16. */
LT_EMU_FN double unpack16(uint32_t r, int half, int bf16) {
  uint16_t h = (uint16_t)(half ? r >> 16 : r & 0xffffu);
  if (bf16) return bf16_to_f32(h);
  _Float16 f;
  memcpy(&f, &h, 2);
  return (double)(float)f;
}

}  // namespace
}  // namespace lt_emu

/* HIP's bit casts; rsqrtf exactly. */
static inline __attribute__((unused)) float __uint_as_float(unsigned u) { return lt_emu::bits_f32(u); }
static inline __attribute__((unused)) unsigned __float_as_uint(float f) { return lt_emu::f32_bits(f); }
static inline __attribute__((unused)) float rsqrtf(float x) { return 1.0f / sqrtf(x); }

/* ------------------------------------------------------------------ */
/* the runtime API generated code calls                                 */

typedef int hipError_t;
enum {
  hipSuccess = 0,
  hipErrorInvalidValue = 1,
  hipErrorInvalidConfiguration = 9,
  hipErrorLaunchFailure = 719,
};
typedef void *hipStream_t;
enum hipFuncAttribute { hipFuncAttributeMaxDynamicSharedMemorySize = 8 };

/* Returns and clears the last launch error of this OS thread. */
static inline __attribute__((unused)) hipError_t hipGetLastError(void) {
  int e = lt_emu::last_error;
  lt_emu::last_error = 0;
  return e;
}

static inline __attribute__((unused)) hipError_t hipPeekAtLastError(void) { return lt_emu::last_error; }
static inline __attribute__((unused)) hipError_t hipDeviceSynchronize(void) { return 0; }
static inline __attribute__((unused)) hipError_t hipStreamSynchronize(hipStream_t) { return 0; }

/* hipFuncSetAttribute((const void *)kernel, MaxDynamicSharedMemorySize, n). */
static inline __attribute__((unused)) hipError_t hipFuncSetAttribute(const void *kernel, hipFuncAttribute attr, int value) {
  if (attr != hipFuncAttributeMaxDynamicSharedMemorySize) return hipErrorInvalidValue;
  return lt_emu::set_smem_optin(kernel, value, LT_EMU_HIP_LDS);
}

/* lt_sm_count (k:sm_count, the device's CUs): LT_EMU_SMS, 2 by default. */
static inline __attribute__((unused)) int lt_sm_count(int *n) {
  *n = (int)lt_emu::env_long("LT_EMU_SMS", 2);
  return *n > 0 ? 0 : hipErrorInvalidValue;
}

#define lt_emu_launch(kernel, grid, block, smem, stream, ...) \
  lt_emu::launch(#kernel, __FILE__, __LINE__, LT_EMU_WARP, LT_EMU_HIP_LDS, kernel, grid, block, smem, stream, __VA_ARGS__)

#define __syncthreads() lt_emu::barrier(__FILE__, __LINE__, "__syncthreads")
#define lt_syncthreads() lt_emu::barrier(__FILE__, __LINE__, "lt_syncthreads")
#define __shfl_xor(v, ...) lt_emu::hip_shfl_xor(v, __FILE__, __LINE__, __VA_ARGS__)

namespace lt_emu {
namespace {

/* __shfl_xor(v, lane_mask[, width]): width defaults to the wavefront. */
template <class T>
LT_EMU_FN T hip_shfl_xor(T v, const char *file, int line, int lane_mask, int width = -1) {
  return shfl_xor<T>(~0ull, v, lane_mask, width < 0 ? g->warp : width, "__shfl_xor", file, line);
}

}  // namespace
}  // namespace lt_emu

/* ------------------------------------------------------------------ */
/* the helpers of templates/hip.h                                       */

typedef uint16_t lt_bf16;

/* bf16 (kept as its bits) -> f32, and f32 -> bf16 rounding to nearest
** even with NaN kept a NaN. */
static inline __attribute__((unused)) float lt_bf16_to_f32(lt_bf16 h) { return lt_emu::bf16_to_f32(h); }
static inline __attribute__((unused)) lt_bf16 lt_f32_to_bf16(float f) {
  uint32_t u = lt_emu::f32_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (lt_bf16)((u >> 16) | 0x40u);
  uint32_t lsb = (u >> 16) & 1u;
  return (lt_bf16)((u + 0x7fffu + lsb) >> 16);
}
static inline __attribute__((unused)) float lt_round_f16(float x) { return (float)(_Float16)x; }
static inline __attribute__((unused)) float lt_round_bf16(float x) { return lt_bf16_to_f32(lt_f32_to_bf16(x)); }
static inline __attribute__((unused)) int lt_imax(int a, int b) { return a > b ? a : b; }
static inline __attribute__((unused)) int lt_imin(int a, int b) { return a < b ? a : b; }
/* ex2.approx.ftz / v_exp_f32: 2^x, subnormal results flushed to zero. */
static inline __attribute__((unused)) float lt_exp2(float x) {
  float y = exp2f(x);
  return y < 1.17549435e-38f ? 0.0f : y;
}
/* k:atomic_add: the block's threads are fibers of one OS thread and the
** blocks run one after another, so nothing interleaves with the add. */
static inline __attribute__((unused)) void lt_atomic_add(float *p, float v) { *p += v; }

/* ------------------------------------------------------------------ */
/* MFMA (wave64) and WMMA (wave32)                                      */

namespace lt_emu {
namespace {

/* Operands of one lane's matrix instruction: D (= C) and A, B registers;
** the operand type: OP_F16, OP_BF16 (two elements a register) or OP_FP8,
** OP_BF8 (four bytes a register: e4m3fnuz, e5m2fnuz). */
enum { OP_F16, OP_BF16, OP_FP8, OP_BF8 };
struct MatArgs {
  float *d;
  const uint32_t *a, *b;
  int type;
};

/* An FNUZ byte's value (CDNA3's fp8 matrix operands): e4m3fnuz (exponent
** bias 8) or e5m2fnuz (bias 16); 0x80 is the one NaN, there is no -0 and
** no infinity. */
LT_EMU_FN double fnuz(uint8_t x, int man, int bias) {
  if (x == 0x80u) return NAN;
  int e = (x & 0x7f) >> man, m = x & ((1 << man) - 1);
  double v = e ? ldexp((double)((1 << man) + m), e - bias - man) : ldexp((double)m, 1 - bias - man);
  return x & 0x80u ? -v : v;
}

/* Element e of an operand's registers r of type `type`. */
LT_EMU_FN double operand(const uint32_t *r, int e, int type) {
  if (type == OP_FP8 || type == OP_BF8) {
    uint8_t x = (uint8_t)(r[e / 4] >> 8 * (e % 4));
    return type == OP_FP8 ? fnuz(x, 3, 8) : fnuz(x, 2, 16);
  }
  return unpack16(r[e / 2], e % 2, type == OP_BF16);
}

/* The MFMA and WMMA shapes, with the layouts of the AMD documentation. */
enum { MFMA_32x32x8, MFMA_16x16x16, WMMA_16x16x16, MFMA_32x32x16_F8, MFMA_16x16x32_F8 };

/* Where an A or B element and a D element live, for each shape.  For the
** inputs, element (r, k) (r: row i of A or column j of B) lives in lane
** in_lane(r, k), element in_elem(r, k) of that lane's registers (16-bit
** element e: register e/2, half e%2; byte e: register e/4, byte e%4).
** Output register v of lane l holds D[out_row][out_col].
**   v_mfma_f32_32x32x8{f16,bf16_1k}: lane 32*(k/4) + r, element k%4;
**     D: i = 8*(v/4) + 4*(l/32) + v%4, j = l%32.
**   v_mfma_f32_16x16x16{f16,bf16_1k}: lane 16*(k/4) + r, element k%4;
**     D: i = 4*(l/16) + v, j = l%16.
**   v_mfma_f32_32x32x16_{fp8_fp8,bf8_bf8} (CDNA3): lane 32*(k/8) + r, byte
**     k%8; D as 32x32x8's.
**   v_mfma_f32_16x16x32_{fp8_fp8,bf8_bf8} (CDNA3): lane 16*(k/8) + r, byte
**     k%8; D as 16x16x16's.
**   v_wmma_f32_16x16x16_{f16,bf16} (wave32): lane r and r + 16 (the upper
**     half repeats the lower), element k; D: i = 2v + l/16, j = l%16. */
LT_EMU_FN int rows_of(int shape) { return shape == MFMA_32x32x8 || shape == MFMA_32x32x16_F8 ? 32 : 16; }
LT_EMU_FN int k_of(int shape) {
  return shape == MFMA_32x32x8 ? 8 : shape == MFMA_16x16x32_F8 ? 32 : 16;
}
LT_EMU_FN int in_lane(int shape, int r, int k) {
  if (shape == WMMA_16x16x16) return r;
  int per = shape == MFMA_32x32x16_F8 || shape == MFMA_16x16x32_F8 ? 8 : 4;
  return rows_of(shape) * (k / per) + r;
}
LT_EMU_FN int in_elem(int shape, int k) {
  return shape == WMMA_16x16x16 ? k : shape == MFMA_32x32x16_F8 || shape == MFMA_16x16x32_F8 ? k % 8 : k % 4;
}
LT_EMU_FN int out_row(int shape, int v, int l) {
  if (shape == WMMA_16x16x16) return 2 * v + l / 16;
  return rows_of(shape) == 32 ? 8 * (v / 4) + 4 * (l / 32) + v % 4 : 4 * (l / 16) + v;
}
LT_EMU_FN int out_col(int shape, int l) { return rows_of(shape) == 32 ? l % 32 : l % 16; }

/* D = A*B + C for one shape over the whole wavefront; products and sums
** in double, rounded to f32 once. */
template <int SHAPE>
LT_EMU_FN void matrix_run(Thread *lanes, int n) {
  const int M = rows_of(SHAPE), K = k_of(SHAPE);
  const int lanes_needed = SHAPE == WMMA_16x16x16 ? 32 : 64, nregs = SHAPE == WMMA_16x16x16 ? 8 : M * M / 64;
  static const char *const names[] = {"v_mfma_f32_32x32x8", "v_mfma_f32_16x16x16", "v_wmma_f32_16x16x16",
                                      "v_mfma_f32_32x32x16", "v_mfma_f32_16x16x32"};
  const char *what = names[SHAPE];
  if (n != lanes_needed)
    fail(lanes[0].file, lanes[0].line, "%s needs a wavefront of %d lanes, not %d", what, lanes_needed, n);
  MatArgs *x0 = (MatArgs *)lanes[0].args;
  double A[32][32], B[32][32], C[32][32];
  for (int r = 0; r < M; r++)
    for (int k = 0; k < K; k++) {
      int l = in_lane(SHAPE, r, k), e = in_elem(SHAPE, k);
      MatArgs *x = (MatArgs *)lanes[l].args;
      A[r][k] = operand(x->a, e, x0->type);
      B[k][r] = operand(x->b, e, x0->type);
    }
  if (SHAPE == WMMA_16x16x16) {   /* the upper 16 lanes must repeat the lower ones */
    for (int l = 16; l < 32; l++) {
      MatArgs *hi = (MatArgs *)lanes[l].args, *lo = (MatArgs *)lanes[l - 16].args;
      for (int e = 0; e < 8; e++) {
        if (hi->a[e] != lo->a[e])
          fail(lanes[l].file, lanes[l].line, "%s: operand A of lane %d differs from lane %d (register %d): "
               "wave32 WMMA needs lanes 16-31 to repeat lanes 0-15", what, l, l - 16, e);
        if (hi->b[e] != lo->b[e])
          fail(lanes[l].file, lanes[l].line, "%s: operand B of lane %d differs from lane %d (register %d): "
               "wave32 WMMA needs lanes 16-31 to repeat lanes 0-15", what, l, l - 16, e);
      }
    }
  }
  for (int l = 0; l < n; l++) {
    MatArgs *x = (MatArgs *)lanes[l].args;
    for (int v = 0; v < nregs; v++) C[out_row(SHAPE, v, l)][out_col(SHAPE, l)] = x->d[v];
  }
  for (int l = 0; l < n; l++) {
    MatArgs *x = (MatArgs *)lanes[l].args;
    for (int v = 0; v < nregs; v++) {
      int i = out_row(SHAPE, v, l), j = out_col(SHAPE, l);
      double acc = C[i][j];
      for (int k = 0; k < K; k++) acc += A[i][k] * B[k][j];
      x->d[v] = (float)acc;
    }
  }
}

/* One lane's MFMA or WMMA: its operands, then the wavefront-wide operation. */
template <int SHAPE>
LT_EMU_FN void matrix_op(float *d, const uint32_t *a, const uint32_t *b, int type, const char *what, const char *file, int line) {
  MatArgs x = {d, a, b, type};
  warp_sync(matrix_run<SHAPE>, &x, what, file, line);
}

}  // namespace
}  // namespace lt_emu

#define lt_mfma_32x32x8_f16(d, a, b) \
  lt_emu::matrix_op<lt_emu::MFMA_32x32x8>(d, a, b, lt_emu::OP_F16, "v_mfma_f32_32x32x8f16", __FILE__, __LINE__)
#define lt_mfma_32x32x8_bf16(d, a, b) \
  lt_emu::matrix_op<lt_emu::MFMA_32x32x8>(d, a, b, lt_emu::OP_BF16, "v_mfma_f32_32x32x8bf16_1k", __FILE__, __LINE__)
#define lt_mfma_16x16x16_f16(d, a, b) \
  lt_emu::matrix_op<lt_emu::MFMA_16x16x16>(d, a, b, lt_emu::OP_F16, "v_mfma_f32_16x16x16f16", __FILE__, __LINE__)
#define lt_mfma_16x16x16_bf16(d, a, b) \
  lt_emu::matrix_op<lt_emu::MFMA_16x16x16>(d, a, b, lt_emu::OP_BF16, "v_mfma_f32_16x16x16bf16_1k", __FILE__, __LINE__)
#define lt_mfma_32x32x16_fp8(d, a, b) \
  lt_emu::matrix_op<lt_emu::MFMA_32x32x16_F8>(d, a, b, lt_emu::OP_FP8, "v_mfma_f32_32x32x16_fp8_fp8", __FILE__, __LINE__)
#define lt_mfma_32x32x16_bf8(d, a, b) \
  lt_emu::matrix_op<lt_emu::MFMA_32x32x16_F8>(d, a, b, lt_emu::OP_BF8, "v_mfma_f32_32x32x16_bf8_bf8", __FILE__, __LINE__)
#define lt_mfma_16x16x32_fp8(d, a, b) \
  lt_emu::matrix_op<lt_emu::MFMA_16x16x32_F8>(d, a, b, lt_emu::OP_FP8, "v_mfma_f32_16x16x32_fp8_fp8", __FILE__, __LINE__)
#define lt_mfma_16x16x32_bf8(d, a, b) \
  lt_emu::matrix_op<lt_emu::MFMA_16x16x32_F8>(d, a, b, lt_emu::OP_BF8, "v_mfma_f32_16x16x32_bf8_bf8", __FILE__, __LINE__)
#define lt_wmma_16x16x16_f16(d, a, b) \
  lt_emu::matrix_op<lt_emu::WMMA_16x16x16>(d, a, b, lt_emu::OP_F16, "v_wmma_f32_16x16x16_f16_w32", __FILE__, __LINE__)
#define lt_wmma_16x16x16_bf16(d, a, b) \
  lt_emu::matrix_op<lt_emu::WMMA_16x16x16>(d, a, b, lt_emu::OP_BF16, "v_wmma_f32_16x16x16_bf16_w32", __FILE__, __LINE__)
