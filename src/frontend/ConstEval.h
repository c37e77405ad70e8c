// Python semantics for compile-time constants: the arithmetic, comparisons,
// truthiness and str()/repr() of ints, floats, bools, strings, dtypes, None and
// tuples/lists, as CPython computes them for the values kernels use.
//
// Assumes: both operands are constants (Value::isConstant()).
// Guarantees: Python results (floor division and modulo, `/` gives a float,
// `**` with a negative exponent gives a float); int64 overflow, division by
// zero and unsupported operand types throw EvalError with Python's wording.
#pragma once

#include <string>

#include "frontend/Value.h"

namespace tilesched::frontend {

Value constBinary(const std::string& op, const Value& a, const Value& b, SourceLoc loc);
Value constUnary(const std::string& op, const Value& a, SourceLoc loc);
// One comparison of a chain (`<`, `==`, `in`, `is not`, ...).
bool constCompare(const std::string& op, const Value& a, const Value& b, SourceLoc loc);
bool truthy(const Value& v, SourceLoc loc);
bool valuesEqual(const Value& a, const Value& b);

std::string pyStr(const Value& v);
std::string pyRepr(const Value& v);
// format(v, spec) for the common specs (width, alignment, fill, precision, d, f, e, g, %, x).
std::string pyFormat(const Value& v, const std::string& spec);
std::string typeName(const Value& v);
// Python's repr of a float: shortest text that round-trips, with a '.0' for integral values.
std::string floatRepr(double v);

}  // namespace tilesched::frontend
