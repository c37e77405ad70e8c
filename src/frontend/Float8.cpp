// float8 (T.float8_e4m3fn / T.float8_e5m2) in kernels (issue 7 §3).
//
// Expects: the operands of an arithmetic operation being elaborated.
// Guarantees: float8 buffers can be allocated, copied (T.copy converts with
// round-to-nearest-even and saturation, docs/simulator.md), stored to and
// cast; any arithmetic whose operand is a float8 value is an error naming the
// operation, since TileLang-Ascend has no float8 arithmetic either — it
// converts first:
//   q[i] = x[i] / s                       ok (float32 result stored to float8)
//   y[i] = q[i] * 2.0                     error: '*' on float8_e4m3fn values ...
//   y[i] = T.cast(q[i], "float32") * 2.0  ok
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

}  // namespace tilesched::frontend
