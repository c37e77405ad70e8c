// Run-time scalar bindings for region extents (see ScalarBindings.h).
#include "frontend/ScalarBindings.h"

#include "ir/IROperator.h"

namespace tilesched::frontend {

using namespace ir;

namespace {

// Replacing a name by its value may nest; deeper chains are not worth following.
constexpr int kMaxDepth = 16;

bool reads(const Expr& e, int varId) {
  if (!e) return false;
  if (e->kind == ExprKind::VarRef && e->var && e->var->id == varId) return true;
  for (const auto& o : e->operands)
    if (reads(o, varId)) return true;
  return false;
}

bool readsMemory(const Expr& e) {
  if (!e) return false;
  if (e->kind == ExprKind::Load) return true;
  for (const auto& o : e->operands)
    if (readsMemory(o)) return true;
  return false;
}

}  // namespace

void ScalarBindings::record(const Var& var, const Expr& value) {
  // Every remembered value that reads `var` meant its old value.
  for (auto it = values_.begin(); it != values_.end();)
    it = reads(it->second, var->id) ? values_.erase(it) : std::next(it);
  values_.erase(var->id);
  if (value && !readsMemory(value) && !reads(value, var->id)) values_[var->id] = value;
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
