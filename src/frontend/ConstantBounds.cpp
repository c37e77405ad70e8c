#include "frontend/ConstantBounds.h"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <set>

#include "ir/Functor.h"
#include "ir/IROperator.h"
#include "ir/Printer.h"

namespace tilesched::frontend {

using namespace ir;

namespace {

// sum(coefficient * variable) + constant, one entry per variable id.
struct Linear {
  std::map<int, int64_t> coefficients;
  int64_t constant = 0;
};

struct VarRange {
  int64_t lo, hi;
  std::string name;
};

bool addScaled(Linear& into, const Linear& term, int64_t scale) {
  int64_t c;
  if (__builtin_mul_overflow(term.constant, scale, &c) ||
      __builtin_add_overflow(into.constant, c, &into.constant))
    return false;
  for (const auto& [id, k] : term.coefficients) {
    int64_t scaled;
    if (__builtin_mul_overflow(k, scale, &scaled) ||
        __builtin_add_overflow(into.coefficients[id], scaled, &into.coefficients[id]))
      return false;
    if (into.coefficients[id] == 0) into.coefficients.erase(id);
  }
  return true;
}

class IndexChecker : public IRVisitor {
 public:
  IndexChecker(const Kernel& kernel, DiagnosticEngine& diags) : diags_(diags) {
    // A name assigned more than once is a running value, not a let: its
    // value at a use is not the one expression we would substitute.
    forEachStmt(kernel.body, [&](const Stmt& s) {
      if (const auto* a = as<AssignStmt>(s)) ++assignments_[a->var->id];
    });
    if (kernel.blockIdx && kernel.grid >= 1)
      ranges_[kernel.blockIdx->id] = {0, kernel.grid - 1, kernel.blockIdx->name};
  }

  void visitStmt(const Stmt& s) override {
    if (!s) return;
    const StmtNode* outer = current_;
    current_ = s.get();
    IRVisitor::visitStmt(s);
    current_ = outer;
  }

  void visitExpr(const Expr& e) override {
    if (!e) return;
    if (e->kind == ExprKind::Load) check(e->buffer, e->operands);
    if (e->kind == ExprKind::Select) {
      visitExpr(e->operands[0]);
      ++guarded_;
      visitExpr(e->operands[1]);
      visitExpr(e->operands[2]);
      --guarded_;
      return;
    }
    if (e->kind == ExprKind::Binary && (e->binOp == BinOp::And || e->binOp == BinOp::Or)) {
      visitExpr(e->operands[0]);
      ++guarded_;
      visitExpr(e->operands[1]);
      --guarded_;
      return;
    }
    for (const Expr& o : e->operands) visitExpr(o);
  }

 protected:
  void visitFor(const ForStmt& s) override {
    visitExpr(s.min);
    visitExpr(s.extent);
    auto min = asConstInt(s.min), extent = asConstInt(s.extent);
    bool known = min && extent && *extent >= 1;
    if (known) ranges_[s.var->id] = {*min, *min + *extent - 1, s.var->name};
    // A loop that may run no iteration guards its body like an `if`.
    if (!known) ++guarded_;
    visitStmt(s.body);
    if (!known) --guarded_;
    ranges_.erase(s.var->id);
  }

  void visitParallel(const ParallelStmt& s) override {
    bool empty = false;
    for (size_t i = 0; i < s.vars.size(); ++i) {
      empty |= s.extents[i] < 1;
      ranges_[s.vars[i]->id] = {0, s.extents[i] - 1, s.vars[i]->name};
    }
    if (empty) ++guarded_;
    visitStmt(s.body);
    if (empty) --guarded_;
    for (const Var& v : s.vars) ranges_.erase(v->id);
  }

  void visitIf(const IfStmt& s) override {
    visitExpr(s.cond);
    ++guarded_;
    visitStmt(s.thenBody);
    if (s.elseBody) visitStmt(s.elseBody);
    --guarded_;
  }

  void visitAssign(const AssignStmt& s) override {
    visitExpr(s.value);
    if (assignments_[s.var->id] != 1) return;
    if (auto l = linear(s.value)) lets_[s.var->id] = *l;
  }

  void visitStore(const StoreStmt& s) override {
    check(s.buffer, s.indices);
    IRVisitor::visitStore(s);
  }

 private:
  std::optional<Linear> linear(const Expr& e) const {
    if (!e || !isInt(e->dtype)) return std::nullopt;
    switch (e->kind) {
      case ExprKind::IntImm: {
        Linear l;
        l.constant = e->intValue;
        return l;
      }
      case ExprKind::VarRef: {
        if (auto it = lets_.find(e->var->id); it != lets_.end()) return it->second;
        Linear l;
        l.coefficients[e->var->id] = 1;
        return l;
      }
      case ExprKind::Cast:
        return isInt(e->operands[0]->dtype) ? linear(e->operands[0]) : std::nullopt;
      case ExprKind::Unary: {
        if (e->unOp != UnOp::Neg) return std::nullopt;
        auto a = linear(e->operands[0]);
        Linear out;
        if (!a || !addScaled(out, *a, -1)) return std::nullopt;
        return out;
      }
      case ExprKind::Binary: {
        auto a = linear(e->operands[0]), b = linear(e->operands[1]);
        if (!a || !b) return std::nullopt;
        Linear out;
        if (e->binOp == BinOp::Add || e->binOp == BinOp::Sub) {
          if (!addScaled(out, *a, 1) || !addScaled(out, *b, e->binOp == BinOp::Add ? 1 : -1))
            return std::nullopt;
          return out;
        }
        if (e->binOp == BinOp::Mul) {
          if (a->coefficients.empty() && addScaled(out, *b, a->constant)) return out;
          if (b->coefficients.empty() && addScaled(out, *a, b->constant)) return out;
        }
        return std::nullopt;
      }
      default:
        return std::nullopt;
    }
  }

  void check(const Buffer& buffer, const std::vector<Expr>& indices) {
    if (guarded_ > 0 || !buffer || indices.empty() || !current_ || reported_.count(current_))
      return;
    auto shape = constShape(buffer);
    if (!shape || shape->size() != indices.size()) return;
    for (size_t d = 0; d < indices.size(); ++d) {
      auto l = linear(indices[d]);
      if (!l) continue;
      // Each variable appears once with a known, independent range, so the
      // ends of the sum's range are reached: at the variables' ends.
      int64_t lo = l->constant, hi = l->constant;
      bool known = true;
      for (const auto& [id, k] : l->coefficients) {
        auto it = ranges_.find(id);
        if (it == ranges_.end()) {
          known = false;
          break;
        }
        int64_t a, b;
        if (__builtin_mul_overflow(k, it->second.lo, &a) ||
            __builtin_mul_overflow(k, it->second.hi, &b) ||
            __builtin_add_overflow(lo, std::min(a, b), &lo) ||
            __builtin_add_overflow(hi, std::max(a, b), &hi)) {
          known = false;
          break;
        }
      }
      if (!known) continue;
      bool below = lo < 0, above = hi >= (*shape)[d];
      if (!below && !above) continue;
      report(buffer, *shape, d, indices[d], *l, below ? lo : hi, /*atMax=*/!below);
      return;
    }
  }

  void report(const Buffer& buffer, const std::vector<int64_t>& shape, size_t dim,
              const Expr& index, const Linear& l, int64_t value, bool atMax) {
    reported_.insert(current_);
    std::string where;
    for (const auto& [id, k] : l.coefficients) {
      const VarRange& r = ranges_.at(id);
      int64_t at = (k > 0) == atMax ? r.hi : r.lo;
      where += fmt::format("{}{} = {}", where.empty() ? " at " : ", ", r.name, at);
    }
    std::string dimText = shape.size() > 1 ? fmt::format(" (dimension {})", dim) : "";
    std::string text = printExpr(index);
    std::string head = l.coefficients.empty()
                           ? fmt::format("index {} of '{}'{} is", value, buffer->name, dimText)
                           : fmt::format("index {} of '{}'{} reaches {}{},", text, buffer->name,
                                         dimText, value, where);
    diags_.error(current_->loc, fmt::format("{} outside its shape {} (valid indices: 0 to {})",
                                            head, printShape(buffer->shape), shape[dim] - 1));
  }

  DiagnosticEngine& diags_;
  std::map<int, int> assignments_;
  std::map<int, Linear> lets_;
  std::map<int, VarRange> ranges_;
  std::set<const StmtNode*> reported_;
  const StmtNode* current_ = nullptr;
  int guarded_ = 0;
};

}  // namespace

void checkConstantIndices(const Kernel& kernel, DiagnosticEngine& diags) {
  IndexChecker checker(kernel, diags);
  checker.visitStmt(kernel.body);
}

}  // namespace tilesched::frontend
