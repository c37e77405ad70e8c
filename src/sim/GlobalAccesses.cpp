// The global accesses of a statement by kind (plain or atomic, and which
// atomic op), for the race check between blocks (GlobalRaceChecker): a
// T.set_atomic copy and a T.atomic_* update accumulate, every other access
// is a plain read or write.
#include <fmt/format.h>

#include "ir/Functor.h"
#include "sim/BlockSim.h"

namespace tilesched::sim::detail {

// The atomic kind of one store statement: a T.set_atomic copy or a T.atomic_* update.
AtomicOp storeAtomic(const Stmt& s) {
  if (const auto* c = as<CopyStmt>(s)) return c->atomic;
  if (const auto* st = as<StoreStmt>(s)) return st->atomic;
  return AtomicOp::None;
}

bool hasAtomicStore(const Kernel& kernel) {
  bool atomic = false;
  forEachStmt(kernel.body, [&](const Stmt& s) { atomic |= storeAtomic(s) != AtomicOp::None; });
  return atomic;
}

// Per global storage an instruction touches, the kind of its accesses there:
// atomic of one kind when every access to it is a T.set_atomic store or a
// T.atomic_* update of that kind (an instruction can be a whole T.Parallel or
// VF body, updating a sum with atomic_add and a maximum with atomic_max);
// plain when the instruction also reads or writes it otherwise or mixes kinds
// on it. Plain reads do not commute with other blocks' writes, atomic or not.
class GlobalAccessKinds : public IRVisitor {
 public:
  explicit GlobalAccessKinds(const Memory& memory) : memory_(memory) {}

  StorageAtomics atomics() const {
    StorageAtomics out;
    for (const auto& [index, k] : byIndex_)
      if (!k.plain && k.op != AtomicOp::None) out.emplace_back(index, k.op);
    return out;
  }

 protected:
  void visitStore(const StoreStmt& s) override {
    note(s.buffer->storage, s.atomic);
    // An atomic update reads its own destination as part of the update: the
    // load `dst` of its value `dst op v` (atomicUpdateValue).
    const ExprNode* own = nullptr;
    if (s.atomic != AtomicOp::None && s.value && s.value->operands.size() == 2 &&
        s.value->operands[0]->kind == ExprKind::Load && s.value->operands[0]->buffer == s.buffer)
      own = s.value->operands[0].get();
    std::swap(ownLoad_, own);
    IRVisitor::visitStore(s);
    std::swap(ownLoad_, own);
  }
  void visitCopy(const CopyStmt& c) override {
    visitRegion(c.src);
    note(c.dst.buffer->storage, c.atomic);
    IRVisitor::visitRegion(c.dst);
    if (c.padValue) visitExpr(c.padValue);
  }
  void visitRegion(const Region& r) override {
    note(r.buffer->storage, AtomicOp::None);
    IRVisitor::visitRegion(r);
  }
  void visitExpr(const Expr& e) override {
    if (e && e->kind == ExprKind::Load && e->buffer && e.get() != ownLoad_)
      note(e->buffer->storage, AtomicOp::None);
    IRVisitor::visitExpr(e);
  }

 private:
  struct Kind {
    AtomicOp op = AtomicOp::None;
    bool plain = false;
  };
  void note(const Storage& storage, AtomicOp op) {
    if (storage->scope != MemScope::Global) return;
    auto [it, fresh] = byIndex_.try_emplace(memory_.index(storage));
    Kind& k = it->second;
    if (op == AtomicOp::None || (!fresh && k.op != op))
      k.plain = true;
    else
      k.op = op;
  }

  const Memory& memory_;
  std::map<int, Kind> byIndex_;  // by memory index
  const ExprNode* ownLoad_ = nullptr;
};

StorageAtomics atomicsOf(const Stmt& s, const Memory& memory) {
  GlobalAccessKinds kinds(memory);
  kinds.visitStmt(s);
  return kinds.atomics();
}

}  // namespace tilesched::sim::detail
