// Thread indices in T.SimtVF regions: `tx = T.get_thread_binding()`, as
// upstream's SIMT examples write per-thread code.
//
// What it does: T.get_thread_binding(dim=0) is the index of the running
// thread along dimension `dim` of the region's threads=(x, y, z). A
// statement of the region's body that uses an index (`temp[tx] = ...`,
// `if tx == 0: ...`) is per-thread code: it becomes one T.Parallel over all
// the region's threads (z, y, x, x fastest), so every thread runs it, and
// the region's statements run one after another for all threads. That is the
// order upstream's AutoSync establishes with a thread barrier wherever one
// thread reads what another wrote (`A[tx] = temp[tx ^ 1023]` after
// `temp[tx] = ...`), so a program without a race among its threads computes
// the same values.
// Assumes: the region's body statements are elaborated one at a time into
// the region's own statement list (SimtThreads::top).
// Guarantees: a binding outside a T.SimtVF region, inside a T.Parallel body,
// or of a dimension the region does not have is an error; per-thread code
// holding a loop or a T.Parallel is a "not supported yet" error.
#include <fmt/format.h>

#include "frontend/ElaboratorImpl.h"
#include "ir/Functor.h"

namespace tilesched::frontend {

using namespace ir;
using K = Value::Kind;

namespace {

bool mentionsAny(const Expr& e, const std::vector<Var>& vars) {
  for (const Var& v : vars)
    if (e && mentionsVar(e, v)) return true;
  return false;
}

class ThreadUse : public IRVisitor {
 public:
  explicit ThreadUse(const std::vector<Var>& vars) : vars_(vars) {}
  bool uses = false;
  const StmtNode* loop = nullptr;  // a loop or T.Parallel inside

  void visitExpr(const Expr& e) override { uses |= mentionsAny(e, vars_); }

 protected:
  void visitFor(const ForStmt& s) override {
    if (!loop) loop = &s;
    IRVisitor::visitFor(s);
  }
  void visitParallel(const ParallelStmt& s) override {
    if (!loop) loop = &s;
    IRVisitor::visitParallel(s);
  }

 private:
  const std::vector<Var>& vars_;
};

// A thread index used outside the T.Parallel that runs its statement per thread.
class StrayThreadUse : public IRVisitor {
 public:
  explicit StrayThreadUse(const std::vector<Var>& vars) : vars_(vars) {}
  const StmtNode* stray = nullptr;

  void visitStmt(const Stmt& s) override {
    if (stray || !s) return;
    if (const auto* p = as<ParallelStmt>(s)) {
      for (const Var& v : p->vars)
        for (const Var& t : vars_)
          if (v == t) return;  // a per-thread statement: its uses are bound
    }
    current_ = s.get();
    IRVisitor::visitStmt(s);
  }
  void visitExpr(const Expr& e) override {
    if (!stray && mentionsAny(e, vars_)) stray = current_;
  }

 private:
  const std::vector<Var>& vars_;
  const StmtNode* current_ = nullptr;
};

}  // namespace

void Elaborator::checkThreadUses(const SimtThreads& t, const Stmt& body, SourceLoc loc) {
  if (t.vars.empty()) return;
  StrayThreadUse check(t.vars);
  check.visitStmt(body);
  if (check.stray)
    fail(check.stray->loc.valid() ? check.stray->loc : loc,
         "T.get_thread_binding's index is used inside a nested block of the region, which is not "
         "supported yet; use it in statements of the T.SimtVF region's own body");
}

Value Elaborator::threadBinding(const py::Expr& call, Env& env) {
  checkKeywords(call, "T.get_thread_binding", {"dim"});
  if (!currentCtx_ || !currentCtx_->threads)
    fail(call.loc,
         "T.get_thread_binding is the thread index of a T.SimtVF region: use it inside "
         "'with T.SimtVF(threads=...):'");
  if (currentCtx_->inParallel)
    fail(call.loc,
         "T.get_thread_binding inside a T.Parallel body is not supported yet: there "
         "the loop's own index is the element");
  auto a = positional(call, env);
  int64_t dim = 0;
  if (const py::Keyword* k = keyword(call, "dim")) {
    if (!a.empty()) fail(k->loc, "T.get_thread_binding got dim both by position and as dim=");
    dim = toConstInt(eval(*k->value, env), k->value->loc, "dim");
  } else if (!a.empty()) {
    if (a.size() > 1)
      fail(call.loc, fmt::format("T.get_thread_binding takes (dim=0) ({} given)", a.size()));
    dim = toConstInt(a[0], argLoc(call, 0), "dim");
  }
  SimtThreads& t = *currentCtx_->threads;
  if (dim < 0 || dim >= static_cast<int64_t>(t.dims.size()))
    fail(call.loc, fmt::format("T.SimtVF(threads=...) has {} dimension{}; dim {} does not exist",
                               t.dims.size(), t.dims.size() == 1 ? "" : "s", dim));
  if (t.vars.empty())
    for (size_t d = 0; d < t.dims.size(); ++d)
      t.vars.push_back(makeVar(std::string("thread_") + "xyz"[d], DType::Int32, VarKind::Loop));
  return Value::irExpr(varRef(t.vars[static_cast<size_t>(dim)]));
}

// `tx = T.get_thread_binding()`, `row = tx * 4`: a name for a per-thread
// value is the expression itself (each thread's own), not a scalar the
// scalar unit computes once. A value that reads memory could change before
// its uses, so it is an error here.
bool Elaborator::bindPerThread(const std::string& name, const Value& v, Env& env,
                               const BlockCtx& ctx, SourceLoc loc) {
  if (!ctx.threads || ctx.threads->vars.empty() || v.kind != K::Expr) return false;
  if (!mentionsAny(v.expr, ctx.threads->vars)) return false;
  if (containsLoad(v.expr))
    fail(loc, fmt::format("'{}' names a per-thread value read from memory, which is not "
                          "supported yet; use the expression where it is needed",
                          name));
  env.bind(name, v, loc);
  return true;
}

void Elaborator::wrapPerThread(BlockCtx& ctx, size_t firstNew, SourceLoc loc) {
  SimtThreads* t = ctx.threads;
  if (!t || t->vars.empty() || ctx.out != t->top) return;
  for (size_t i = firstNew; i < ctx.out->size(); ++i) {
    Stmt& s = (*ctx.out)[i];
    if (const auto* p = as<ParallelStmt>(s); p && !p->vars.empty() && p->vars.back() == t->vars[0])
      continue;  // already per-thread (a nested block's statement, wrapped where it was made)
    ThreadUse use(t->vars);
    use.visitStmt(s);
    if (!use.uses) continue;
    if (use.loop) {
      SourceLoc at = use.loop->loc.valid() ? use.loop->loc : loc;
      ctx.out->resize(i);  // the statement is not kept: no second error about it
      fail(at,
           "a loop in code that uses T.get_thread_binding is not supported yet; write the "
           "per-thread work without the loop, or as a T.Parallel over the elements");
    }
    auto p = std::make_shared<ParallelStmt>(s->loc);
    for (size_t d = t->dims.size(); d-- > 0;) {
      p->vars.push_back(t->vars[d]);
      p->extents.push_back(t->dims[d]);
    }
    p->body = s;
    s = p;
  }
}

}  // namespace tilesched::frontend
