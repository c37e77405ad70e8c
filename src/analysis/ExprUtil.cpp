// Expression utilities for the analyses (see ExprUtil.h).
#include "analysis/ExprUtil.h"

#include "ir/Functor.h"
#include "ir/IROperator.h"

namespace tilesched::analysis {

using namespace ir;

namespace {

// IRMutator's rebuild with variable references replaced.
class VarSubstituter : public IRMutator {
 public:
  explicit VarSubstituter(const std::function<Expr(const Var&)>& fn) : fn_(fn) {}
  Expr mutateExpr(const Expr& e) override {
    if (e && e->kind == ExprKind::VarRef) {
      Expr r = fn_(e->var);
      return r ? r : e;
    }
    return IRMutator::mutateExpr(e);
  }

 private:
  const std::function<Expr(const Var&)>& fn_;
};

}  // namespace

Expr substituteVars(const Expr& e, const std::function<Expr(const Var&)>& fn) {
  return VarSubstituter(fn).mutateExpr(e);
}

Expr substitute(const Expr& e, const Var& var, const Expr& value) {
  return substituteVars(e, [&](const Var& v) -> Expr { return v == var ? value : nullptr; });
}

void collectVars(const Expr& e, std::set<int>& ids) {
  if (!e) return;
  if (e->kind == ExprKind::VarRef) ids.insert(e->var->id);
  for (const auto& o : e->operands) collectVars(o, ids);
}

ScalarDefs::ScalarDefs(const Kernel& kernel) {
  std::map<int, Expr> values;
  forEachStmt(kernel.body, [&](const Stmt& s) {
    if (const auto* a = as<AssignStmt>(s)) {
      ++counts_[a->var->id];
      values[a->var->id] = a->value;
    }
  });
  // A definition may only mention variables that never change after it:
  // loop variables, the block index, parameters, sizes, or other
  // single-assignment scalars.
  auto stable = [&](const Expr& value) {
    std::set<int> ids;
    collectVars(value, ids);
    for (int id : ids)
      if (counts_.count(id) && counts_[id] != 1) return false;
    return true;
  };
  for (const auto& [id, value] : values)
    if (counts_[id] == 1 && !containsLoad(value) && stable(value)) defs_[id] = value;
}

Expr ScalarDefs::resolve(const Expr& e) const {
  if (defs_.empty()) return e;
  Expr cur = e;
  // Definitions may chain (a = bx // 4; b = a * 2); a few rounds reach the
  // fixed point, and the bound keeps a self-referencing chain finite.
  for (int round = 0; round < 8; ++round) {
    Expr next = substituteVars(cur, [&](const Var& v) -> Expr {
      auto it = defs_.find(v->id);
      return it == defs_.end() ? nullptr : it->second;
    });
    if (next == cur) return cur;
    cur = next;
  }
  return cur;
}

int ScalarDefs::assignCount(const Var& v) const {
  auto it = counts_.find(v->id);
  return it == counts_.end() ? 0 : it->second;
}

}  // namespace tilesched::analysis
