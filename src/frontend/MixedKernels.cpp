// `with T.MixedKernel(n, sids=...) as (bx, sid):`, the launch of a mixed
// cube/vector kernel (SPEC §9.1), for Elaborator::buildKernel.
// Assumes: `call` is the launch's call, already known to name T.MixedKernel.
// Guarantees: sids=1 binds `bx` to the block index and `sid` to 0 and sets
// Kernel::vectorCores to 1; sids=2 (the default) and anything else are located
// errors (two vector sub-cores need the core group, not simulated yet).
#include <fmt/format.h>

#include "frontend/ElaboratorImpl.h"

namespace tilesched::frontend {

using namespace ir;
using K = Value::Kind;

void Elaborator::mixedKernelLaunch(const py::Expr& call, const py::WithItem& item, Env& env,
                                   Kernel& k) {
  int64_t sids = 2;
  SourceLoc sidsLoc = call.loc;
  for (const auto& kw : call.keywords)
    if (kw.name == "sids") {
      sids = toConstInt(eval(*kw.value, env), kw.value->loc, "sids");
      sidsLoc = kw.value->loc;
    }
  if (sids != 1 && sids != 2)
    fail(sidsLoc, fmt::format("T.MixedKernel takes sids=1 or sids=2 (active vector sub-cores), "
                              "got {}",
                              sids));
  if (sids == 2)
    fail(sidsLoc,
         "T.MixedKernel with two vector sub-cores (sids=2, the default) is not supported yet: "
         "the simulator does not model the AIC + 2 AIV core group; "
         "T.MixedKernel(n, sids=1) runs the vector tasks on AIV 0 alone");
  const py::Expr* target = item.target.get();
  if (!target || target->kind != py::ExprKind::Tuple || target->elts.size() != 2 ||
      target->elts[0]->kind != py::ExprKind::Name || target->elts[1]->kind != py::ExprKind::Name)
    fail(target ? target->loc : call.loc,
         "T.MixedKernel binds the block index and the vector sub-core index: "
         "'with T.MixedKernel(n, sids=1) as (bx, sid):'");
  if (target->elts[0]->id == target->elts[1]->id)
    fail(target->elts[1]->loc, fmt::format("the block index and the vector sub-core index need "
                                           "two names, got '{}' twice",
                                           target->elts[0]->id));
  k.vectorCores = 1;
  k.blockIdx = makeVar(target->elts[0]->id, DType::Int32, VarKind::BlockIdx);
  env.bind(target->elts[0]->id, Value::irExpr(varRef(k.blockIdx)));
  k.sidName = target->elts[1]->id;
  env.bind(k.sidName, Value::irExpr(intImm(0)));
}

}  // namespace tilesched::frontend
