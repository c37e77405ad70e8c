// Serial lowering (see SerialLowering.h): one mutator that wraps every leaf
// instruction as `{instr; barrier_all}` and flattens the resulting sequences.
#include "transform/SerialLowering.h"

#include "ir/Functor.h"
#include "ir/IROperator.h"

namespace tilesched::transform {

using namespace ir;

namespace {

Stmt barrierAll(SourceLoc loc) { return std::make_shared<BarrierStmt>(true, Pipe::S, loc); }

// Instructions after which the serial schedule drains every pipe.
bool needsBarrierAfter(const Stmt& s) {
  switch (s->kind) {
    case StmtKind::Copy:
    case StmtKind::Gemm:
    case StmtKind::Fill:
    case StmtKind::Reduce:
    case StmtKind::Parallel:
    case StmtKind::VFRegion:
    case StmtKind::Store:
      return true;
    case StmtKind::Assign:
      // A pure register assignment touches no memory: nothing to order.
      return containsLoad(as<AssignStmt>(s)->value);
    default:
      return false;
  }
}

Stmt prependBarrier(const Stmt& body, SourceLoc loc) {
  std::vector<Stmt> stmts{barrierAll(loc)};
  if (const auto* seq = as<SeqStmt>(body))
    stmts.insert(stmts.end(), seq->stmts.begin(), seq->stmts.end());
  else if (body)
    stmts.push_back(body);
  return std::make_shared<SeqStmt>(std::move(stmts), loc);
}

class Serialize : public IRMutator {
 public:
  Stmt mutateStmt(const Stmt& s) override {
    if (!s) return s;
    if (needsBarrierAfter(s))
      return std::make_shared<SeqStmt>(std::vector<Stmt>{s, barrierAll(s->loc)}, s->loc);
    return IRMutator::mutateStmt(s);
  }

 protected:
  Stmt mutateSeq(const SeqStmt& s, const Stmt&) override {
    std::vector<Stmt> out;
    for (const auto& c : s.stmts) {
      Stmt m = mutateStmt(c);
      if (const auto* seq = as<SeqStmt>(m); seq && m != c)
        out.insert(out.end(), seq->stmts.begin(), seq->stmts.end());
      else
        out.push_back(m);
    }
    return std::make_shared<SeqStmt>(std::move(out), s.loc);
  }
  // A loop whose bounds read memory: the scalar unit reads them once, before
  // the first iteration. The barrier at the top of the body orders that read
  // before the body's writes; the one after the loop orders it before what
  // follows even when the loop runs zero times.
  Stmt mutateFor(const ForStmt& s, const Stmt& self) override {
    Stmt body = mutateStmt(s.body);
    bool reads = containsLoad(s.min) || containsLoad(s.extent);
    if (reads) body = prependBarrier(body, s.loc);
    if (body == s.body) return self;
    auto f = std::make_shared<ForStmt>(s);
    f->body = body;
    if (!reads) return f;
    return std::make_shared<SeqStmt>(std::vector<Stmt>{f, barrierAll(s.loc)}, s.loc);
  }
  // A condition that reads memory: a barrier at the top of each branch, and
  // one after the whole `if` so that the read is ordered before later writes
  // on every path, the untaken branch of an `if` without `else` included.
  Stmt mutateIf(const IfStmt& s, const Stmt& self) override {
    Stmt t = mutateStmt(s.thenBody);
    Stmt e = s.elseBody ? mutateStmt(s.elseBody) : nullptr;
    bool reads = containsLoad(s.cond);
    if (reads) {
      t = prependBarrier(t, s.loc);
      if (e) e = prependBarrier(e, s.loc);
    }
    if (t == s.thenBody && e == s.elseBody) return self;
    auto out = std::make_shared<IfStmt>(s.cond, t, e, s.loc);
    out->coreScope = s.coreScope;
    if (!reads) return out;
    return std::make_shared<SeqStmt>(std::vector<Stmt>{out, barrierAll(s.loc)}, s.loc);
  }
};

}  // namespace

Kernel lowerSerial(const Kernel& kernel) {
  Kernel out = kernel;
  Serialize pass;
  out.body = pass.mutateStmt(kernel.body);
  out.lowered = true;
  return out;
}

}  // namespace tilesched::transform
