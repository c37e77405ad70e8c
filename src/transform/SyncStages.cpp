// Stages (SPEC §6.4) in the synchronisation pass (SyncInsertionImpl.h):
// with enable_offset and a schedule with stages, a unit at stage t runs
// iteration i - t of S more iterations, guarded to the original range; a
// unit under an `if` tests the condition of iteration i - t.
// chooseStages keeps the loop flat (with a warning) when a condition of its
// body reads memory, a dependency would point backwards in the staged body, a
// counter-mode storage is accessed at several stages or under a condition, or
// a let read at another stage cannot be inlined; stageGuarded shifts and
// guards a slot.
#include "transform/SyncInsertionImpl.h"

#include <fmt/format.h>

#include "analysis/ExprUtil.h"

namespace tilesched::transform::sync_detail {

using namespace ir;
using analysis::UnitList;

namespace {

// A guard-variable assignment flatten made (`v = cond`, `if g: v = cond`).
bool isGuardAssignment(const Stmt& s, const std::map<const VarNode*, Expr>& defs) {
  if (const auto* br = as<IfStmt>(s)) return !br->elseBody && isGuardAssignment(br->thenBody, defs);
  const auto* a = as<AssignStmt>(s);
  return a && defs.count(a->var.get());
}

}  // namespace

Expr Lowerer::expandGuard(const Expr& guard) const {
  return analysis::substituteVars(guard, [&](const Var& v) -> Expr {
    auto it = guardDefs_.find(v.get());
    return it == guardDefs_.end() ? nullptr : expandGuard(it->second);
  });
}

void Lowerer::chooseStages(ListState& ls) {
  const UnitList& list = ls.list;
  const ForStmt* loop = ls.loop;
  bool isLoop = ls.isLoop;
  const auto& slots = ls.slots;
  const auto& slotOf = ls.slotOf;
  std::vector<int64_t>& stageOf = ls.stageOf;
  int64_t& maxStage = ls.maxStage;
  stageOf.assign(list.units.size(), 0);
  maxStage = 0;
  if (isLoop && loop->enableOffset && schedule) {
    const auto* ls = schedule->find(loop);
    if (ls && ls->enableOffset && ls->maxStage > 0 && ls->stage.size() == list.units.size()) {
      bool ok = true;
      std::string why;
      for (const auto& sl : slots)
        if (sl.unit < 0 && !isGuardAssignment(sl.stmt, guardDefs_))
          ok = false, why = "a condition of its body reads memory";
      for (const auto& dep : list.deps) {
        if (!ok) break;
        int64_t tu = ls->stage[static_cast<size_t>(dep.from)],
                tw = ls->stage[static_cast<size_t>(dep.to)];
        int64_t d = dep.distanceKind == analysis::DistanceKind::Same      ? 0
                    : dep.distanceKind == analysis::DistanceKind::Exact   ? dep.distance
                    : dep.distanceKind == analysis::DistanceKind::Carried ? 1
                    : plan_.find(dep.storage)
                        ? std::max<int64_t>(1, plan_.find(dep.storage)->versions)
                        : 1;
        int64_t staged = d + tw - tu;
        if (staged < 0 || (staged == 0 && slotOf[static_cast<size_t>(dep.from)] >=
                                              slotOf[static_cast<size_t>(dep.to)]))
          ok = false, why = fmt::format("a dependency from line {} to line {} would run backwards",
                                        list.units[static_cast<size_t>(dep.from)].loc.line,
                                        list.units[static_cast<size_t>(dep.to)].loc.line);
      }
      // A counter read at several stages would be read at different
      // iterations; one under a condition marks its epoch active in the
      // iteration the condition held, not in the one its unit runs.
      for (const auto& sl : plan_.storages) {
        if (!ok || !sl.counter) continue;
        std::set<int64_t> stages;
        bool guarded = false;
        for (const auto& u : list.units)
          for (const auto& acc : u.accesses)
            if (acc.storage == sl.storage) {
              stages.insert(ls->stage[static_cast<size_t>(u.index)]);
              guarded |= !u.guard.empty();
            }
        if (stages.size() > 1 || (guarded && ls->maxStage > 0))
          ok = false, why = fmt::format(
                          "'{}' uses counter mode (it has {} owners) and is accessed "
                          "{}",
                          sl.buffer->name, sl.owners.size(),
                          stages.size() > 1 ? "at several stages" : "under a condition");
      }
      // A let read at another stage than its definition must be inlinable.
      if (ok) {
        std::vector<int64_t> stages(ls->stage.begin(), ls->stage.end());
        StagedLets lets(list, stages);
        for (const auto& u : list.units) {
          if (as<AssignStmt>(u.stmt)) continue;
          int64_t t = stages[static_cast<size_t>(u.index)];
          const Slot& slot = slots[static_cast<size_t>(slotOf[static_cast<size_t>(u.index)])];
          Stmt test = slot.guard && t > 0 ? std::make_shared<IfStmt>(expandGuard(slot.guard),
                                                                     u.stmt, nullptr, u.loc)
                                          : u.stmt;
          if (const VarNode* v = lets.blocking(test, t)) {
            ok = false;
            why = fmt::format(
                "'{}' is defined at another stage than its use at line {}, and its "
                "value reads memory or it is assigned more than once",
                v->name, u.loc.line);
            break;
          }
        }
      }
      if (ok) {
        for (size_t u = 0; u < list.units.size(); ++u) stageOf[u] = ls->stage[u];
        maxStage = ls->maxStage;
      } else if (!dryRun) {
        diags_.warning(loop->loc, fmt::format("loop '{}' is lowered without stages: {}",
                                              loop->var->name, why));
      }
    }
  }
  ls.staged = maxStage > 0;
}

std::vector<Stmt> Lowerer::stageGuarded(const ListState& ls, const Slot& slot,
                                        std::vector<Stmt> work) const {
  const UnitList& list = ls.list;
  const ForStmt* loop = ls.loop;
  const auto& stageOf = ls.stageOf;
  bool staged = ls.staged;
  if (int64_t t = ls.stageOfSlot(slot); t > 0) {
    // Stage t: iteration i - t, when it exists, under iteration i - t's
    // condition (emit does not wrap it in the guard variable of iteration i).
    if (slot.guard)
      work = {std::make_shared<IfStmt>(
          expandGuard(slot.guard), seq(std::move(work), slot.stmt->loc), nullptr, slot.stmt->loc)};
    Shift shift(loop->var, t);
    StagedLets lets(list, stageOf);
    for (auto& w : work) w = shift.mutateStmt(lets.inlineAt(w, t));
    Expr local = sub(varRef(loop->var), loop->min);
    Expr valid = binary(BinOp::And, binary(BinOp::GE, local, intImm(t)),
                        binary(BinOp::LT, local, add(loop->extent, intImm(t))));
    work = {std::make_shared<IfStmt>(valid, seq(std::move(work), slot.stmt->loc), nullptr,
                                     slot.stmt->loc)};
  } else if (staged && slot.unit >= 0) {
    Expr local = sub(varRef(loop->var), loop->min);
    work = {std::make_shared<IfStmt>(binary(BinOp::LT, local, loop->extent),
                                     seq(std::move(work), slot.stmt->loc), nullptr,
                                     slot.stmt->loc)};
  }
  return work;
}

}  // namespace tilesched::transform::sync_detail
