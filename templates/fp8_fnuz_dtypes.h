/* The FNUZ fp8 dtypes (fp8e4m3fnuz, fp8e5m2fnuz), after templates/fp8.h:
** AMD's 8-bit floats, as PyTorch's float8_e4m3fnuz and float8_e5m2fnuz:
**   e4m3fnuz: sign, 4 exponent bits (bias 8), 3 mantissa bits; largest
**             finite 240, subnormals m * 2^-10;
**   e5m2fnuz: sign, 5 exponent bits (bias 16), 2 mantissa bits; largest
**             finite 57344, subnormals m * 2^-17;
** both without infinities and without -0: 0x80 is the one NaN.  To f32 is
** exact.  From f32 saturates as the OCP casts do: rounds to nearest even,
** a finite result past the largest finite value (infinity included)
** becomes that value with the sign, a NaN becomes 0x80, and a value that
** rounds to zero becomes 0x00 whatever its sign.  The same portable code
** on every target (CUDA has no FNUZ conversion). */
typedef uint8_t lt_fp8e4m3fnuz;
typedef uint8_t lt_fp8e5m2fnuz;

/* The FNUZ byte x of `man` mantissa bits and exponent bias `bias` -> f32:
** exact; 0x80 gives a quiet NaN. */
LT_FN float lt_fp8fnuz_to_f32(uint32_t x, int man, int bias) {
  uint32_t s = (x & 0x80u) << 24, e = (x & 0x7fu) >> man, m = x & ((1u << man) - 1u);
  if (x == 0x80u) return lt_fp8_float(0x7fc00000u);
  if (e == 0u)   /* m * 2^(1 - bias - man) */
    return lt_fp8_float(s | lt_fp8_bits((float)m * lt_fp8_float((uint32_t)(128 - bias - man) << 23)));
  return lt_fp8_float(s | (e + 127u - (uint32_t)bias) << 23 | m << (23 - man));
}
LT_FN float lt_fp8e4m3fnuz_to_f32(lt_fp8e4m3fnuz x) { return lt_fp8fnuz_to_f32(x, 3, 8); }
LT_FN float lt_fp8e5m2fnuz_to_f32(lt_fp8e5m2fnuz x) { return lt_fp8fnuz_to_f32(x, 2, 16); }

/* f32 -> the FNUZ byte (smallest normal 2^emin, largest finite byte 0x7f):
** the OCP rounding and saturation of lt_f32_to_fp8, then NaN -> 0x80 and
** a negative value rounded to zero (0x80, FNUZ's NaN) -> 0x00. */
LT_FN uint8_t lt_f32_to_fp8fnuz(float f, int man, int bias, int emin) {
  if ((lt_fp8_bits(f) & 0x7fffffffu) > 0x7f800000u) return 0x80;
  uint8_t b = lt_f32_to_fp8(f, man, bias, 0x7fu, emin);
  return b == 0x80u ? 0 : b;
}
LT_FN lt_fp8e4m3fnuz lt_f32_to_fp8e4m3fnuz(float f) { return lt_f32_to_fp8fnuz(f, 3, 8, -7); }
LT_FN lt_fp8e5m2fnuz lt_f32_to_fp8e5m2fnuz(float f) { return lt_f32_to_fp8fnuz(f, 2, 16, -15); }

/* f32 f, a value an f16 holds exactly (every FNUZ value is one) or a NaN,
** as f16 bits: below f16's smallest normal 2^-14 a whole number of 2^-24. */
LT_FN uint32_t lt_f16_bits_of_exact(float f) {
  uint32_t u = lt_fp8_bits(f), s = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return s | 0x7e00u;
  if (a < 113u << 23) return s | (uint32_t)(lt_fp8_float(a) * 16777216.0f);
  return s | (a - (112u << 23)) >> 13;
}

/* Two FNUZ bytes (the first in the low byte) as an f16 pair, exactly:
** mma.sync's f16 operands of an FNUZ gemm. */
LT_FN uint32_t lt_f16x2_of_fp8e4m3fnuz(uint16_t x) {
  return lt_f16_bits_of_exact(lt_fp8e4m3fnuz_to_f32(x & 0xffu)) |
         lt_f16_bits_of_exact(lt_fp8e4m3fnuz_to_f32(x >> 8)) << 16;
}
LT_FN uint32_t lt_f16x2_of_fp8e5m2fnuz(uint16_t x) {
  return lt_f16_bits_of_exact(lt_fp8e5m2fnuz_to_f32(x & 0xffu)) |
         lt_f16_bits_of_exact(lt_fp8e5m2fnuz_to_f32(x >> 8)) << 16;
}

/* f32 rounded to FNUZ fp8 and back: x:cast("fp8e4m3fnuz") in registers. */
LT_FN float lt_round_fp8e4m3fnuz(float x) { return lt_fp8e4m3fnuz_to_f32(lt_f32_to_fp8e4m3fnuz(x)); }
LT_FN float lt_round_fp8e5m2fnuz(float x) { return lt_fp8e5m2fnuz_to_f32(lt_f32_to_fp8e5m2fnuz(x)); }
