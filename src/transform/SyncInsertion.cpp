// Synchronisation (see SyncInsertion.h): the entry point, the dry run that
// measures the event ids under pressure, and per unit list the predicate
// (step 1) and Lowerer::lowerList, which calls the steps in order; each
// further step is its own file (SyncInsertionImpl.h lists them).
#include "transform/SyncInsertion.h"

#include <tuple>

#include <fmt/format.h>

#include "transform/SyncInsertionImpl.h"
#include "transform/VersionModes.h"

namespace tilesched::transform::sync_detail {

using namespace ir;
using analysis::UnitList;

void Lowerer::flatten(const Stmt& s, const Expr& guard, const UnitList& list,
                      std::vector<Slot>& out) {
  if (!s) return;
  if (const auto* sq = as<SeqStmt>(s)) {
    for (const auto& c : sq->stmts) flatten(c, guard, list, out);
    return;
  }
  if (const auto* br = as<IfStmt>(s)) {
    // A condition that reads memory is fenced on both sides: its scalar read
    // must see every earlier write, and must complete before any later pipe
    // overwrites what it read (a WAR the unit graph does not see: the
    // condition is no unit), taken branch or not.
    bool readsMemory = containsLoad(br->cond);
    if (readsMemory) out.push_back(Slot{barrierAll(br->loc), nullptr, -1});
    Var v = plan_.freshVar("cond", DType::Bool);
    Expr cond = br->cond;
    if (cond->dtype != DType::Bool) cond = binary(BinOp::NE, cond, intImm(0, cond->dtype));
    guardDefs_[v.get()] = guard ? binary(BinOp::And, guard, cond) : cond;
    if (guard) {
      out.push_back(Slot{std::make_shared<AssignStmt>(v, boolImm(false), br->loc), nullptr, -1});
      out.push_back(
          Slot{std::make_shared<IfStmt>(guard, std::make_shared<AssignStmt>(v, cond, br->loc),
                                        nullptr, br->loc),
               nullptr, -1});
    } else {
      out.push_back(Slot{std::make_shared<AssignStmt>(v, cond, br->loc), nullptr, -1});
    }
    if (readsMemory) out.push_back(Slot{barrierAll(br->loc), nullptr, -1});
    flatten(br->thenBody, varRef(v), list, out);
    if (br->elseBody) {
      Var w = plan_.freshVar("cond", DType::Bool);
      Expr notV = unary(UnOp::Not, varRef(v));
      Expr value = guard ? binary(BinOp::And, guard, notV) : notV;
      guardDefs_[w.get()] = value;
      out.push_back(Slot{std::make_shared<AssignStmt>(w, value, br->loc), nullptr, -1});
      flatten(br->elseBody, varRef(w), list, out);
    }
    return;
  }
  Slot slot{s, guard, -1};
  const StmtNode* original = plan_.origin(s.get());
  for (const auto& u : list.units)
    if (u.stmt.get() == original) slot.unit = u.index;
  if (slot.unit < 0) slot.unmatched = true;
  out.push_back(std::move(slot));
}

Pipe Lowerer::accessPipe(const UnitList& list, int unit, const std::vector<int>& path,
                         const Storage& storage, bool scalarOperand) const {
  // A loop bound, region start or fill value is loaded by the scalar unit
  // when the instruction issues.
  if (scalarOperand) return Pipe::S;
  const analysis::Unit* u = &list.units[static_cast<size_t>(path.empty() ? unit : path.front())];
  for (size_t i = 1; i < path.size() && u->body; ++i)
    u = &u->body->units[static_cast<size_t>(path[i])];
  if (const auto* g = as<GemmStmt>(u->stmt); g && u->cost.secondPipe)
    return storage && storage->scope == MemScope::L1 ? *u->cost.secondPipe : u->cost.pipe;
  return u->cost.pipe;
}

ListState Lowerer::predicate(const UnitList& list, const Stmt& body) {
  ListState ls(list);
  ls.loop = list.loop();
  ls.isLoop = ls.loop != nullptr;
  ls.loopClock = ls.isLoop ? sub(varRef(ls.loop->var), ls.loop->min) : nullptr;
  std::vector<Slot>& slots = ls.slots;
  std::vector<int64_t>& slotOf = ls.slotOf;
  // 1. Predicate.
  flatten(body, nullptr, list, slots);
  slotOf.assign(list.units.size(), -1);
  for (size_t i = 0; i < slots.size(); ++i)
    if (slots[i].unit >= 0) slotOf[static_cast<size_t>(slots[i].unit)] = static_cast<int64_t>(i);
  for (size_t u = 0; u < slotOf.size(); ++u)
    TS_INTERNAL(slotOf[u] >= 0, fmt::format("unit {} of a list has no statement", u));
  ls.numSlots = static_cast<int64_t>(slots.size());
  auto trips = ls.isLoop ? asConstInt(ls.loop->extent) : std::nullopt;
  ls.singleTrip = trips && *trips <= 1;
  return ls;
}

Stmt Lowerer::lowerList(const UnitList& list, const Stmt& body) {
  ListState ls = predicate(list, body);
  chooseStages(ls);
  std::vector<Edge> kept = prune(candidates(ls));
  legalise(ls, kept);
  allocateIds(ls, kept);
  if (epochMode && !ls.isLoop) rootReserve = flagCursor;
  return emit(ls, kept, body);
}

namespace {

void countSyncs(const Stmt& s, SyncStats& stats) {
  if (!s) return;
  switch (s->kind) {
    case StmtKind::Seq:
      for (const auto& c : as<SeqStmt>(s)->stmts) countSyncs(c, stats);
      break;
    case StmtKind::For:
      countSyncs(as<ForStmt>(s)->body, stats);
      break;
    case StmtKind::If:
      countSyncs(as<IfStmt>(s)->thenBody, stats);
      countSyncs(as<IfStmt>(s)->elseBody, stats);
      break;
    case StmtKind::SetFlag:
      ++stats.setFlag;
      break;
    case StmtKind::WaitFlag:
      ++stats.waitFlag;
      break;
    case StmtKind::Barrier:
      ++stats.pipeBarrier;
      break;
    default:
      break;
  }
}

}  // namespace

}  // namespace tilesched::transform::sync_detail

namespace tilesched::transform {

using namespace ir;
using sync_detail::Lowerer;

Kernel insertSynchronization(const Kernel& kernel, const analysis::KernelAnalysis& analysis,
                             const schedule::KernelSchedule& schedule, LoweringPlan& plan,
                             const Target& target, DiagnosticEngine& diags, SyncStats& stats) {
  Kernel out = kernel;
  // Dry run: how many ids each hard event needs kernel-wide.
  std::map<const ForStmt*, std::vector<const ForStmt*>> chains;
  for (const auto& [loop, chain] : loopChains(kernel.body)) chains[plan.origin(loop)] = chain;
  auto dryRun = [&](bool epochs) {
    LoweringPlan scratchPlan = plan;
    DiagnosticEngine scratchDiags;
    SyncStats scratchStats;
    Lowerer dry(analysis, scratchPlan, target, scratchDiags, scratchStats);
    dry.dryRun = true;
    dry.epochMode = epochs;
    dry.schedule = &schedule;
    dry.chains = chains;
    dry.lowerList(analysis.root, kernel.body);
    return std::make_pair(dry.ringTotalByEpoch, dry.flagTotalByEpoch);
  };
  auto [rings, flags] = dryRun(false);
  bool pressure = false;
  for (Pipe x : kAllPipes)
    for (Pipe y : kAllPipes) {
      auto key = std::make_pair(x, y);
      int64_t need =
          (rings[-1].count(key) ? rings[-1][key] : 0) + (flags[-1].count(key) ? flags[-1][key] : 0);
      pressure |= need > target.eventIdsPerHardEvent;
    }
  int rootLoops = 0;
  for (const auto& u : analysis.root.units) rootLoops += u.isLoop();
  bool epochs = pressure && rootLoops > 1;
  if (epochs) std::tie(rings, flags) = dryRun(true);

  Lowerer lowerer(analysis, plan, target, diags, stats);
  lowerer.ringTotal = rings[-1];
  lowerer.ringTotalByEpoch = rings;
  lowerer.epochMode = epochs;
  lowerer.schedule = &schedule;
  lowerer.chains = chains;
  Stmt body = lowerer.lowerList(analysis.root, kernel.body);
  std::vector<Stmt> stmts;
  // Counters start at zero with the kernel; rings are pre-set once.
  for (const auto& sl : plan.storages)
    if (sl.counter)
      stmts.push_back(std::make_shared<AssignStmt>(sl.counter, intImm(0), kernel.loc));
  for (const auto& v : lowerer.loopCounters)
    stmts.push_back(std::make_shared<AssignStmt>(v, intImm(0), kernel.loc));
  stmts.insert(stmts.end(), lowerer.kernelPreSets.begin(), lowerer.kernelPreSets.end());
  stmts.push_back(body);
  stmts.insert(stmts.end(), lowerer.kernelDrains.begin(), lowerer.kernelDrains.end());
  out.body = std::make_shared<SeqStmt>(std::move(stmts), kernel.loc);
  out.lowered = true;
  stats.setFlag = stats.waitFlag = stats.pipeBarrier = 0;
  sync_detail::countSyncs(out.body, stats);
  return out;
}

}  // namespace tilesched::transform
