#include "ir/Verifier.h"

#include <set>

#include <fmt/format.h>

#include "ir/Functor.h"
#include "ir/IROperator.h"

namespace tilesched::ir {

namespace {

class Verifier : public IRVisitor {
 public:
  explicit Verifier(const Kernel& k) : kernel_(k) {
    for (const auto& b : k.buffers) buffers_.insert(b.get());
    for (const auto& s : k.storages) storages_.insert(s.get());
    bound_.insert(k.blockIdx.get());
    if (k.manualCores) {
      bound_.insert(k.manualCores->core.get());
      bound_.insert(k.manualCores->sid.get());
    }
    for (const auto& p : k.params)
      if (p.var) bound_.insert(p.var.get());
    for (const auto& v : k.dynamicVars) bound_.insert(v.get());
  }

  std::vector<std::string> errors;

  void run() {
    for (const auto& b : kernel_.buffers) {
      if (!b) {
        fail(kernel_.kernelLoc, "null buffer in the kernel's buffer list");
        continue;
      }
      if (!b->storage) {
        fail(b->loc, fmt::format("buffer '{}' has no storage", b->name));
        continue;
      }
      if (!storages_.count(b->storage.get()))
        fail(b->loc, fmt::format("buffer '{}' uses a storage not listed in the kernel", b->name));
      if (b->storage->scope != MemScope::Global && !constShape(b))
        fail(b->loc, fmt::format("on-chip buffer '{}' has a symbolic shape", b->name));
    }
    if (kernel_.grid < 1) fail(kernel_.kernelLoc, "grid must be positive");
    visitStmt(kernel_.body);
  }

  void visitStmt(const Stmt& s) override {
    if (!s) return;
    current_ = s->loc;
    IRVisitor::visitStmt(s);
  }

  void visitExpr(const Expr& e) override {
    if (!e) return fail(current_, "null expression");
    if (e->kind == ExprKind::VarRef && !bound_.count(e->var.get()))
      fail(current_, fmt::format("variable '{}' used outside its scope", e->var->name));
    if (e->kind == ExprKind::Load) checkBuffer(e->buffer, e->operands.size());
    size_t want = 0;
    switch (e->kind) {
      case ExprKind::Binary:
        want = 2;
        break;
      case ExprKind::Unary:
      case ExprKind::Cast:
        want = 1;
        break;
      case ExprKind::Select:
        want = 3;
        break;
      case ExprKind::Load:
        want = e->operands.size();
        break;
      default:
        want = 0;
    }
    if (e->operands.size() != want) fail(current_, "expression has the wrong operand count");
    IRVisitor::visitExpr(e);
  }

 protected:
  void visitFor(const ForStmt& f) override {
    visitExpr(f.min);
    visitExpr(f.extent);
    if (f.numStages < 0) fail(f.loc, "negative num_stages");
    scoped(f.var, [&] { visitStmt(f.body); });
  }
  void visitParallel(const ParallelStmt& p) override {
    if (p.vars.size() != p.extents.size()) fail(p.loc, "parallel vars and extents differ");
    for (const auto& v : p.vars) bound_.insert(v.get());
    ++parallelDepth_;
    visitStmt(p.body);
    --parallelDepth_;
    for (const auto& v : p.vars) bound_.erase(v.get());
  }
  void visitAssign(const AssignStmt& a) override {
    visitExpr(a.value);
    bound_.insert(a.var.get());
  }
  void visitStore(const StoreStmt& s) override {
    checkBuffer(s.buffer, s.indices.size());
    IRVisitor::visitStore(s);
    if (s.prev) bound_.insert(s.prev.get());  // return_prev: the value before the update
  }
  void visitCopy(const CopyStmt& c) override {
    tileOp(c.loc);
    // A hardware dual copy's destination is one AIV's half of the source.
    int64_t halves = c.dual == CopyStmt::Dual::None ? 1 : 2;
    if (c.src.numElements() != c.dst.numElements() * halves && !c.padValue)
      fail(c.loc, "copy regions have different element counts");
    IRVisitor::visitCopy(c);
  }
  void visitGemm(const GemmStmt& g) override {
    tileOp(g.loc);
    IRVisitor::visitGemm(g);
  }
  void visitFill(const FillStmt& f) override {
    tileOp(f.loc);
    IRVisitor::visitFill(f);
  }
  void visitRegion(const Region& r) override {
    checkBuffer(r.buffer, r.ranges.size());
    if (!r.buffer) return;
    auto shape = constShape(r.buffer);
    for (size_t i = 0; i < r.ranges.size(); ++i) {
      if (r.ranges[i].extent < 1) fail(current_, "region extent must be positive");
      auto start = asConstInt(r.ranges[i].min);
      // A global region may run past the tensor's end (a tail, clipped by the copy).
      bool tail = r.buffer->storage->scope == MemScope::Global && start && *start >= 0 && shape &&
                  i < shape->size() && *start < (*shape)[i];
      if (shape && i < shape->size() && start && !tail &&
          (*start < 0 || *start + r.ranges[i].extent > (*shape)[i]))
        fail(current_,
             fmt::format("region of '{}' is out of bounds in dimension {}", r.buffer->name, i));
    }
    IRVisitor::visitRegion(r);
  }

 private:
  template <class F>
  void scoped(const Var& v, F&& body) {
    bool inserted = bound_.insert(v.get()).second;
    body();
    if (inserted) bound_.erase(v.get());
  }

  void tileOp(SourceLoc loc) {
    if (parallelDepth_ > 0) fail(loc, "tile operation inside a T.Parallel body");
  }

  void checkBuffer(const Buffer& b, size_t rank) {
    if (!b) return fail(current_, "null buffer");
    if (!buffers_.count(b.get()))
      fail(current_, fmt::format("buffer '{}' is not declared in the kernel", b->name));
    if (rank != b->shape.size())
      fail(current_, fmt::format("access to '{}' has {} indices for rank {}", b->name, rank,
                                 b->shape.size()));
  }

  void fail(SourceLoc loc, std::string msg) {
    errors.push_back(fmt::format("line {}: {}", loc.line, msg));
  }

  const Kernel& kernel_;
  std::set<const BufferNode*> buffers_;
  std::set<const StorageNode*> storages_;
  std::set<const VarNode*> bound_;
  SourceLoc current_;
  int parallelDepth_ = 0;
};

}  // namespace

std::vector<std::string> verifyKernel(const Kernel& k) {
  Verifier v(k);
  v.run();
  return std::move(v.errors);
}

}  // namespace tilesched::ir
