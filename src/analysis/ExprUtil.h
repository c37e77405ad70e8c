// Small expression utilities shared by the analyses (not a pass): variable
// substitution that re-folds constants, variable queries, and the resolution
// of single-assignment scalars to their definitions.
//
//   substitute(floormod(l + 1, 2), l, l + 1)  → floormod(l + 2, 2)
//   resolve(bm * 64) with `bm = bx // 4`      → bx // 4 * 64
#pragma once

#include <functional>
#include <map>
#include <set>

#include "ir/IR.h"

namespace tilesched::analysis {

// Replaces every reference to `var` by `value`, rebuilding with the folding
// builders of IROperator.h.
ir::Expr substitute(const ir::Expr& e, const ir::Var& var, const ir::Expr& value);
// General form: `fn` returns the replacement of a VarRef or null to keep it.
ir::Expr substituteVars(const ir::Expr& e, const std::function<ir::Expr(const ir::Var&)>& fn);

void collectVars(const ir::Expr& e, std::set<int>& ids);

// Definitions of the scalar variables assigned exactly once in a kernel
// (`x = expr` with no load in expr); others are absent.
class ScalarDefs {
 public:
  explicit ScalarDefs(const ir::Kernel& kernel);
  ScalarDefs() = default;
  // `e` with every single-assignment variable replaced by its definition
  // (transitively).
  ir::Expr resolve(const ir::Expr& e) const;
  // Variables assigned anywhere in the kernel (by id), with their assignment count.
  int assignCount(const ir::Var& v) const;

 private:
  std::map<int, ir::Expr> defs_;
  std::map<int, int> counts_;
};

}  // namespace tilesched::analysis
