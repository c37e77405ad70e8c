// Element numerics: fp16/bf16 round-to-nearest-even, encodings, integer
// wrapping — each against hand-computed bit patterns.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "sim/Numerics.h"

namespace tilesched::sim {
namespace {

using ir::DType;

TEST(Numerics, HalfRoundsToNearestEven) {
  // 1 + 2^-11 is exactly half an ulp above 1: ties to even (1.0).
  EXPECT_EQ(roundToFloat(1.0 + std::ldexp(1.0, -11), DType::Float16), 1.0);
  // 1 + 3 * 2^-11 is half an ulp above 1 + 2^-10 (odd): rounds up to 1 + 2^-9.
  EXPECT_EQ(roundToFloat(1.0 + 3 * std::ldexp(1.0, -11), DType::Float16),
            1.0 + std::ldexp(1.0, -9));
  // Just above the tie rounds up.
  EXPECT_EQ(roundToFloat(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -20), DType::Float16),
            1.0 + std::ldexp(1.0, -10));
  EXPECT_EQ(roundToFloat(0.1, DType::Float16), 0.0999755859375);
}

TEST(Numerics, HalfOverflowAndSubnormals) {
  EXPECT_EQ(roundToFloat(65504.0, DType::Float16), 65504.0);
  EXPECT_EQ(roundToFloat(65519.0, DType::Float16), 65504.0);  // below the tie at 65520
  EXPECT_TRUE(std::isinf(roundToFloat(65520.0, DType::Float16)));
  EXPECT_EQ(roundToFloat(std::ldexp(1.0, -24), DType::Float16),
            std::ldexp(1.0, -24));                                     // smallest subnormal
  EXPECT_EQ(roundToFloat(std::ldexp(1.0, -25), DType::Float16), 0.0);  // tie to even: 0
  EXPECT_EQ(roundToFloat(std::ldexp(3.0, -26), DType::Float16), std::ldexp(1.0, -24));
}

TEST(Numerics, HalfEncoding) {
  EXPECT_EQ(encodeHalf(1.0), 0x3c00);
  EXPECT_EQ(encodeHalf(-2.0), 0xc000);
  EXPECT_EQ(encodeHalf(65504.0), 0x7bff);
  EXPECT_EQ(encodeHalf(std::ldexp(1.0, -24)), 0x0001);
  EXPECT_EQ(encodeHalf(std::numeric_limits<double>::infinity()), 0x7c00);
  EXPECT_EQ(encodeHalf(-0.0), 0x8000);
  for (uint32_t bits = 0; bits < 0x7c00; bits += 7)
    EXPECT_EQ(encodeHalf(decodeHalf(static_cast<uint16_t>(bits))), bits);
}

TEST(Numerics, BFloat16RoundsToNearestEven) {
  // bf16 has 8 significant bits: 1 + 2^-8 is a tie between 1 and 1 + 2^-7.
  EXPECT_EQ(roundToFloat(1.0 + std::ldexp(1.0, -8), DType::BFloat16), 1.0);
  EXPECT_EQ(roundToFloat(1.0 + 3 * std::ldexp(1.0, -8), DType::BFloat16),
            1.0 + std::ldexp(1.0, -6));
  EXPECT_EQ(encodeBFloat16(1.0), 0x3f80);
  EXPECT_EQ(encodeBFloat16(-1.5), 0xbfc0);
  EXPECT_EQ(decodeBFloat16(0x4049), 3.140625);
}

TEST(Numerics, StoreRoundsAndWraps) {
  uint8_t buf[8] = {};
  storeElement(buf, DType::Float16, Scalar::ofFloat(1.0 + std::ldexp(1.0, -11)));
  EXPECT_EQ(loadElement(buf, DType::Float16).f, 1.0);
  storeElement(buf, DType::Int8, Scalar::ofInt(130));
  EXPECT_EQ(loadElement(buf, DType::Int8).i, -126);
  storeElement(buf, DType::UInt16, Scalar::ofInt(-1));
  EXPECT_EQ(loadElement(buf, DType::UInt16).i, 65535);
  storeElement(buf, DType::Int32, Scalar::ofFloat(-2.75));  // float -> int truncates toward zero
  EXPECT_EQ(loadElement(buf, DType::Int32).i, -2);
  storeElement(buf, DType::Float32, Scalar::ofFloat(0.1));
  EXPECT_EQ(loadElement(buf, DType::Float32).f, static_cast<double>(0.1f));
}

// Float to integer conversions saturate to the target's range (issue 7): the
// expected values are the dtype limits, written out.
TEST(Numerics, FloatToIntSaturates) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto toInt = [](double v, DType t) { return convert(Scalar::ofFloat(v), t).i; };
  EXPECT_EQ(toInt(3e9, DType::Int32), 2147483647);
  EXPECT_EQ(toInt(-3e9, DType::Int32), -2147483648LL);
  EXPECT_EQ(toInt(1e20, DType::Int32), 2147483647);
  EXPECT_EQ(toInt(inf, DType::Int32), 2147483647);
  EXPECT_EQ(toInt(-inf, DType::Int32), -2147483648LL);
  EXPECT_EQ(toInt(nan, DType::Int32), 0);
  EXPECT_EQ(toInt(-2.75, DType::Int32), -2);  // truncation toward zero
  EXPECT_EQ(toInt(2147483647.5, DType::Int32), 2147483647);
  EXPECT_EQ(toInt(300.0, DType::Int8), 127);
  EXPECT_EQ(toInt(-300.0, DType::Int8), -128);
  EXPECT_EQ(toInt(40000.0, DType::Int16), 32767);
  EXPECT_EQ(toInt(-1.0, DType::UInt8), 0);
  EXPECT_EQ(toInt(256.0, DType::UInt8), 255);
  EXPECT_EQ(toInt(-5.0, DType::UInt16), 0);
  EXPECT_EQ(toInt(70000.0, DType::UInt16), 65535);
  EXPECT_EQ(toInt(-1.0, DType::UInt32), 0);
  EXPECT_EQ(toInt(5e9, DType::UInt32), 4294967295LL);
  EXPECT_EQ(toInt(1e20, DType::Int64), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(toInt(-inf, DType::Int64), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(toInt(nan, DType::Int64), 0);
  EXPECT_EQ(toInt(nan, DType::UInt8), 0);
  // Integer to integer still wraps (two's complement), as C does.
  EXPECT_EQ(convert(Scalar::ofInt(3000000000LL), DType::Int32).i, 3000000000LL - 4294967296LL);
  EXPECT_EQ(convert(Scalar::ofInt(300), DType::UInt8).i, 44);
}

// Float to fp16/bf16 overflows to infinity (IEEE round to nearest, the Inf/NaN
// mode that Ascend 950 uses); float32 values beyond bf16's range too.
TEST(Numerics, FloatToHalfOverflowIsInfinity) {
  EXPECT_EQ(convert(Scalar::ofFloat(1e20), DType::Float16).f,
            std::numeric_limits<double>::infinity());
  EXPECT_EQ(convert(Scalar::ofFloat(-70000.0), DType::Float16).f,
            -std::numeric_limits<double>::infinity());
  EXPECT_EQ(convert(Scalar::ofInt(100000), DType::Float16).f,
            std::numeric_limits<double>::infinity());
  EXPECT_EQ(convert(Scalar::ofFloat(3.4e38), DType::BFloat16).f,
            std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(convert(Scalar::ofFloat(std::nan("")), DType::Float16).f));
}

// OCP 8-bit floats: values and codes worked out by hand from the formats
// (E4M3FN: 3 fraction bits, bias 7, max 448, no inf; E5M2: 2 bits, bias 15).
TEST(Numerics, Float8RoundsToNearestEvenAndSaturates) {
  const DType e4 = DType::Float8E4M3FN, e5 = DType::Float8E5M2;
  EXPECT_EQ(roundToFloat(1.0625, e4), 1.0);   // tie between 1 and 1.125: even
  EXPECT_EQ(roundToFloat(1.1875, e4), 1.25);  // tie between 1.125 and 1.25: even
  EXPECT_EQ(roundToFloat(464.0, e4), 448.0);  // tie between 448 and (480): even
  EXPECT_EQ(roundToFloat(465.0, e4), 448.0);  // would round to 480: saturates
  EXPECT_EQ(roundToFloat(1e30, e4), 448.0);
  EXPECT_EQ(roundToFloat(-std::numeric_limits<double>::infinity(), e4), -448.0);
  // E5M2 keeps its infinities (a copy never changes a value); finite overflow saturates.
  EXPECT_TRUE(std::isinf(roundToFloat(std::numeric_limits<double>::infinity(), e5)));
  EXPECT_EQ(roundToFloat(61440.0, e5), 57344.0);
  EXPECT_EQ(roundToFloat(std::ldexp(1.0, -10), e4), 0.0);  // half the smallest subnormal 2^-9
  EXPECT_EQ(roundToFloat(3 * std::ldexp(1.0, -10), e4), std::ldexp(1.0, -8));
  EXPECT_EQ(roundToFloat(1.375, e5), 1.5);
  EXPECT_TRUE(std::isnan(roundToFloat(std::nan(""), e4)));
  EXPECT_TRUE(std::signbit(roundToFloat(-0.0, e5)));
}

TEST(Numerics, Float8Encodings) {
  const DType e4 = DType::Float8E4M3FN, e5 = DType::Float8E5M2;
  EXPECT_EQ(encodeFloat8(448.0, e4), 0x7e);
  EXPECT_EQ(encodeFloat8(-448.0, e4), 0xfe);
  EXPECT_EQ(encodeFloat8(1.0, e4), 0x38);
  EXPECT_EQ(encodeFloat8(std::ldexp(1.0, -9), e4), 0x01);  // smallest subnormal
  EXPECT_EQ(encodeFloat8(std::nan(""), e4), 0x7f);
  EXPECT_EQ(encodeFloat8(-0.0, e4), 0x80);
  EXPECT_EQ(encodeFloat8(57344.0, e5), 0x7b);
  EXPECT_EQ(encodeFloat8(1.0, e5), 0x3c);
  EXPECT_EQ(encodeFloat8(std::ldexp(1.0, -16), e5), 0x01);
  EXPECT_EQ(encodeFloat8(std::nan(""), e5), 0x7e);
  EXPECT_TRUE(std::isnan(decodeFloat8(0x7f, e4)));
  EXPECT_TRUE(std::isnan(decodeFloat8(0xff, e4)));
  EXPECT_EQ(decodeFloat8(0x78, e4), 256.0);  // exponent 15 is a normal binade in E4M3FN
  EXPECT_TRUE(std::isinf(decodeFloat8(0x7c, e5)));
  EXPECT_TRUE(std::isnan(decodeFloat8(0x7d, e5)));
  // Every non-NaN code decodes to a value that encodes back to it.
  for (DType t : {e4, e5})
    for (int c = 0; c < 256; ++c) {
      double v = decodeFloat8(static_cast<uint8_t>(c), t);
      if (std::isnan(v)) continue;
      EXPECT_EQ(encodeFloat8(v, t), c) << ir::dtypeName(t) << " code " << c;
      EXPECT_EQ(roundToFloat(v, t), v) << ir::dtypeName(t) << " code " << c;
    }
}

// The rounding by scaling (frexp, ldexp, nearbyint: round to nearest even on
// the format's grid), the definition the bit-level rounding must reproduce.
double roundByScaling(double v, int mantissaBits, int minExp, double maxFinite, bool saturate) {
  if (!std::isfinite(v) || v == 0) return v;
  int e = 0;
  std::frexp(v, &e);
  int exp = std::max(e - 1, minExp);
  double quantum = std::ldexp(1.0, exp - mantissaBits);
  double r = std::nearbyint(v / quantum) * quantum;
  if (std::fabs(r) > maxFinite)
    return std::copysign(saturate ? maxFinite : std::numeric_limits<double>::infinity(), v);
  return r;
}

TEST(Numerics, RoundingMatchesScalingOnRandomAndTieValues) {
  struct Format {
    DType t;
    int mantissaBits, minExp;
    double maxFinite;
    bool saturate;
  };
  const Format formats[] = {
      {DType::Float16, 10, -14, 65504.0, false},
      {DType::BFloat16, 7, -126, std::ldexp(2.0 - std::ldexp(1.0, -7), 127), false},
      {DType::Float8E4M3FN, 3, -6, 448.0, true},
      {DType::Float8E5M2, 2, -14, 57344.0, true}};
  std::mt19937_64 rng(7);
  for (const Format& f : formats) {
    for (int k = 0; k < 200000; ++k) {
      // Random exponents across (and beyond) the format's range, random
      // significands, and exact ties / near-ties on the format's grid.
      int exp = static_cast<int>(rng() % 80) - 40;
      if (f.t == DType::BFloat16 && k % 3 == 0) exp = static_cast<int>(rng() % 300) - 150;
      double m = 1.0 + static_cast<double>(rng() >> 11) * std::ldexp(1.0, -53);
      if (k % 4 == 1) {  // a tie: the significand ends exactly on a half quantum
        uint64_t q = rng() % (uint64_t{1} << f.mantissaBits);
        m = 1.0 + (static_cast<double>(q) + 0.5) * std::ldexp(1.0, -f.mantissaBits);
      }
      if (k % 4 == 2) m = std::nextafter(m, 0.0);
      double v = std::ldexp(m, exp) * ((rng() & 1) ? -1.0 : 1.0);
      double expect = roundByScaling(v, f.mantissaBits, f.minExp, f.maxFinite, f.saturate);
      double got = roundToFloat(v, f.t);
      ASSERT_EQ(std::signbit(got), std::signbit(expect)) << ir::dtypeName(f.t) << " " << v;
      ASSERT_EQ(got, expect) << ir::dtypeName(f.t) << " " << std::hexfloat << v;
    }
  }
}

TEST(Numerics, EveryHalfCodeDecodesAndEncodesBack) {
  for (uint32_t c = 0; c < 65536; ++c) {
    uint16_t code = static_cast<uint16_t>(c);
    double v = decodeHalf(code);
    int exp = (code >> 10) & 0x1f, frac = code & 0x3ff;
    double sign = (code & 0x8000) ? -1.0 : 1.0;
    if (exp == 0x1f) {
      EXPECT_EQ(std::isnan(v), frac != 0) << c;
      if (frac == 0) {
        EXPECT_EQ(v, sign * std::numeric_limits<double>::infinity()) << c;
      }
      continue;
    }
    double expect =
        exp == 0 ? sign * std::ldexp(frac, -24) : sign * std::ldexp(frac + 1024, exp - 25);
    ASSERT_EQ(v, expect) << c;
    ASSERT_EQ(std::signbit(v), sign < 0) << c;
    ASSERT_EQ(encodeHalf(v), code) << c;
  }
}

}  // namespace
}  // namespace tilesched::sim
