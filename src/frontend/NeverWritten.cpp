#include "frontend/NeverWritten.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "ir/Functor.h"

namespace tilesched::frontend {

using namespace ir;

namespace {

class ReadWriteCollector : public IRVisitor {
 public:
  // In program order: the first read of each storage, with its buffer's name.
  std::vector<std::pair<const StorageNode*, std::pair<std::string, SourceLoc>>> firstReads;
  std::set<const StorageNode*> written;

  void visitStmt(const Stmt& s) override {
    if (!s) return;
    SourceLoc outer = at_;
    at_ = s->loc;
    IRVisitor::visitStmt(s);
    at_ = outer;
  }
  void visitExpr(const Expr& e) override {
    if (e && e->kind == ExprKind::Load) read(e->buffer);
    IRVisitor::visitExpr(e);
  }

 protected:
  void visitStore(const StoreStmt& s) override {
    IRVisitor::visitStore(s);
    if (s.atomic != AtomicOp::None) read(s.buffer);
    write(s.buffer);
  }
  void visitCopy(const CopyStmt& s) override {
    for (const Range& r : s.src.ranges) visitExpr(r.min);
    for (const Range& r : s.dst.ranges) visitExpr(r.min);
    visitExpr(s.padValue);
    read(s.src.buffer);
    write(s.dst.buffer);
  }
  void visitGemm(const GemmStmt& s) override {
    visitExpr(s.clearAccum);
    read(s.a.buffer);
    read(s.b.buffer);
    write(s.c.buffer);  // accumulating into c reads it too, but c is written
  }
  void visitFill(const FillStmt& s) override {
    visitExpr(s.value);
    write(s.dst.buffer);
  }
  void visitReduce(const ReduceStmt& s) override {
    read(s.src.buffer);
    write(s.dst.buffer);
  }

 private:
  void read(const Buffer& b) {
    if (!b || b->storage->scope == MemScope::Global) return;
    const StorageNode* st = b->storage.get();
    if (seen_.insert(st).second) firstReads.push_back({st, {b->name, at_}});
  }
  void write(const Buffer& b) {
    if (b) written.insert(b->storage.get());
  }

  SourceLoc at_;
  std::set<const StorageNode*> seen_;
};

}  // namespace

void warnNeverWrittenReads(const Kernel& kernel, DiagnosticEngine& diags) {
  ReadWriteCollector c;
  c.visitStmt(kernel.body);
  for (const auto& [storage, read] : c.firstReads) {
    if (c.written.count(storage)) continue;
    const auto& [name, loc] = read;
    std::string via = name == storage->name ? "" : fmt::format(" (through its view '{}')", name);
    diags.warning(loc, fmt::format("'{}' is read{} but never written: its elements hold no value, "
                                   "so what is computed from them is undefined; write it first "
                                   "(a T.copy or T.fill into '{}')",
                                   storage->name, via, storage->name));
  }
}

}  // namespace tilesched::frontend
