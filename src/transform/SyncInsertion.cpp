// Synchronisation (see SyncInsertion.h). Steps, per unit list, called in
// order by lowerList():
//   1. predicate: flatten the list's body into slots (one per unit, plus
//      scalar slots that evaluate `if` conditions into fresh bools);
//   2. candidates: one per dependency (flag, barrier or nothing);
//   3. prune: keep a candidate unless the kept ones already order it
//      (Reach: a shortest-path search over (iteration, position) tokens);
//   4. legalise: size every ring so its wait is ordered before the id's next
//      set, else add a credit flag, else fall back to barrier_all;
//   5. allocate ids per hard event above the enclosing lists' ids;
//   6. emit: recurse into loop slots, then lay out gaps and slots.
#include "transform/SyncInsertion.h"

#include <algorithm>
#include <array>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "ir/Functor.h"
#include "ir/IROperator.h"
#include "transform/VersionModes.h"

namespace tilesched::transform {

using namespace ir;
using analysis::UnitList;

namespace {

// ------------------------------------------------------------ positions

// Within one iteration, gap g (before slot g) holds, in this order: credit
// waits, sets, waits, barriers, credit sets; slot g's work follows.
enum Cat : int64_t {
  kCreditWait = 0,
  kSet = 1,
  kWait = 2,
  kBarrier = 3,
  kCreditSet = 4,
  kWork = 6
};
constexpr int64_t kStride = 8;
int64_t pos(int64_t gap, int64_t cat) { return gap * kStride + cat; }

// A point in time relative to iteration 0: (iteration, position).
struct Tok {
  int64_t k = std::numeric_limits<int64_t>::max();
  int64_t pos = 0;
  bool finite() const { return k != std::numeric_limits<int64_t>::max(); }
  bool operator<(const Tok& o) const { return k != o.k ? k < o.k : pos < o.pos; }
};
constexpr int64_t kMaxIterations = 64;  // search horizon: farther paths are ignored

struct Edge {
  enum Kind { Flag, Barrier, BarrierAll } kind = Flag;
  Pipe src = Pipe::S, dst = Pipe::S;  // Barrier: src is the pipe
  int64_t setPos = 0, waitPos = 0;    // Barrier(All): waitPos is its position
  int64_t d = 0;                      // set at iteration q, consumed at q + d
  bool dKnown = true;                 // counter clocks: only d <= real distance
  bool storageClock = false;          // clocked by a storage's version clock
  Expr clock;                         // clock when ring > 1 or d > 0
  int64_t ring = 1;
  int64_t base = 0;
  bool credit = false;
  SourceLoc loc;
};

bool inOrder(const Target& t, Pipe p) { return t.completesInOrder(p); }

// Earliest tokens per pipe reachable from a start, through the kept edges.
struct Reach {
  std::array<Tok, kNumPipes> ord{},
      comp{};  // ordinary: later work starts after; comp: later sets fire after
};

Reach reach(const std::vector<Edge>& kept, Pipe start, Tok t, bool ordinary, bool inorderStart) {
  Reach r;
  auto relax = [](Tok& slot, Tok v) {
    if (v.k > kMaxIterations) return false;
    if (v < slot) {
      slot = v;
      return true;
    }
    return false;
  };
  auto after = [](Tok from, int64_t p) { return Tok{p > from.pos ? from.k : from.k + 1, p}; };
  r.comp[pipeIndex(start)] = t;
  if (ordinary || inorderStart) r.ord[pipeIndex(start)] = t;
  bool changed = true;
  while (changed) {
    changed = false;
    for (Pipe x : kAllPipes) changed |= relax(r.comp[pipeIndex(x)], r.ord[pipeIndex(x)]);
    for (const Edge& e : kept) {
      switch (e.kind) {
        case Edge::Flag: {
          Tok c = r.comp[pipeIndex(e.src)];
          if (!c.finite() || !e.dKnown) break;
          Tok at = after(c, e.setPos);
          Tok w{at.k + e.d, e.waitPos};
          // A wait on S stalls the scalar unit, so later instructions of every
          // pipe issue after it; the simulator's race detector does not count
          // that as ordering, so neither do we (S orders S only).
          changed |= relax(r.ord[pipeIndex(e.dst)], w);
          break;
        }
        case Edge::Barrier: {
          Tok c = r.comp[pipeIndex(e.src)];
          if (c.finite()) changed |= relax(r.ord[pipeIndex(e.src)], after(c, e.waitPos));
          break;
        }
        case Edge::BarrierAll: {
          Tok best;
          for (Pipe x : kAllPipes)
            if (r.comp[pipeIndex(x)].finite()) {
              Tok a = after(r.comp[pipeIndex(x)], e.waitPos);
              if (a < best) best = a;
            }
          if (best.finite())
            for (Pipe x : kAllPipes) changed |= relax(r.ord[pipeIndex(x)], best);
          break;
        }
      }
    }
  }
  return r;
}

// ------------------------------------------------------------ slots

struct Slot {
  Stmt stmt;               // the leaf, the loop, or a scalar guard assignment
  Expr guard;              // bool var the slot runs under (null: always)
  int unit = -1;           // unit index in the list, -1 for guard assignments
  bool unmatched = false;  // a leaf with no unit: fenced by barrier_all
};

Stmt seq(std::vector<Stmt> stmts, SourceLoc loc = {}) {
  if (stmts.size() == 1) return stmts.front();
  return std::make_shared<SeqStmt>(std::move(stmts), loc);
}

Stmt barrierAll(SourceLoc loc) { return std::make_shared<BarrierStmt>(true, Pipe::S, loc); }

// The author's own set_flag / wait_flag / pipe_barrier: the lowering derives
// every flag the schedule needs and drops these (both would double-set ids).
bool isAuthorSync(const Stmt& s) {
  return s && (s->kind == StmtKind::SetFlag || s->kind == StmtKind::WaitFlag ||
               s->kind == StmtKind::Barrier);
}

// Replaces a loop variable by `var - t` (a stage-t task sees iteration i - t).
class Shift : public IRMutator {
 public:
  Shift(Var v, int64_t t) : var_(std::move(v)), t_(t) {}
  Expr mutateExpr(const Expr& e) override {
    if (e && e->kind == ExprKind::VarRef && e->var == var_) return sub(e, intImm(t_));
    return IRMutator::mutateExpr(e);
  }

 private:
  Var var_;
  int64_t t_;
};

// Lets of a staged loop body (SPEC §6.4): a unit at stage t runs iteration
// i - t, but a let's register holds the value of the iteration its own
// stage runs. A use at another stage than the definition gets the let's
// definition instead (`off` -> `s * 64`, then shifted to `(s - t) * 64`),
// when the let is assigned once in the body and its value reads no memory.
class StagedLets {
 public:
  StagedLets(const UnitList& list, const std::vector<int64_t>& stageOf) : stageOf_(stageOf) {
    std::map<const VarNode*, int> count;
    for (const auto& u : list.units)
      if (const auto* a = as<AssignStmt>(u.stmt)) {
        ++count[a->var.get()];
        defs_[a->var.get()] = Def{a->value, u.index, !containsLoad(a->value)};
      }
    for (const auto& [v, n] : count)
      if (n > 1) defs_[v].pure = false;
  }

  // The first let read at stage `t` that is defined at another stage and
  // cannot be inlined (its name and line), if any.
  const VarNode* blocking(const Stmt& s, int64_t t) const {
    Finder f(*this, t);
    f.visitStmt(s);
    return f.bad;
  }

  // `s` with every let read at stage `t` and defined at another stage
  // replaced by its definition (recursively).
  Stmt inlineAt(const Stmt& s, int64_t t) const {
    Inliner in(*this, t);
    return in.mutateStmt(s);
  }

 private:
  struct Def {
    Expr value;
    int unit = -1;
    bool pure = true;
  };
  const Def* crossStage(const Var& v, int64_t t) const {
    auto it = defs_.find(v.get());
    if (it == defs_.end()) return nullptr;
    return stageOf_[static_cast<size_t>(it->second.unit)] == t ? nullptr : &it->second;
  }

  class Finder : public IRVisitor {
   public:
    Finder(const StagedLets& l, int64_t t) : lets_(l), t_(t) {}
    const VarNode* bad = nullptr;
    void visitExpr(const Expr& e) override {
      if (e && e->kind == ExprKind::VarRef && !bad)
        if (const Def* d = lets_.crossStage(e->var, t_)) {
          if (!d->pure)
            bad = e->var.get();
          else
            visitExpr(d->value);
        }
      IRVisitor::visitExpr(e);
    }

   private:
    const StagedLets& lets_;
    int64_t t_;
  };

  class Inliner : public IRMutator {
   public:
    Inliner(const StagedLets& l, int64_t t) : lets_(l), t_(t) {}
    Expr mutateExpr(const Expr& e) override {
      if (e && e->kind == ExprKind::VarRef)
        if (const Def* d = lets_.crossStage(e->var, t_); d && d->pure) return mutateExpr(d->value);
      return IRMutator::mutateExpr(e);
    }

   private:
    const StagedLets& lets_;
    int64_t t_;
  };

  const std::vector<int64_t>& stageOf_;
  std::map<const VarNode*, Def> defs_;
};

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

class Lowerer {
 public:
  Lowerer(const analysis::KernelAnalysis& a, LoweringPlan& p, const Target& t, DiagnosticEngine& d,
          SyncStats& s)
      : analysis_(a), plan_(p), target_(t), diags_(d), stats_(s) {}

  using IdBase = std::map<std::pair<Pipe, Pipe>, int64_t>;

  // Lowers the body of `list` (the kernel root or a loop body).
  Stmt lowerList(const UnitList& list, const Stmt& body);

  const schedule::KernelSchedule* schedule = nullptr;
  std::map<const ForStmt*, int64_t> extraTrips;  // staged loops: S more iterations
  // A dry run only measures the ids every list needs (ringTotal, flagTotal).
  bool dryRun = false;
  // Under id pressure, each loop of the kernel root is an *epoch*: its rings
  // are pre-set just before it and drained just after it, followed by
  // pipe_barrier("ALL"), so the next epoch may reuse the same ids.
  bool epochMode = false;
  int epoch = -1;                          // root unit of the current epoch, -1 outside
  std::map<int, IdBase> ringTotalByEpoch;  // dry run: ring ids per epoch (-1: kernel-wide)
  std::map<int, IdBase> flagTotalByEpoch;  // dry run: per-iteration flag ids per epoch
  IdBase rootReserve;                      // epoch mode: ids of the root list's own flags
  IdBase ringTotal;                        // ids reserved for rings, kernel-wide (from the dry run)
  IdBase ringCursor;                       // next free ring id
  IdBase flagCursor;                       // next free id of per-iteration flags (above every ring)
  // Rings live for the whole kernel: pre-set at its start, drained at its end,
  // so their state carries from one execution of a loop to the next.
  std::vector<Stmt> kernelPreSets, kernelDrains;
  std::vector<Var> loopCounters;  // continuous per-loop ring clocks, zero at kernel start
  std::map<const ForStmt*, std::vector<const ForStmt*>> chains;  // enclosing loops of each loop

 private:
  const analysis::KernelAnalysis& analysis_;

  // A dependency this loop carries across its iterations through a storage
  // owned by a loop nested in both endpoints (a cross-level dependence): the
  // owner's rings are kernel-wide and clocked continuously (flattened
  // iteration, counter or ring counter), so they already order the last
  // epochs of one iteration's owner before the first ones of the next; an
  // event here would be redundant (upstream test_sync_dependencies). Not
  // when the owner is staged: its rings run on its own, restarting clock.
  bool orderedByInnerRings(const analysis::UnitList& list, const analysis::Dependency& dep) const {
    if (!list.loop() || dep.kind == analysis::DepKind::RAW ||
        dep.distanceKind != analysis::DistanceKind::Carried)
      return false;
    const auto* own = analysis_.ownership.find(dep.storage);
    if (!own || !own->eligible || own->manual || own->optOut) return false;
    if (!analysis::innerCarrier(list, dep, *own)) return false;
    const analysis::Unit* from = analysis::ownerUnitOnPath(list, dep.fromPath, *own);
    const auto* owner = as<ForStmt>(from->stmt);
    if (!owner || owner->enableOffset) return false;
    const auto* ls = schedule ? schedule->find(owner) : nullptr;
    return !ls || ls->maxStage == 0 || !ls->enableOffset;
  }
  LoweringPlan& plan_;
  const Target& target_;
  DiagnosticEngine& diags_;
  SyncStats& stats_;

  void flatten(const Stmt& s, const Expr& guard, const UnitList& list, std::vector<Slot>& out);
  Pipe accessPipe(const UnitList& list, int unit, const std::vector<int>& path,
                  const Storage& storage, bool scalarOperand) const;
};

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

Stmt Lowerer::lowerList(const UnitList& list, const Stmt& body) {
  const ForStmt* loop = list.loop();
  bool isLoop = loop != nullptr;
  Expr loopClock = isLoop ? sub(varRef(loop->var), loop->min) : nullptr;

  // 1. Predicate.
  std::vector<Slot> slots;
  flatten(body, nullptr, list, slots);
  std::vector<int64_t> slotOf(list.units.size(), -1);
  for (size_t i = 0; i < slots.size(); ++i)
    if (slots[i].unit >= 0) slotOf[static_cast<size_t>(slots[i].unit)] = static_cast<int64_t>(i);
  for (size_t u = 0; u < slotOf.size(); ++u)
    TS_INTERNAL(slotOf[u] >= 0, fmt::format("unit {} of a list has no statement", u));
  const int64_t numSlots = static_cast<int64_t>(slots.size());

  // Stages (SPEC §6.4): with enable_offset, a unit at stage t runs iteration
  // i - t of S more iterations, guarded to the original range. Kept flat
  // (with a warning) when the body has conditions or a dependency would point
  // backwards in the staged body.
  std::vector<int64_t> stageOf(list.units.size(), 0);
  int64_t maxStage = 0;
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
  bool staged = maxStage > 0;
  auto trips = isLoop ? asConstInt(loop->extent) : std::nullopt;
  bool singleTrip = trips && *trips <= 1;

  // 2. Candidates.
  struct Cand {
    Edge edge;
    int64_t span;
    int64_t producerSlot, consumerSlot;
  };
  std::vector<Cand> cands;
  // Owner exclusions (sibling owners of one storage) order the two units as
  // written: every conflicting access pair becomes a dependency, forward in
  // the iteration and, in a loop, from the second unit to the first one
  // iteration later.
  std::vector<analysis::Dependency> deps = list.deps;
  for (const auto& ex : list.exclusions) {
    for (const auto& x : list.units[static_cast<size_t>(ex.a)].accesses) {
      if (x.storage != ex.storage) continue;
      for (const auto& y : list.units[static_cast<size_t>(ex.b)].accesses) {
        if (y.storage != ex.storage || (!x.isWrite() && !y.isWrite())) continue;
        analysis::Dependency d;
        d.kind = x.isWrite() ? (y.isWrite() ? analysis::DepKind::WAW : analysis::DepKind::RAW)
                             : analysis::DepKind::WAR;
        d.storage = ex.storage;
        d.from = ex.a;
        d.to = ex.b;
        d.fromPath = {ex.a};
        d.fromPath.insert(d.fromPath.end(), x.path.begin(), x.path.end());
        d.toPath = {ex.b};
        d.toPath.insert(d.toPath.end(), y.path.begin(), y.path.end());
        d.fromScalar = x.scalarOperand;
        d.toScalar = y.scalarOperand;
        deps.push_back(d);
        if (!isLoop) continue;
        // The same pair the other way round, one iteration later: a read
        // after a write is now a write after that read, and the other way
        // (the kind picks the leaves the expansion below orders; keeping
        // RAW here ordered the reader's writes instead of its read, random
        // seed 5405).
        std::swap(d.from, d.to);
        std::swap(d.fromPath, d.toPath);
        std::swap(d.fromScalar, d.toScalar);
        if (d.kind == analysis::DepKind::RAW)
          d.kind = analysis::DepKind::WAR;
        else if (d.kind == analysis::DepKind::WAR)
          d.kind = analysis::DepKind::RAW;
        d.distanceKind = analysis::DistanceKind::Carried;
        d.distance = 1;
        deps.push_back(d);
      }
    }
  }
  // A dependency on a loop unit names one of its leaf tasks; every leaf that
  // makes an access of the right kind must be ordered (they may sit on
  // different pipes), so the dependency is expanded over all of them.
  // (A leaf is a path and whether the access is a scalar operand read.)
  using Leaf = std::pair<std::vector<int>, bool>;
  auto leafPaths = [&](int unit, const ir::Storage& st, bool writes) {
    std::vector<Leaf> paths;
    for (const auto& acc : list.units[static_cast<size_t>(unit)].accesses) {
      if (acc.storage != st || (writes && !acc.isWrite())) continue;
      if (!writes && acc.isWrite()) continue;
      std::vector<int> path{unit};
      path.insert(path.end(), acc.path.begin(), acc.path.end());
      paths.emplace_back(path, acc.scalarOperand);
    }
    return paths;
  };
  {
    std::vector<analysis::Dependency> expanded;
    for (const auto& dep : deps) {
      bool loops = dep.storage && (list.units[static_cast<size_t>(dep.from)].isLoop() ||
                                   list.units[static_cast<size_t>(dep.to)].isLoop());
      if (!loops) {
        expanded.push_back(dep);
        continue;
      }
      bool fromWrites = dep.kind != analysis::DepKind::WAR;
      bool toWrites = dep.kind != analysis::DepKind::RAW;
      auto froms = leafPaths(dep.from, dep.storage, fromWrites);
      auto tos = leafPaths(dep.to, dep.storage, toWrites);
      if (froms.empty()) froms.emplace_back(dep.fromPath, dep.fromScalar);
      if (tos.empty()) tos.emplace_back(dep.toPath, dep.toScalar);
      for (const auto& f : froms)
        for (const auto& t : tos) {
          analysis::Dependency d = dep;
          std::tie(d.fromPath, d.fromScalar) = f;
          std::tie(d.toPath, d.toScalar) = t;
          expanded.push_back(d);
        }
    }
    deps = std::move(expanded);
  }
  for (const auto& dep : deps) {
    if (!dep.storage) continue;  // scalar values are captured when an instruction issues
    if (orderedByInnerRings(list, dep)) continue;
    Pipe p = accessPipe(list, dep.from, dep.fromPath, dep.storage, dep.fromScalar);
    Pipe q = accessPipe(list, dep.to, dep.toPath, dep.storage, dep.toScalar);
    int64_t a = slotOf[static_cast<size_t>(dep.from)], b = slotOf[static_cast<size_t>(dep.to)];
    Edge e;
    e.src = p;
    e.dst = q;
    e.loc = list.units[static_cast<size_t>(dep.to)].loc;
    e.clock = loopClock;
    const StorageLowering* sl = plan_.find(dep.storage);
    if (!isLoop) {
      e.d = 0;
    } else {
      switch (dep.distanceKind) {
        case analysis::DistanceKind::Same:
          e.d = 0;
          break;
        case analysis::DistanceKind::Versioned:
          e.d = sl ? std::max<int64_t>(1, sl->mode ? sl->versions : 1) : 1;
          if (sl && sl->mode) {
            auto c = sl->clock.find(loop);
            if (c != sl->clock.end()) {
              e.clock = c->second;
              e.storageClock = true;
              e.dKnown = *sl->mode == VersionMode::Iteration;
            }
          }
          break;
        case analysis::DistanceKind::Carried:
          e.d = 1;
          break;
        case analysis::DistanceKind::Exact:
          e.d = dep.distance;
          break;
      }
    }
    if (staged) {
      // Distances count staged iterations; rings use the loop's own clock.
      e.d += stageOf[static_cast<size_t>(dep.to)] - stageOf[static_cast<size_t>(dep.from)];
      e.clock = loopClock;
      e.storageClock = false;
      e.dKnown = true;
    }
    if (e.d == 0 && a >= b) continue;  // not a forward dependency within one iteration
    // A loop of one trip (or none) has no later iteration to protect: its
    // body runs once per entry, and what crosses entries is the enclosing
    // list's dependency (upstream test_flag_allocation: no reverse flag).
    if (e.d > 0 && isLoop && !staged && singleTrip) continue;
    if (p == q) {
      if (inOrder(target_, p)) continue;
      e.kind = Edge::Barrier;
      e.waitPos = pos(b, kBarrier);
      e.setPos = pos(a, kWork);
    } else {
      e.setPos = pos(a + 1, kSet);
      e.waitPos = pos(b, kWait);
    }
    cands.push_back(Cand{e, e.d * (numSlots + 1) + (b - a), a, b});
  }
  std::stable_sort(cands.begin(), cands.end(),
                   [](const Cand& x, const Cand& y) { return x.span < y.span; });

  // 3. Prune.
  std::vector<Edge> kept;
  for (auto& c : cands) {
    int64_t a = c.producerSlot, b = c.consumerSlot;
    Reach r = reach(kept, c.edge.src, Tok{0, pos(a, kWork)}, false, inOrder(target_, c.edge.src));
    Tok need{c.edge.d, pos(b, kWork)};
    if (r.ord[pipeIndex(c.edge.dst)] < need) continue;
    // Duplicates of a kept flag (same endpoints and pipes, larger distance) are implied above.
    kept.push_back(c.edge);
  }

  // 4. Legalise (loops only: the root runs once).
  bool warned = false;
  auto fallBack = [&](Edge& e, const std::string& why) {
    e.kind = Edge::BarrierAll;
    e.waitPos = pos(e.waitPos / kStride, kBarrier);
    if (!warned)
      diags_.warning(e.loc, fmt::format("{}; pipe_barrier(\"ALL\") synchronises this dependency "
                                        "instead (slower); fewer versions avoid it",
                                        why));
    warned = true;
  };
  // A one-trip loop outside every other loop runs its body once per kernel,
  // like the root: no flag of it is set twice, nothing to legalise.
  bool runsOnce = singleTrip && !staged && chains.count(loop) && chains.at(loop).size() == 1;
  if (isLoop && !runsOnce) {
    size_t n = kept.size();
    for (size_t i = 0; i < n; ++i) {
      Edge& e = kept[i];
      if (e.kind != Edge::Flag) continue;
      Reach r = reach(kept, e.dst, Tok{0, e.waitPos}, true, true);
      Tok t = std::min(r.ord[pipeIndex(e.src)], r.comp[pipeIndex(e.src)]);
      int64_t need = std::numeric_limits<int64_t>::max();
      if (t.finite()) need = e.d + t.k + (t.pos < e.setPos ? 0 : 1);
      int64_t ring = std::max<int64_t>({need, e.d, 1});
      bool fits =
          t.finite() && ring <= target_.eventIdsPerHardEvent && (!e.storageClock || ring == e.d);
      if (fits) {
        e.ring = ring;
        if (ring > e.d && e.storageClock) TS_INTERNAL(false, "storage-clocked ring grew");
        continue;
      }
      // A credit flag back from after the wait to before the set.
      Edge c;
      c.credit = true;
      c.src = e.dst;
      c.dst = e.src;
      c.loc = e.loc;
      c.clock = loopClock;
      c.setPos = pos(e.waitPos / kStride, kCreditSet);
      c.waitPos = pos(e.setPos / kStride, kCreditWait);
      if (e.d == 0) {
        e.ring = 1;
        c.d = 1;
        c.ring = 1;
      } else if (e.waitPos / kStride < e.setPos / kStride) {
        e.ring = e.d;
        c.d = 0;
        c.ring = e.d;
      } else {
        fallBack(e, fmt::format("no legal flag ring orders this dependency ({} -> {})",
                                pipeName(e.src), pipeName(e.dst)));
        continue;
      }
      kept.push_back(c);
    }
  }

  // Rings of more than one id that are not clocked by a storage use a clock
  // that continues from one execution of the loop to the next (their state
  // outlives the loop): a per-loop counter advanced after every iteration.
  // The flattened iteration number serves when the nest is affine and the
  // clock's final value is not needed.
  Var ringCounter;
  Expr continuous =
      isLoop && !staged ? continuousLoopClock(chains.at(plan_.origin(loop))) : nullptr;
  for (Edge& e : kept) {
    if (e.kind != Edge::Flag || e.ring <= 1 || e.storageClock) continue;
    // Partial rings (d < ring) drain by the clock's final value: a counter.
    bool partial = e.d > 0 && e.ring > e.d;
    if (continuous && !partial) {
      e.clock = continuous;
      continue;
    }
    if (!ringCounter) ringCounter = plan_.freshVar(loop->var->name + "_ring", DType::Int32);
    e.clock = varRef(ringCounter);
  }
  if (ringCounter) loopCounters.push_back(ringCounter);

  // 5. Allocate ids per hard event: rings (d >= 1) kernel-wide from 0, the
  // per-iteration flags (d = 0) above every ring.
  for (Edge& e : kept) {
    if (e.kind != Edge::Flag) continue;
    auto key = std::make_pair(e.src, e.dst);
    bool isRing = e.d > 0;
    if (dryRun) {
      (isRing ? ringTotalByEpoch : flagTotalByEpoch)[epochMode ? epoch : -1][key] += e.ring;
      continue;
    }
    // Ids are never shared between lists: a flag's last wait in one list is
    // not ordered before another list's first set of the same id.
    int64_t base = isRing ? ringCursor[key]
                   : epochMode
                       ? flagCursor[key]
                       : std::max(flagCursor[key], ringTotal.count(key) ? ringTotal[key] : 0);
    if (base + e.ring > target_.eventIdsPerHardEvent) {
      fallBack(e, fmt::format("hard event {} needs more than its {} event ids here",
                              hardEventName(e.src, e.dst), target_.eventIdsPerHardEvent));
      continue;
    }
    e.base = base;
    (isRing ? ringCursor[key] : flagCursor[key]) = base + e.ring;
    std::string name = hardEventName(e.src, e.dst);
    stats_.eventIds[name] = std::max(stats_.eventIds[name], base + e.ring);
  }

  if (epochMode && !isLoop) rootReserve = flagCursor;

  // 6. Emit.
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

  // Counter-mode epochs owned by this loop.
  std::vector<Stmt> prologue, epilogue;
  std::map<int64_t, std::vector<Stmt>> markActive;  // slot -> `act = 1` statements
  if (isLoop) {
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
        epilogue.push_back(
            std::make_shared<AssignStmt>(sl.counter, add(counter, intImm(1)), loop->loc));
        continue;
      }
      Var act = plan_.freshVar(sl.buffer->name + "_active", DType::Int32);
      prologue.push_back(std::make_shared<AssignStmt>(act, intImm(0), loop->loc));
      for (int64_t s : guardedSlots)
        markActive[s].push_back(std::make_shared<AssignStmt>(act, intImm(1), loop->loc));
      epilogue.push_back(
          std::make_shared<AssignStmt>(sl.counter, add(counter, varRef(act)), loop->loc));
    }
  }

  std::vector<Stmt> out = prologue;
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
    if (auto it = markActive.find(s); it != markActive.end())
      work.insert(work.end(), it->second.begin(), it->second.end());
    Stmt w = seq(std::move(work), slot.stmt->loc);
    if (slot.guard && !unguardedLet(list, slot))
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
  stats.setFlag = stats.waitFlag = stats.pipeBarrier = 0;
  countSyncs(out.body, stats);
  return out;
}

}  // namespace tilesched::transform
