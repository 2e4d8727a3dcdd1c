
/* 16-byte pieces of rows that do not start 16-byte aligned (a row length
** not a multiple of the vector, 50257 bf16 say): a load reads the two
** aligned vectors the piece straddles and takes its bytes out of them; a
** store writes the piece as the widest aligned words its address allows. */
#ifndef LT_FN
#define LT_FN static inline __attribute__((unused))
#endif
/* The 4 bytes that start r bytes (0..3) into the 8 bytes of lo, hi
** (little-endian): a funnel shift. */
LT_FN uint32_t lt_funnel(uint32_t lo, uint32_t hi, int r) {
  return (uint32_t)((((uint64_t)hi << 32) | lo) >> (8 * r));
}
/* The 16 bytes that start `off` bytes (0..15) into the 32 bytes of lo, hi:
** whole words by selects (an indexed array would live in local memory),
** then the bytes within a word by funnel shifts. */
LT_FN uint4 lt_bytes16(uint4 lo, uint4 hi, int off) {
  const int q2 = off & 8, q1 = off & 4, r = off & 3;
  uint32_t w0 = q2 ? lo.z : lo.x, w1 = q2 ? lo.w : lo.y, w2 = q2 ? hi.x : lo.z;
  uint32_t w3 = q2 ? hi.y : lo.w, w4 = q2 ? hi.z : hi.x, w5 = q2 ? hi.w : hi.y;
  if (q1) w0 = w1, w1 = w2, w2 = w3, w3 = w4, w4 = w5;
  uint4 o;
  o.x = lt_funnel(w0, w1, r);
  o.y = lt_funnel(w1, w2, r);
  o.z = lt_funnel(w2, w3, r);
  o.w = lt_funnel(w3, w4, r);
  return o;
}
/* Writes the 16 bytes v at p, which is 2-byte aligned: two 8-byte words
** where p is 8-byte aligned, else 4-, 8- and 4-byte words where it is
** 4-byte aligned, else a 2-byte word, three 4-byte words and a 2-byte
** word. */
LT_FN void lt_st16_split(void *p, uint4 v) {
  char *b = (char *)p;
  const int a = (int)((uintptr_t)p % 8);
  if (a == 0) {
    uint2 u, w;
    u.x = v.x, u.y = v.y, w.x = v.z, w.y = v.w;
    ((uint2 *)b)[0] = u;
    ((uint2 *)b)[1] = w;
  } else if (a == 4) {
    uint2 u;
    u.x = v.y, u.y = v.z;
    *(uint32_t *)b = v.x;
    *(uint2 *)(b + 4) = u;
    *(uint32_t *)(b + 12) = v.w;
  } else {
    *(uint16_t *)b = (uint16_t)v.x;
    *(uint32_t *)(b + 2) = lt_funnel(v.x, v.y, 2);
    *(uint32_t *)(b + 6) = lt_funnel(v.y, v.z, 2);
    *(uint32_t *)(b + 10) = lt_funnel(v.z, v.w, 2);
    *(uint16_t *)(b + 14) = (uint16_t)(v.w >> 16);
  }
}
