
/* Matrix-core helpers (AMD RDNA3, wave32): d = a @ b + d per the builtin;
** a and b hold this lane's sixteen 16-bit elements, two per word, the
** lower element in the low half. */
typedef _Float16 lt_f16x16 __attribute__((ext_vector_type(16)));
typedef short lt_i16x16 __attribute__((ext_vector_type(16)));
typedef float lt_f32x8 __attribute__((ext_vector_type(8)));
typedef uint32_t lt_u32x8 __attribute__((ext_vector_type(8)));

LT_FN void lt_wmma_16x16x16_f16(float d[8], const uint32_t a[8], const uint32_t b[8]) {
  lt_u32x8 ua, ub;
  lt_f32x8 c;
  for (int i = 0; i < 8; ++i) ua[i] = a[i], ub[i] = b[i], c[i] = d[i];
  c = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(__builtin_bit_cast(lt_f16x16, ua), __builtin_bit_cast(lt_f16x16, ub), c);
  for (int i = 0; i < 8; ++i) d[i] = c[i];
}
LT_FN void lt_wmma_16x16x16_bf16(float d[8], const uint32_t a[8], const uint32_t b[8]) {
  lt_u32x8 ua, ub;
  lt_f32x8 c;
  for (int i = 0; i < 8; ++i) ua[i] = a[i], ub[i] = b[i], c[i] = d[i];
  c = __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32(__builtin_bit_cast(lt_i16x16, ua), __builtin_bit_cast(lt_i16x16, ub), c);
  for (int i = 0; i < 8; ++i) d[i] = c[i];
}
