
/* Loads and stores of data read or written once (k:load / k:store's
** cache = "stream"): non-temporal accesses (the nt bit on CDNA, the
** streaming cache policy on RDNA), by clang's builtins, on the access's
** bytes as a 1, 2, 4, 8 or 16-byte word.  "keep" has no instruction bit on
** AMD: those accesses are plain. */
typedef unsigned int lt_u32x4 __attribute__((ext_vector_type(4)));
typedef unsigned int lt_u32x2 __attribute__((ext_vector_type(2)));
template <class T>
LT_FN T lt_ld_stream(const T *p) {
  union { T t; lt_u32x4 v4; lt_u32x2 v2; uint32_t u; uint16_t h; } x;
  if constexpr (sizeof(T) == 16) x.v4 = __builtin_nontemporal_load((const lt_u32x4 *)p);
  else if constexpr (sizeof(T) == 8) x.v2 = __builtin_nontemporal_load((const lt_u32x2 *)p);
  else if constexpr (sizeof(T) == 4) x.u = __builtin_nontemporal_load((const uint32_t *)p);
  else x.h = __builtin_nontemporal_load((const uint16_t *)p);
  return x.t;
}
template <class T>
LT_FN void lt_st_stream(T *p, T v) {
  union { T t; lt_u32x4 v4; lt_u32x2 v2; uint32_t u; uint16_t h; } x;
  x.t = v;
  if constexpr (sizeof(T) == 16) __builtin_nontemporal_store(x.v4, (lt_u32x4 *)p);
  else if constexpr (sizeof(T) == 8) __builtin_nontemporal_store(x.v2, (lt_u32x2 *)p);
  else if constexpr (sizeof(T) == 4) __builtin_nontemporal_store(x.u, (uint32_t *)p);
  else __builtin_nontemporal_store(x.h, (uint16_t *)p);
}
