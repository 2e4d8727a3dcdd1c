
/* Loads and stores with an L2 eviction priority (k:load / k:store's cache
** option): "stream" data is read or written once and goes first
** (evict_first), "keep" data is read again by other programs and goes last
** (evict_last).  A fractional policy of 1.0 covers the whole access; the
** access's bytes move as 1, 2, 4, 8 or 16-byte words. */
template <bool KEEP>
LT_FN uint64_t lt_l2_policy() {
  uint64_t p;
  if (KEEP) asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p));
  else asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
  return p;
}
template <bool KEEP, class T>
LT_FN T lt_ld_hint(const T *p) {
  const uint64_t pol = lt_l2_policy<KEEP>();
  union { T t; uint4 v4; uint2 v2; uint32_t u; unsigned short h; } x;
  if constexpr (sizeof(T) == 16)
    asm volatile("ld.global.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
                 : "=r"(x.v4.x), "=r"(x.v4.y), "=r"(x.v4.z), "=r"(x.v4.w) : "l"(p), "l"(pol));
  else if constexpr (sizeof(T) == 8)
    asm volatile("ld.global.L2::cache_hint.v2.u32 {%0, %1}, [%2], %3;" : "=r"(x.v2.x), "=r"(x.v2.y) : "l"(p), "l"(pol));
  else if constexpr (sizeof(T) == 4)
    asm volatile("ld.global.L2::cache_hint.u32 %0, [%1], %2;" : "=r"(x.u) : "l"(p), "l"(pol));
  else
    asm volatile("ld.global.L2::cache_hint.u16 %0, [%1], %2;" : "=h"(x.h) : "l"(p), "l"(pol));
  return x.t;
}
template <bool KEEP, class T>
LT_FN void lt_st_hint(T *p, T v) {
  const uint64_t pol = lt_l2_policy<KEEP>();
  union { T t; uint4 v4; uint2 v2; uint32_t u; unsigned short h; } x;
  x.t = v;
  if constexpr (sizeof(T) == 16)
    asm volatile("st.global.L2::cache_hint.v4.u32 [%0], {%1, %2, %3, %4}, %5;"
                 :: "l"(p), "r"(x.v4.x), "r"(x.v4.y), "r"(x.v4.z), "r"(x.v4.w), "l"(pol) : "memory");
  else if constexpr (sizeof(T) == 8)
    asm volatile("st.global.L2::cache_hint.v2.u32 [%0], {%1, %2}, %3;" :: "l"(p), "r"(x.v2.x), "r"(x.v2.y), "l"(pol)
                 : "memory");
  else if constexpr (sizeof(T) == 4)
    asm volatile("st.global.L2::cache_hint.u32 [%0], %1, %2;" :: "l"(p), "r"(x.u), "l"(pol) : "memory");
  else
    asm volatile("st.global.L2::cache_hint.u16 [%0], %1, %2;" :: "l"(p), "h"(x.h), "l"(pol) : "memory");
}
#define lt_ld_stream(p) lt_ld_hint<false>(p)
#define lt_ld_keep(p) lt_ld_hint<true>(p)
#define lt_st_stream(p, v) lt_st_hint<false>(p, v)
#define lt_st_keep(p, v) lt_st_hint<true>(p, v)
