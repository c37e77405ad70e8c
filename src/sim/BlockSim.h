// Internal: the simulation of one block on one core (BlockSim), shared by
// Simulator.cpp (scalar unit, pipes, the launch) and CoreGroupSim.cpp (the
// cores of a manual-form group and their cross-core flags), and the global
// access kinds of GlobalAccesses.cpp. Not part of the simulator's interface.
#pragma once

#include <algorithm>
#include <array>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "cost/InstructionCost.h"
#include "ir/Functor.h"
#include "sim/CrossCoreFlags.h"
#include "sim/Simulator.h"
#include "sim/StaleVersions.h"

namespace tilesched::sim::detail {

using namespace ir;

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

enum class InstrType { Work, GemmLoad, GemmCompute, SetFlag, WaitFlag, Barrier };

struct Instr {
  int64_t id = 0;  // issue number; the two parts of an L1 gemm share it
  Stmt stmt;
  InstrType type = InstrType::Work;
  OpKind kind = OpKind::Vector;
  Pipe pipe = Pipe::V;
  int64_t pipeIndex = 0;
  int64_t latency = 1, ii = 1;
  std::vector<Scalar> env;
  std::vector<ResolvedRegion> regions;
  Scalar value;  // fill value, or the pad value of a copy with hasPad
  bool clear = false;
  bool hasPad = false;
  std::shared_ptr<GemmOperands> gemm;
  Instr* partner = nullptr;  // the MTE1 part of an L1 gemm's M part
  int32_t iteration = -1;    // TraceEvent::iteration of the loop iteration that issued it
  Pipe fsrc = Pipe::S, fdst = Pipe::S;
  int64_t fid = 0;
  // A cross-core set / wait (SetFlagStmt::crossCore): the counter it adds to
  // or takes from (sim/CrossCoreFlags.h).
  bool crossCore = false;
  CrossCoreCounter counter;
  int64_t start = -1, complete = kNever;
  bool done = false;
  int64_t blockedSince = -1;
  Patches pending;
  VClock clock{};
  // What the scalar unit knew when it issued this instruction, without its
  // own lane: the flags it had waited on (wait_flag(X, S)) order this
  // instruction after X's earlier work, since it could not issue before
  // them. Its own scalar accesses do not (issuing is not an ordering).
  VClock issuedAfter{};
  StaleVersionCheck::Epochs epochs;  // of its versioned accesses, read at issue
  // T.alloc_var scalars handed over at issue (ir::issueCapturedScalars): per
  // storage index, its bytes and shadow bytes then.
  struct Captured {
    int storage;
    std::vector<uint8_t> bytes, defined;
  };
  std::vector<Captured> captured;
};

struct FlagState {
  bool set = false;
  VClock clock{};
  int64_t setTime = 0;
  SourceLoc setter;
};

// The cross-core flags of one core group (SPEC §9.2): counters, each set's
// clock queued until a wait takes it, first set first (the k-th wait happens
// after the k-th set: all a counting event orders).
struct GroupFlags {
  int aivs = 2;
  // Cycles between a set and the earliest wait it can release (the target's
  // cross_core_flag_latency).
  int64_t latency = 0;
  struct Set {
    VClock clock{};
    int64_t time = 0;
    SourceLoc setter;
    int core = 0;  // the core that set it, on pipe `pipe`
    Pipe pipe = Pipe::S;
  };
  std::map<CrossCoreCounter, std::deque<Set>> counters;
  bool available(const CrossCoreCounter& c, int64_t t) const {
    auto it = counters.find(c);
    return it != counters.end() && !it->second.empty() && it->second.front().time + latency <= t;
  }
  // The earliest time after t at which a pending set becomes visible, or kNever.
  int64_t nextVisible(int64_t t) const {
    int64_t next = kNever;
    if (latency == 0) return next;  // every set is visible when it is made
    for (const auto& [c, sets] : counters)
      if (!sets.empty() && sets.front().time + latency > t)
        next = std::min(next, sets.front().time + latency);
    return next;
  }
};

// The global storages (memory indices) an instruction updates atomically, with
// the kind; accesses to every other storage are plain reads and writes.
using StorageAtomics = GlobalRaceChecker::StorageAtomics;
StorageAtomics atomicsOf(const Stmt& s, const Memory& memory);  // GlobalAccesses.cpp
bool hasAtomicStore(const Kernel& kernel);

// atomicsOf per statement, computed once (it walks the statement's subtree and
// is asked at every completion); empty without a walk in a kernel without
// atomic stores.
struct AtomicKinds {
  const Memory& memory;
  bool any = false;
  std::unordered_map<const StmtNode*, StorageAtomics> byStmt;

  AtomicKinds(const Kernel& kernel, const Memory& m) : memory(m), any(hasAtomicStore(kernel)) {}
  const StorageAtomics& of(const Stmt& s) {
    static const StorageAtomics none;
    if (!any) return none;
    auto [it, fresh] = byStmt.try_emplace(s.get());
    if (fresh) it->second = atomicsOf(s, memory);
    return it->second;
  }
};

inline std::string instrName(const Stmt& s) { return instructionName(s.get()); }

inline OpKind kindOf(const Stmt& s, const cost::InstructionCost& c) {
  switch (s->kind) {
    case StmtKind::Copy:
      switch (c.copyPath.value_or(CopyPath::VectorMove)) {
        case CopyPath::GmToUb:
        case CopyPath::GmToL1:
          return OpKind::Load;
        case CopyPath::UbToGm:
        case CopyPath::UbToL1:
          return OpKind::Store;
        case CopyPath::L1ToL0A:
        case CopyPath::L1ToL0B:
          return OpKind::L1ToL0;
        case CopyPath::L0cToUb:
        case CopyPath::L0cToGm:
        case CopyPath::L0cToUbDual:
          return OpKind::Fixpipe;
        case CopyPath::VectorMove:
          return OpKind::Vector;
      }
      return OpKind::Vector;
    case StmtKind::Gemm:
      return OpKind::Gemm;
    case StmtKind::Fill:
      return OpKind::Fill;
    case StmtKind::Reduce:
      return OpKind::Reduce;
    case StmtKind::VFRegion:
      return OpKind::VFRegion;
    default:
      return OpKind::Vector;
  }
}

inline std::string flagText(const char* what, Pipe src, Pipe dst, int64_t id) {
  return fmt::format("{}(\"{}\", \"{}\", {})", what, pipeName(src), pipeName(dst), id);
}

// While alive, the machine evaluates with the scalar unit's registers and
// records memory accesses in `access`; both are restored on every exit path,
// exceptions (kernel run-time errors) included.
class ScalarScope {
 public:
  ScalarScope(Machine& machine, std::vector<Scalar>& registers, AccessSet* access)
      : machine_(machine), registers_(registers), previousAccess_(machine.access) {
    std::swap(machine_.env, registers_);
    machine_.access = access;
  }
  ~ScalarScope() {
    machine_.access = previousAccess_;
    std::swap(machine_.env, registers_);
  }
  ScalarScope(const ScalarScope&) = delete;
  ScalarScope& operator=(const ScalarScope&) = delete;

 private:
  Machine& machine_;
  std::vector<Scalar>& registers_;
  AccessSet* previousAccess_;
};

class BlockSim {
 public:
  BlockSim(const Kernel& kernel, const Target& target, Machine& machine, Memory& memory,
           RaceDetector& races, GlobalRaceChecker& globalRaces, SimResult& result,
           std::unordered_map<const StmtNode*, cost::InstructionCost>& costs, AtomicKinds& atomics,
           StaleVersionCheck& stale, int64_t block, bool trace, int64_t& traceBudget)
      : kernel_(kernel),
        target_(target),
        machine_(machine),
        memory_(memory),
        races_(races),
        globalRaces_(globalRaces),
        result_(result),
        costs_(costs),
        atomics_(atomics),
        stale_(stale),
        block_(block),
        trace_(trace),
        traceBudget_(traceBudget) {
    stats_.block = block;
    for (auto& vc : issueVC_) vc.fill(0);
    scalarEnv_ = machine_.env;
    stack_.push_back(Frame{&kernel_.body});
  }

  void run();
  // Core `core` of a manual-form group (0 the AIC, 1 + s AIV s) sharing
  // `flags` with the group's other cores; its instruction ids start at
  // core << 40 so that ids stay unique in the block's race history.
  void joinGroup(int core, GroupFlags* flags) {
    core_ = core;
    group_ = flags;
    nextId_ = static_cast<int64_t>(core) << 40;
  }
  // One simulated time step for a group: everything that can happen at t.
  bool step(int64_t t);
  bool finished() const { return scalarDone_ && allIdle(); }
  // The next time something can happen, or kNever.
  int64_t nextTime(int64_t t) const;
  // The blocked heads, for a deadlock report (its notes).
  SimIssue deadlockReport(int64_t t);
  // After the last step: end-of-block checks; the block's statistics.
  BlockStats finish(int64_t t, bool deadlocked);

 private:
  struct Frame {
    const Stmt* stmt;
    size_t idx = 0;
    int64_t cur = 0, end = 0;
    bool started = false;
    int32_t iteration = -1;  // a loop's current TraceIteration, when tracing
  };
  struct PipeState {
    std::deque<Instr*> queue;
    std::vector<Instr*> inflight;
    int64_t freeAt = 0;
    int64_t lastComplete = 0;
    int64_t issued = 0;
  };

  bool scalarStep(int64_t t);
  bool processLeaf(const Stmt& s, int64_t t);
  bool issueTile(const Stmt& s, int64_t t);
  const std::vector<Storage>& capturedOf(const Stmt& s) {
    auto [it, fresh] = captured_.try_emplace(s.get());
    if (fresh) it->second = issueCapturedScalars(s);
    return it->second;
  }
  std::unordered_map<const StmtNode*, std::vector<Storage>> captured_;
  bool startPipe(Pipe p, int64_t t);
  void startWork(Instr* in, int64_t t);
  void execute(Instr* in, bool deferred);
  bool processCompletions(int64_t t);
  bool fireFlags(int64_t t);
  bool allIdle() const;
  // `operandsOfNext`: the operand reads of the tile instruction issued next.
  // `epochs`: of the versioned storages `s` accesses (StaleVersionCheck).
  void scalarAccess(const AccessSet& set, const Stmt& s, const StaleVersionCheck::Epochs& epochs,
                    bool operandsOfNext = false);
  int64_t evalId(const Expr& e, Pipe src, Pipe dst, SourceLoc loc, const char* what);
  void setFlag(Pipe src, Pipe dst, int64_t id, const VClock& clock, int64_t t, SourceLoc loc);
  void consumeFlag(Instr* w, Pipe dst, int64_t t);
  void chargeScalar(int64_t t, int64_t cycles);
  void addEvent(Pipe p, OpKind k, int64_t s, int64_t e, SourceLoc loc, std::string name,
                int32_t iteration, std::string label = {});
  // The innermost loop iteration the scalar unit is in (-1: none).
  int32_t currentIteration() const;
  int32_t traceLoopIndex(const ForStmt* loop);
  void deadlock(int64_t t);
  void flagError(SourceLoc loc, std::string message);
  Instr* newInstr(const Stmt& s, InstrType type, Pipe pipe);
  // Queues a set_flag (on `src`) or wait_flag (on `dst`) as `queuePipe`'s next
  // instruction; false when that queue is full and the scalar unit must stall.
  bool enqueueFlag(const Stmt& s, InstrType type, OpKind kind, Pipe queuePipe, Pipe src, Pipe dst,
                   int64_t id, int64_t t);
  FlagState& flag(Pipe src, Pipe dst, int64_t id) { return flags_[{src, dst, id}]; }
  PipeState& ps(Pipe p) { return pipes_[pipeIndex(p)]; }
  const PipeState& ps(Pipe p) const { return pipes_[pipeIndex(p)]; }
  size_t lane(Pipe p) const { return clockLane(core_, p); }
  // Cross-core flags: the counter a statement's id names (nullopt: an error
  // was reported), a set landing, a wait taking one.
  std::optional<CrossCoreCounter> crossCounter(const Stmt& s, bool set);
  // Issues a cross-core set or wait (processLeaf's case for them).
  bool crossCoreFlag(const Stmt& s, int64_t t);
  void crossSet(const CrossCoreCounter& c, const VClock& clock, int64_t t, SourceLoc loc,
                Pipe pipe);
  void crossConsume(const CrossCoreCounter& c, Pipe dst, int64_t t);
  std::string crossText(const Stmt& s) const;

  const Kernel& kernel_;
  const Target& target_;
  Machine& machine_;
  Memory& memory_;
  RaceDetector& races_;
  GlobalRaceChecker& globalRaces_;
  SimResult& result_;
  std::unordered_map<const StmtNode*, cost::InstructionCost>& costs_;
  AtomicKinds& atomics_;
  StaleVersionCheck& stale_;
  int64_t block_;
  bool trace_;
  int64_t& traceBudget_;

  BlockStats stats_;
  std::vector<Frame> stack_;
  const Stmt* pendingLeaf_ = nullptr;
  bool scalarDone_ = false;
  int64_t scalarFree_ = 0;
  int64_t scalarBlockedSince_ = -1;
  bool scalarBlockedOnFlag_ = false;
  std::vector<Scalar> scalarEnv_;
  int64_t sIndex_ = 0;  // instructions of the S pipe (scalar statements, S flags)
  std::array<PipeState, kNumPipes> pipes_{};
  std::array<VClock, kNumPipes> issueVC_{};
  std::map<std::tuple<Pipe, Pipe, int64_t>, FlagState> flags_;  // ordered: deterministic reports
  std::vector<std::unique_ptr<Instr>> instrs_;
  int64_t nextId_ = 0;
  int64_t scalarEventStart_ = -1, scalarEventEnd_ = -1;
  int64_t now_ = 0;
  bool deadlocked_ = false;
  int core_ = 0;
  GroupFlags* group_ = nullptr;
};

// Simulates one block of a manual-form kernel on its cores (CoreGroupSim.cpp).
void runGroup(std::vector<std::unique_ptr<BlockSim>>& cores, GroupFlags& flags, SimResult& result,
              int64_t block);

}  // namespace tilesched::sim::detail
