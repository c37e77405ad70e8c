// Private to the synchronisation pass (SyncInsertion.h): the values its
// steps hand on, and the Lowerer whose member functions the steps are, one
// file each, called in order by Lowerer::lowerList (SyncInsertion.cpp):
//   1. predicate (SyncInsertion.cpp): flatten the list's body into slots (one
//      per unit, plus scalar slots that evaluate `if` conditions into fresh
//      bools); then the stages (SyncStages.cpp) a staged loop runs its units at;
//   2. candidates (SyncCandidates.cpp): one per dependency (flag, barrier or
//      nothing);
//   3. prune (SyncPrune.cpp): keep a candidate unless the kept ones already
//      order it (reach: a shortest-path search over (iteration, position)
//      tokens through happens-before);
//   4. legalise (SyncLegalise.cpp): size every ring so its wait is ordered
//      before the id's next set, else add a credit flag, else fall back to
//      barrier_all; give rings their clocks;
//   5. allocate ids per hard event above the enclosing lists' ids
//      (SyncEventIds.cpp);
//   6. emit (SyncEmit.cpp): recurse into loop slots, then lay out gaps and
//      slots, stage-shifted and guarded (SyncStages.cpp).
#pragma once

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "analysis/TaskGraph.h"
#include "ir/Functor.h"
#include "ir/IROperator.h"
#include "schedule/Schedule.h"
#include "support/Diagnostics.h"
#include "target/Target.h"
#include "transform/LoweringTypes.h"

namespace tilesched::transform::sync_detail {

using namespace ir;
using analysis::UnitList;

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
inline int64_t pos(int64_t gap, int64_t cat) { return gap * kStride + cat; }

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

inline bool inOrder(const Target& t, Pipe p) { return t.completesInOrder(p); }

// Earliest tokens per pipe reachable from a start, through the kept edges.
struct Reach {
  std::array<Tok, kNumPipes> ord{},
      comp{};  // ordinary: later work starts after; comp: later sets fire after
};

// The earliest tokens per pipe reachable from (start, t) through `kept`
// (SyncPrune.cpp).
Reach reach(const std::vector<Edge>& kept, Pipe start, Tok t, bool ordinary, bool inorderStart);

// ------------------------------------------------------------ slots

struct Slot {
  Stmt stmt;               // the leaf, the loop, or a scalar guard assignment
  Expr guard;              // bool var the slot runs under (null: always)
  int unit = -1;           // unit index in the list, -1 for guard assignments
  bool unmatched = false;  // a leaf with no unit: fenced by barrier_all
};

inline Stmt seq(std::vector<Stmt> stmts, SourceLoc loc = {}) {
  if (stmts.size() == 1) return stmts.front();
  return std::make_shared<SeqStmt>(std::move(stmts), loc);
}

inline Stmt barrierAll(SourceLoc loc) { return std::make_shared<BarrierStmt>(true, Pipe::S, loc); }

// The author's own set_flag / wait_flag / pipe_barrier: the lowering derives
// every flag the schedule needs and drops these (both would double-set ids).
inline bool isAuthorSync(const Stmt& s) {
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

// A guarded let of pure arithmetic that cannot fault runs unguarded (SyncEmit.cpp).
bool unguardedLet(const UnitList& list, const Slot& slot);

// One list being lowered: what the predicate and the stage choice found.
struct ListState {
  explicit ListState(const UnitList& l) : list(l) {}
  const UnitList& list;
  const ForStmt* loop = nullptr;  // null for the kernel root
  bool isLoop = false;
  Expr loopClock;  // iteration number of the loop (var - min)
  std::vector<Slot> slots;
  std::vector<int64_t> slotOf;  // per unit: its slot
  int64_t numSlots = 0;
  std::vector<int64_t> stageOf;  // per unit: the stage it runs at (0 when not staged)
  int64_t maxStage = 0;
  bool staged = false;
  bool singleTrip = false;  // a constant trip count of at most 1
  bool warned = false;      // the barrier_all fallback warned once
  Var ringCounter;          // the loop's ring counter, if a ring needs one

  // The stage the slot's unit runs at: 0 for guard assignments and unstaged lists.
  int64_t stageOfSlot(const Slot& slot) const {
    return staged && slot.unit >= 0 ? stageOf[static_cast<size_t>(slot.unit)] : 0;
  }
};

// The statements that advance a loop's counter-mode epochs (SyncEmit.cpp):
// before the body, after it, and `active = 1` after the guarded slots.
struct CounterEpochs {
  std::vector<Stmt> prologue, epilogue;
  std::map<int64_t, std::vector<Stmt>> markActive;  // slot -> `act = 1` statements
};

// A dependency's flag or barrier before pruning; shorter spans first.
struct Cand {
  Edge edge;
  int64_t span;
  int64_t producerSlot, consumerSlot;
};

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

  // The steps of lowerList, in order (one file each, SyncInsertion.h).
  ListState predicate(const UnitList& list, const Stmt& body);    // SyncInsertion.cpp
  void chooseStages(ListState& ls);                               // SyncStages.cpp
  std::vector<Cand> candidates(const ListState& ls) const;        // SyncCandidates.cpp
  std::vector<Edge> prune(const std::vector<Cand>& cands) const;  // SyncPrune.cpp
  void legalise(ListState& ls, std::vector<Edge>& kept);          // SyncLegalise.cpp
  void allocateIds(ListState& ls, std::vector<Edge>& kept);       // SyncEventIds.cpp
  Stmt emit(const ListState& ls, const std::vector<Edge>& kept, const Stmt& body);  // SyncEmit.cpp
  // Parts of emit: the statements of every kept edge by position (rings'
  // pre-sets and drains go to the kernel), and the counter-mode epochs.
  std::map<int64_t, std::vector<Stmt>> placeEdges(const std::vector<Edge>& kept);
  CounterEpochs counterEpochs(const ListState& ls);
  // Stage t of a staged loop: the slot's work shifted to iteration i - t and
  // guarded to the original range (SyncStages.cpp).
  std::vector<Stmt> stageGuarded(const ListState& ls, const Slot& slot,
                                 std::vector<Stmt> work) const;
  // A dependency no legal flag orders: pipe_barrier("ALL") instead, with one
  // warning per list (SyncLegalise.cpp).
  void fallBack(ListState& ls, Edge& e, const std::string& why);

  void flatten(const Stmt& s, const Expr& guard, const UnitList& list, std::vector<Slot>& out);
  // What each guard variable flatten made means, over the loop's own values
  // (`guard && cond`, `guard && !v`): a unit at stage t > 0 tests its guard
  // at iteration i - t, so it needs the condition itself, not the variable
  // computed at iteration i (SyncStages.cpp).
  std::map<const VarNode*, Expr> guardDefs_;
  Expr expandGuard(const Expr& guard) const;
  Pipe accessPipe(const UnitList& list, int unit, const std::vector<int>& path,
                  const Storage& storage, bool scalarOperand) const;
};

}  // namespace tilesched::transform::sync_detail
