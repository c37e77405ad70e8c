// Run-time scalar bindings for region extents (see ScalarBindings.h).
#include "frontend/ScalarBindings.h"

#include "ir/IROperator.h"

namespace tilesched::frontend {

using namespace ir;

namespace {

// Replacing a name by its value may nest; deeper chains are not worth following.
constexpr int kMaxDepth = 16;

}  // namespace

void ScalarBindings::record(const Var& var, const Expr& value) {
  // Every remembered value that reads `var` meant its old value.
  for (auto it = values_.begin(); it != values_.end();)
    it = mentionsVar(it->second, var) ? values_.erase(it) : std::next(it);
  values_.erase(var->id);
  if (value && !containsLoad(value) && !mentionsVar(value, var)) values_[var->id] = value;
}

Expr ScalarBindings::expand(const Expr& e, int depth) const {
  if (!e || depth > kMaxDepth) return e;
  switch (e->kind) {
    case ExprKind::VarRef: {
      auto it = e->var ? values_.find(e->var->id) : values_.end();
      if (it == values_.end()) return e;
      return cast(e->dtype, expand(it->second, depth + 1));
    }
    case ExprKind::Binary:
      return binary(e->binOp, expand(e->operands[0], depth + 1), expand(e->operands[1], depth + 1));
    case ExprKind::Unary:
      return unary(e->unOp, expand(e->operands[0], depth + 1));
    case ExprKind::Cast:
      return cast(e->dtype, expand(e->operands[0], depth + 1));
    default:  // constants, loads (the same read at this point on both sides), selects
      return e;
  }
}

std::optional<int64_t> ScalarBindings::constExtent(const Expr& stop, const Expr& start) const {
  if (auto direct = constDifference(stop, start)) return direct;
  if (values_.empty()) return std::nullopt;
  return constDifference(expand(stop, 0), expand(start, 0));
}

}  // namespace tilesched::frontend
