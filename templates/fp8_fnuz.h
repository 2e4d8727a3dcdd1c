
/* OCP fp8 bytes for CDNA3's fp8 matrix cores (gfx942: MFMA fp8 and bf8),
** which read the FNUZ formats: e4m3fnuz and e5m2fnuz have one more
** exponent bias than OCP's e4m3 and e5m2 (8 and 16, not 7 and 15), no
** negative zero, no infinity, and one NaN, 0x80.  So an OCP byte read as
** FNUZ is half its value (normal or subnormal), except -0 (0x80: NaN in
** FNUZ) and OCP's NaN (e4m3 S.1111.111) and infinities and NaNs (e5m2
** S.11111.xx), which FNUZ reads as finite.  These map four bytes of a
** register at once: -0 to 0, those codes to 0x80, every other byte kept;
** the products of two such operands are a quarter of the OCP ones, and
** the gemm multiplies its sums by 4 (exact: a power of two).
** A byte is special where its bits under `mask` are all ones: adding the
** lowest of them carries into bit 7 (no byte carries into the next). */
LT_FN uint32_t lt_fp8x4_fnuz(uint32_t w, uint32_t mask, uint32_t low) {
  uint32_t mag = w & 0x7f7f7f7fu;
  uint32_t nan = ((w & mask) + low) & 0x80808080u;    /* 0x80 in each special byte */
  uint32_t sign = (mag + 0x7f7f7f7fu) & 0x80808080u;  /* 0x80 in each byte not +-0: its sign stays */
  return ((mag | (w & sign)) & ~((nan >> 7) * 0xffu)) | nan;
}
LT_FN uint32_t lt_fp8e4m3x4_fnuz(uint32_t w) { return lt_fp8x4_fnuz(w, 0x7f7f7f7fu, 0x01010101u); }
LT_FN uint32_t lt_fp8e5m2x4_fnuz(uint32_t w) { return lt_fp8x4_fnuz(w, 0x7c7c7c7cu, 0x04040404u); }
