/* philox.c: templates/bits.h's Philox4x32-10 (lt_philox, the code every
** target's tile.rand and tile.randint run) against the three known answers
** of philox4x32 with 10 rounds in the Random123 distribution's kat_vectors,
** tile.rand's mapping of a word to a float, and the integer compare
** lt_rand_lt gen prints for tile.rand(...) < x against the float compare.  Prints PASS/FAIL lines. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "bits.h"

int main(void) {
  static const uint32_t v[3][10] = {   /* counter[4], key[2], the words */
    {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
    {~0u, ~0u, ~0u, ~0u, ~0u, ~0u, 0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
    {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09, 0x94fdcceb, 0x5001e420,
     0x24126ea1},
  };
  for (int i = 0; i < 3; i++) {
    int bad = 0;
    for (uint32_t w = 0; w < 4; w++) bad |= lt_philox(v[i][0], v[i][1], v[i][2], v[i][3], v[i][4], v[i][5], w) != v[i][6 + w];
    printf("%s cpu/philox/kat%d: philox4x32-10 of the Random123 known answer %d\n", bad ? "FAIL" : "PASS", i, i);
  }
  /* randint(0, 0..3) is the all-zero block; rand maps its top 24 bits */
  int bad = 0;
  for (uint32_t o = 0; o < 4; o++)
    bad |= lt_randint(0, o) != v[0][6 + o] || lt_rand(0, o) != (float)(v[0][6 + o] >> 8) / 16777216.0f;
  bad |= lt_rand(0, 0) >= 1.0f || lt_randint(~0ull, 7) != lt_philox(1, 0, 0, 0, ~0u, ~0u, 3);
  printf("%s cpu/philox/mapping: tile.randint and tile.rand of the documented counter and key\n", bad ? "FAIL" : "PASS");
  /* lt_randint_block(seed, b, w) (gen's print of an offset b * 4 + w) is
  ** lt_randint(seed, b * 4 + w) for every int64 b: the offset's uint64 bits */
  bad = 0;
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < 4000; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;   /* xorshift64: blocks of every size and sign */
    uint64_t b = i < 8 ? (uint64_t)(int64_t)(i - 4) << (i * 8) : i % 3 ? x : x >> (x & 63), seed = x * 31 + (uint64_t)i;
    for (uint32_t w = 0; w < 4; w++)
      bad |= lt_randint_block(seed, b, w) != lt_randint(seed, b * 4 + w) ||
             lt_rand_block(seed, b, w) != lt_rand(seed, b * 4 + w);
  }
  printf("%s cpu/philox/block: tile.rand of an offset block * 4 + word, printed by its block and word\n",
         bad ? "FAIL" : "PASS");
  /* lt_rand_lt(bits, x) is rand < x, rand the word's float, for every x:
  ** the edges of [0, 1] and the floats beside them, each multiple of 2^-24
  ** and its neighbours, NaN, infinities, subnormals, random floats; words
  ** whose top 24 bits sit at, below and above each x's bound */
  bad = 0;
  static const float edge[] = {0.0f, -0.0f, 1.0f, 0.5f, 0.9f, 0.1f, 2.0f, -1.0f, 1e-30f, 1.4e-45f, -1.4e-45f,
                               16777216.0f, 5.9604644775390625e-8f, INFINITY, -INFINITY, NAN};
  for (int i = 0; i < 200000; i++) {
    float v;
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    if (i < (int)(sizeof edge / sizeof edge[0])) v = edge[i];
    else if (i % 4 == 0) v = nextafterf((float)(x % 16777218) * 5.9604644775390625e-8f, (x >> 40) & 1 ? 2.0f : -1.0f);
    else if (i % 4 == 1) v = (float)(x % 16777218) * 5.9604644775390625e-8f;
    else {
      uint32_t u = (uint32_t)(x >> 32);
      memcpy(&v, &u, 4);   /* any float: signs, NaNs, infinities, subnormals */
    }
    uint32_t near = (uint32_t)fminf(fmaxf(v * 16777216.0f, 0.0f), 16777215.0f);
    for (int d = -2; d <= 2; d++) {
      uint32_t hi = (uint32_t)((int64_t)near + d) & 0xFFFFFFu, bits = hi << 8 | (uint32_t)(x & 0xFF);
      float r = (float)(bits >> 8) * 5.9604644775390625e-8f;
      bad |= lt_rand_lt(bits, v) != (r < v);
    }
    uint32_t any = (uint32_t)x;
    bad |= lt_rand_lt(any, v) != ((float)(any >> 8) * 5.9604644775390625e-8f < v);
  }
  printf("%s cpu/philox/compare: lt_rand_lt(word, x), gen's print of tile.rand < x, is the float compare\n",
         bad ? "FAIL" : "PASS");
  return 0;
}
