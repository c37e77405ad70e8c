// Element numerics (see Numerics.h). The rounding works on doubles: every
// value of the three float dtypes is exactly a double, and rounding a double
// to a p-bit significand is done by scaling with a power of two (exact) and
// std::nearbyint (ties to even in the default rounding mode).
#include "sim/Numerics.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace tilesched::sim {

using ir::DType;

namespace {

struct FloatFormat {
  int mantissaBits;  // explicit fraction bits
  int minExp;        // exponent of the smallest normal
  int maxExp;        // exponent of the largest finite
};

constexpr FloatFormat kHalf{10, -14, 15};
constexpr FloatFormat kBFloat{7, -126, 127};

struct Float8Format {
  int mantissaBits;
  int minExp;  // exponent of the smallest normal
  int bias;
  double maxFinite;  // E4M3FN: 1.75 * 2^8 (the all-ones code is NaN, there is no infinity)
};
constexpr Float8Format kE4M3FN{3, -6, 7, 448.0};
constexpr Float8Format kE5M2{2, -14, 15, 57344.0};

const Float8Format& float8Format(DType t) { return t == DType::Float8E5M2 ? kE5M2 : kE4M3FN; }

// `v` (finite, nonzero) rounded to nearest even on the grid of a format with
// `mantissaBits` fraction bits whose smallest normal has exponent `minExp`.
// In the format's normal range the double's low fraction bits are dropped with
// the carry trick (a carry out of the fraction steps the exponent, as it
// should); below it the quantum is fixed, and the slow exact path scales by it.
// Both are round-to-nearest-even on the same grid, so they agree bit for bit.
double roundOnGrid(double v, int mantissaBits, int minExp) {
  uint64_t bits = 0;
  std::memcpy(&bits, &v, 8);
  int exp = static_cast<int>((bits >> 52) & 0x7ff) - 1023;
  if (exp >= minExp) {
    int drop = 52 - mantissaBits;
    uint64_t half = uint64_t{1} << (drop - 1);
    uint64_t lsb = (bits >> drop) & 1;
    bits = (bits + half - 1 + lsb) & ~((uint64_t{1} << drop) - 1);
    double r = 0;
    std::memcpy(&r, &bits, 8);
    return r;
  }
  double quantum = std::ldexp(1.0, minExp - mantissaBits);
  return std::nearbyint(v / quantum) * quantum;
}

// Round to nearest even on the format's grid, then saturate (OCP "SAT"
// conversion). An infinity stays one in E5M2, which has them, so storing an
// E5M2 value into E5M2 (a copy) never changes it; E4M3FN has none: the largest.
double roundToFloat8(double v, const Float8Format& fmt, bool hasInfinity) {
  if (std::isnan(v) || v == 0) return v;
  if (std::isinf(v)) return hasInfinity ? v : std::copysign(fmt.maxFinite, v);
  double r = roundOnGrid(v, fmt.mantissaBits, fmt.minExp);
  if (std::fabs(r) > fmt.maxFinite) return std::copysign(fmt.maxFinite, v);
  return r;
}

double roundTo(double v, const FloatFormat& fmt) {
  if (!std::isfinite(v) || v == 0) return v;
  double r = roundOnGrid(v, fmt.mantissaBits, fmt.minExp);
  double maxFinite = std::ldexp(2.0 - std::ldexp(1.0, -fmt.mantissaBits), fmt.maxExp);
  if (std::fabs(r) > maxFinite) return std::copysign(std::numeric_limits<double>::infinity(), v);
  return r;
}

// The double's unbiased exponent and its top `bits` fraction bits (v normal).
int exponentOf(double v) {
  uint64_t u = 0;
  std::memcpy(&u, &v, 8);
  return static_cast<int>((u >> 52) & 0x7ff) - 1023;
}
uint32_t topFraction(double v, int bits) {
  uint64_t u = 0;
  std::memcpy(&u, &v, 8);
  return static_cast<uint32_t>((u >> (52 - bits)) & ((uint64_t{1} << bits) - 1));
}

// Every value of an 8-bit float format, by code.
struct Float8Table {
  double value[256];
  explicit Float8Table(DType t);
};

}  // namespace

int64_t Scalar::asInt() const {
  if (!isFloat) return i;
  if (std::isnan(f)) return 0;
  if (f >= 9.2233720368547758e18) return std::numeric_limits<int64_t>::max();
  if (f <= -9.2233720368547758e18) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(f);
}

double roundToNarrowFloat(double v, DType t) {
  switch (t) {
    case DType::Float16:
      return roundTo(v, kHalf);
    case DType::BFloat16:
      return roundTo(v, kBFloat);
    case DType::Float8E4M3FN:
    case DType::Float8E5M2:
      return roundToFloat8(v, float8Format(t), t == DType::Float8E5M2);
    default:
      return static_cast<double>(static_cast<float>(v));
  }
}

void roundColumnToFloat(const double* in, double* out, size_t n, DType t) {
  switch (t) {
    case DType::Float16:
      for (size_t e = 0; e < n; ++e) out[e] = roundTo(in[e], kHalf);
      return;
    case DType::BFloat16:
      for (size_t e = 0; e < n; ++e) out[e] = roundTo(in[e], kBFloat);
      return;
    case DType::Float8E4M3FN:
    case DType::Float8E5M2: {
      const Float8Format& fmt = float8Format(t);
      bool inf = t == DType::Float8E5M2;
      for (size_t e = 0; e < n; ++e) out[e] = roundToFloat8(in[e], fmt, inf);
      return;
    }
    default:
      for (size_t e = 0; e < n; ++e) out[e] = static_cast<double>(static_cast<float>(in[e]));
  }
}

int64_t wrapToInt(int64_t v, DType t) {
  switch (t) {
    case DType::Bool:
      return v != 0 ? 1 : 0;
    case DType::Int8:
      return static_cast<int8_t>(static_cast<uint64_t>(v));
    case DType::Int16:
      return static_cast<int16_t>(static_cast<uint64_t>(v));
    case DType::Int32:
      return static_cast<int32_t>(static_cast<uint64_t>(v));
    case DType::UInt8:
      return static_cast<uint8_t>(static_cast<uint64_t>(v));
    case DType::UInt16:
      return static_cast<uint16_t>(static_cast<uint64_t>(v));
    case DType::UInt32:
      return static_cast<uint32_t>(static_cast<uint64_t>(v));
    default:
      return v;
  }
}

int64_t saturateToInt(double v, DType t) {
  if (std::isnan(v)) return 0;
  double lo = 0, hi = 0;  // the dtype's range; exact doubles except int64's max
  switch (t) {
    case DType::Int8:
      lo = -128.0, hi = 127.0;
      break;
    case DType::Int16:
      lo = -32768.0, hi = 32767.0;
      break;
    case DType::Int32:
      lo = -2147483648.0, hi = 2147483647.0;
      break;
    case DType::UInt8:
      hi = 255.0;
      break;
    case DType::UInt16:
      hi = 65535.0;
      break;
    case DType::UInt32:
      hi = 4294967295.0;
      break;
    case DType::Bool:
      return v != 0 ? 1 : 0;
    default:  // Int64: 2^63 is the first double beyond the range
      if (v >= 9223372036854775808.0) return std::numeric_limits<int64_t>::max();
      if (v < -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
      return static_cast<int64_t>(v);
  }
  double truncated = std::trunc(v);
  if (truncated <= lo) return static_cast<int64_t>(lo);
  if (truncated >= hi) return static_cast<int64_t>(hi);
  return static_cast<int64_t>(truncated);
}

static Scalar convertValue(const Scalar& v, DType t) {
  if (ir::isFloat(t)) return Scalar::ofFloat(roundToFloat(v.asDouble(), t));
  if (t == DType::Bool) return Scalar::ofInt(v.truthy() ? 1 : 0);
  // Float to integer saturates (NaN gives 0); integer to integer wraps.
  if (v.isFloat) return Scalar::ofInt(saturateToInt(v.f, t));
  return Scalar::ofInt(wrapToInt(v.i, t));
}

Scalar convert(const Scalar& v, DType t) {
  Scalar out = convertValue(v, t);
  out.poison = v.poison;
  return out;
}

uint16_t encodeHalf(double r) {
  uint16_t sign = std::signbit(r) ? 0x8000 : 0;
  if (std::isnan(r)) return 0x7e00;
  double a = std::fabs(r);
  if (std::isinf(a)) return sign | 0x7c00;
  if (a == 0) return sign;
  int exp = exponentOf(a);
  if (exp < -14)  // subnormal: a = frac * 2^-24, exact
    return sign | static_cast<uint16_t>(a * 16777216.0);
  return sign | static_cast<uint16_t>((exp + 15) << 10) | static_cast<uint16_t>(topFraction(a, 10));
}

double decodeHalf(uint16_t bits) {
  int exp = (bits >> 10) & 0x1f;
  uint64_t frac = bits & 0x3ff;
  uint64_t sign = static_cast<uint64_t>(bits & 0x8000) << 48;
  uint64_t u = 0;
  if (exp == 0x1f) {
    if (frac) return std::numeric_limits<double>::quiet_NaN();
    u = sign | (uint64_t{0x7ff} << 52);
  } else if (exp == 0) {
    double m = static_cast<double>(frac) * (1.0 / 16777216.0);  // exact: frac * 2^-24
    return (bits & 0x8000) ? -m : m;
  } else {
    u = sign | (static_cast<uint64_t>(exp - 15 + 1023) << 52) | (frac << 42);
  }
  double d = 0;
  std::memcpy(&d, &u, 8);
  return d;
}

uint16_t encodeBFloat16(double r) {
  if (std::isnan(r)) return 0x7fc0;
  float f = static_cast<float>(r);  // exact: r is a bfloat16 value
  uint32_t u = 0;
  std::memcpy(&u, &f, 4);
  return static_cast<uint16_t>(u >> 16);
}

double decodeBFloat16(uint16_t bits) {
  uint32_t u = static_cast<uint32_t>(bits) << 16;
  float f = 0;
  std::memcpy(&f, &u, 4);
  return f;
}

uint8_t encodeFloat8(double r, DType t) {
  const Float8Format& fmt = float8Format(t);
  if (std::isnan(r)) return t == DType::Float8E5M2 ? 0x7e : 0x7f;
  uint8_t sign = std::signbit(r) ? 0x80 : 0;
  double a = std::fabs(r);
  if (std::isinf(a)) return sign | 0x7c;  // E5M2 only: E4M3FN values are saturated first
  if (a == 0) return sign;
  int exp = exponentOf(a);
  if (exp < fmt.minExp)  // subnormal: a = frac * 2^(minExp - mantissaBits)
    return sign | static_cast<uint8_t>(std::ldexp(a, fmt.mantissaBits - fmt.minExp));
  return sign | static_cast<uint8_t>(((exp + fmt.bias) << fmt.mantissaBits) |
                                     topFraction(a, fmt.mantissaBits));
}

namespace {
// The decoding of one code from its fields (the table's source).
double decodeFloat8Slow(uint8_t bits, DType t) {
  const Float8Format& fmt = float8Format(t);
  int expBits = 7 - fmt.mantissaBits;
  int exp = (bits >> fmt.mantissaBits) & ((1 << expBits) - 1);
  int frac = bits & ((1 << fmt.mantissaBits) - 1);
  double sign = (bits & 0x80) ? -1.0 : 1.0;
  int allOnes = (1 << expBits) - 1;
  if (t == DType::Float8E4M3FN && exp == allOnes && frac == (1 << fmt.mantissaBits) - 1)
    return std::numeric_limits<double>::quiet_NaN();
  if (t == DType::Float8E5M2 && exp == allOnes)
    return frac ? std::numeric_limits<double>::quiet_NaN()
                : sign * std::numeric_limits<double>::infinity();
  if (exp == 0) return sign * std::ldexp(static_cast<double>(frac), fmt.minExp - fmt.mantissaBits);
  return sign * std::ldexp(static_cast<double>(frac + (1 << fmt.mantissaBits)),
                           exp - fmt.bias - fmt.mantissaBits);
}
}  // namespace

Float8Table::Float8Table(DType t) {
  for (int c = 0; c < 256; ++c) value[c] = decodeFloat8Slow(static_cast<uint8_t>(c), t);
}

double decodeFloat8(uint8_t bits, DType t) {
  static const Float8Table e4m3(DType::Float8E4M3FN), e5m2(DType::Float8E5M2);
  return (t == DType::Float8E5M2 ? e5m2 : e4m3).value[bits];
}

Scalar loadElement(const uint8_t* p, DType t) {
  switch (t) {
    case DType::Bool:
      return Scalar::ofInt(*p != 0);
    case DType::Int8:
      return Scalar::ofInt(static_cast<int8_t>(*p));
    case DType::UInt8:
      return Scalar::ofInt(*p);
    case DType::Int16: {
      int16_t v;
      std::memcpy(&v, p, 2);
      return Scalar::ofInt(v);
    }
    case DType::UInt16: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return Scalar::ofInt(v);
    }
    case DType::Int32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      return Scalar::ofInt(v);
    }
    case DType::UInt32: {
      uint32_t v;
      std::memcpy(&v, p, 4);
      return Scalar::ofInt(v);
    }
    case DType::Int64: {
      int64_t v;
      std::memcpy(&v, p, 8);
      return Scalar::ofInt(v);
    }
    case DType::Float16: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return Scalar::ofFloat(decodeHalf(v));
    }
    case DType::BFloat16: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return Scalar::ofFloat(decodeBFloat16(v));
    }
    case DType::Float32: {
      float v;
      std::memcpy(&v, p, 4);
      return Scalar::ofFloat(v);
    }
    case DType::Float8E4M3FN:
    case DType::Float8E5M2:
      return Scalar::ofFloat(decodeFloat8(*p, t));
  }
  return Scalar{};
}

void storeElement(uint8_t* p, DType t, const Scalar& v) {
  Scalar c = convert(v, t);
  switch (t) {
    case DType::Bool:
    case DType::Int8:
    case DType::UInt8: {
      uint8_t b = static_cast<uint8_t>(c.i);
      *p = b;
      return;
    }
    case DType::Int16:
    case DType::UInt16: {
      uint16_t b = static_cast<uint16_t>(c.i);
      std::memcpy(p, &b, 2);
      return;
    }
    case DType::Int32:
    case DType::UInt32: {
      uint32_t b = static_cast<uint32_t>(c.i);
      std::memcpy(p, &b, 4);
      return;
    }
    case DType::Int64:
      std::memcpy(p, &c.i, 8);
      return;
    case DType::Float16: {
      uint16_t b = encodeHalf(c.f);
      std::memcpy(p, &b, 2);
      return;
    }
    case DType::BFloat16: {
      uint16_t b = encodeBFloat16(c.f);
      std::memcpy(p, &b, 2);
      return;
    }
    case DType::Float32: {
      float f = static_cast<float>(c.f);
      std::memcpy(p, &f, 4);
      return;
    }
    case DType::Float8E4M3FN:
    case DType::Float8E5M2:
      *p = encodeFloat8(c.f, t);
      return;
  }
}

}  // namespace tilesched::sim
