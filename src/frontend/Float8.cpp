// float8 (T.float8_e4m3fn / T.float8_e5m2) in kernels (issue 7 §3).
//
// Expects: the operands of an arithmetic operation being elaborated.
// Guarantees: float8 buffers can be allocated, copied (T.copy converts with
// round-to-nearest-even and saturation, docs/simulator.md), stored to and
// cast. `+ - * /` and negation on float8 values of one format compute as
// TileLang-Ascend's code generator does (it scalarizes them lane by lane):
// each operand converted to float32 (exact), the operation in float32, the
// result rounded back to the format; so `a[i] + b[i]` is
// float8(float32(a) + float32(b)), as upstream's test_fp8_vecadd.py checks.
// Every other operation on a float8 value (T.exp, T.max, reductions, gemm,
// two different float8 formats) is an error naming it:
//   c[i] = a[i] + b[i]                    ok (float8 result)
//   y[i] = T.exp(q[i])                    error: T.exp on float8_e4m3fn values ...
//   y[i] = T.exp(T.cast(q[i], "float32")) ok
#include <fmt/format.h>

#include "frontend/ElaboratorImpl.h"

namespace tilesched::frontend {

using namespace ir;

void Elaborator::rejectFloat8Compute(std::initializer_list<Expr> operands, SourceLoc loc,
                                     const std::string& what) {
  for (const Expr& e : operands)
    if (e && isFloat8(e->dtype))
      fail(loc, fmt::format("{} on {} values is not supported: float8 is a storage type (copies, "
                            "casts, stores); convert first with T.cast(x, \"float32\")",
                            what, dtypeName(e->dtype)));
}

Expr Elaborator::float8Arithmetic(BinOp op, const Expr& x, const Expr& y) {
  DType t = x->dtype;
  if (!isFloat8(t) || y->dtype != t) return nullptr;
  return cast(t, binary(op, cast(DType::Float32, x), cast(DType::Float32, y)));
}

Expr Elaborator::negation(const Expr& x) {
  if (!isFloat8(x->dtype)) return unary(UnOp::Neg, x);
  return cast(x->dtype, unary(UnOp::Neg, cast(DType::Float32, x)));
}

}  // namespace tilesched::frontend
