// Elaboration of `T.assume(cond)` and the check of T.gemm's
// `unit_flag_ctrl=` (issue 7 §3): facts and hints upstream kernels state.
//
// Expects: a call `T.assume(cond)` in a @T.prim_func body (before or inside
// `with T.Kernel`), `kernel_` the kernel being built.
// Guarantees: a condition over scalar parameters, T.dynamic sizes, the block
// index and constants is appended to Kernel::assumptions (printed as
// `T.assume(...)` at the top of the kernel body; the simulator checks it for
// every block). A condition reading a value computed in the kernel (a loop
// index, a kernel scalar, a buffer element) stays where it stands: the
// assignment of a hidden boolean (VarNode::assumption) that both runs check
// each time it is reached and that costs nothing. A constant false condition
// is a compile error.
//
//   def k(A: T.Tensor((n,), "float32"), m: T.int32):      kernel k:
//       T.assume(m % 4 == 0)                         ->      assumptions = [m % 4 == 0]
//       with T.Kernel(2) as bx:                              ...
//           s = T.int32(I[bx])                               s = I[bx]
//           T.assume(0 <= s < m)                             assume_7 = 0 <= s and s < m
#include <fmt/format.h>

#include "frontend/ElaboratorImpl.h"

namespace tilesched::frontend {

using namespace ir;

namespace {

// The first value of `e` an assumption cannot be about, described for a message.
std::optional<std::string> kernelComputedValue(const Expr& e) {
  if (!e) return std::nullopt;
  if (e->kind == ExprKind::Load)
    return fmt::format("an element of '{}'", e->buffer ? e->buffer->name : "a buffer");
  if (e->kind == ExprKind::VarRef && e->var) {
    switch (e->var->kind) {
      case VarKind::Param:
      case VarKind::Dynamic:
      case VarKind::BlockIdx:
        return std::nullopt;
      case VarKind::Loop:
        return fmt::format("the loop index '{}'", e->var->name);
      case VarKind::Local:
        return fmt::format("'{}', a value computed in the kernel", e->var->name);
    }
  }
  for (const auto& o : e->operands)
    if (auto what = kernelComputedValue(o)) return what;
  return std::nullopt;
}

}  // namespace

bool Elaborator::isAssumeStatement(const py::Stmt& s) {
  return s.kind == py::StmtKind::Expr && s.value && s.value->kind == py::ExprKind::Call &&
         s.value->lhs && s.value->lhs->kind == py::ExprKind::Attribute &&
         s.value->lhs->id == "assume";
}

void Elaborator::elabAssume(const py::Expr& call, Env& env, BlockCtx* ctx) {
  checkKeywords(call, "T.assume", {});
  if (call.elts.size() != 1)
    fail(call.loc, fmt::format("T.assume takes one condition ({} given)", call.elts.size()));
  SourceLoc where = argLoc(call, 0);
  Value v = eval(*call.elts[0], env);
  if (v.kind == Value::Kind::Bool || v.kind == Value::Kind::Int) {
    if (v.kind == Value::Kind::Bool ? !v.b : v.i == 0)
      fail(where, "this T.assume condition is false");
    return;  // a fact that always holds tells nothing
  }
  Expr cond = toExpr(v, where);
  if (auto c = asConstInt(cond)) {
    if (*c == 0) fail(where, "this T.assume condition is false");
    return;
  }
  if (isFloat(cond->dtype))
    fail(where, "T.assume needs a condition (a comparison), got a float value");
  if (kernelComputedValue(cond)) {
    // Checked where it stands, each time it is reached (Machine::checkAssumption).
    TS_INTERNAL(ctx != nullptr, "T.assume about kernel values outside a kernel body");
    Var holds = makeVar(fmt::format("assume_{}", nextId_), DType::Bool, VarKind::Local);
    const_cast<VarNode&>(*holds).assumption = true;
    ctx->out->push_back(std::make_shared<AssignStmt>(holds, cast(DType::Bool, cond), call.loc));
    return;
  }
  TS_INTERNAL(kernel_ != nullptr, "T.assume outside a kernel");
  kernel_->assumptions.push_back({cond, call.loc});
}

// The unit flag hands an L0C tile from the Cube to FixPipe in pieces: a
// hardware refinement of the MMAD -> FIX dependence that tilesched already
// synchronises with flags, so it changes neither values nor the schedule.
void Elaborator::checkUnitFlag(const py::Keyword& k, Env& env) {
  Value v = eval(*k.value, env);
  if (v.kind == Value::Kind::None) return;  // the keyword's default: no unit flag
  if (v.kind == Value::Kind::Bool) v = Value::integer(v.b ? 1 : 0);
  if (v.kind == Value::Kind::Int) {
    if (v.i < 0 || v.i > 3)
      fail(k.value->loc, fmt::format("unit_flag_ctrl must be 0, 1, 2 or 3, got {}", v.i));
    return;
  }
  if (v.kind != Value::Kind::Expr || isFloat(v.expr->dtype))
    fail(k.value->loc,
         fmt::format("unit_flag_ctrl must be an integer (0 to 3), got {}", describe(v)));
}

}  // namespace tilesched::frontend
