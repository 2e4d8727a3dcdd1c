/*
** templates/emu_cuda.h: the CUDA side of gen --emulate, after emu.h.
**
** Gives generated .cu code what it uses from the CUDA headers (__half,
** __nv_bfloat16 and their conversions, __syncthreads, __shfl_xor_sync,
** __shfl_sync, __any_sync, error codes, cudaFuncSetAttribute) and the helpers of
** templates/cuda.h, with the PTX instructions of the sm80 path modelled
** from the PTX ISA:
** ldmatrix (m8n8 b16, x2/x4, .trans), mma.sync m16n8k16 (f16/bf16 in, f32
** accumulate), cp.async (16 bytes, commit/wait groups, landing only at
** a covering wait) and the sm90a path's wgmma (descriptors, swizzled
** layouts, completion at wait_group), then Hopper's asynchronous copies
** of templates/cuda_tma.h (at the end: mbarriers, TMA loads and stores
** through tensor maps, fence.proxy.async, setmaxnreg).  The conversions are written here in integer
** arithmetic (round to nearest even), not taken from the host compiler.
*/
#ifndef LT_EMU_WARP
#define LT_EMU_WARP 32
#endif

/* ------------------------------------------------------------------ */
/* f16 and bf16                                                         */

/* The 16-bit float types, as their bits (trivial: they go into unions). */
struct __half { uint16_t __x; };
struct __nv_bfloat16 { uint16_t __x; };
typedef struct __half half;

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

/* f32 -> IEEE binary16, round to nearest even; NaN stays NaN. */
LT_EMU_FN uint16_t f32_to_f16(float f) {
  uint32_t x = f32_bits(f), sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return (uint16_t)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
  if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);   /* 65520 and up round to inf */
  if (ax >= 0x38800000u) {                                     /* normal */
    uint32_t h = (ax >> 13) - (112u << 10), rem = ax & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) h++;
    return (uint16_t)(sign | h);
  }
  if (ax <= 0x33000000u) return (uint16_t)sign;                /* at most half the smallest subnormal */
  uint32_t e = ax >> 23, m = (ax & 0x7fffffu) | 0x800000u, shift = 126u - e;
  uint32_t h = m >> shift, rem = m & ((1u << shift) - 1u), half_ulp = 1u << (shift - 1u);
  if (rem > half_ulp || (rem == half_ulp && (h & 1u))) h++;
  return (uint16_t)(sign | h);
}

/* IEEE binary16 -> f32 (exact). */
LT_EMU_FN float f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0) {
    float v = (float)m * 5.9604644775390625e-08f;   /* m * 2^-24 */
    return sign ? -v : v;
  }
  if (e == 31) return bits_f32(sign | 0x7f800000u | (m << 13));
  return bits_f32(sign | ((e + 112u) << 23) | (m << 13));
}

/* f32 -> bf16, round to nearest even; NaN stays NaN. */
LT_EMU_FN uint16_t f32_to_bf16(float f) {
  uint32_t u = f32_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u);
  return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

LT_EMU_FN float bf16_to_f32(uint16_t b) { return bits_f32((uint32_t)b << 16); }

}  // namespace
}  // namespace lt_emu

/* The CUDA conversion intrinsics, on the conversions above; rsqrtf exactly. */
static inline __attribute__((unused)) float __half2float(__half h) { return lt_emu::f16_to_f32(h.__x); }
static inline __attribute__((unused)) __half __float2half_rn(float f) { return __half{lt_emu::f32_to_f16(f)}; }
static inline __attribute__((unused)) __half __float2half(float f) { return __float2half_rn(f); }
static inline __attribute__((unused)) float __bfloat162float(__nv_bfloat16 b) { return lt_emu::bf16_to_f32(b.__x); }
static inline __attribute__((unused)) __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16{lt_emu::f32_to_bf16(f)}; }
static inline __attribute__((unused)) __nv_bfloat16 __float2bfloat16(float f) { return __float2bfloat16_rn(f); }
static inline __attribute__((unused)) float __uint_as_float(unsigned u) { return lt_emu::bits_f32(u); }
static inline __attribute__((unused)) unsigned __float_as_uint(float f) { return lt_emu::f32_bits(f); }
static inline __attribute__((unused)) float rsqrtf(float x) { return 1.0f / sqrtf(x); }

/* ------------------------------------------------------------------ */
/* the runtime API generated code calls                                 */

typedef int cudaError_t;
enum {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorMisalignedAddress = 716,
  cudaErrorLaunchFailure = 719,
  cudaErrorNotSupported = 801,
};
typedef void *cudaStream_t;
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };

/* Returns and clears the last launch error of this OS thread. */
static inline __attribute__((unused)) cudaError_t cudaGetLastError(void) {
  int e = lt_emu::last_error;
  lt_emu::last_error = 0;
  return e;
}

static inline __attribute__((unused)) cudaError_t cudaPeekAtLastError(void) { return lt_emu::last_error; }
static inline __attribute__((unused)) cudaError_t cudaDeviceSynchronize(void) { return 0; }
static inline __attribute__((unused)) cudaError_t cudaStreamSynchronize(cudaStream_t) { return 0; }

/* cudaFuncSetAttribute(kernel, MaxDynamicSharedMemorySize, bytes): records
** the opt-in a launch above 48 KiB needs; checks the value. */
template <class F>
static inline cudaError_t cudaFuncSetAttribute(F *kernel, cudaFuncAttribute attr, int value) {
  if (attr != cudaFuncAttributeMaxDynamicSharedMemorySize) return cudaErrorInvalidValue;
  return lt_emu::set_smem_optin((const void *)kernel, value, LT_EMU_SMEM_CAP);
}

#define lt_emu_launch(kernel, grid, block, smem, stream, ...) \
  lt_emu::launch(#kernel, __FILE__, __LINE__, LT_EMU_WARP, LT_EMU_SMEM_CAP, kernel, grid, block, smem, stream, __VA_ARGS__)

#define __syncthreads() lt_emu::barrier(__FILE__, __LINE__, "__syncthreads")
#define __shfl_xor_sync(mask, v, ...) lt_emu::cuda_shfl_xor(mask, v, __FILE__, __LINE__, __VA_ARGS__)
#define __shfl_sync(mask, v, ...) lt_emu::cuda_shfl_idx(mask, v, __FILE__, __LINE__, __VA_ARGS__)
#define __any_sync(mask, p) lt_emu::cuda_any(mask, p, __FILE__, __LINE__)

namespace lt_emu {
namespace {

/* __shfl_xor_sync(mask, v, lane_mask[, width]) with its call site. */
template <class T>
LT_EMU_FN T cuda_shfl_xor(unsigned mask, T v, const char *file, int line, int lane_mask, int width = 32) {
  return shfl_xor<T>(mask, v, lane_mask, width, "__shfl_xor_sync", file, line);
}

/* The indexed shuffle over a warp: lane l reads lane src_lane (the
** operand's `mask`) of its group of `width` lanes. */
template <class T>
LT_EMU_FN void shfl_idx_run(Thread *lanes, int n) {
  for (int l = 0; l < n; l++) {
    ShflArgs<T> *a = (ShflArgs<T> *)lanes[l].args;
    int w = a->width, src = (l & ~(w - 1)) + (a->mask & (w - 1));
    if (w <= 0 || (w & (w - 1)) || w > g->warp)
      fail(lanes[l].file, lanes[l].line, "shuffle width %d is not a power of two up to the warp size %d", w, g->warp);
    if (src >= n)
      fail(lanes[l].file, lanes[l].line, "lane %d of warp %d shuffles from lane %d, which does not exist (a warp of %d lanes)",
           l, lanes[l].warp, src, n);
    a->res = ((ShflArgs<T> *)lanes[src].args)->val;
  }
}

/* __shfl_sync(mask, v, src_lane[, width]) with its call site: full warps
** only, as the xor shuffle. */
template <class T>
LT_EMU_FN T cuda_shfl_idx(unsigned mask, T v, const char *file, int line, int src_lane, int width = 32) {
  State *s = g;
  unsigned long long all = s->warps[s->cur->warp].size >= 64 ? ~0ull : (1ull << s->warps[s->cur->warp].size) - 1;
  if ((mask & all) != all) fail(file, line, "__shfl_sync with member mask %#x: only full-warp shuffles are emulated", mask);
  ShflArgs<T> a;
  a.val = v;
  a.mask = src_lane;
  a.width = width;
  warp_sync(shfl_idx_run<T>, &a, "__shfl_sync", file, line);
  return a.res;
}

/* A vote's operands: this lane's predicate and where the warp's answer goes. */
struct VoteArgs {
  int pred, res;
};

/* __any_sync over a warp: every lane gets 1 where some lane's predicate is
** true. */
LT_EMU_FN void vote_any_run(Thread *lanes, int n) {
  int any = 0;
  for (int l = 0; l < n; l++) any |= ((VoteArgs *)lanes[l].args)->pred;
  for (int l = 0; l < n; l++) ((VoteArgs *)lanes[l].args)->res = any;
}

/* __any_sync(mask, p) with its call site: full warps only, as the
** shuffles. */
LT_EMU_FN int cuda_any(unsigned mask, int p, const char *file, int line) {
  State *s = g;
  unsigned long long all = s->warps[s->cur->warp].size >= 64 ? ~0ull : (1ull << s->warps[s->cur->warp].size) - 1;
  if ((mask & all) != all) fail(file, line, "__any_sync with member mask %#x: only full-warp votes are emulated", mask);
  VoteArgs a = {p != 0, 0};
  warp_sync(vote_any_run, &a, "__any_sync", file, line);
  return a.res;
}

}  // namespace
}  // namespace lt_emu

/* ------------------------------------------------------------------ */
/* the helpers of templates/cuda.h                                      */

static inline __attribute__((unused)) float lt_round_f16(float x) { return __half2float(__float2half_rn(x)); }
static inline __attribute__((unused)) float lt_round_bf16(float x) { return __bfloat162float(__float2bfloat16_rn(x)); }
/* Two floats rounded and packed, the first in the low 16 bits (cvt.rn.f16x2.f32 / .bf16x2). */
static inline __attribute__((unused)) uint32_t lt_pack_f16x2(float lo, float hi) {
  return (uint32_t)lt_emu::f32_to_f16(lo) | (uint32_t)lt_emu::f32_to_f16(hi) << 16;
}
static inline __attribute__((unused)) uint32_t lt_pack_bf16x2(float lo, float hi) {
  return (uint32_t)lt_emu::f32_to_bf16(lo) | (uint32_t)lt_emu::f32_to_bf16(hi) << 16;
}
static inline __attribute__((unused)) int lt_imax(int a, int b) { return a > b ? a : b; }
static inline __attribute__((unused)) int lt_imin(int a, int b) { return a < b ? a : b; }
static inline __attribute__((unused)) int lt_opaque(int x) { return x; }
/* ex2.approx.ftz / v_exp_f32: 2^x, subnormal results flushed to zero. */
static inline __attribute__((unused)) float lt_exp2(float x) {
  float y = exp2f(x);
  return y < 1.17549435e-38f ? 0.0f : y;
}
/* The persistent grid's division by multiply and shift (cuda_fast.h), the
** same arithmetic: __clz by a loop, mul.hi by the 64-bit product. */
typedef struct { uint32_t mul, shift, d; } lt_divisor;
static inline __attribute__((unused)) lt_divisor lt_divisor_of(int d) {
  lt_divisor r;
  r.shift = 0;
  while (((uint64_t)1 << r.shift) < (uint64_t)(uint32_t)d) r.shift++;
  r.mul = (uint32_t)(((((uint64_t)1 << r.shift) - (uint32_t)d) << 32) / (uint32_t)d) + 1u;
  r.d = (uint32_t)d;
  return r;
}
static inline __attribute__((unused)) int lt_div(int n, lt_divisor v) {
  return (int)(((uint32_t)(((uint64_t)(uint32_t)n * v.mul) >> 32) + (uint32_t)n) >> v.shift);
}
static inline __attribute__((unused)) int lt_mod(int n, lt_divisor v) { return n - lt_div(n, v) * (int)v.d; }
/* div.full.f32 (2 ulp): the correctly rounded quotient, one of those it may give. */
static inline __attribute__((unused)) float lt_fdiv(float a, float b) { return a / b; }
/* erfc(x / sqrt 2) / 2 by polynomial and ex2.approx (cuda_fast.h), the same arithmetic. */
static inline __attribute__((unused)) float lt_erfc_half(float x) {
  const float t = fminf(x, 5.5f);
  float r = 1.57627073e-06f;
  r = fmaf(r, t, 1.12683356e-05f);
  r = fmaf(r, t, -0.000651096751f);
  r = fmaf(r, t, 0.00777067337f);
  r = fmaf(r, t, -0.0529987104f);
  r = fmaf(r, t, 0.262305915f);
  r = fmaf(r, t, -1.15112519f);
  r = fmaf(r, t, -0.999999642f);
  return lt_exp2(fmaf(-x * x, 0.721347520f, r));
}
/* erf and GELU by lt_erfc_half (cuda_fast.h), the same arithmetic. */
static inline __attribute__((unused)) float lt_erf(float z) {
  return copysignf(fmaf(-2.0f, lt_erfc_half(fabsf(z) * 1.41421356f), 1.0f), z);
}
static inline __attribute__((unused)) float lt_gelu(float v) {
  const float x = fabsf(v);
  return fmaf(-fminf(x, 5.5f), lt_erfc_half(x), fmaxf(v, 0.0f));
}
/* lg2.approx.ftz times ln 2: logf, subnormal x flushed to zero (-inf). */
static inline __attribute__((unused)) float lt_log(float x) { return x >= 0.0f && x < 1.17549435e-38f ? -INFINITY : logf(x); }
/* k:atomic_add: the block's threads are fibers of one OS thread and the
** blocks run one after another, so nothing interleaves with the add. */
static inline __attribute__((unused)) void lt_atomic_add(float *p, float v) { *p += v; }

/* ------------------------------------------------------------------ */
/* ldmatrix, mma.sync, cp.async (PTX ISA: "Warp-level matrix load      */
/* instruction: ldmatrix", "Matrix Fragments for mma.m16n8k16 with     */
/* floating point type", "cp.async")                                    */

namespace lt_emu {
namespace {

/* Operands of one lane's ldmatrix: its destination registers, the row
** address it supplies, the number of matrices and .trans. */
struct LdmArgs {
  uint32_t *r;
  const void *row;
  int num, trans;
};

/* ldmatrix.sync.aligned.m8n8.{x2,x4}[.trans].shared.b16.  Lanes 8i..8i+7
** give the 8 rows (16 bytes each) of matrix i.  Without .trans lane l gets
** row l/4, columns 2(l%4) and 2(l%4)+1 of each matrix (the lower column in
** the low half); with .trans the matrix is read column-major: lane l gets
** the elements at rows 2(l%4), 2(l%4)+1 of column l/4. */
LT_EMU_FN void ldmatrix_run(Thread *lanes, int n) {
  State *s = g;
  LdmArgs *a0 = (LdmArgs *)lanes[0].args;
  const char *what = a0->num == 4 ? (a0->trans ? "ldmatrix.x4.trans" : "ldmatrix.x4")
                                  : (a0->trans ? "ldmatrix.x2.trans" : "ldmatrix.x2");
  if (n != 32) fail(lanes[0].file, lanes[0].line, "%s needs a warp of 32 lanes, not %d", what, n);
  uint16_t m[4][8][8];
  for (int l = 0; l < 32; l++) {
    LdmArgs *a = (LdmArgs *)lanes[l].args;
    if (a->num != a0->num || a->trans != a0->trans)
      fail(lanes[l].file, lanes[l].line, "lanes of one %s use different qualifiers", what);
  }
  for (int l = 0; l < 8 * a0->num; l++) {
    LdmArgs *a = (LdmArgs *)lanes[l].args;
    Thread *t = &lanes[l];
    if ((uintptr_t)a->row % 16)
      fail(t->file, t->line, "%s: row address %p of lane %d is not 16-byte aligned", what, a->row, l);
    check_shared(s, a->row, 16, what, t->file, t->line);
    check_read(s, t, a->row, 16, what, t->file, t->line);
    copy_in(m[l / 8][l % 8], a->row, 16);
  }
  for (int l = 0; l < 32; l++) {
    LdmArgs *a = (LdmArgs *)lanes[l].args;
    int row = l / 4, col = 2 * (l % 4);
    for (int i = 0; i < a0->num; i++) {
      uint16_t lo = a0->trans ? m[i][col][row] : m[i][row][col];
      uint16_t hi = a0->trans ? m[i][col + 1][row] : m[i][row][col + 1];
      a->r[i] = (uint32_t)lo | (uint32_t)hi << 16;
    }
  }
}

/* One lane's ldmatrix: its operands, then the warp-wide operation. */
LT_EMU_FN void ldmatrix(uint32_t *r, const void *row, int num, int trans, const char *what, const char *file, int line) {
  LdmArgs a = {r, row, num, trans};
  warp_sync(ldmatrix_run, &a, what, file, line);
}

/* Operands of one lane's mma: its D (= C) registers, A and B registers. */
struct MmaArgs {
  float *d;
  const uint32_t *a, *b;
  int bf16;
};

/* The 16-bit element `half` (0 low, 1 high) of a packed register, as f32. */
LT_EMU_FN double unpack16(uint32_t r, int half, int bf16) {
  uint16_t h = (uint16_t)(half ? r >> 16 : r & 0xffffu);
  return bf16 ? bf16_to_f32(h) : f16_to_f32(h);
}

/* Element a_i (i = 0..7: register i / 2, half i % 2) of the 16 x 16 A
** fragment of the lane with groupID g and threadID_in_group t: row g for
** i in {0,1,4,5} else g + 8; column 2t + (i & 1), + 8 for i >= 4. */
LT_EMU_FN int a_row(int g, int i) { return (i < 2 || (i >= 4 && i < 6)) ? g : g + 8; }
LT_EMU_FN int a_col(int t, int i) { return t * 2 + (i & 1) + (i >= 4 ? 8 : 0); }

/* D = C + A B of an m16n8kK mma (A 16 x K and B K x 8, row-major), into
** each lane's d in the C/D fragment layout: rows g, g + 8, columns 2t, 2t + 1
** (g = lane / 4, t = lane % 4). */
LT_EMU_FN void mma_finish(Thread *lanes, const double *A, const double *B, const double C[16][8], int K) {
  for (int l = 0; l < 32; l++) {
    MmaArgs *x = (MmaArgs *)lanes[l].args;
    int gid = l >> 2, tig = l % 4;
    for (int i = 0; i < 4; i++) {
      int row = i < 2 ? gid : gid + 8, col = tig * 2 + (i & 1);
      double acc = C[row][col];
      for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * 8 + col];
      x->d[i] = (float)acc;
    }
  }
}

/* mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32, D = A*B + C
** with C the same registers as D.  groupID g = l>>2, threadID_in_group
** t = l%4.  A (16x16): a_i, i = 0..7 (register i/2, half i%2), row g for
** i in {0,1,4,5} else g+8, column 2t + (i&1), +8 for i >= 4.  B (16x8):
** b_i, i = 0..3, row 2t + (i&1), +8 for i >= 2, column g.  C/D (16x8):
** c_i, i = 0..3, row g for i < 2 else g+8, column 2t + (i&1).  Products
** and sums in double, rounded to f32 once. */
LT_EMU_FN void mma16816_run(Thread *lanes, int n) {
  MmaArgs *x0 = (MmaArgs *)lanes[0].args;
  if (n != 32) fail(lanes[0].file, lanes[0].line, "mma.sync needs a warp of 32 lanes, not %d", n);
  double A[16][16], B[16][8], C[16][8];
  for (int l = 0; l < 32; l++) {
    MmaArgs *x = (MmaArgs *)lanes[l].args;
    int gid = l >> 2, tig = l % 4;
    for (int i = 0; i < 8; i++) A[a_row(gid, i)][a_col(tig, i)] = unpack16(x->a[i / 2], i % 2, x0->bf16);
    for (int i = 0; i < 4; i++) {
      int row = tig * 2 + (i & 1) + (i >= 2 ? 8 : 0);
      B[row][gid] = unpack16(x->b[i / 2], i % 2, x0->bf16);
    }
    for (int i = 0; i < 4; i++) C[i < 2 ? gid : gid + 8][tig * 2 + (i & 1)] = x->d[i];
  }
  mma_finish(lanes, &A[0][0], &B[0][0], C, 16);
}

/* One lane's mma.sync: its operands, then the warp-wide operation. */
LT_EMU_FN void mma16816(float *d, const uint32_t *a, const uint32_t *b, int bf16, const char *what, const char *file,
                     int line) {
  MmaArgs x = {d, a, b, bf16};
  warp_sync(mma16816_run, &x, what, file, line);
}

/* mma.sync.m16n8k8 tf32: A 16x8 (a0..a3: rows g, g + 8, g, g + 8 by
** columns t, t, t + 4, t + 4), B 8x8 (b0, b1: rows t, t + 4 by column g),
** C/D as m16n8k16; g = lane / 4, t = lane % 4.  The operands are f32 bits
** already rounded to tf32 (lt_tf32); the hardware reads their top 19 bits. */
LT_EMU_FN double tf32_value(uint32_t bits) {
  uint32_t top = bits & 0xffffe000u;
  float f;
  memcpy(&f, &top, 4);
  return f;
}
LT_EMU_FN void mma1688_run(Thread *lanes, int n) {
  if (n != 32) fail(lanes[0].file, lanes[0].line, "mma.sync needs a warp of 32 lanes, not %d", n);
  double A[16][8], B[8][8], C[16][8];
  for (int l = 0; l < 32; l++) {
    MmaArgs *x = (MmaArgs *)lanes[l].args;
    int gid = l >> 2, tig = l % 4;
    for (int i = 0; i < 4; i++) A[gid + (i & 1) * 8][tig + (i >> 1) * 4] = tf32_value(x->a[i]);
    for (int i = 0; i < 2; i++) B[tig + i * 4][gid] = tf32_value(x->b[i]);
    for (int i = 0; i < 4; i++) C[i < 2 ? gid : gid + 8][tig * 2 + (i & 1)] = x->d[i];
  }
  mma_finish(lanes, &A[0][0], &B[0][0], C, 8);
}

/* One lane's mma.sync m16n8k8 tf32. */
LT_EMU_FN void mma1688(float *d, const uint32_t *a, const uint32_t *b, const char *file, int line) {
  MmaArgs x = {d, a, b, 0};
  warp_sync(mma1688_run, &x, "mma.sync.m16n8k8.tf32", file, line);
}

/* cvt.rna.tf32.f32: to nearest, ties away from zero, on the 13 low bits. */
LT_EMU_FN uint32_t tf32_round(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  if ((u & 0x7f800000u) != 0x7f800000u) u += 0x1000u;   /* finite: round the dropped bits */
  return u & 0xffffe000u;
}

}  // namespace
}  // namespace lt_emu

#define lt_tf32(x) lt_emu::tf32_round(x)
#define lt_mma_1688_tf32(d, a, b) lt_emu::mma1688(d, a, b, __FILE__, __LINE__)
#define lt_ldmatrix_x4(r, row) lt_emu::ldmatrix(r, row, 4, 0, "ldmatrix.x4", __FILE__, __LINE__)
#define lt_ldmatrix_x4_trans(r, row) lt_emu::ldmatrix(r, row, 4, 1, "ldmatrix.x4.trans", __FILE__, __LINE__)
#define lt_ldmatrix_x2(r, row) lt_emu::ldmatrix(r, row, 2, 0, "ldmatrix.x2", __FILE__, __LINE__)
#define lt_ldmatrix_x2_trans(r, row) lt_emu::ldmatrix(r, row, 2, 1, "ldmatrix.x2.trans", __FILE__, __LINE__)
#define lt_mma_16816_f16(d, a, b) lt_emu::mma16816(d, a, b, 0, "mma.sync.m16n8k16.f16", __FILE__, __LINE__)
#define lt_mma_16816_bf16(d, a, b) lt_emu::mma16816(d, a, b, 1, "mma.sync.m16n8k16.bf16", __FILE__, __LINE__)
#define lt_cp_async16(smem, gmem, src_bytes) lt_emu::cp_async16(smem, gmem, src_bytes, __FILE__, __LINE__)
#define lt_cp_async_pieces(smem, src, src_bytes) lt_emu::cp_async_pieces(smem, src, src_bytes, 0, __FILE__, __LINE__)
#define lt_cp_async_pieces4(smem, src, src_bytes) lt_emu::cp_async_pieces(smem, src, src_bytes, 1, __FILE__, __LINE__)
#define lt_cp_async_commit() lt_emu::cp_async_commit(__FILE__, __LINE__)
#define lt_cp_async_wait lt_emu::CpWait(__FILE__, __LINE__).wait

/* ------------------------------------------------------------------ */
/* wgmma (PTX ISA, "Asynchronous Warpgroup Level Matrix Multiply-      */
/* Accumulate": matrix descriptors, shared memory layouts, async       */
/* completion)                                                          */
/*                                                                      */
/* Each warp of the warpgroup is emulated on its own: warp w % 4 of a   */
/* warpgroup computes rows 16 (w % 4) .. + 15 of the m64nNk16 result,   */
/* from the same rows of A and all of B.  A wgmma reads its operands at */
/* issue and does its arithmetic at the wait_group that completes it;   */
/* meanwhile the lanes' accumulator registers hold a poison (NaN), so a */
/* read before the wait shows as a wrong value, and a write to them, to */
/* its A registers (A from registers), or to the shared memory it      */
/* reads, is reported at the wait.  Descriptor */
/* addresses are offsets in lt_smem, as on the GPU, where the dynamic  */
/* shared memory starts 1024-byte aligned and the swizzle XORs offset  */
/* bits 4-6 with 7-9 (128-byte rows; 4-5 with 7-8 for 64, 4 with 7 for */
/* 32).  Not modelled: wgmma.fence and fence.proxy.async (their        */
/* absence goes unreported), descriptor-less layouts (swizzle 0).       */

namespace lt_emu {
namespace {

#define LT_EMU_WG_POISON 0x7fc0deadu   /* an accumulator register while its wgmma is in flight */

/* The descriptor of shared operand p (lt_wgmma_desc), encoded as the
** GPU's: address bits 4-17, lbo, sbo, swizzle mode.  The address is p's
** offset from lt_smem (the dynamic shared memory, 1024-byte aligned as on
** the GPU, where the __shared__ arrays are too); its bits from 18 on,
** which a shared address does not have but an offset to a __shared__
** array (another thread_local) may, go in bits 52-61, unused by the GPU. */
LT_EMU_FN uint64_t wgmma_desc(const void *p, uint32_t lbo, uint32_t sbo, uint32_t swizzle, const char *file, int line) {
  State *s = g;
  long off = (long)((intptr_t)p - (intptr_t)lt_smem);
  if (off >= 0 && off < LT_EMU_SMEM_CAP) check_shared(s, p, 16, "wgmma descriptor", file, line);
  if (off < -(1L << 27) || off >= (1L << 27))
    fail(file, line, "wgmma descriptor of %p: not shared memory of the block", p);
  if (off % 16 || lbo % 16 || sbo % 16)
    fail(file, line, "wgmma descriptor: address %p, lbo %u, sbo %u must be multiples of 16", p, lbo, sbo);
  return (uint64_t)(((uint64_t)off & 0x3FFFF) >> 4) | (uint64_t)(lbo >> 4) << 16 | (uint64_t)(sbo >> 4) << 32 |
         ((uint64_t)off >> 18 & 0x3FF) << 52 | (uint64_t)swizzle << 62;
}

/* The shared memory of element (mn, k) of descriptor d's operand, of
** eb bytes: K-major (mn_major 0) rows of the swizzle width R along K,
** 8-row groups sbo apart; MN-major rows of R bytes along MN (k their index), 8-row
** groups sbo apart, R-byte panels along MN lbo apart; then the swizzle. */
LT_EMU_FN unsigned char *wgmma_elem(uint64_t d, int mn_major, int mn, int k, int eb, const char *file, int line) {
  long hi = (long)(d >> 52 & 0x3FF), lbo = (long)((d >> 16) & 0x3FFF) << 4, sbo = (long)((d >> 32) & 0x3FFF) << 4;
  long start = (hi >= 512 ? hi - 1024 : hi) * (1L << 18) + ((long)(d & 0x3FFF) << 4);
  int mode = (int)(d >> 62);
  if (mode == 0) fail(file, line, "wgmma descriptor without a swizzle: the emulator models the swizzled layouts only");
  long R = mode == 1 ? 128 : mode == 2 ? 64 : 32, W = R / eb;
  long u = mn_major ? start + mn / W * lbo + k / 8 * sbo + k % 8 * R + mn % W * eb : start + mn / 8 * sbo + mn % 8 * R + k * eb;
  return lt_smem + (u ^ ((u >> 7) & (R / 16 - 1)) << 4);
}

/* fence.proxy.async.shared::cta: this thread's generic-proxy writes so far
** are ordered before the async proxy's next reads (Thread.fences). */
LT_EMU_FN void fence_proxy_async(void) { g->cur->fences++; }

/* A read of [p, p + n) by the async proxy (wgmma, a TMA store): each byte
** a thread wrote through the generic proxy (an ordinary store, a cp.async)
** needs a fence.proxy.async of that thread after the write.  Checked where
** the writer is known: traced plain stores, cp.async, in any build. */
LT_EMU_FN void proxy_check(State *s, const void *p, size_t n, const char *what, const char *file, int line) {
  for (size_t i = 0; i < n; i++) {
    uintptr_t a = (uintptr_t)p + i;
    long off = smem_offset((const void *)a, 1);
    Shadow *h = s->traced ? traced_entry(s, a) : off >= 0 && s->track ? shadow_at(s, s->shadow, (size_t)off) : NULL;
    if (!h || !h->writer || h->writer > s->nthreads) continue;
    if (s->threads[h->writer - 1].fences != h->wfence) continue;
    char pl[96];
    fail(file, line, "%s reads %s that thread %d wrote through the generic proxy (an ordinary store or cp.async) "
         "with no fence.proxy.async of that thread since: the writers fence before the barrier that hands the data "
         "to the async proxy", what, place(pl, sizeof pl, a), h->writer - 1);
  }
}

/* The bytes of a wgmma operand of type `kind` (WgOp), and its K step. */
LT_EMU_FN int wgmma_bytes(int kind) { return kind == 4 ? 4 : kind >= 2 ? 1 : 2; }
LT_EMU_FN int wgmma_k(int kind) { return 32 / wgmma_bytes(kind); }

/* An fp8 byte's value (e4m3: bias 7, S.1111.111 NaN, no infinities;
** e5m2: bias 15, IEEE-like), exact in f32. */
LT_EMU_FN float fp8_value(unsigned v, int e5m2) {
  int mb = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7, e = (int)(v & 0x7f) >> mb, m = (int)v & ((1 << mb) - 1);
  float sign = v & 0x80 ? -1.0f : 1.0f;
  if (e5m2 && e == 31) return m ? NAN : sign * INFINITY;
  if (!e5m2 && e == 15 && m == 7) return NAN;
  return sign * (e ? ldexpf((float)((1 << mb) + m), e - bias - mb) : ldexpf((float)m, 1 - bias - mb));
}

/* Element (mn, k) of descriptor d's operand, checked as a read of lane t
** (written, not in flight, ordered after its writer); f32 (tf32: the
** tensor cores read its top 19 bits). */
LT_EMU_FN float wgmma_read(State *s, Thread *t, uint64_t d, int mn_major, int mn, int k, int kind, int check,
                           const char *file, int line) {
  const int eb = wgmma_bytes(kind);
  unsigned char *p = wgmma_elem(d, mn_major, mn, k, eb, file, line);
  check_shared(s, p, eb, "wgmma operand", file, line);
  uint32_t h = 0;
  copy_in(&h, p, eb);
  AsyncChunk *c = chunk_at(s, (uintptr_t)p);
  if (check) {
    check_read(s, t, p, eb, "wgmma", file, line);
    proxy_check(s, p, eb, "wgmma", file, line);
    if (c) c->wg_reads++;   /* until the wait_group that completes it */
  } else if (c) {
    c->wg_reads--;
    c->rclock[t->warp] = s->warps[t->warp].clock;   /* the read lasts until the wait_group */
  }
  switch (kind) {
  case 0: return f16_to_f32((uint16_t)h);
  case 1: return bf16_to_f32((uint16_t)h);
  case 2: case 3: return fp8_value(h, kind == 3);
  default: return bits_f32(h & 0xffffe000u);
  }
}

/* Reads op's shared operands (A when by descriptor, B) into a and b. */
LT_EMU_FN void wgmma_operands(State *s, Thread *t, const WgOp &op, float (*a)[32], float (*b)[256], int check) {
  int row = 16 * (op.warp % 4);
  for (int k = 0; k < wgmma_k(op.kind); k++) {
    if (op.da)
      for (int r = 0; r < 16; r++)
        a[r][k] = wgmma_read(s, t, op.da, op.ta, row + r, k, op.kind, check, op.file, op.line);
    for (int n = 0; n < op.n; n++) b[k][n] = wgmma_read(s, t, op.db, op.tb, n, k, op.kind, check, op.file, op.line);
  }
}

/* Operands of one lane's wgmma. */
struct WgArgs {
  float *d;
  const uint32_t *a;      /* A from registers (the mma.sync A fragment), or NULL */
  uint64_t da, db;
  int n, kind, ta, tb, scale_d;   /* kind: as WgOp's */
  int swap;               /* as WgOp's */
};

/* wgmma.mma_async.sync.aligned.m64nNkK.f32: records the warp's op in
** flight with its operands read now; poisons its accumulator registers. */
LT_EMU_FN void wgmma_issue_run(Thread *lanes, int nl) {
  State *s = g;
  WgArgs *x = (WgArgs *)lanes[0].args;
  if (nl != 32) fail(lanes[0].file, lanes[0].line, "wgmma needs warps of 32 lanes, not %d", nl);
  if (s->nwarps % 4) fail(lanes[0].file, lanes[0].line, "wgmma in a block of %d warps, not whole warpgroups", s->nwarps);
  if (x->n % 8 || x->n < 8 || x->n > 256)
    fail(lanes[0].file, lanes[0].line, "wgmma m64n%dk%d: N is not 8..256 by 8", x->n, wgmma_k(x->kind));
  if (x->kind >= 2 && ((x->a && x->kind != 4) || x->ta || x->tb))
    fail(lanes[0].file, lanes[0].line, "wgmma of %s operands: %san operand MN-major (only 16-bit "
         "types have the transpose bits; PTX ISA, wgmma.mma_async)", x->kind == 4 ? "tf32" : "fp8",
         x->kind == 4 ? "" : "A from registers or ");
  if (s->nwg == s->capwg) {
    s->capwg = s->capwg ? 2 * s->capwg : 16;
    s->wg = (WgOp *)realloc(s->wg, s->capwg * sizeof(WgOp));
    if (!s->wg) fail(lanes[0].file, lanes[0].line, "out of memory for wgmma records");
  }
  if (!s->warps[lanes[0].warp].wg_fenced)
    fail(lanes[0].file, lanes[0].line, "wgmma.mma_async with no wgmma.fence since the warp's last commit_group (the "
         "registers it reads, written before it, need the fence: PTX ISA, wgmma.fence)");
  WgOp &op = s->wg[s->nwg];
  op.warp = lanes[0].warp, op.group = s->warps[op.warp].wg_group;
  op.n = x->n, op.kind = x->kind, op.ta = x->ta, op.tb = x->tb, op.scale_d = x->scale_d;
  op.da = x->a ? 0 : x->da, op.db = x->db;
  op.file = lanes[0].file, op.line = lanes[0].line;
  op.chained = 0;
  op.swap = x->swap;
  for (size_t i = 0; i < s->nwg; i++) op.chained |= s->wg[i].warp == op.warp && s->wg[i].d[0] == x->d;
  wgmma_operands(s, &lanes[0], op, op.a, op.b, 1);
  for (int l = 0; l < 32; l++) {
    WgArgs *y = (WgArgs *)lanes[l].args;
    if (y->n != x->n || y->kind != x->kind || y->tb != x->tb || y->swap != x->swap || !y->a != !x->a || (!x->a && (y->da != x->da || y->ta != x->ta)) ||
        y->db != x->db || y->scale_d != x->scale_d)
      fail(lanes[l].file, lanes[l].line, "lanes of one wgmma give different shapes, descriptors or scale-d (lane %d)", l);
    op.d[l] = y->d;
    op.ar[l] = y->a;
    if (y->a) memcpy(op.av[l], y->a, sizeof op.av[l]);
    if (x->a && x->kind == 4) {   /* tf32 A: rows g, g + 8 by columns t, t + 4 of the warp's 16 x 8, top 19 bits */
      int gid = l >> 2, tig = l % 4;
      for (int i = 0; i < 4; i++) op.a[gid + (i & 1) * 8][tig + (i >> 1) * 4] = bits_f32(y->a[i] & 0xffffe000u);
    } else if (x->a) {   /* A: rows g, g + 8 by columns 2t, 2t + 8 of the warp's 16 x 16, as mma.sync's */
      int gid = l >> 2, tig = l % 4;
      for (int i = 0; i < 8; i++) op.a[a_row(gid, i)][a_col(tig, i)] = (float)unpack16(y->a[i / 2], i % 2, x->kind == 1);
    }
    if (!op.chained) {
      memcpy(op.c[l], y->d, (size_t)x->n / 2 * sizeof(float));
      float poison = bits_f32(LT_EMU_WG_POISON);
      for (int i = 0; i < x->n / 2; i++) y->d[i] = poison;
    }
  }
  s->nwg++;
}

/* Completes op at the wait_group at `line`: checks that what it reads did
** not change in flight, then d = A B + (scale-d ? C : 0) into the lanes'
** registers (accumulator i of lane l: row l/4 + 8 (i / (N/4)), column
** 8 (i % (N/4) / 2) + 2 (l % 4) + i % 2; swapped: row l/4 + 8 (i % 2),
** column 8 (i / 4) + 2 (l % 4) + i / 2 % 2), in double, rounded once. */
LT_EMU_FN void wgmma_complete(State *s, WgOp &op, int line) {
  static thread_local float a[16][32], b[32][256];
  Thread *t = &s->threads[op.warp * s->warp];
  const int K = wgmma_k(op.kind);
  wgmma_operands(s, t, op, a, b, 0);
  for (int k = 0; k < K; k++) {
    for (int r = 0; op.da && r < 16; r++)
      if (memcmp(&a[r][k], &op.a[r][k], 4))
        fail(op.file, op.line, "wgmma: the shared memory of A (row %d, k %d) changed while the wgmma was in flight, "
             "before the wgmma.wait_group at line %d", 16 * (op.warp % 4) + r, k, line);
    for (int n = 0; n < op.n; n++)
      if (memcmp(&b[k][n], &op.b[k][n], 4))
        fail(op.file, op.line, "wgmma: the shared memory of B (k %d, n %d) changed while the wgmma was in flight, "
             "before the wgmma.wait_group at line %d", k, n, line);
  }
  for (int l = 0; l < 32; l++)
    for (int i = 0; op.ar[l] && i < 4; i++)
      if (op.ar[l][i] != op.av[l][i])
        fail(op.file, op.line, "wgmma: lane %d of warp %d wrote its A register %d (A from registers) while the wgmma "
             "was in flight, before the wgmma.wait_group at line %d", l, op.warp, i, line);
  int q = op.n / 4;
  for (int l = 0; l < 32; l++) {
    float *d = op.d[l];
    for (int i = 0; i < op.n / 2; i++) {
      if (!op.chained && f32_bits(d[i]) != LT_EMU_WG_POISON)
        fail(op.file, op.line, "wgmma: lane %d of warp %d wrote its accumulator register %d while the wgmma was in "
             "flight, before the wgmma.wait_group at line %d", l, op.warp, i, line);
      int row = (l >> 2) + 8 * (i / q), col = 8 * (i % q / 2) + 2 * (l % 4) + i % 2;
      if (op.swap) row = (l >> 2) + 8 * (i % 2), col = 8 * (i / 4) + 2 * (l % 4) + i / 2 % 2;
      double acc = !op.scale_d ? 0.0 : op.chained ? (double)d[i] : (double)op.c[l][i];
      for (int k = 0; k < K; k++) acc += (double)op.a[row][k] * (double)op.b[k][col];
      d[i] = (float)acc;
    }
  }
}

/* wgmma.fence: the warp's register writes so far are seen by the wgmmas it
** issues next.  Checked conservatively: every group of wgmmas needs one
** after the warp's last commit_group (the generated code fences each). */
LT_EMU_FN void wgmma_fence_run(Thread *lanes, int n) {
  (void)n;
  g->warps[lanes[0].warp].wg_fenced = 1;
}

/* wgmma.commit_group: closes the warp's open group. */
LT_EMU_FN void wgmma_commit_run(Thread *lanes, int n) {
  (void)n;
  g->warps[lanes[0].warp].wg_group++;
  g->warps[lanes[0].warp].wg_fenced = 0;
}

/* wgmma.wait_group N: completes the warp's wgmmas but those of its N
** most recent groups, in issue order. */
LT_EMU_FN void wgmma_wait_run(Thread *lanes, int n) {
  (void)n;
  State *s = g;
  int w = lanes[0].warp, upto = s->warps[w].wg_group - *(int *)lanes[0].args;
  size_t k = 0;
  for (size_t i = 0; i < s->nwg; i++) {
    if (s->wg[i].warp == w && s->wg[i].group < upto) wgmma_complete(s, s->wg[i], lanes[0].line);
    else s->wg[k++] = s->wg[i];
  }
  s->nwg = k;
}

/* lt_wgmma_m64n<N>k<K>_<ty>[_ss] in emulation: an object made at the call
** site (N, the type as WgOp.kind, file and line) whose members issue it:
** ss and rs for 16-bit types (sst: ss with the registers in the swapped
** operands' order), kk (both K-major by descriptor, no transpose bits)
** for fp8 and tf32, rk (A from registers, B K-major) for tf32 (rkt:
** swapped). */
struct Wgmma {
  int n, kind;
  const char *file;
  int line;
  Wgmma(int n_, int kind_, const char *f, int l) : n(n_), kind(kind_), file(f), line(l) {}
  template <int TA, int TB>
  void ss(float *d, uint64_t a, uint64_t b, int scale_d) const {
    WgArgs x = {d, NULL, a, b, n, kind, TA, TB, scale_d != 0, 0};
    warp_sync(wgmma_issue_run, &x, "wgmma.mma_async", file, line);
  }
  template <int TA, int TB>
  void sst(float *d, uint64_t a, uint64_t b, int scale_d) const {   /* the operands swapped (_ss_t) */
    WgArgs x = {d, NULL, a, b, n, kind, TA, TB, scale_d != 0, 1};
    warp_sync(wgmma_issue_run, &x, "wgmma.mma_async", file, line);
  }
  template <int TB>
  void rs(float *d, const uint32_t *a, uint64_t b, int scale_d) const {
    WgArgs x = {d, a, 0, b, n, kind, 0, TB, scale_d != 0, 0};
    warp_sync(wgmma_issue_run, &x, "wgmma.mma_async", file, line);
  }
  void rk(float *d, const uint32_t *a, uint64_t b, int scale_d) const {
    WgArgs x = {d, a, 0, b, n, kind, 0, 0, scale_d != 0, 0};
    warp_sync(wgmma_issue_run, &x, "wgmma.mma_async", file, line);
  }
  void rkt(float *d, const uint32_t *a, uint64_t b, int scale_d) const {   /* rk, the operands swapped */
    WgArgs x = {d, a, 0, b, n, kind, 0, 0, scale_d != 0, 1};
    warp_sync(wgmma_issue_run, &x, "wgmma.mma_async", file, line);
  }
  void kk(float *d, uint64_t a, uint64_t b, int scale_d) const {
    WgArgs x = {d, NULL, a, b, n, kind, 0, 0, scale_d != 0, 0};
    warp_sync(wgmma_issue_run, &x, "wgmma.mma_async", file, line);
  }
};

/* lt_wgmma_wait<N>() in emulation, as CpWait. */
struct WgWait {
  const char *file;
  int line;
  WgWait(const char *f, int l) : file(f), line(l) {}
  template <int N>
  void wait(void) const {
    int n = N;
    warp_sync(wgmma_wait_run, &n, "wgmma.wait_group", file, line);
  }
};

}  // namespace
}  // namespace lt_emu

#define lt_wgmma_desc(p, lbo, sbo, swizzle) lt_emu::wgmma_desc(p, lbo, sbo, swizzle, __FILE__, __LINE__)
#define lt_wgmma_fence() lt_emu::warp_sync(lt_emu::wgmma_fence_run, NULL, "wgmma.fence", __FILE__, __LINE__)
#define lt_wgmma_commit() lt_emu::warp_sync(lt_emu::wgmma_commit_run, NULL, "wgmma.commit_group", __FILE__, __LINE__)
#define lt_wgmma_wait lt_emu::WgWait(__FILE__, __LINE__).wait
#define lt_wgmma_barrier() (lt_emu::fence_proxy_async(), lt_emu::barrier(__FILE__, __LINE__, "fence.proxy.async + __syncthreads"))
#define lt_wg_turn_wait(g) lt_emu::named_barrier((g) == 0 ? 1 : 2, 256, true, __FILE__, __LINE__, "bar.sync (warpgroup turn)")
#define lt_wg_turn_pass(g) lt_emu::named_barrier((g) == 0 ? 2 : 1, 256, false, __FILE__, __LINE__, "bar.arrive (warpgroup turn)")
template <class T> static inline __attribute__((unused)) void lt_wgmma_settle(T &) {}

/* ------------------------------------------------------------------ */
/* mbarriers, TMA, fence.proxy.async, setmaxnreg (templates/cuda_tma.h; */
/* PTX ISA: "mbarrier", "cp.async.bulk.tensor", "Tensor-map",           */
/* "setmaxnreg"; the CUDA driver API: cuTensorMapEncodeTiled)           */
/*                                                                      */
/* An mbarrier is kept beside its 8 bytes of shared memory (Mbar): the  */
/* arrivals a phase needs and still needs, the tx-count, the phases     */
/* completed.  A phase completes when its pending arrivals and its      */
/* tx-count are both zero; a parity wait names the current phase or the */
/* one before.  A TMA load reads its box from global memory at the      */
/* issue and is in flight until it is delivered: when a thread waits on */
/* its mbarrier and the phase is not complete, or when every thread     */
/* waits (the copy engine goes on).  Delivery writes the box (swizzled  */
/* by address bits, as wgmma reads it) and completes its bytes on the   */
/* mbarrier's current phase.  Until then its bytes are "in flight": a   */
/* read of them is a missing or wrong-parity wait, or a missing         */
/* expect-tx; a phase that completes while a copy issued in it is still */
/* in flight had no expect-tx for it.  Ordering: each warp has a clock  */
/* and a vector clock (emu.h); an arrive releases the warp's accesses,  */
/* a wait that sees the phase complete acquires them, barriers join     */
/* everyone.  A TMA copy may overwrite a stage only when every warp's   */
/* reads of it are ordered before the issue (released on an mbarrier    */
/* the producer waited on) and no wgmma in flight reads it; a read of   */
/* delivered bytes must be ordered after the delivery (the phase it     */
/* completed was waited for).  Not modelled: clusters and multicast,    */
/* try_wait's time limit (a try_wait returns once the phase completes), */
/* fence.mbarrier_init (the init need only be followed by a barrier).   */

#define __grid_constant__
/* The tensor map: opaque, 128 bytes (the emulator's own encoding inside). */
struct alignas(64) CUtensorMap {
  unsigned long long opaque[16];
};
enum { LT_TMA_F16 = 0, LT_TMA_BF16 = 1, LT_TMA_F32 = 2, LT_TMA_U8 = 3 };

namespace lt_emu {
namespace {

#define LT_EMU_TMAP_MAGIC 0x4c54544d41503244ull   /* "LTTMAP2D" */

/* What the emulator keeps in a CUtensorMap. */
struct TmaMap {
  unsigned long long magic;
  const unsigned char *base;
  unsigned long long rows, cols, pitch;   /* pitch in bytes */
  unsigned esize, box_rows, box_cols, swizzle;
  /* dimensions 3 to 5 of an N-D map (lt_tma_encode): sizes (1 past the
  ** rank) and byte strides; a box spans one index of each */
  unsigned long long outer[3], outer_pitch[3];
};

/* lt_tma_encode_2d, with the rules of cuTensorMapEncodeTiled (CUDA driver
** API documentation), checked here on their own: the global address 16-byte
** aligned, sizes 1 to 2^32, the row pitch a multiple of 16 below 2^40 and
** not below a row, box sides 1 to 256, the box row a multiple of 16 bytes
** and no wider than the swizzle span.  The emulator models swizzled boxes
** whose rows are exactly the span (all that wgmma's layouts use): another
** swizzled width is refused with cudaErrorNotSupported and a message. */
LT_EMU_FN int tma_encode(CUtensorMap *map, const void *base, int dtype, unsigned long long rows, unsigned long long cols,
                         unsigned long long ld, unsigned box_rows, unsigned box_cols, int swizzle) {
  const unsigned long long esize = dtype == LT_TMA_F32 ? 4 : dtype == LT_TMA_U8 ? 1 : 2;
  if (!map || !base || (uintptr_t)map % 64 || (dtype != LT_TMA_F16 && dtype != LT_TMA_BF16 && dtype != LT_TMA_F32 &&
                                              dtype != LT_TMA_U8))
    return cudaErrorInvalidValue;
  if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128) return cudaErrorInvalidValue;
  if ((uintptr_t)base % 16 || rows == 0 || cols == 0 || rows > (1ull << 32) || cols > (1ull << 32)) return cudaErrorInvalidValue;
  if ((ld * esize) % 16 || ld * esize >= (1ull << 40) || ld < cols) return cudaErrorInvalidValue;
  if (box_rows < 1 || box_rows > 256 || box_cols < 1 || box_cols > 256 || (box_cols * esize) % 16) return cudaErrorInvalidValue;
  if (swizzle && box_cols * esize > (unsigned long long)swizzle) return cudaErrorInvalidValue;
  if (swizzle && box_cols * esize != (unsigned long long)swizzle) {
    fprintf(stderr, "lt_emu: lt_tma_encode_2d: a box of %llu-byte rows with the %d-byte swizzle: the emulator models "
            "swizzled rows of the swizzle's width only\n", box_cols * esize, swizzle);
    return cudaErrorNotSupported;
  }
  TmaMap m = {LT_EMU_TMAP_MAGIC, (const unsigned char *)base, rows, cols, ld * esize, (unsigned)esize, box_rows, box_cols,
              (unsigned)swizzle, {1, 1, 1}, {0, 0, 0}};
  memset(map, 0, sizeof *map);
  memcpy(map, &m, sizeof m);
  return 0;
}

/* lt_tma_encode: a map of `rank` (1 to 5) dimensions, dims[0] innermost,
** strides[i] the elements between indices of dimension i + 1, with the
** rules of cuTensorMapEncodeTiled as templates/cuda_tma.h checks them (a
** dimension of size 1 takes any stride).  The emulator models boxes of one
** index in the dimensions past the second: another box is refused with
** cudaErrorNotSupported and a message. */
LT_EMU_FN int tma_encode_nd(CUtensorMap *map, const void *base, int dtype, int rank, const uint64_t *dims,
                            const uint64_t *strides, const uint32_t *box, int swizzle) {
  const unsigned long long esize = dtype == LT_TMA_F32 ? 4 : dtype == LT_TMA_U8 ? 1 : 2;
  if (rank < 1 || rank > 5 || !dims || !box || (rank > 1 && !strides)) return cudaErrorInvalidValue;
  for (int i = 0; i < rank; i++)
    if (dims[i] == 0 || dims[i] > (1ull << 32) || box[i] < 1 || box[i] > 256) return cudaErrorInvalidValue;
  for (int i = 1; i < rank; i++)
    if (dims[i] > 1 && (strides[i - 1] == 0 || (strides[i - 1] * esize) % 16 || strides[i - 1] * esize >= (1ull << 40)))
      return cudaErrorInvalidValue;
  for (int i = 2; i < rank; i++)
    if (box[i] != 1) {
      fprintf(stderr, "lt_emu: lt_tma_encode: a box of %u indices in dimension %d: the emulator models boxes of one "
              "index past the second dimension\n", box[i], i + 1);
      return cudaErrorNotSupported;
    }
  unsigned long long rows = rank > 1 ? dims[1] : 1, cols = dims[0];
  unsigned long long ld = rank > 1 && dims[1] > 1 ? strides[0] : (cols + 15) / 16 * 16;
  int rc = tma_encode(map, base, dtype, rows, cols, ld, rank > 1 ? box[1] : 1, box[0], swizzle);
  if (rc || rank <= 2) return rc;
  TmaMap m;
  memcpy(&m, map, sizeof m);
  for (int i = 2; i < rank; i++) m.outer[i - 2] = dims[i], m.outer_pitch[i - 2] = dims[i] > 1 ? strides[i - 1] * esize : 0;
  memcpy(map, &m, sizeof m);
  return 0;
}

/* The map at p, checked. */
LT_EMU_FN TmaMap tma_map(const CUtensorMap *p, const char *what, const char *file, int line) {
  TmaMap m;
  if (!p) fail(file, line, "%s with no tensor map", what);
  memcpy(&m, p, sizeof m);
  if (m.magic != LT_EMU_TMAP_MAGIC) fail(file, line, "%s: %p is not a tensor map made by lt_tma_encode", what, (const void *)p);
  return m;
}

/* Turns on what mbarriers and TMA need: the vector clocks' ordering, the
** per-chunk state of lt_smem, the scheduler's hooks. */
LT_EMU_FN void async_hooks(State *s);
LT_EMU_FN void async_on(State *s, const char *file, int line) {
  async_hooks(s);
  s->vc_on = 1;
  if (!s->ash && s->smem_bytes) {
    s->ash = (AsyncChunk *)calloc((s->smem_bytes + 15) / 16, sizeof(AsyncChunk));
    if (!s->ash) fail(file, line, "out of memory for the state of %zu bytes of shared memory", s->smem_bytes);
  }
}

/* The index of the mbarrier at `bar`, checked: initialized in this block,
** and (for another thread than the initializing one) after a barrier. */
LT_EMU_FN int mbar_find(State *s, Thread *t, const void *bar, const char *what, const char *file, int line) {
  for (size_t i = 0; i < s->nmbar; i++) {
    Mbar *b = &s->mbars[i];
    if (b->addr != bar) continue;
    if (t && t->tid != b->init_tid && s->epoch == b->init_epoch)
      fail(file, line, "%s by thread %d on the mbarrier at offset %ld, which thread %d initialized at line %d with no "
           "barrier since (the init is seen by the others after lt_mbar_init_fence and __syncthreads)", what, t->tid,
           (long)((const unsigned char *)bar - lt_smem), b->init_tid, b->line);
    return (int)i;
  }
  fail(file, line, "%s on shared memory at offset %ld that holds no mbarrier initialized in this block (missing "
       "lt_mbar_init)", what, (long)((const unsigned char *)bar - lt_smem));
  return -1;
}

/* Completes the current phase of mbarrier i if its arrivals and its
** tx-count are both zero: a TMA copy issued on it and still in flight is
** a copy whose bytes no expect-tx announced. */
LT_EMU_FN void mbar_settle(State *s, int i, int by) {
  Mbar *b = &s->mbars[i];
  if (b->pending || b->tx) return;
  for (size_t k = 0; k < s->ntma; k++)
    if (s->tmas[k].bar == i)
      fail(s->tmas[k].file, s->tmas[k].line, "phase %u of the mbarrier at offset %ld completed while this TMA copy of "
           "thread %d, issued in it, had not delivered its %zu bytes: no expect-tx announced them (a missing or short "
           "arrive.expect_tx)", b->phase, (long)(b->addr - lt_smem), s->tmas[k].tid, s->tmas[k].bytes);
  memcpy(b->vc_done, b->vc_cur, sizeof b->vc_done);
  memset(b->vc_cur, 0, sizeof b->vc_cur);
  b->vc_done[s->nwarps + i] = b->phase + 1;   /* phases 0 .. b->phase complete: a TMA copy's data of them is ordered */
  b->done_tx = b->had_tx, b->had_tx = 0, b->done_by = by;
  b->phase++;
  b->pending = b->count;
}

/* mbarrier.init: a new mbarrier of `count` arrivals at bar (8-byte
** aligned shared memory); one in use (a phase under way) may not be
** initialized again. */
LT_EMU_FN void mbar_init(uint64_t *bar, unsigned count, const char *file, int line) {
  State *s = g;
  Thread *t = s->cur;
  async_on(s, file, line);
  if ((uintptr_t)bar % 8) fail(file, line, "mbarrier.init at %p: not 8-byte aligned", (void *)bar);
  check_shared(s, bar, 8, "mbarrier.init", file, line);
  if (count < 1 || count >= (1u << 20)) fail(file, line, "mbarrier.init with count %u (1 to 2^20 - 1)", count);
  Mbar *b = NULL;
  for (size_t i = 0; i < s->nmbar; i++)
    if (s->mbars[i].addr == (unsigned char *)bar) b = &s->mbars[i];
  if (b && (b->pending != b->count || b->tx))
    fail(file, line, "mbarrier.init over the mbarrier at offset %ld while its phase %u is under way (%d of %d arrivals, "
         "tx-count %ld)", (long)((unsigned char *)bar - lt_smem), b->phase, b->count - b->pending, b->count, b->tx);
  if (!b) {
    if (s->nmbar == LT_EMU_MAXMBAR) fail(file, line, "more than %d mbarriers in a block (the emulator's limit)", LT_EMU_MAXMBAR);
    if (s->nmbar == s->capmbar) {
      s->capmbar = s->capmbar ? 2 * s->capmbar : 16;
      s->mbars = (Mbar *)realloc(s->mbars, s->capmbar * sizeof(Mbar));
      if (!s->mbars) fail(file, line, "out of memory for mbarriers");
    }
    b = &s->mbars[s->nmbar++];
  }
  memset((void *)b, 0, sizeof *b);
  b->addr = (unsigned char *)bar;
  b->count = b->pending = (int)count;
  b->init_tid = t->tid, b->init_epoch = s->epoch;
  b->file = file, b->line = line;
}

/* fence.mbarrier_init: nothing to model (see the top of this part). */
LT_EMU_FN void mbar_init_fence(void) {}

/* mbarrier.arrive[.expect_tx]: with expect, tx bytes are added to the
** current phase's tx-count first; then one arrival, releasing this warp's
** accesses so far. */
LT_EMU_FN void mbar_arrive(uint64_t *bar, unsigned tx, int expect, const char *file, int line) {
  State *s = g;
  Thread *t = s->cur;
  int i = mbar_find(s, t, bar, expect ? "mbarrier.arrive.expect_tx" : "mbarrier.arrive", file, line);
  Mbar *b = &s->mbars[i];
  if (!b->pending)
    fail(file, line, "mbarrier.arrive of thread %d on the mbarrier at offset %ld: phase %u has had its %d arrivals "
         "already (it waits for %ld transaction bytes)", t->tid, (long)(b->addr - lt_smem), b->phase, b->count, b->tx);
  if (expect) {
    if (tx >= (1u << 20)) fail(file, line, "mbarrier.expect_tx of %u bytes (at most 2^20 - 1)", tx);
    b->tx += tx;
    b->had_tx = 1;
  }
  vc_release(s, t->warp, b->vc_cur);
  b->pending--;
  mbar_settle(s, i, t->tid + 1);
}

/* Delivers TMA copy k: its box into shared memory, its bytes completed on
** its mbarrier's current phase (releasing the issuer's clock at the issue). */
LT_EMU_FN void tma_deliver(State *s, size_t k) {
  TmaOp op = s->tmas[k];
  memmove(s->tmas + k, s->tmas + k + 1, (s->ntma - k - 1) * sizeof(TmaOp));
  s->ntma--;
  Mbar *b = &s->mbars[op.bar];
  Thread *t = &s->threads[op.tid];
  memcpy(op.dst, op.data, op.bytes);
  free(op.data);
  long off = smem_offset(op.dst, op.bytes);
  for (size_t i = 0; i < op.bytes; i++) {
    uintptr_t a = (uintptr_t)op.dst + i;
    Shadow *h = copy_entry(s, a);
    if (h) {
      h->pending = 0;
      h->writer = LT_EMU_TMA;
      h->wepoch = s->epoch;
      h->wsync = s->warps[t->warp].gen;
      if (!s->traced && off >= 0) s->snap[(size_t)off + i] = op.dst[i];
    }
    AsyncChunk *c = chunk_at(s, a);
    if (c && i % 16 == 0) c->tma_tid = op.tid + 1, c->tma_bar = op.bar, c->tma_line = op.line, c->tma_phase = b->phase;
  }
  b->tx -= (long)op.bytes;
  mbar_settle(s, op.bar, 0);
}

/* Delivers every TMA copy in flight (all threads wait: the copy engine
** goes on); 1 if there was one. */
LT_EMU_FN int tma_deliver_all(State *s) {
  if (!s->ntma) return 0;
  while (s->ntma && !s->error) tma_deliver(s, 0);
  return 1;
}

/* mbarrier.try_wait.parity: 1 once the phase of that parity has completed
** (the phase before the current one), acquiring what its arrivals
** released.  Otherwise the copies in flight on this mbarrier are delivered,
** and if the phase is still not complete the thread waits until it is: the
** emulated try_wait returns only with 1, and a phase nothing can complete
** any more is reported as a hang. */
LT_EMU_FN int mbar_try_wait(uint64_t *bar, int parity, const char *file, int line) {
  State *s = g;
  Thread *t = s->cur;
  int i = mbar_find(s, t, bar, "mbarrier.try_wait", file, line);
  t->file = file, t->line = line, t->what = "mbarrier.try_wait.parity";
  for (;;) {
    Mbar *b = &s->mbars[i];
    if ((uint32_t)(parity & 1) != (b->phase & 1)) {
      if (b->phase > 0) vc_acquire(s, t->warp, b->vc_done);
      return 1;
    }
    uint32_t ph = b->phase;
    for (size_t k = 0; k < s->ntma && s->mbars[i].phase == ph;)
      if (s->tmas[k].bar == i) tma_deliver(s, k);
      else k++;
    if (s->mbars[i].phase != ph) continue;
    t->wait_mbar = i;
    block_on(s, t, WAIT_MBAR, ph);
  }
}

/* The TMA copy in flight whose destination holds byte a. */
LT_EMU_FN const TmaOp *tma_at(State *s, uintptr_t a) {
  for (size_t k = 0; k < s->ntma; k++)
    if (a - (uintptr_t)s->tmas[k].dst < s->tmas[k].bytes) return &s->tmas[k];
  return NULL;
}

/* A read (load_byte, check_read) of byte a that a TMA copy has not
** delivered: why the reader got there early. */
LT_EMU_FN void tma_read_pending(State *s, Thread *t, uintptr_t a, const char *what, const Site *at) {
  const TmaOp *op = tma_at(s, a);
  char w[96], p[96];
  if (!op) fail_site(t, at, "%s reads %s that a TMA copy is writing (emulator bug: no such copy)", who(w, sizeof w, t, what),
                     place(p, sizeof p, a));
  const Mbar *b = &s->mbars[op->bar];
  if (b->phase > 0 && op->phase == b->phase && !b->done_tx && b->done_by == op->tid + 1)
    fail_site(t, at, "%s reads %s that the TMA copy of line %d has not delivered: phase %u of its mbarrier (offset %ld) "
              "completed at an arrive of thread %d with no transaction bytes before the copy was issued, so its waiters "
              "went on without the copy (a missing arrive.expect_tx)", who(w, sizeof w, t, what), place(p, sizeof p, a),
              op->line, b->phase - 1, (long)(b->addr - lt_smem), op->tid);
  fail_site(t, at, "%s reads %s that the TMA copy of line %d has not delivered: the reader has not waited for phase %u of "
            "the mbarrier at offset %ld, which the copy completes (a missing or wrong-parity mbarrier wait)",
            who(w, sizeof w, t, what), place(p, sizeof p, a), op->line, op->phase, (long)(b->addr - lt_smem));
}

/* The TMA store still reading byte a, if any. */
LT_EMU_FN const BulkOp *bulk_at(State *s, uintptr_t a) {
  for (size_t k = 0; k < s->nbulk; k++)
    if (a - (uintptr_t)s->bulks[k].src < s->bulks[k].bytes) return &s->bulks[k];
  return NULL;
}

/* A write (a plain store, a cp.async) over byte a while a TMA copy fills
** it or a TMA store reads it. */
LT_EMU_FN void tma_write_pending(State *s, Thread *t, uintptr_t a, const char *what, const Site *at) {
  char p[96];
  const TmaOp *op = tma_at(s, a);
  if (op)
    fail_site(t, at, "%s of thread %d writes %s while the TMA copy of line %d into it is in flight", what, t->tid,
              place(p, sizeof p, a), op->line);
  const BulkOp *bo = bulk_at(s, a);
  fail_site(t, at, "%s of thread %d writes %s while the TMA store of line %d (thread %d) still reads it (missing "
            "cp.async.bulk.wait_group.read before the buffer is written again)", what, t->tid, place(p, sizeof p, a),
            bo ? bo->line : 0, bo ? bo->tid : -1);
}

/* What must be settled when the block ends: TMA copies and stores, the
** warpgroups' setmaxnreg. */
LT_EMU_FN void async_end(State *s) {
  if (s->ntma)
    fail(s->tmas[0].file, s->tmas[0].line, "the block ends with this TMA copy of thread %d in flight (no thread waited "
         "for its mbarrier phase)", s->tmas[0].tid);
  if (s->nbulk)
    fail(s->bulks[0].file, s->bulks[0].line, "the block ends while this TMA store of thread %d still reads shared "
         "memory (missing cp.async.bulk.wait_group.read or wait_group)", s->bulks[0].tid);
  for (int w = 0; w + 3 < s->nwarps; w += 4)
    for (int u = w + 1; u < w + 4; u++)
      if (s->warps[u].nsetmax != s->warps[w].nsetmax) {
        int v = s->warps[u].nsetmax > s->warps[w].nsetmax ? u : w;
        fail(s->warps[v].setmax_file, s->warps[v].setmax_line, "setmaxnreg: warp %d executed %d and warp %d %d of them; "
             "all four warps of warpgroup %d execute the same ones", w, s->warps[w].nsetmax, u, s->warps[u].nsetmax, w / 4);
      }
}

LT_EMU_FN void async_hooks(State *s) {
  s->async_deliver = tma_deliver_all;
  s->async_read_pending = tma_read_pending;
  s->async_write_pending = tma_write_pending;
  s->async_end = async_end;
}

/* The shared byte the 2-D box byte u (row-major, rows of `row` bytes) of a
** copy at dst lands on: by address bits, as the hardware swizzles (bits
** 4-6 ^= 7-9 for 128-byte rows, 4-5 ^= 7-8 for 64, 4 ^= 7 for 32), on
** offsets from lt_smem (1024-byte aligned, as shared memory is). */
LT_EMU_FN unsigned char *tma_place(unsigned char *dst, size_t u, unsigned swizzle) {
  uintptr_t a = (uintptr_t)(dst - lt_smem) + u;
  if (swizzle) a ^= ((a >> 7) & (swizzle / 16 - 1)) << 4;
  return lt_smem + a;
}

/* cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes:
** reads the box at (x, y) now (zero outside the tensor), puts it in flight
** towards dst (128-byte aligned shared memory of the launch), checking that
** nothing may still read or fill the bytes it overwrites. */
LT_EMU_FN void tma_load_nd(void *dst_, const CUtensorMap *map, int x, int y, const int *outer, uint64_t *bar,
                           const char *file, int line) {
  State *s = g;
  Thread *t = s->cur;
  async_on(s, file, line);
  unsigned char *dst = (unsigned char *)dst_;
  TmaMap m = tma_map(map, "cp.async.bulk.tensor", file, line);
  int inside = 1;   /* the box's index in dimensions 3 to 5: inside the tensor, else the box reads zeros */
  for (int d = 0; d < 3; d++) {
    inside &= outer[d] >= 0 && (unsigned long long)outer[d] < m.outer[d];
    if (inside) m.base += (size_t)outer[d] * m.outer_pitch[d];
  }
  int bi = mbar_find(s, t, bar, "cp.async.bulk.tensor (its mbarrier)", file, line);
  const size_t row = (size_t)m.box_cols * m.esize, bytes = row * m.box_rows;
  if ((uintptr_t)(dst - lt_smem) % 128) fail(file, line, "cp.async.bulk.tensor: shared destination %p is not 128-byte aligned", dst_);
  if (smem_offset(dst, bytes) < 0 || (size_t)(dst - lt_smem) + bytes > s->smem_bytes)
    fail(file, line, "cp.async.bulk.tensor: the %zu-byte box at dynamic shared offset %ld is outside the %zu bytes of the "
         "launch", bytes, (long)(dst - lt_smem), s->smem_bytes);
  TmaOp op;
  op.tid = t->tid, op.bar = bi, op.phase = s->mbars[bi].phase;
  op.bytes = bytes, op.file = file, op.line = line;
  op.dst = dst;
  op.data = (unsigned char *)malloc(bytes);
  if (!op.data) fail(file, line, "out of memory for a TMA copy of %zu bytes", bytes);
  /* the box, as it lands: byte u of the box (row u / row) at tma_place */
  unsigned char *box = (unsigned char *)calloc(bytes, 1);
  if (!box) fail(file, line, "out of memory for a TMA copy of %zu bytes", bytes);
  for (unsigned r = 0; r < m.box_rows; r++) {
    long long gy = (long long)y + r;
    if (gy < 0 || gy >= (long long)m.rows || !inside) continue;
    for (unsigned c = 0; c < m.box_cols; c++) {
      long long gx = (long long)x + c;
      if (gx < 0 || gx >= (long long)m.cols) continue;
      copy_in(box + r * row + (size_t)c * m.esize, m.base + (size_t)gy * m.pitch + (size_t)gx * m.esize, m.esize);
    }
  }
  for (size_t u = 0; u < bytes; u++) op.data[tma_place(dst, u, m.swizzle) - dst] = box[u];
  free(box);
  char p[96];
  for (size_t i = 0; i < bytes; i++) {
    uintptr_t a = (uintptr_t)dst + i;
    AsyncChunk *c = chunk_at(s, a);
    Shadow *h = copy_entry(s, a);
    if (h && (h->pending & LT_EMU_ASYNC)) {
      const TmaOp *o = tma_at(s, a);
      fail(file, line, "the TMA copy of thread %d writes %s, which the TMA copy of line %d is still filling: the stage "
           "is filled again before its readers waited for it and released it (the producer's wait on the stage's "
           "empty mbarrier is missing or passes too early)", t->tid, place(p, sizeof p, a), o ? o->line : 0);
    }
    if (h && h->pending)
      fail(file, line, "the TMA copy of thread %d writes %s while a cp.async of thread %d to it is in flight", t->tid,
           place(p, sizeof p, a), h->pending - 1);
    if (c && i % 16 == 0) {
      if (c->wg_reads)
        fail(file, line, "the TMA copy of thread %d overwrites %s, which a wgmma in flight still reads: the stage was "
             "released before that wgmma's wait_group (or the producer did not wait for the release)", t->tid,
             place(p, sizeof p, a));
      if (c->bulk_reads) {
        Site at = {file, line, NULL};
        s->async_write_pending(s, t, a, "a TMA copy", &at);
      }
      for (int w = 0; w < s->nwarps; w++)
        if (w != t->warp && c->rclock[w] > s->vc[(size_t)t->warp * s->vcw + w])
          fail(file, line, "the TMA copy of thread %d overwrites %s, which warp %d read after its last release that "
               "this thread has acquired: the stage was released (mbarrier arrive) before its reader was done with it, "
               "or the producer did not wait for that release", t->tid, place(p, sizeof p, a), w);
    }
    if (h) h->pending = (uint16_t)(LT_EMU_ASYNC | (t->tid + 1));
  }
  if (s->ntma == s->captma) {
    s->captma = s->captma ? 2 * s->captma : 16;
    s->tmas = (TmaOp *)realloc(s->tmas, s->captma * sizeof(TmaOp));
    if (!s->tmas) fail(file, line, "out of memory for TMA copies");
  }
  s->tmas[s->ntma++] = op;
}

LT_EMU_FN void tma_load_2d(void *dst, const CUtensorMap *map, int x, int y, uint64_t *bar, const char *file, int line) {
  const int outer[3] = {0, 0, 0};
  tma_load_nd(dst, map, x, y, outer, bar, file, line);
}
LT_EMU_FN void tma_load_3d(void *dst, const CUtensorMap *map, int x, int y, int z, uint64_t *bar, const char *file,
                           int line) {
  const int outer[3] = {z, 0, 0};
  tma_load_nd(dst, map, x, y, outer, bar, file, line);
}
LT_EMU_FN void tma_load_4d(void *dst, const CUtensorMap *map, int x, int y, int z, int w, uint64_t *bar,
                           const char *file, int line) {
  const int outer[3] = {z, w, 0};
  tma_load_nd(dst, map, x, y, outer, bar, file, line);
}

/* cp.async.bulk.tensor.{2,3,4}d.global.shared::cta.tile.bulk_group: reads the
** shared box at src (checked as the async proxy's read: written, ordered,
** fenced) and writes the elements of the box at (x, y; outer: dims 3 to 5) that lie inside the
** tensor; src stays "being read" until a wait_group[.read] of this thread
** covers the store's group. */
LT_EMU_FN void tma_store_nd(const CUtensorMap *map, int x, int y, const int *outer, const void *src_, const char *file,
                            int line) {
  State *s = g;
  Thread *t = s->cur;
  async_on(s, file, line);
  const unsigned char *src = (const unsigned char *)src_;
  TmaMap m = tma_map(map, "cp.async.bulk.tensor (store)", file, line);
  int inside = 1;   /* the box's index in dimensions 3 to 5: inside the tensor, else nothing is written */
  for (int d = 0; d < 3; d++) {
    inside &= outer[d] >= 0 && (unsigned long long)outer[d] < m.outer[d];
    if (inside) m.base += (size_t)outer[d] * m.outer_pitch[d];
  }
  const size_t row = (size_t)m.box_cols * m.esize, bytes = row * m.box_rows;
  if ((uintptr_t)(src - lt_smem) % 128) fail(file, line, "cp.async.bulk.tensor: shared source %p is not 128-byte aligned", src_);
  if (smem_offset(src, bytes) < 0 || (size_t)(src - lt_smem) + bytes > s->smem_bytes)
    fail(file, line, "cp.async.bulk.tensor: the %zu-byte box at dynamic shared offset %ld is outside the %zu bytes of the "
         "launch", bytes, (long)(src - lt_smem), s->smem_bytes);
  check_read(s, t, src, bytes, "TMA store", file, line);
  proxy_check(s, src, bytes, "TMA store", file, line);
  for (unsigned r = 0; r < m.box_rows; r++) {
    long long gy = (long long)y + r;
    if (gy < 0 || gy >= (long long)m.rows || !inside) continue;
    for (unsigned c = 0; c < m.box_cols; c++) {
      long long gx = (long long)x + c;
      if (gx < 0 || gx >= (long long)m.cols) continue;
      unsigned char e[4];
      for (unsigned b = 0; b < m.esize; b++) e[b] = *tma_place((unsigned char *)src, r * row + (size_t)c * m.esize + b, m.swizzle);
      copy_in((void *)(m.base + (size_t)gy * m.pitch + (size_t)gx * m.esize), e, m.esize);
    }
  }
  for (size_t i = 0; i < bytes; i += 16) {
    AsyncChunk *c = chunk_at(s, (uintptr_t)src + i);
    if (c) c->bulk_reads++;
  }
  if (s->nbulk == s->capbulk) {
    s->capbulk = s->capbulk ? 2 * s->capbulk : 16;
    s->bulks = (BulkOp *)realloc(s->bulks, s->capbulk * sizeof(BulkOp));
    if (!s->bulks) fail(file, line, "out of memory for TMA stores");
  }
  BulkOp bo = {t->tid, t->bgroup, (unsigned char *)src, bytes, file, line};
  s->bulks[s->nbulk++] = bo;
}

LT_EMU_FN void tma_store_2d(const CUtensorMap *map, int x, int y, const void *src, const char *file, int line) {
  const int outer[3] = {0, 0, 0};
  tma_store_nd(map, x, y, outer, src, file, line);
}
LT_EMU_FN void tma_store_3d(const CUtensorMap *map, int x, int y, int z, const void *src, const char *file, int line) {
  const int outer[3] = {z, 0, 0};
  tma_store_nd(map, x, y, outer, src, file, line);
}
LT_EMU_FN void tma_store_4d(const CUtensorMap *map, int x, int y, int z, int w, const void *src, const char *file,
                            int line) {
  const int outer[3] = {z, w, 0};
  tma_store_nd(map, x, y, outer, src, file, line);
}

/* cp.async.bulk.commit_group. */
/* cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32: reads the
** `bytes` of f32 at shared src (dynamic, or a __shared__ array; checked as
** the async proxy's read, as a TMA store's) and adds them to those at
** global dst, both 16-byte aligned and the size a multiple of 16; src
** stays "being read" until a wait_group[.read] of this thread covers the
** group. */
LT_EMU_FN void bulk_reduce_add_f32(float *dst, const float *src, uint32_t bytes, const char *file, int line) {
  State *s = g;
  Thread *t = s->cur;
  async_on(s, file, line);
  if (bytes == 0 || bytes % 16)
    fail(file, line, "cp.reduce.async.bulk: a size of %u bytes (a nonzero multiple of 16)", bytes);
  if ((uintptr_t)dst % 16 || (uintptr_t)src % 16)
    fail(file, line, "cp.reduce.async.bulk: global %p or shared %p is not 16-byte aligned", (void *)dst, (const void *)src);
  check_shared(s, src, bytes, "cp.reduce.async.bulk: the source", file, line);   /* (lt_smem's, or a __shared__ array) */
  check_read(s, t, src, bytes, "bulk reduce-add", file, line);
  proxy_check(s, src, bytes, "bulk reduce-add", file, line);
  for (uint32_t i = 0; i < bytes / 4; i++) {
    float a;
    copy_in(&a, dst + i, 4);
    a += src[i];
    copy_in(dst + i, &a, 4);
  }
  for (size_t i = 0; i < bytes; i += 16) {
    AsyncChunk *c = chunk_at(s, (uintptr_t)src + i);
    if (c) c->bulk_reads++;
  }
  if (s->nbulk == s->capbulk) {
    s->capbulk = s->capbulk ? 2 * s->capbulk : 16;
    s->bulks = (BulkOp *)realloc(s->bulks, s->capbulk * sizeof(BulkOp));
    if (!s->bulks) fail(file, line, "out of memory for bulk reduce-adds");
  }
  BulkOp bo = {t->tid, t->bgroup, (unsigned char *)src, bytes, file, line};
  s->bulks[s->nbulk++] = bo;
}

LT_EMU_FN void tma_store_commit(void) { g->cur->bgroup++; }

/* cp.async.bulk.wait_group[.read] n: this thread's stores but those of its n
** most recent groups have read their source (and written global memory,
** which the emulator did at the issue). */
LT_EMU_FN void tma_store_wait(int n, const char *file, int line) {
  State *s = g;
  Thread *t = s->cur;
  if (n < 0) fail(file, line, "cp.async.bulk.wait_group %d", n);
  size_t k = 0;
  for (size_t i = 0; i < s->nbulk; i++) {
    BulkOp &bo = s->bulks[i];
    if (bo.tid != t->tid || bo.group > t->bgroup - 1 - n) {
      s->bulks[k++] = bo;
      continue;
    }
    for (size_t j = 0; j < bo.bytes; j += 16) {
      AsyncChunk *c = chunk_at(s, (uintptr_t)bo.src + j);
      if (c) c->bulk_reads--;
    }
  }
  s->nbulk = k;
}

struct BulkWait {
  const char *file;
  int line;
  BulkWait(const char *f, int l) : file(f), line(l) {}
  template <int N>
  void wait(void) const { tma_store_wait(N, file, line); }
};

/* prefetch.tensormap: only checks the map. */
LT_EMU_FN void tma_prefetch(const CUtensorMap *map, const char *file, int line) { (void)tma_map(map, "prefetch.tensormap", file, line); }

/* setmaxnreg.{inc,dec}.sync.aligned.u32 R: a warp operation; the four warps
** of a warpgroup execute the same ones in the same order (compared as they
** come, and their numbers when the block ends).  .dec gives registers back
** to the block's pool; .inc waits until the pool has them (the block's
** threads start with 65536 / threads registers each, a multiple of 8).
** R: 24 to 256, a multiple of 8, not below the warp's limit for .inc nor
** above it for .dec. */
LT_EMU_FN void setmaxnreg_run(Thread *lanes, int n) {
  State *s = g;
  const int *a0 = (const int *)lanes[0].args, r = a0[0], inc = a0[1], w = lanes[0].warp;
  const char *file = lanes[0].file;
  int line = lanes[0].line;
  const char *what = inc ? "setmaxnreg.inc" : "setmaxnreg.dec";
  if (n != 32) fail(file, line, "%s needs warps of 32 lanes, not %d", what, n);
  for (int l = 1; l < n; l++)
    if (((const int *)lanes[l].args)[0] != r || ((const int *)lanes[l].args)[1] != inc)
      fail(file, line, "lanes of one %s give different register counts", what);
  if (s->nwarps % 4) fail(file, line, "%s in a block of %d warps, not whole warpgroups", what, s->nwarps);
  if (r < 24 || r > 256 || r % 8) fail(file, line, "%s %d: the count is 24 to 256, a multiple of 8", what, r);
  Warp *W = &s->warps[w];
  if (W->nsetmax && (inc ? r < W->regs : r > W->regs))   /* the limit at the start is not known here */
    fail(file, line, "%s %d in warp %d, whose limit is %d: .inc may not lower it nor .dec raise it", what, r, w, W->regs);
  const int code = inc ? r : -r, k = W->nsetmax;
  for (int u = w / 4 * 4; u < w / 4 * 4 + 4; u++)
    if (u != w && s->warps[u].nsetmax > k && k < 8 && s->warps[u].setmax[k] != code)
      fail(file, line, "setmaxnreg: warp %d executes setmaxnreg.%s %d where warp %d of its warpgroup executed "
           "setmaxnreg.%s %d: all four warps of a warpgroup execute the same one", w, inc ? "inc" : "dec", r, u,
           s->warps[u].setmax[k] > 0 ? "inc" : "dec", s->warps[u].setmax[k] > 0 ? s->warps[u].setmax[k] : -s->warps[u].setmax[k]);
  if (k < 8) W->setmax[k] = code;
  if (!W->nsetmax) W->setmax_file = file, W->setmax_line = line;
  W->nsetmax++;
  int held = 0;
  for (int u = 0; u < s->nwarps; u++) held += u == w ? 0 : s->warps[u].regs * 32;
  if (!inc || held + r * 32 <= s->reg_pool) W->regs = r;
  else W->reg_want = r;
  for (int u = 0; u < s->nwarps; u++) {   /* .inc of other warps the freed registers serve, in warp order */
    Warp *U = &s->warps[u];
    if (!U->reg_want) continue;
    held = 0;
    for (int v = 0; v < s->nwarps; v++) held += v == u ? 0 : s->warps[v].regs * 32;
    if (held + U->reg_want * 32 <= s->reg_pool) U->regs = U->reg_want, U->reg_want = 0;
  }
}

LT_EMU_FN void setmaxnreg(int r, int inc, const char *file, int line) {
  State *s = g;
  Thread *t = s->cur;
  async_hooks(s);
  int args[2] = {r, inc};
  warp_sync(setmaxnreg_run, args, inc ? "setmaxnreg.inc" : "setmaxnreg.dec", file, line);
  while (s->warps[t->warp].reg_want) block_on(s, t, WAIT_REGS, 0);
}

struct SetMaxNReg {
  const char *file;
  int line, inc;
  SetMaxNReg(const char *f, int l, int i) : file(f), line(l), inc(i) {}
  template <int R>
  void run(void) const { setmaxnreg(R, inc, file, line); }
};

}  // namespace
}  // namespace lt_emu

/* The launchers' tensor-map encoders.  LT_EMU_NO_TMA=1 makes each refuse
** (cudaErrorNotSupported), as the driver does a tensor the copy engine
** cannot take: the launchers then run their cp.async twins, which the
** tests reach this way (tests/emu/mutants.txt). */
static inline __attribute__((unused)) int lt_tma_encode(CUtensorMap *map, const void *base, int dtype, int rank,
                                                        const uint64_t *dims, const uint64_t *strides,
                                                        const uint32_t *box, int swizzle_bytes) {
  if (lt_emu::env_long("LT_EMU_NO_TMA", 0)) return cudaErrorNotSupported;
  return lt_emu::tma_encode_nd(map, base, dtype, rank, dims, strides, box, swizzle_bytes);
}
static inline __attribute__((unused)) int lt_tma_encode_2d(CUtensorMap *map, const void *base, int dtype,
                                                           unsigned long long rows, unsigned long long cols,
                                                           unsigned long long ld, unsigned box_rows, unsigned box_cols,
                                                           int swizzle_bytes) {
  if (lt_emu::env_long("LT_EMU_NO_TMA", 0)) return cudaErrorNotSupported;
  return lt_emu::tma_encode(map, base, dtype, rows, cols, ld, box_rows, box_cols, swizzle_bytes);
}
/* lt_sm_count (the persistent grid's size): LT_EMU_SMS, 2 by default, so
** that each block of a persistent kernel runs several programs. */
static inline __attribute__((unused)) int lt_sm_count(int *n) {
  *n = (int)lt_emu::env_long("LT_EMU_SMS", 2);
  return *n > 0 ? 0 : cudaErrorInvalidValue;
}
#define lt_mbar_init(bar, count) lt_emu::mbar_init(bar, count, __FILE__, __LINE__)
#define lt_mbar_init_fence() lt_emu::mbar_init_fence()
#define lt_mbar_arrive(bar) lt_emu::mbar_arrive(bar, 0, 0, __FILE__, __LINE__)
#define lt_mbar_arrive_expect_tx(bar, bytes) lt_emu::mbar_arrive(bar, bytes, 1, __FILE__, __LINE__)
#define lt_mbar_try_wait(bar, parity) lt_emu::mbar_try_wait(bar, parity, __FILE__, __LINE__)
#define lt_mbar_wait(bar, parity) ((void)lt_emu::mbar_try_wait(bar, parity, __FILE__, __LINE__))
#define lt_fence_proxy_async() lt_emu::fence_proxy_async()
#define lt_named_barrier(id, threads) lt_emu::named_barrier(id, threads, true, __FILE__, __LINE__, "bar.sync (named barrier)")
#define lt_named_barrier_or(id, threads, pred) ((int)lt_emu::named_barrier_or(id, threads, (pred) != 0, __FILE__, __LINE__))
/* split-K's workspace (templates/cuda_tma.h): the blocks run one after
** another, so the counter is a plain one and the fence orders nothing more */
static inline __attribute__((unused)) int lt_split_arrive(unsigned *sem, int parts) {
  const int last = (*sem)++ == (unsigned)parts - 1;
  if (last) *sem = 0;
  return last;
}
static inline __attribute__((unused)) void lt_split_fence(void) {}
/* k:grid's dynamic = true (templates/cuda_tma.h): the blocks run one after
** another, so the first takes every program the counter hands out */
static inline __attribute__((unused)) int lt_queue_next(unsigned *queue, int prog, int programs) {
  if (queue == NULL) return prog + (int)gridDim.x < programs ? prog + (int)gridDim.x : programs;
  const unsigned t = (*queue)++;
  if (t == (unsigned)programs - 1) *queue = 0;
  return t < (unsigned)programs - gridDim.x ? (int)(gridDim.x + t) : programs;
}
static inline __attribute__((unused)) void lt_split_store4(float *p, float a, float b, float c, float d) {
  p[0] = a, p[1] = b, p[2] = c, p[3] = d;
}
static inline __attribute__((unused)) float4 lt_split_load4(const float *p) { return float4{p[0], p[1], p[2], p[3]}; }
#define lt_tma_load_2d(dst, map, x, y, bar) lt_emu::tma_load_2d(dst, map, x, y, bar, __FILE__, __LINE__)
#define lt_tma_load_3d(dst, map, x, y, z, bar) lt_emu::tma_load_3d(dst, map, x, y, z, bar, __FILE__, __LINE__)
#define lt_tma_load_4d(dst, map, x, y, z, w, bar) lt_emu::tma_load_4d(dst, map, x, y, z, w, bar, __FILE__, __LINE__)
/* tensor maps of X:rows(lo, hi) views: templates/cuda_tma_rows.h's helpers
** (its comments say what they do); plain functions, so that the copy's
** shared-memory stores are traced as the kernel's own */
static inline __attribute__((unused)) int lt_tma_rows_e(int y, int hi, int n, int box) {
  const int h = hi < 0 ? 0 : hi < n ? hi : n;
  return (long long)y + box <= h ? y : h - box;
}
static inline __attribute__((unused)) int lt_tma_rows_r(int y, int e, int box) {
  const long long r = (long long)y - e;
  return (int)(r < box ? r : box);
}
static inline __attribute__((unused)) bool lt_tma_rows_by_thread(int y, int hi, int n, int box) {
  const int h = hi < 0 ? 0 : hi < n ? hi : n;
  return h < box && y < h && (long long)y + box > h;
}
static inline __attribute__((unused)) void lt_tma_rows_copy(void *dst, const char *src, int64_t rs, int y, int hi, int n,
                                                            int box, int panels, int span, int64_t cols) {
  const int h = hi < 0 ? 0 : hi < n ? hi : n, chunks = span / 16;
  const bool vec = ((uintptr_t)src | (uint64_t)rs) % 16 == 0;
  #pragma unroll 1
  for (int i = 0; i < panels * box * chunks; ++i) {   /* one 16-byte chunk at a time: few registers */
    const int c = i % chunks, r = i / chunks % box, p = i / chunks / box;
    const int64_t col = (int64_t)p * span + c * 16;   /* bytes */
    uint4 v;
    v.x = v.y = v.z = v.w = 0;
    if (y + r < h && col < cols) {
      const char *g = src + (int64_t)(y + r) * rs + col;
      if (vec && col + 16 <= cols) v = *(const uint4 *)g;
      else
        for (int b = 0; b < 16 && col + b < cols; ++b) ((char *)&v)[b] = g[b];
    }
    *(uint4 *)((char *)dst + (p * box + r) * span + ((c ^ (r * span / 128 % chunks)) * 16)) = v;
  }
  lt_fence_proxy_async();
}
#define lt_tma_store_2d(map, x, y, src) lt_emu::tma_store_2d(map, x, y, src, __FILE__, __LINE__)
#define lt_tma_store_3d(map, x, y, z, src) lt_emu::tma_store_3d(map, x, y, z, src, __FILE__, __LINE__)
#define lt_tma_store_4d(map, x, y, z, w, src) lt_emu::tma_store_4d(map, x, y, z, w, src, __FILE__, __LINE__)
#define lt_bulk_reduce_add_f32(dst, src, bytes) lt_emu::bulk_reduce_add_f32(dst, src, bytes, __FILE__, __LINE__)
#define lt_tma_store_commit() lt_emu::tma_store_commit()
#define lt_tma_store_wait_read lt_emu::BulkWait(__FILE__, __LINE__).wait
#define lt_tma_store_wait lt_emu::BulkWait(__FILE__, __LINE__).wait
#define lt_tma_prefetch_map(map) lt_emu::tma_prefetch(map, __FILE__, __LINE__)
#define lt_setmaxnreg_inc lt_emu::SetMaxNReg(__FILE__, __LINE__, 1).run
#define lt_setmaxnreg_dec lt_emu::SetMaxNReg(__FILE__, __LINE__, 0).run
