
/* Integer helpers (i64, u32, shifts): a kernel uses some of them. */
#ifndef LT_FN
#define LT_FN static inline __attribute__((unused))
#endif
LT_FN int64_t lt_max_i64(int64_t a, int64_t b) { return a > b ? a : b; }
LT_FN int64_t lt_min_i64(int64_t a, int64_t b) { return a < b ? a : b; }
LT_FN int64_t lt_abs_i64(int64_t a) { return a < 0 ? -a : a; }
LT_FN uint32_t lt_max_u32(uint32_t a, uint32_t b) { return a > b ? a : b; }
LT_FN uint32_t lt_min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }
/* Shifts by a count known at run time: 0 past the width (and, right, the
** sign of a signed value); a left shift of a signed value wraps as its
** unsigned bits do. */
LT_FN int lt_shl_i32(int a, int64_t n) { return (uint64_t)n < 32u ? (int)((uint32_t)a << n) : 0; }
LT_FN int64_t lt_shl_i64(int64_t a, int64_t n) { return (uint64_t)n < 64u ? (int64_t)((uint64_t)a << n) : 0; }
LT_FN uint32_t lt_shl_u32(uint32_t a, int64_t n) { return (uint64_t)n < 32u ? a << n : 0u; }
LT_FN int lt_shr_i32(int a, int64_t n) { return (uint64_t)n < 32u ? a >> n : a < 0 ? -1 : 0; }
LT_FN int64_t lt_shr_i64(int64_t a, int64_t n) { return (uint64_t)n < 64u ? a >> n : a < 0 ? -1 : 0; }
LT_FN uint32_t lt_shr_u32(uint32_t a, int64_t n) { return (uint64_t)n < 32u ? a >> n : 0u; }
