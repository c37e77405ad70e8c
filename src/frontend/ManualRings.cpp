#include "frontend/ManualRings.h"

#include <fmt/format.h>

#include <map>

#include "ir/Functor.h"

namespace tilesched::frontend {

using namespace ir;

namespace {

// Every index expression of every access, per storage.
class IndexCollector : public IRVisitor {
 public:
  std::map<const StorageNode*, std::vector<Expr>> indices;
  std::map<int, std::vector<Expr>> assignments;  // per variable id, its assigned values
  std::map<int, int64_t> loopTrips;              // per loop variable id, a constant trip count

  void visitExpr(const Expr& e) override {
    if (e && e->kind == ExprKind::Load) add(e->buffer, e->operands);
    IRVisitor::visitExpr(e);
  }

 protected:
  void visitStore(const StoreStmt& s) override {
    add(s.buffer, s.indices);
    IRVisitor::visitStore(s);
  }
  void visitFor(const ForStmt& s) override {
    if (s.extent && s.extent->kind == ExprKind::IntImm) loopTrips[s.var->id] = s.extent->intValue;
    IRVisitor::visitFor(s);
  }
  void visitAssign(const AssignStmt& s) override {
    assignments[s.var->id].push_back(s.value);
    IRVisitor::visitAssign(s);
  }
  void visitRegion(const Region& r) override {
    for (const Range& range : r.ranges)
      if (r.buffer) indices[r.buffer->storage.get()].push_back(range.min);
    IRVisitor::visitRegion(r);
  }

 private:
  void add(const Buffer& b, const std::vector<Expr>& idx) {
    if (!b) return;
    auto& list = indices[b->storage.get()];
    list.insert(list.end(), idx.begin(), idx.end());
  }
};

enum class Reflects { No, Yes, Unknown };

Reflects reflects(const Expr& e, int64_t ring, const IndexCollector& c, int depth = 0) {
  if (!e || depth > 32) return Reflects::Unknown;
  if (e->kind == ExprKind::Load) return Reflects::Unknown;
  if (e->kind == ExprKind::Binary && e->binOp == BinOp::FloorMod && e->operands[1] &&
      e->operands[1]->kind == ExprKind::IntImm && e->operands[1]->intValue == ring)
    return Reflects::Yes;
  Reflects out = Reflects::No;
  if (e->kind == ExprKind::VarRef) {
    // A loop over exactly the ring's slots selects each one directly.
    if (auto t = c.loopTrips.find(e->var->id); t != c.loopTrips.end() && t->second == ring)
      return Reflects::Yes;
    auto it = c.assignments.find(e->var->id);
    if (it == c.assignments.end()) return Reflects::No;  // a loop variable, parameter, block
    if (it->second.size() != 1) return Reflects::Unknown;
    return reflects(it->second.front(), ring, c, depth + 1);
  }
  for (const Expr& o : e->operands) {
    Reflects r = reflects(o, ring, c, depth + 1);
    if (r == Reflects::Yes) return r;
    if (r == Reflects::Unknown) out = r;
  }
  return out;
}

}  // namespace

void warnUnreflectedManualRings(const Kernel& kernel, DiagnosticEngine& diags) {
  if (kernel.annotations.manual.empty()) return;
  IndexCollector c;
  c.visitStmt(kernel.body);
  for (const ManualSpec& m : kernel.annotations.manual) {
    if (m.ring <= 1 || !m.storage) continue;
    auto it = c.indices.find(m.storage.get());
    if (it == c.indices.end()) continue;  // never accessed: nothing to select
    Reflects seen = Reflects::No;
    for (const Expr& e : it->second) {
      Reflects r = reflects(e, m.ring, c);
      if (r != Reflects::No) seen = r;
      if (r == Reflects::Yes) break;
    }
    if (seen != Reflects::No) continue;
    diags.warning(
        m.loc, fmt::format("the manual ring '{}' has {} slots, but no index of '{}' is "
                           "taken modulo {}, so no iteration selects its slot by the "
                           "ring; index it as e.g. {}[i % {}, ...], or give the ring "
                           "the size its index uses",
                           m.buffer->name, m.ring, m.buffer->name, m.ring, m.buffer->name, m.ring));
  }
}

}  // namespace tilesched::frontend
