
/* fp8 matrix cores (CDNA3, gfx942): d = a @ b + d on eight FNUZ bytes of
** each operand a lane (templates/fp8_fnuz.h), the lower k in the lower
** byte; fp8 is e4m3fnuz, bf8 e5m2fnuz.  After templates/hip_mfma.h (its
** vector types). */

LT_FN long lt_fp8x8(const uint32_t a[2]) { return (long)((uint64_t)a[1] << 32 | a[0]); }
LT_FN void lt_mfma_32x32x16_fp8(float d[16], const uint32_t a[2], const uint32_t b[2]) {
  lt_f32x16 c;
  for (int i = 0; i < 16; ++i) c[i] = d[i];
  c = __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8(lt_fp8x8(a), lt_fp8x8(b), c, 0, 0, 0);
  for (int i = 0; i < 16; ++i) d[i] = c[i];
}
LT_FN void lt_mfma_32x32x16_bf8(float d[16], const uint32_t a[2], const uint32_t b[2]) {
  lt_f32x16 c;
  for (int i = 0; i < 16; ++i) c[i] = d[i];
  c = __builtin_amdgcn_mfma_f32_32x32x16_bf8_bf8(lt_fp8x8(a), lt_fp8x8(b), c, 0, 0, 0);
  for (int i = 0; i < 16; ++i) d[i] = c[i];
}
LT_FN void lt_mfma_16x16x32_fp8(float d[4], const uint32_t a[2], const uint32_t b[2]) {
  lt_f32x4 c = {d[0], d[1], d[2], d[3]};
  c = __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(lt_fp8x8(a), lt_fp8x8(b), c, 0, 0, 0);
  for (int i = 0; i < 4; ++i) d[i] = c[i];
}
LT_FN void lt_mfma_16x16x32_bf8(float d[4], const uint32_t a[2], const uint32_t b[2]) {
  lt_f32x4 c = {d[0], d[1], d[2], d[3]};
  c = __builtin_amdgcn_mfma_f32_16x16x32_bf8_bf8(lt_fp8x8(a), lt_fp8x8(b), c, 0, 0, 0);
  for (int i = 0; i < 4; ++i) d[i] = c[i];
}
