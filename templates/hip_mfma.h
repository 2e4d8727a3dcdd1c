
/* Matrix-core helpers (AMD CDNA, wave64): d = a @ b + d per the builtin;
** a and b hold this lane's four 16-bit elements, two per word, the lower
** element in the low half. */
typedef _Float16 lt_f16x4 __attribute__((ext_vector_type(4)));
typedef short lt_i16x4 __attribute__((ext_vector_type(4)));
typedef float lt_f32x4 __attribute__((ext_vector_type(4)));
typedef float lt_f32x16 __attribute__((ext_vector_type(16)));
typedef uint32_t lt_u32x2 __attribute__((ext_vector_type(2)));

LT_FN void lt_mfma_32x32x8_f16(float d[16], const uint32_t a[2], const uint32_t b[2]) {
  const lt_u32x2 ua = {a[0], a[1]}, ub = {b[0], b[1]};
  lt_f32x16 c;
  for (int i = 0; i < 16; ++i) c[i] = d[i];
  c = __builtin_amdgcn_mfma_f32_32x32x8f16(__builtin_bit_cast(lt_f16x4, ua), __builtin_bit_cast(lt_f16x4, ub), c, 0, 0, 0);
  for (int i = 0; i < 16; ++i) d[i] = c[i];
}
LT_FN void lt_mfma_32x32x8_bf16(float d[16], const uint32_t a[2], const uint32_t b[2]) {
  const lt_u32x2 ua = {a[0], a[1]}, ub = {b[0], b[1]};
  lt_f32x16 c;
  for (int i = 0; i < 16; ++i) c[i] = d[i];
  c = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(__builtin_bit_cast(lt_i16x4, ua), __builtin_bit_cast(lt_i16x4, ub), c, 0, 0, 0);
  for (int i = 0; i < 16; ++i) d[i] = c[i];
}
LT_FN void lt_mfma_16x16x16_f16(float d[4], const uint32_t a[2], const uint32_t b[2]) {
  const lt_u32x2 ua = {a[0], a[1]}, ub = {b[0], b[1]};
  lt_f32x4 c = {d[0], d[1], d[2], d[3]};
  c = __builtin_amdgcn_mfma_f32_16x16x16f16(__builtin_bit_cast(lt_f16x4, ua), __builtin_bit_cast(lt_f16x4, ub), c, 0, 0, 0);
  for (int i = 0; i < 4; ++i) d[i] = c[i];
}
LT_FN void lt_mfma_16x16x16_bf16(float d[4], const uint32_t a[2], const uint32_t b[2]) {
  const lt_u32x2 ua = {a[0], a[1]}, ub = {b[0], b[1]};
  lt_f32x4 c = {d[0], d[1], d[2], d[3]};
  c = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(__builtin_bit_cast(lt_i16x4, ua), __builtin_bit_cast(lt_i16x4, ub), c, 0, 0, 0);
  for (int i = 0; i < 4; ++i) d[i] = c[i];
}
