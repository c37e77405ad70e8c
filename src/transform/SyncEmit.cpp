// Step 6 of the synchronisation pass (SyncInsertionImpl.h): emission. Every
// kept edge becomes its set_flag / wait_flag (rings pre-set before the
// kernel and drained after it) or barrier at its position; loop slots are
// lowered recursively (a root loop under id pressure as an epoch of its
// own); counter-mode epochs advance after each iteration; the slots are laid
// out with the gaps between them, staged and guarded.
#include "transform/SyncInsertionImpl.h"

#include <fmt/format.h>

namespace tilesched::transform::sync_detail {

using namespace ir;
using analysis::UnitList;

// Can evaluating `e` fail at run time (a division by a value that may be 0)?
bool mayFault(const Expr& e) {
  if (!e) return false;
  if (e->kind == ExprKind::Binary &&
      (e->binOp == BinOp::FloorDiv || e->binOp == BinOp::FloorMod || e->binOp == BinOp::Div)) {
    auto d = asConstInt(e->operands[1]);
    if (!d || *d == 0) return true;
  }
  for (const auto& o : e->operands)
    if (mayFault(o)) return true;
  return false;
}

// A guarded let of pure arithmetic that cannot fault runs unguarded: it has
// no effect but its register, and its uses keep their guard. (Its `if` would
// cost the scalar unit a condition the inline form of the same offset does
// not pay.)
bool unguardedLet(const UnitList& list, const Slot& slot) {
  if (slot.unit < 0) return false;
  const auto& u = list.units[static_cast<size_t>(slot.unit)];
  const auto* a = as<AssignStmt>(u.stmt);
  if (!a || !u.cost.registerOnly || mayFault(a->value) || slot.stmt != u.stmt) return false;
  // Only the one assignment of its variable in the body (`if c: x = 1` /
  // `else: x = 2` must keep both guards).
  int assignments = 0;
  for (const auto& other : list.units)
    if (const auto* b = as<AssignStmt>(other.stmt)) assignments += b->var == a->var;
  return assignments == 1;
}

std::map<int64_t, std::vector<Stmt>> Lowerer::placeEdges(const std::vector<Edge>& kept) {
  std::map<int64_t, std::vector<Stmt>> at;  // position -> statements, in edge order
  auto idExpr = [&](const Edge& e, bool wait) -> Expr {
    if (e.ring == 1) return intImm(e.base);
    Expr c = wait && e.d % e.ring != 0 ? sub(e.clock, intImm(e.d)) : e.clock;
    return add(intImm(e.base), floormod(c, intImm(e.ring)));
  };
  for (const Edge& e : kept) {
    switch (e.kind) {
      case Edge::Flag: {
        at[e.setPos].push_back(
            std::make_shared<SetFlagStmt>(e.src, e.dst, idExpr(e, false), e.loc));
        at[e.waitPos].push_back(
            std::make_shared<WaitFlagStmt>(e.src, e.dst, idExpr(e, true), e.loc));
        if (e.d == 0) break;
        // Pre-set the ids of iterations -d..-1 and drain those of T-d..T-1.
        for (int64_t j = 0; j < e.d; ++j) {
          Expr pre, post;
          if (e.ring == e.d) {
            pre = post = intImm(e.base + j);
          } else {
            // The clock is the loop's ring counter: 0 at the start, its final value at the end.
            pre = intImm(e.base + floorMod(j - e.d, e.ring));
            post = add(intImm(e.base), floormod(add(e.clock, intImm(j - e.d)), intImm(e.ring)));
          }
          kernelPreSets.push_back(std::make_shared<SetFlagStmt>(e.src, e.dst, pre, e.loc));
          kernelDrains.push_back(std::make_shared<WaitFlagStmt>(e.src, e.dst, post, e.loc));
        }
        break;
      }
      case Edge::Barrier:
        at[e.waitPos].push_back(std::make_shared<BarrierStmt>(false, e.src, e.loc));
        break;
      case Edge::BarrierAll:
        at[e.waitPos].push_back(barrierAll(e.loc));
        break;
    }
  }
  return at;
}

CounterEpochs Lowerer::counterEpochs(const ListState& ls) {
  const UnitList& list = ls.list;
  const ForStmt* loop = ls.loop;
  const auto& slots = ls.slots;
  const auto& slotOf = ls.slotOf;
  CounterEpochs epochs;
  for (const auto& sl : plan_.storages) {
    if (!sl.counter || std::find(sl.owners.begin(), sl.owners.end(), loop) == sl.owners.end())
      continue;
    bool unguarded = false;
    std::vector<int64_t> guardedSlots;
    for (const auto& u : list.units) {
      bool touches = false;
      for (const auto& acc : u.accesses) touches |= acc.storage == sl.storage;
      if (!touches) continue;
      int64_t s = slotOf[static_cast<size_t>(u.index)];
      if (slots[static_cast<size_t>(s)].guard)
        guardedSlots.push_back(s);
      else
        unguarded = true;
    }
    Expr counter = varRef(sl.counter);
    if (unguarded || guardedSlots.empty()) {
      epochs.epilogue.push_back(
          std::make_shared<AssignStmt>(sl.counter, add(counter, intImm(1)), loop->loc));
      continue;
    }
    Var act = plan_.freshVar(sl.buffer->name + "_active", DType::Int32);
    epochs.prologue.push_back(std::make_shared<AssignStmt>(act, intImm(0), loop->loc));
    for (int64_t s : guardedSlots)
      epochs.markActive[s].push_back(std::make_shared<AssignStmt>(act, intImm(1), loop->loc));
    epochs.epilogue.push_back(
        std::make_shared<AssignStmt>(sl.counter, add(counter, varRef(act)), loop->loc));
  }
  return epochs;
}

Stmt Lowerer::emit(const ListState& ls, const std::vector<Edge>& kept, const Stmt& body) {
  const UnitList& list = ls.list;
  const ForStmt* loop = ls.loop;
  bool isLoop = ls.isLoop;
  const auto& slots = ls.slots;
  const int64_t numSlots = ls.numSlots;
  bool staged = ls.staged;
  const int64_t maxStage = ls.maxStage;
  const Var& ringCounter = ls.ringCounter;
  std::map<int64_t, std::vector<Stmt>> at = placeEdges(kept);
  CounterEpochs epochs = isLoop ? counterEpochs(ls) : CounterEpochs{};
  const std::vector<Stmt>& epilogue = epochs.epilogue;
  const auto& markActive = epochs.markActive;
  std::vector<Stmt> out = epochs.prologue;
  auto flush = [&](int64_t gap) {
    for (int64_t c = 0; c < kWork; ++c) {
      auto it = at.find(pos(gap, c));
      if (it != at.end()) out.insert(out.end(), it->second.begin(), it->second.end());
    }
  };
  for (int64_t s = 0; s < numSlots; ++s) {
    flush(s);
    const Slot& slot = slots[static_cast<size_t>(s)];
    std::vector<Stmt> work;
    if (slot.unit >= 0 && list.units[static_cast<size_t>(slot.unit)].isLoop()) {
      const auto& unit = list.units[static_cast<size_t>(slot.unit)];
      const auto* inner = as<ForStmt>(slot.stmt);
      bool startsEpoch = epochMode && !isLoop;
      std::vector<Stmt> outerPre, outerDrain;
      if (startsEpoch) {
        // A fresh id space above the root's own flags; rings around this loop only.
        epoch = slot.unit;
        for (Pipe x : kAllPipes)
          for (Pipe y : kAllPipes) {
            auto key = std::make_pair(x, y);
            int64_t reserve = rootReserve.count(key) ? rootReserve[key] : 0;
            auto& rings = ringTotalByEpoch[epoch];
            ringCursor[key] = reserve;
            flagCursor[key] = reserve + (rings.count(key) ? rings[key] : 0);
          }
        std::swap(outerPre, kernelPreSets);
        std::swap(outerDrain, kernelDrains);
      }
      Stmt innerBody = lowerList(*unit.body, inner->body);
      auto f = std::make_shared<ForStmt>(*inner);
      f->body = innerBody;
      if (auto x = extraTrips.find(unit.loop()); x != extraTrips.end())
        f->extent = add(f->extent, intImm(x->second));
      plan_.rebuiltFrom[f.get()] = slot.stmt.get();
      work = {f};
      if (startsEpoch) {
        // Swapped back, outerPre / outerDrain hold this epoch's rings.
        std::swap(outerPre, kernelPreSets);
        std::swap(outerDrain, kernelDrains);
        work.insert(work.begin(), outerPre.begin(), outerPre.end());
        work.insert(work.end(), outerDrain.begin(), outerDrain.end());
        work.push_back(barrierAll(inner->loc));
        epoch = -1;
      }
    } else if (slot.unit >= 0 && isAuthorSync(slot.stmt)) {
      // The author's own flag or barrier (a unit of the list; the fences made
      // here are not): replaced by what is derived here.
    } else if (slot.unmatched && !as<AssignStmt>(slot.stmt) && !as<IfStmt>(slot.stmt) &&
               !as<BarrierStmt>(slot.stmt)) {
      // Not a schedule unit (should not happen): fence it on both sides.
      work = {barrierAll(slot.stmt->loc), slot.stmt, barrierAll(slot.stmt->loc)};
    } else {
      work = {slot.stmt};
    }
    work = stageGuarded(ls, slot, std::move(work));
    if (auto it = markActive.find(s); it != markActive.end())
      work.insert(work.end(), it->second.begin(), it->second.end());
    Stmt w = seq(std::move(work), slot.stmt->loc);
    if (slot.guard && !unguardedLet(list, slot) && ls.stageOfSlot(slot) == 0)
      w = std::make_shared<IfStmt>(slot.guard, w, nullptr, slot.stmt->loc);
    out.push_back(w);
  }
  flush(numSlots);
  out.insert(out.end(), epilogue.begin(), epilogue.end());
  if (ringCounter)
    out.push_back(
        std::make_shared<AssignStmt>(ringCounter, add(varRef(ringCounter), intImm(1)), loop->loc));
  if (staged) extraTrips[loop] = maxStage;
  if (out.empty()) return body;
  return std::make_shared<SeqStmt>(std::move(out), body ? body->loc : SourceLoc{});
}

}  // namespace tilesched::transform::sync_detail
