#include <hip/hip_runtime.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* Helpers: a kernel uses some of them. */
#define LT_FN static __device__ __forceinline__ __attribute__((unused))

/* bf16 is kept as its 16 bits; conversions round to nearest even. */
typedef uint16_t lt_bf16;
LT_FN float lt_bf16_to_f32(lt_bf16 h) { return __uint_as_float((uint32_t)h << 16); }
/* Without a branch or a compare: nan is all ones for a NaN, else 0 (the
** sign of 0x7f800000 - |u|).  A NaN is not rounded and gets its quiet bit;
** a compare would give each conversion a lane mask, two SGPRs on wave64,
** and unrolled code holds enough of them to spill SGPRs on CDNA. */
LT_FN lt_bf16 lt_f32_to_bf16(float f) {
  uint32_t u = __float_as_uint(f);
  uint32_t nan = (uint32_t)((int32_t)(0x7f800000u - (u & 0x7fffffffu)) >> 31);
  return (lt_bf16)((u + ((0x7fffu + ((u >> 16) & 1u)) & ~nan)) >> 16 | (nan & 0x40u));
}
/* f16 is clang's native _Float16.  f16/bf16 values are computed in f32;
** these round a float to the type. */
LT_FN float lt_round_f16(float x) { return (float)(_Float16)x; }
LT_FN float lt_round_bf16(float x) { return lt_bf16_to_f32(lt_f32_to_bf16(x)); }
LT_FN int lt_imax(int a, int b) { return a > b ? a : b; }
LT_FN int lt_imin(int a, int b) { return a < b ? a : b; }
/* 2^x as one v_exp_f32 (clang 17 and later give exp2f a range scaling so
** that subnormal results survive; those flush to zero here; before, exp2f
** was the bare instruction). */
#if __has_builtin(__builtin_amdgcn_exp2f)
LT_FN float lt_exp2(float x) { return __builtin_amdgcn_exp2f(x); }
#else
LT_FN float lt_exp2(float x) { return exp2f(x); }
#endif
/* *p += v in global memory, atomically (k:atomic_add): the hardware's f32
** add (global_atomic_add_f32) where the target has one, not a CAS loop. */
LT_FN void lt_atomic_add(float *p, float v) { unsafeAtomicAdd(p, v); }

/* __syncthreads as current HIP defines it, spelled with clang builtins so
** the file does not depend on the version of the HIP headers. */
LT_FN void lt_syncthreads(void) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
