#include "ir/Functor.h"

#include <algorithm>

#include "ir/IROperator.h"

namespace tilesched::ir {

// ------------------------------------------------------------------ visitor

void IRVisitor::visitStmt(const Stmt& s) {
  if (!s) return;
  switch (s->kind) {
    case StmtKind::Seq:
      return visitSeq(*as<SeqStmt>(s));
    case StmtKind::For:
      return visitFor(*as<ForStmt>(s));
    case StmtKind::If:
      return visitIf(*as<IfStmt>(s));
    case StmtKind::Assign:
      return visitAssign(*as<AssignStmt>(s));
    case StmtKind::Store:
      return visitStore(*as<StoreStmt>(s));
    case StmtKind::Copy:
      return visitCopy(*as<CopyStmt>(s));
    case StmtKind::Gemm:
      return visitGemm(*as<GemmStmt>(s));
    case StmtKind::Fill:
      return visitFill(*as<FillStmt>(s));
    case StmtKind::Reduce:
      return visitReduce(*as<ReduceStmt>(s));
    case StmtKind::Parallel:
      return visitParallel(*as<ParallelStmt>(s));
    case StmtKind::VFRegion:
      return visitVFRegion(*as<VFRegionStmt>(s));
    case StmtKind::SetFlag:
      return visitSetFlag(*as<SetFlagStmt>(s));
    case StmtKind::WaitFlag:
      return visitWaitFlag(*as<WaitFlagStmt>(s));
    case StmtKind::Barrier:
      return visitBarrier(*as<BarrierStmt>(s));
  }
}

void IRVisitor::visitExpr(const Expr& e) {
  if (!e) return;
  for (const auto& op : e->operands) visitExpr(op);
}

void IRVisitor::visitSeq(const SeqStmt& s) {
  for (const auto& c : s.stmts) visitStmt(c);
}
void IRVisitor::visitFor(const ForStmt& s) {
  visitExpr(s.min);
  visitExpr(s.extent);
  visitStmt(s.body);
}
void IRVisitor::visitIf(const IfStmt& s) {
  visitExpr(s.cond);
  visitStmt(s.thenBody);
  visitStmt(s.elseBody);
}
void IRVisitor::visitAssign(const AssignStmt& s) { visitExpr(s.value); }
void IRVisitor::visitStore(const StoreStmt& s) {
  for (const auto& i : s.indices) visitExpr(i);
  visitExpr(s.value);
}
void IRVisitor::visitCopy(const CopyStmt& s) {
  visitRegion(s.src);
  visitRegion(s.dst);
  if (s.padValue) visitExpr(s.padValue);
}
void IRVisitor::visitGemm(const GemmStmt& s) {
  visitRegion(s.a);
  visitRegion(s.b);
  visitRegion(s.c);
  visitExpr(s.clearAccum);
}
void IRVisitor::visitFill(const FillStmt& s) {
  visitRegion(s.dst);
  visitExpr(s.value);
}
void IRVisitor::visitReduce(const ReduceStmt& s) {
  visitRegion(s.src);
  visitRegion(s.dst);
}
void IRVisitor::visitParallel(const ParallelStmt& s) { visitStmt(s.body); }
void IRVisitor::visitVFRegion(const VFRegionStmt& s) { visitStmt(s.body); }
void IRVisitor::visitSetFlag(const SetFlagStmt& s) { visitExpr(s.eventId); }
void IRVisitor::visitWaitFlag(const WaitFlagStmt& s) { visitExpr(s.eventId); }
void IRVisitor::visitBarrier(const BarrierStmt&) {}
void IRVisitor::visitRegion(const Region& r) {
  for (const auto& range : r.ranges) visitExpr(range.min);
}

// ------------------------------------------------------------------ mutator

Stmt IRMutator::mutateStmt(const Stmt& s) {
  if (!s) return s;
  switch (s->kind) {
    case StmtKind::Seq:
      return mutateSeq(*as<SeqStmt>(s), s);
    case StmtKind::For:
      return mutateFor(*as<ForStmt>(s), s);
    case StmtKind::If:
      return mutateIf(*as<IfStmt>(s), s);
    case StmtKind::Assign:
      return mutateAssign(*as<AssignStmt>(s), s);
    case StmtKind::Store:
      return mutateStore(*as<StoreStmt>(s), s);
    case StmtKind::Copy:
      return mutateCopy(*as<CopyStmt>(s), s);
    case StmtKind::Gemm:
      return mutateGemm(*as<GemmStmt>(s), s);
    case StmtKind::Fill:
      return mutateFill(*as<FillStmt>(s), s);
    case StmtKind::Reduce:
      return mutateReduce(*as<ReduceStmt>(s), s);
    case StmtKind::Parallel:
      return mutateParallel(*as<ParallelStmt>(s), s);
    case StmtKind::VFRegion:
      return mutateVFRegion(*as<VFRegionStmt>(s), s);
    case StmtKind::SetFlag:
      return mutateSetFlag(*as<SetFlagStmt>(s), s);
    case StmtKind::WaitFlag:
      return mutateWaitFlag(*as<WaitFlagStmt>(s), s);
    case StmtKind::Barrier:
      return mutateBarrier(*as<BarrierStmt>(s), s);
  }
  return s;
}

Expr IRMutator::mutateExpr(const Expr& e) {
  if (!e || e->operands.empty()) return e;
  std::vector<Expr> ops;
  bool changed = false;
  for (const auto& op : e->operands) {
    ops.push_back(mutateExpr(op));
    changed |= ops.back() != op;
  }
  if (!changed) return e;
  switch (e->kind) {
    case ExprKind::Binary:
      return binary(e->binOp, ops[0], ops[1]);
    case ExprKind::Unary:
      return unary(e->unOp, ops[0]);
    case ExprKind::Select:
      return select(ops[0], ops[1], ops[2]);
    case ExprKind::Cast:
      return cast(e->dtype, ops[0]);
    case ExprKind::Load:
      return load(e->buffer, std::move(ops));
    default:
      break;
  }
  auto copy = std::make_shared<ExprNode>(*e);
  copy->operands = std::move(ops);
  return copy;
}

bool IRMutator::mutateRegion(const Region& r, Region& out) {
  out = r;
  bool changed = false;
  for (auto& range : out.ranges) {
    Expr m = mutateExpr(range.min);
    changed |= m != range.min;
    range.min = m;
  }
  return changed;
}

Stmt IRMutator::mutateSeq(const SeqStmt& s, const Stmt& self) {
  std::vector<Stmt> out;
  bool changed = false;
  for (const auto& c : s.stmts) {
    Stmt m = mutateStmt(c);
    changed |= m != c;
    if (m) out.push_back(m);
  }
  if (!changed) return self;
  return std::make_shared<SeqStmt>(std::move(out), s.loc);
}

Stmt IRMutator::mutateFor(const ForStmt& s, const Stmt& self) {
  Expr min = mutateExpr(s.min), extent = mutateExpr(s.extent);
  Stmt body = mutateStmt(s.body);
  if (min == s.min && extent == s.extent && body == s.body) return self;
  auto n = std::make_shared<ForStmt>(s);
  n->min = min;
  n->extent = extent;
  n->body = body;
  return n;
}

Stmt IRMutator::mutateIf(const IfStmt& s, const Stmt& self) {
  Expr c = mutateExpr(s.cond);
  Stmt t = mutateStmt(s.thenBody), e = mutateStmt(s.elseBody);
  if (c == s.cond && t == s.thenBody && e == s.elseBody) return self;
  auto n = std::make_shared<IfStmt>(c, t, e, s.loc);
  n->coreScope = s.coreScope;
  return n;
}

Stmt IRMutator::mutateAssign(const AssignStmt& s, const Stmt& self) {
  Expr v = mutateExpr(s.value);
  if (v == s.value) return self;
  return std::make_shared<AssignStmt>(s.var, v, s.loc);
}

Stmt IRMutator::mutateStore(const StoreStmt& s, const Stmt& self) {
  bool changed = false;
  std::vector<Expr> idx;
  for (const auto& i : s.indices) {
    idx.push_back(mutateExpr(i));
    changed |= idx.back() != i;
  }
  Expr v = mutateExpr(s.value);
  if (!changed && v == s.value) return self;
  auto n = std::make_shared<StoreStmt>(s.buffer, std::move(idx), v, s.loc);
  n->atomic = s.atomic;
  n->prev = s.prev;
  return n;
}

Stmt IRMutator::mutateCopy(const CopyStmt& s, const Stmt& self) {
  Region src, dst;
  bool a = mutateRegion(s.src, src), b = mutateRegion(s.dst, dst);
  Expr pad = s.padValue ? mutateExpr(s.padValue) : s.padValue;
  if (!a && !b && pad == s.padValue) return self;
  auto n = std::make_shared<CopyStmt>(s);
  if (a) n->src = std::move(src);
  if (b) n->dst = std::move(dst);
  n->padValue = pad;
  return n;
}

Stmt IRMutator::mutateGemm(const GemmStmt& s, const Stmt& self) {
  Region a, b, c;
  bool ca = mutateRegion(s.a, a), cb = mutateRegion(s.b, b), cc = mutateRegion(s.c, c);
  Expr clear = mutateExpr(s.clearAccum);
  if (!ca && !cb && !cc && clear == s.clearAccum) return self;
  auto n = std::make_shared<GemmStmt>(s);
  n->a = std::move(a);
  n->b = std::move(b);
  n->c = std::move(c);
  n->clearAccum = clear;
  return n;
}

Stmt IRMutator::mutateFill(const FillStmt& s, const Stmt& self) {
  Region d;
  bool cd = mutateRegion(s.dst, d);
  Expr v = mutateExpr(s.value);
  if (!cd && v == s.value) return self;
  return std::make_shared<FillStmt>(std::move(d), v, s.pipe, s.loc);
}

Stmt IRMutator::mutateReduce(const ReduceStmt& s, const Stmt& self) {
  Region src, dst;
  bool a = mutateRegion(s.src, src), b = mutateRegion(s.dst, dst);
  if (!a && !b) return self;
  auto n = std::make_shared<ReduceStmt>(s);
  n->src = std::move(src);
  n->dst = std::move(dst);
  return n;
}

Stmt IRMutator::mutateParallel(const ParallelStmt& s, const Stmt& self) {
  Stmt body = mutateStmt(s.body);
  if (body == s.body) return self;
  auto n = std::make_shared<ParallelStmt>(s);
  n->body = body;
  return n;
}

Stmt IRMutator::mutateVFRegion(const VFRegionStmt& s, const Stmt& self) {
  Stmt body = mutateStmt(s.body);
  if (body == s.body) return self;
  auto n = std::make_shared<VFRegionStmt>(s);
  n->body = body;
  return n;
}

Stmt IRMutator::mutateSetFlag(const SetFlagStmt& s, const Stmt& self) {
  Expr id = mutateExpr(s.eventId);
  if (id == s.eventId) return self;
  auto n = std::make_shared<SetFlagStmt>(s.src, s.dst, id, s.loc);
  n->crossCoreMode = s.crossCoreMode;
  return n;
}

Stmt IRMutator::mutateWaitFlag(const WaitFlagStmt& s, const Stmt& self) {
  Expr id = mutateExpr(s.eventId);
  if (id == s.eventId) return self;
  auto n = std::make_shared<WaitFlagStmt>(s.src, s.dst, id, s.loc);
  n->crossCoreMode = s.crossCoreMode;
  return n;
}

Stmt IRMutator::mutateBarrier(const BarrierStmt&, const Stmt& self) { return self; }

void forEachStmt(const Stmt& root, const std::function<void(const Stmt&)>& fn) {
  struct Walker : IRVisitor {
    const std::function<void(const Stmt&)>& fn;
    explicit Walker(const std::function<void(const Stmt&)>& f) : fn(f) {}
    void visitStmt(const Stmt& s) override {
      if (!s) return;
      fn(s);
      IRVisitor::visitStmt(s);
    }
  } walker(fn);
  walker.visitStmt(root);
}

std::vector<Storage> issueCapturedScalars(const Stmt& s) {
  if (!s || (s->kind != StmtKind::Parallel && s->kind != StmtKind::VFRegion)) return {};
  struct Collect : IRVisitor {
    std::vector<Storage> read, written;
    static void note(std::vector<Storage>& list, const Storage& st) {
      if (st->scope == MemScope::LocalVar && std::find(list.begin(), list.end(), st) == list.end())
        list.push_back(st);
    }
    void visitExpr(const Expr& e) override {
      if (e && e->kind == ExprKind::Load) note(read, e->buffer->storage);
      IRVisitor::visitExpr(e);
    }
    void visitStore(const StoreStmt& st) override {
      note(written, st.buffer->storage);
      IRVisitor::visitStore(st);
    }
    void visitRegion(const Region& r) override {
      note(written, r.buffer->storage);  // a tile op on it stays the vector unit's
      IRVisitor::visitRegion(r);
    }
  } c;
  c.visitStmt(s);
  std::vector<Storage> out;
  for (const auto& st : c.read)
    if (std::find(c.written.begin(), c.written.end(), st) == c.written.end()) out.push_back(st);
  return out;
}

int maxVarId(const Kernel& k) {
  struct Finder : IRVisitor {
    int maxId = 0;
    void note(const Var& v) {
      if (v) maxId = std::max(maxId, v->id);
    }
    void visitExpr(const Expr& e) override {
      if (!e) return;
      if (e->kind == ExprKind::VarRef) note(e->var);
      IRVisitor::visitExpr(e);
    }
    void visitFor(const ForStmt& s) override {
      note(s.var);
      IRVisitor::visitFor(s);
    }
    void visitParallel(const ParallelStmt& s) override {
      for (const auto& v : s.vars) note(v);
      IRVisitor::visitParallel(s);
    }
    void visitAssign(const AssignStmt& s) override {
      note(s.var);
      IRVisitor::visitAssign(s);
    }
    void visitStore(const StoreStmt& s) override {
      if (s.prev) note(s.prev);
      IRVisitor::visitStore(s);
    }
  } f;
  f.note(k.blockIdx);
  if (k.manualCores) {
    f.note(k.manualCores->core);
    f.note(k.manualCores->sid);
  }
  for (const auto& p : k.params) f.note(p.var);
  for (const auto& v : k.dynamicVars) f.note(v);
  for (const auto& b : k.buffers)
    for (const auto& d : b->shape) f.visitExpr(d);
  if (k.body) f.visitStmt(k.body);
  return f.maxId;
}

}  // namespace tilesched::ir
