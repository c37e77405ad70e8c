// Generic traversal of the IR: a visitor (read-only) and a mutator (rebuilds
// only the paths that changed, sharing everything else).
//
// Override the hook for the node kind you care about and call the base hook to
// keep recursing. Expressions inside statements (region starts, values,
// conditions, flag ids) are visited through visitExpr / mutateExpr.
#pragma once

#include <functional>

#include "ir/IR.h"

namespace tilesched::ir {

class IRVisitor {
 public:
  virtual ~IRVisitor() = default;
  virtual void visitStmt(const Stmt& s);
  virtual void visitExpr(const Expr& e);

 protected:
  virtual void visitSeq(const SeqStmt& s);
  virtual void visitFor(const ForStmt& s);
  virtual void visitIf(const IfStmt& s);
  virtual void visitAssign(const AssignStmt& s);
  virtual void visitStore(const StoreStmt& s);
  virtual void visitCopy(const CopyStmt& s);
  virtual void visitGemm(const GemmStmt& s);
  virtual void visitFill(const FillStmt& s);
  virtual void visitReduce(const ReduceStmt& s);
  virtual void visitParallel(const ParallelStmt& s);
  virtual void visitVFRegion(const VFRegionStmt& s);
  virtual void visitSetFlag(const SetFlagStmt& s);
  virtual void visitWaitFlag(const WaitFlagStmt& s);
  virtual void visitBarrier(const BarrierStmt& s);
  virtual void visitRegion(const Region& r);
};

class IRMutator {
 public:
  virtual ~IRMutator() = default;
  virtual Stmt mutateStmt(const Stmt& s);
  virtual Expr mutateExpr(const Expr& e);

 protected:
  // Each hook gets the typed node and the owning pointer, so "unchanged"
  // returns `self` and shares the subtree.
  virtual Stmt mutateSeq(const SeqStmt& s, const Stmt& self);
  virtual Stmt mutateFor(const ForStmt& s, const Stmt& self);
  virtual Stmt mutateIf(const IfStmt& s, const Stmt& self);
  virtual Stmt mutateAssign(const AssignStmt& s, const Stmt& self);
  virtual Stmt mutateStore(const StoreStmt& s, const Stmt& self);
  virtual Stmt mutateCopy(const CopyStmt& s, const Stmt& self);
  virtual Stmt mutateGemm(const GemmStmt& s, const Stmt& self);
  virtual Stmt mutateFill(const FillStmt& s, const Stmt& self);
  virtual Stmt mutateReduce(const ReduceStmt& s, const Stmt& self);
  virtual Stmt mutateParallel(const ParallelStmt& s, const Stmt& self);
  virtual Stmt mutateVFRegion(const VFRegionStmt& s, const Stmt& self);
  virtual Stmt mutateSetFlag(const SetFlagStmt& s, const Stmt& self);
  virtual Stmt mutateWaitFlag(const WaitFlagStmt& s, const Stmt& self);
  virtual Stmt mutateBarrier(const BarrierStmt& s, const Stmt& self);
  // Returns true and fills `out` when any start changed.
  virtual bool mutateRegion(const Region& r, Region& out);
};

// Calls `fn` on every statement in pre-order.
void forEachStmt(const Stmt& root, const std::function<void(const Stmt&)>& fn);

// The T.alloc_var scalars (local.var storages) a T.Parallel or VF region
// reads but does not write, in first-read order: the scalar unit hands their
// values to the vector unit when it issues the instruction, as it does a
// let's (the vector unit has no access to scalar registers). Empty for any
// other statement. The analyses and the simulator both take this rule from
// here.
std::vector<Storage> issueCapturedScalars(const Stmt& s);

// The largest variable id a kernel mentions (block index, parameters, dynamic
// sizes, shapes, loop, T.Parallel and assigned variables); fresh variables and
// per-variable tables are numbered and sized from it.
int maxVarId(const Kernel& kernel);

}  // namespace tilesched::ir
