// `with T.Stage(k):` in a loop body, as upstream's example_manual_schedule.py
// writes it: the author fixes the stage of the loop's modulo schedule in which
// each statement of the block starts (SPEC §6.4: unit i starts at
// s_i = k_i·II + r_i; T.Stage sets k_i, the scheduler still chooses II, the
// offsets r_i and the versions).
//
// What it does: marks every task and nested loop the block makes (through
// `if`s, not into the nested loop's body nor into a VF region) with
// StmtNode::manualStage = k. `with T.Stage(k), T.SimtVF(...):` wraps the whole
// region, which is one task. Statements outside any T.Stage block stay the
// scheduler's choice (upstream asks for a stage on every task; a partial list
// is ours and documented in docs/language.md).
// Assumes: called for the T.Stage item of a `with` statement in a kernel body.
// Guarantees: the index is a constant in [0, kMaxManualStage]; the block is
// inside a loop body, outside VF regions and T.Parallel bodies, not nested in
// another T.Stage; anything else is an error at the construct. Whether the
// stages can be met is the scheduler's question (a warning there when not).
#include <fmt/format.h>

#include "frontend/ElaboratorImpl.h"

namespace tilesched::frontend {

using namespace ir;

namespace {

constexpr int64_t kMaxManualStage = 63;

// The nodes are the elaborator's own, made for this block and not yet shared
// with any other statement list, so setting the mark in place is safe.
void markStage(const Stmt& s, int32_t stage) {
  if (!s) return;
  switch (s->kind) {
    case StmtKind::Seq:
      for (const auto& c : as<SeqStmt>(s)->stmts) markStage(c, stage);
      return;
    case StmtKind::If:
      markStage(as<IfStmt>(s)->thenBody, stage);
      markStage(as<IfStmt>(s)->elseBody, stage);
      return;
    default:
      const_cast<StmtNode*>(s.get())->manualStage = stage;
  }
}

}  // namespace

void Elaborator::elabStage(const py::Stmt& s, size_t item, Env& env, BlockCtx& ctx) {
  const py::WithItem& with = s.withItems[item];
  const py::Expr& call = *with.context;
  if (call.kind != py::ExprKind::Call) fail(call.loc, "T.Stage needs a stage index: T.Stage(0)");
  checkKeywords(call, "T.Stage", {});
  if (call.elts.size() != 1)
    fail(call.loc, fmt::format("T.Stage takes one stage index ({} given)", call.elts.size()));
  if (with.target) fail(with.target->loc, "'with T.Stage(k)' binds no name: drop the 'as'");
  SourceLoc at = argLoc(call, 0);
  int64_t stage = toConstInt(eval(*call.elts[0], env), at, "the T.Stage index");
  if (stage < 0 || stage > kMaxManualStage)
    fail(at,
         fmt::format("a T.Stage index must be between 0 and {}, got {}", kMaxManualStage, stage));
  if (ctx.inVF)
    fail(call.loc,
         "T.Stage inside a VF region: a region is one task; write 'with T.Stage(k), "
         "T.SimtVF(...):' to give the region a stage");
  if (ctx.inParallel) fail(call.loc, "T.Stage inside a T.Parallel body");
  if (ctx.stage >= 0)
    fail(call.loc, fmt::format("T.Stage blocks cannot be nested: this one is inside T.Stage({}) "
                               "at line {}",
                               ctx.stage, ctx.stageLoc.line));
  bool inLoop =
      std::any_of(scopes_.begin(), scopes_.end(), [](const NameScope& n) { return n.loop; });
  if (!inLoop)
    fail(call.loc,
         "T.Stage fixes a stage of the enclosing loop's schedule: put it inside a loop body");
  std::vector<Stmt> out;
  BlockCtx inner = ctx;
  inner.out = &out;
  inner.stage = stage;
  inner.stageLoc = call.loc;
  if (item + 1 < s.withItems.size())
    elabWith(s, env, inner, item + 1);
  else
    elabScopedBlock(s.body, env, inner, "T.Stage body", s.loc, /*loop=*/false);
  for (const Stmt& st : out) {
    markStage(st, static_cast<int32_t>(stage));
    ctx.out->push_back(st);
  }
}

}  // namespace tilesched::frontend
