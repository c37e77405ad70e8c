// Exact element numerics of SPEC §1.6, shared by the reference interpreter and
// the cycle simulator so both compute bit-identical values.
//
// A scalar during evaluation is a `Scalar`: an int64 for integer and bool
// dtypes, a double for float dtypes that always holds a value exactly
// representable in its dtype (fp16/bf16/fp32 all fit a double exactly).
// Float arithmetic is done in binary32 (`float`) and rounded to the
// expression's dtype with round-to-nearest-even; integers wrap to their width.
//
// Assumes: IEEE-754 binary32/binary64 host arithmetic in round-to-nearest
// mode, no FMA contraction (ts_sim is built with -ffp-contract=off).
// Guarantees: deterministic results on one host; fp16/bf16 encodings are the
// IEEE / bfloat16 bit patterns (NaN canonicalised to 0x7e00 / 0x7fc0).
#pragma once

#include <cstdint>
#include <cstring>

#include "ir/DType.h"

namespace tilesched::sim {

struct Scalar {
  bool isFloat = false;
  int64_t i = 0;
  double f = 0;
  // Derived from on-chip memory that nothing wrote (simulator only, see
  // Machine::trackPoison); conversions keep it.
  bool poison = false;

  static Scalar ofInt(int64_t v) { return Scalar{false, v, 0}; }
  static Scalar ofFloat(double v) { return Scalar{true, 0, v}; }
  double asDouble() const { return isFloat ? f : static_cast<double>(i); }
  // Truncation toward zero for floats (C semantics); NaN gives 0, out-of-range saturates.
  int64_t asInt() const;
  bool truthy() const { return isFloat ? f != 0 : i != 0; }
};

// `v` rounded to the float dtype `t` (Float16, BFloat16, Float32) with
// round-to-nearest-even, overflowing to infinity.
double roundToNarrowFloat(double v, ir::DType t);  // Float16, BFloat16, the 8-bit floats
inline double roundToFloat(double v, ir::DType t) {
  // Float32 (and a non-float dtype) inline: the hot case of every float32 op.
  if (t != ir::DType::Float16 && t != ir::DType::BFloat16 && t != ir::DType::Float8E4M3FN &&
      t != ir::DType::Float8E5M2)
    return static_cast<double>(static_cast<float>(v));
  return roundToNarrowFloat(v, t);
}
// roundToFloat over a column: out[e] = roundToFloat(in[e], t) for e < n (in
// and out may be the same), the dtype's case chosen once.
void roundColumnToFloat(const double* in, double* out, size_t n, ir::DType t);
// `v` wrapped to the integer dtype `t` (two's complement); Bool gives 0/1.
int64_t wrapToInt(int64_t v, ir::DType t);
// `v` truncated toward zero and clamped to the range of the integer dtype `t`;
// NaN gives 0 (float -> integer conversion).
int64_t saturateToInt(double v, ir::DType t);
// Converts a scalar to dtype `t` (the value a store of it would keep): float
// to integer saturates, integer to integer wraps, to float rounds (RNE).
Scalar convert(const Scalar& v, ir::DType t);

uint16_t encodeHalf(double rounded);
double decodeHalf(uint16_t bits);
uint16_t encodeBFloat16(double rounded);
double decodeBFloat16(uint16_t bits);
// OCP 8-bit floats. `roundToFloat` to these dtypes rounds to nearest even and
// saturates: a finite value beyond the largest finite one becomes that largest
// value with its sign (448 for E4M3FN, 57344 for E5M2); an infinity stays one
// in E5M2 and becomes +-448 in E4M3FN (no infinities); NaN stays NaN.
// Encodings: NaN is 0x7f (E4M3FN) / 0x7e (E5M2), E5M2 infinity 0x7c.
uint8_t encodeFloat8(double rounded, ir::DType t);
double decodeFloat8(uint8_t bits, ir::DType t);

// Loads / stores one element of dtype `t` at `p` (little-endian host layout).
Scalar loadElement(const uint8_t* p, ir::DType t);
void storeElement(uint8_t* p, ir::DType t, const Scalar& v);

}  // namespace tilesched::sim
