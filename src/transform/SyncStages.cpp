// Stages (SPEC §6.4) in the synchronisation pass (SyncInsertionImpl.h):
// with enable_offset and a schedule with stages, a unit at stage t runs
// iteration i - t of S more iterations, guarded to the original range.
// chooseStages keeps the loop flat (with a warning) when its body has
// conditions, a dependency would point backwards in the staged body, a
// counter-mode storage is accessed at several stages, or a let read at
// another stage cannot be inlined; stageGuarded shifts and guards a slot.
#include "transform/SyncInsertionImpl.h"

#include <fmt/format.h>

namespace tilesched::transform::sync_detail {

using namespace ir;
using analysis::UnitList;

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
        if (sl.guard || sl.unit < 0) ok = false, why = "its body has conditional code";
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
      // A counter read at several stages would be read at different iterations.
      for (const auto& sl : plan_.storages) {
        if (!ok || !sl.counter) continue;
        std::set<int64_t> stages;
        for (const auto& u : list.units)
          for (const auto& acc : u.accesses)
            if (acc.storage == sl.storage) stages.insert(ls->stage[static_cast<size_t>(u.index)]);
        if (stages.size() > 1)
          ok = false, why = fmt::format(
                          "'{}' uses counter mode (it has {} owners) and is accessed "
                          "at several stages",
                          sl.buffer->name, sl.owners.size());
      }
      // A let read at another stage than its definition must be inlinable.
      if (ok) {
        std::vector<int64_t> stages(ls->stage.begin(), ls->stage.end());
        StagedLets lets(list, stages);
        for (const auto& u : list.units) {
          if (as<AssignStmt>(u.stmt)) continue;
          if (const VarNode* v = lets.blocking(u.stmt, stages[static_cast<size_t>(u.index)])) {
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
  if (staged && slot.unit >= 0 && stageOf[static_cast<size_t>(slot.unit)] > 0) {
    // Stage t: iteration i - t, when it exists.
    int64_t t = stageOf[static_cast<size_t>(slot.unit)];
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
