// The cores of a manual-form core group (SPEC §9.2) in the cycle simulator:
// a cross-core set / wait on a pipe of one core (BlockSim::crossCoreFlag and
// its helpers), and runGroup, which advances the group's BlockSims in lock
// step so that a set on one core releases a wait on another at the same
// cycle.
//
// Assumes: every BlockSim of the group joined it (BlockSim::joinGroup).
// Guarantees: a wait takes the oldest pending set of its counter and learns
// that set's clock (the k-th wait is ordered after the k-th set, all a
// counting event orders); more than 15 pending sets, a set nobody waits for
// by the end of the block and ids outside the pool are flag errors; a group
// where no core can go on is one deadlock naming every core's blocked head.
#include <algorithm>

#include <fmt/format.h>

#include "ir/Printer.h"
#include "sim/BlockSim.h"

namespace tilesched::sim::detail {

bool BlockSim::crossCoreFlag(const Stmt& s, int64_t t) {
  if (const auto* sf = as<SetFlagStmt>(s)) {
    auto counter = crossCounter(s, /*set=*/true);
    if (!counter) {
      chargeScalar(t, 1);
      return true;
    }
    if (sf->src == Pipe::S) {
      VClock clock = issueVC_[pipeIndex(Pipe::S)];
      clock[lane(Pipe::S)] = ++sIndex_;
      issueVC_[pipeIndex(Pipe::S)][lane(Pipe::S)] = sIndex_;
      crossSet(*counter, clock, t, sf->loc, Pipe::S);
      addEvent(Pipe::S, OpKind::SetFlag, t, t + 1, sf->loc, crossText(s), currentIteration());
      chargeScalar(t, 1);
      return true;
    }
    if (!enqueueFlag(s, InstrType::SetFlag, OpKind::SetFlag, sf->src, sf->src, sf->dst, 0, t))
      return false;
    ps(sf->src).queue.back()->crossCore = true;
    ps(sf->src).queue.back()->counter = *counter;
    return true;
  }
  const auto* wf = as<WaitFlagStmt>(s);
  auto counter = crossCounter(s, /*set=*/false);
  if (!counter) {
    chargeScalar(t, 1);
    return true;
  }
  if (wf->dst == Pipe::S) {
    if (!group_->available(*counter, t)) {
      if (scalarBlockedSince_ < 0) scalarBlockedSince_ = t;
      scalarBlockedOnFlag_ = true;
      return false;
    }
    if (scalarBlockedSince_ >= 0) {
      stats_.pipes[pipeIndex(Pipe::S)].flagStall += t - scalarBlockedSince_;
      addEvent(Pipe::S, OpKind::WaitFlag, scalarBlockedSince_, t, wf->loc, crossText(s),
               currentIteration());
    }
    scalarBlockedSince_ = -1;
    scalarBlockedOnFlag_ = false;
    crossConsume(*counter, Pipe::S, t);
    issueVC_[pipeIndex(Pipe::S)][lane(Pipe::S)] = ++sIndex_;
    chargeScalar(t, 1);
    return true;
  }
  if (!enqueueFlag(s, InstrType::WaitFlag, OpKind::WaitFlag, wf->dst, wf->src, wf->dst, 0, t))
    return false;
  ps(wf->dst).queue.back()->crossCore = true;
  ps(wf->dst).queue.back()->counter = *counter;
  return true;
}

std::optional<CrossCoreCounter> BlockSim::crossCounter(const Stmt& s, bool set) {
  const Expr& idExpr = set ? as<SetFlagStmt>(s)->eventId : as<WaitFlagStmt>(s)->eventId;
  int64_t id = -1;
  {
    ScalarScope scope(machine_, scalarEnv_, machine_.access);
    machine_.loc = s->loc;
    Scalar v = machine_.eval(idExpr);
    machine_.requireDefined(v, "the flag id of this cross-core flag");
    id = v.asInt();
  }
  if (!group_) {
    flagError(s->loc,
              "a cross-core flag outside a core group (internal: the kernel has no "
              "'with T.Cube()' / 'with T.Vector()' blocks)");
    return std::nullopt;
  }
  std::string error;
  auto counter = set ? crossCoreSetCounter(core_, id, group_->aivs, error)
                     : crossCoreWaitCounter(core_, id, group_->aivs, error);
  if (!counter)
    flagError(s->loc, fmt::format("{} on {}: {}", crossText(s), coreName(core_), error));
  return counter;
}

std::string BlockSim::crossText(const Stmt& s) const {
  if (const auto* f = as<SetFlagStmt>(s))
    return fmt::format("cross_core_set_flag({}, \"{}\", {})", f->crossCoreMode, pipeName(f->src),
                       printExpr(f->eventId));
  const auto* w = as<WaitFlagStmt>(s);
  return fmt::format("cross_core_wait_flag({}, \"{}\", {})", w->crossCoreMode, pipeName(w->dst),
                     printExpr(w->eventId));
}

void BlockSim::crossSet(const CrossCoreCounter& c, const VClock& clock, int64_t t, SourceLoc loc,
                        Pipe pipe) {
  auto& sets = group_->counters[c];
  if (static_cast<int64_t>(sets.size()) >= kMaxPendingCrossCoreSets)
    flagError(loc,
              fmt::format("{} sets {} while it already holds {} sets that no wait has taken "
                          "(the hardware keeps at most {} pending sets per flag)",
                          coreName(core_), counterText(c), sets.size(), kMaxPendingCrossCoreSets));
  sets.push_back(GroupFlags::Set{clock, t, loc, core_, pipe});
}

void BlockSim::crossConsume(const CrossCoreCounter& c, Pipe dst, int64_t t) {
  auto& sets = group_->counters[c];
  const GroupFlags::Set& set = sets.front();
  VClock& vc = issueVC_[pipeIndex(dst)];
  vc = join(vc, set.clock);
  if (trace_)
    result_.arrows.back().push_back(FlagArrow{set.pipe, dst, c.slot, set.time, t, set.core, core_});
  sets.pop_front();
}

// Simulates one block of a manual-form kernel: its cores in lock step, each
// with its own scalar unit and pipes, sharing the group's cross-core flags.
// The block's statistics merge the cores': cycles of the last to finish,
// per pipe the busiest core's figures (the cores run concurrently).
void runGroup(std::vector<std::unique_ptr<BlockSim>>& cores, GroupFlags& flags, SimResult& result,
              int64_t block) {
  int64_t t = 0;
  bool deadlocked = false;
  while (true) {
    bool progress = true;
    while (progress) {
      progress = false;
      for (auto& c : cores) progress |= c->step(t);
    }
    bool done =
        std::all_of(cores.begin(), cores.end(), [](const auto& c) { return c->finished(); });
    if (done) break;
    int64_t next = kNever;
    for (auto& c : cores) next = std::min(next, c->nextTime(t));
    next = std::min(next, flags.nextVisible(t));
    if (next == kNever) {
      SimIssue issue;
      for (auto& c : cores) {
        if (c->finished()) continue;
        SimIssue part = c->deadlockReport(t);
        if (!issue.loc.valid())
          issue = part;
        else
          issue.notes.insert(issue.notes.end(), part.notes.begin(), part.notes.end());
      }
      issue.message = fmt::format(
          "deadlock in block {} at cycle {}: no pipe of any core of the group can make progress",
          block, t);
      for (size_t c = 0; c < cores.size(); ++c)
        if (cores[c]->finished())
          issue.notes.push_back({issue.loc, coreName(static_cast<int>(c)) + " has finished"});
      result.issues.push_back(std::move(issue));
      deadlocked = true;
      result.aborted = true;
      break;
    }
    t = next;
  }
  BlockStats merged;
  merged.block = block;
  for (auto& c : cores) {
    BlockStats s = c->finish(t, deadlocked);
    merged.cycles = std::max(merged.cycles, s.cycles);
    for (size_t p = 0; p < kNumPipes; ++p) {
      PipeStats& m = merged.pipes[p];
      const PipeStats& o = s.pipes[p];
      if (o.busy > m.busy) {
        m.busy = o.busy;
        m.instructions = o.instructions;
      }
      m.flagStall = std::max(m.flagStall, o.flagStall);
      m.barrierStall = std::max(m.barrierStall, o.barrierStall);
    }
    merged.flagStall += s.flagStall;
    merged.instructions += s.instructions;
    if (s.lowerBound > merged.lowerBound) {
      merged.lowerBound = s.lowerBound;
      merged.bottleneck = s.bottleneck;
    }
  }
  if (!deadlocked)
    for (const auto& [counter, sets] : flags.counters)
      for (const auto& set : sets) {
        SimIssue issue;
        issue.kind = SimIssue::Flag;
        issue.loc = set.setter;
        issue.block = block;
        issue.message = fmt::format(
            "this cross-core set ({}) is never waited for: {} still holds {} set{} at the end of "
            "the kernel; every cross-core set needs exactly one wait on the other core",
            coreName(set.core), counterText(counter), sets.size(), sets.size() == 1 ? "" : "s");
        result.issues.push_back(std::move(issue));
        break;
      }
  result.blocks.push_back(merged);
}

}  // namespace tilesched::sim::detail
