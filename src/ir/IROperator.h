// Building and querying IR expressions so passes and tests read like the maths
// (after Halide's IROperator.h): `add(a, mul(b, 2))`, `floormod(i, n)`,
// `isConst(e)`. Builders fold constants and trivial identities, so a region
// start written `bx * 0 + i` prints as `i`.
#pragma once

#include <optional>

#include "ir/IR.h"

namespace tilesched::ir {

Expr intImm(int64_t v, DType t = DType::Int32);
Expr floatImm(double v, DType t = DType::Float32);
Expr boolImm(bool v);
Expr varRef(const Var& v);
Expr load(const Buffer& b, std::vector<Expr> indices);
Expr cast(DType t, Expr e);
Expr select(Expr cond, Expr a, Expr b);
// Generic binary/unary builders; the result dtype follows TVM's rules
// (comparisons and logic give bool, otherwise the float or wider int operand).
Expr binary(BinOp op, Expr a, Expr b);
// The value of an atomic update of `dst` (a load of the element it stores):
// `dst op v`, never simplified (`H[i] + 0` stays), so the printer and the
// simulator's race check find the element and the operand as its operands.
Expr atomicUpdateValue(AtomicOp op, Expr dst, Expr v);
Expr unary(UnOp op, Expr a);

inline Expr add(Expr a, Expr b) { return binary(BinOp::Add, std::move(a), std::move(b)); }
inline Expr sub(Expr a, Expr b) { return binary(BinOp::Sub, std::move(a), std::move(b)); }
inline Expr mul(Expr a, Expr b) { return binary(BinOp::Mul, std::move(a), std::move(b)); }
inline Expr floordiv(Expr a, Expr b) { return binary(BinOp::FloorDiv, std::move(a), std::move(b)); }
inline Expr floormod(Expr a, Expr b) { return binary(BinOp::FloorMod, std::move(a), std::move(b)); }
inline Expr add(Expr a, int64_t b) { return add(std::move(a), intImm(b)); }
inline Expr mul(Expr a, int64_t b) { return mul(std::move(a), intImm(b)); }

std::optional<int64_t> asConstInt(const Expr& e);
std::optional<double> asConstFloat(const Expr& e);
inline bool isConst(const Expr& e) { return asConstInt(e) || asConstFloat(e); }
bool isConstInt(const Expr& e, int64_t v);

// Python floor semantics on int64 (b != 0).
int64_t floorDiv(int64_t a, int64_t b);
int64_t floorMod(int64_t a, int64_t b);

// Structural equality (vars by identity, buffers by identity).
bool exprEqual(const Expr& a, const Expr& b);
// Whether `e` reads `var` / reads memory (contains a Load) anywhere.
bool mentionsVar(const Expr& e, const Var& var);
bool containsLoad(const Expr& e);

// Constant shape of a buffer; nullopt when any dimension is symbolic.
std::optional<std::vector<int64_t>> constShape(const Buffer& b);
int64_t product(const std::vector<int64_t>& v);
// Whether two elements of a tensor of `shape` laid out with `strides` (in
// elements) may share an address: false when, dimension by dimension in
// increasing stride, each stride is at least 1 and passes the span of the
// smaller ones (the dense and padded layouts). Dimensions of extent 1 never
// step, so their stride does not matter.
bool stridesMayOverlap(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides);

std::string_view binOpSpelling(BinOp op);       // "+", "//", "min", ...
std::string_view unOpName(UnOp op);             // "-", "not", "T.exp", ...
std::string_view reduceKindName(ReduceKind k);  // "sum", "max", ...
bool isComparison(BinOp op);

}  // namespace tilesched::ir

namespace tilesched::ir {
// a - b when it is a compile-time constant for every value of the variables
// (both sides linear in the same atoms); nullopt otherwise.
std::optional<int64_t> constDifference(const Expr& a, const Expr& b);
}  // namespace tilesched::ir
