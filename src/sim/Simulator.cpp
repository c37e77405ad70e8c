// The cycle simulator (see Simulator.h). One BlockSim per block: a scalar unit
// walking the IR with an explicit stack, seven pipes with bounded queues, the
// flag table, and an event loop that advances time to the next completion,
// pipe-free time or scalar-unit time; then the launch (blocks in order, or on
// two threads). Instruction names are in InstructionNames.cpp, the launch's
// allocation, merged issues and totals in LaunchResult.cpp.
#include "sim/Simulator.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <exception>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <thread>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "cost/InstructionCost.h"
#include "ir/Functor.h"
#include "ir/IROperator.h"
#include "ir/Printer.h"
#include "sim/BlockSim.h"
#include "sim/CrossCoreFlags.h"
#include "sim/GroupReference.h"
#include "sim/SimulatorImpl.h"
#include "sim/StaleVersions.h"

namespace tilesched::sim {

using namespace ir;

namespace detail {

bool BlockSim::enqueueFlag(const Stmt& s, InstrType type, OpKind kind, Pipe queuePipe, Pipe src,
                           Pipe dst, int64_t id, int64_t t) {
  auto& q = ps(queuePipe);
  if (static_cast<int64_t>(q.queue.size()) >= target_.queueDepth(queuePipe)) return false;
  Instr* in = newInstr(s, type, queuePipe);
  in->kind = kind;
  in->fsrc = src;
  in->fdst = dst;
  in->fid = id;
  q.queue.push_back(in);
  chargeScalar(t, target_.cost.scalar.issueCycles);
  return true;
}

Instr* BlockSim::newInstr(const Stmt& s, InstrType type, Pipe pipe) {
  auto in = std::make_unique<Instr>();
  in->id = nextId_++;
  in->stmt = s;
  in->type = type;
  in->pipe = pipe;
  in->pipeIndex = ps(pipe).issued++;
  in->issuedAfter = issueVC_[pipeIndex(Pipe::S)];
  in->issuedAfter[lane(Pipe::S)] = 0;
  if (trace_) in->iteration = currentIteration();
  instrs_.push_back(std::move(in));
  return instrs_.back().get();
}

void BlockSim::addEvent(Pipe p, OpKind k, int64_t s, int64_t e, SourceLoc loc, std::string name,
                        int32_t iteration, std::string label) {
  if (!trace_) return;
  if (traceBudget_ <= 0) {
    result_.traceTruncated = true;
    return;
  }
  --traceBudget_;
  result_.trace.back().push_back(TraceEvent{p, k, s, std::max(e, s + 1), loc.line, std::move(name),
                                            loc.file, std::move(label), iteration,
                                            static_cast<uint8_t>(core_)});
}

int32_t BlockSim::currentIteration() const {
  for (auto f = stack_.rbegin(); f != stack_.rend(); ++f)
    if (f->iteration >= 0) return f->iteration;
  return -1;
}

// Loops are told apart by name and place rather than by node: the result
// outlives the lowered kernel, and blocks must agree on the indices.
int32_t BlockSim::traceLoopIndex(const ForStmt* loop) {
  auto& loops = result_.traceLoops;
  for (size_t i = 0; i < loops.size(); ++i)
    if (loops[i].var == loop->var->name && loops[i].loc.line == loop->loc.line &&
        loops[i].loc.col == loop->loc.col && loops[i].loc.file == loop->loc.file)
      return static_cast<int32_t>(i);
  loops.push_back(TraceLoop{loop->var->name, loop->loc});
  return static_cast<int32_t>(loops.size() - 1);
}

void BlockSim::chargeScalar(int64_t t, int64_t cycles) {
  scalarFree_ = t + cycles;
  stats_.pipes[pipeIndex(Pipe::S)].busy += cycles;
  // Consecutive scalar work shows as one bar in the timeline.
  if (scalarEventEnd_ == t) {
    scalarEventEnd_ = t + cycles;
    return;
  }
  if (scalarEventStart_ >= 0)
    addEvent(Pipe::S, OpKind::Scalar, scalarEventStart_, scalarEventEnd_, {}, "scalar unit", -1,
             "scalar");
  scalarEventStart_ = t;
  scalarEventEnd_ = t + cycles;
}

void BlockSim::flagError(SourceLoc loc, std::string message) {
  SimIssue issue;
  issue.kind = SimIssue::Flag;
  issue.loc = loc;
  issue.message = std::move(message);
  issue.block = block_;
  result_.issues.push_back(std::move(issue));
}

void BlockSim::scalarAccess(const AccessSet& set, const Stmt& s,
                            const StaleVersionCheck::Epochs& epochs, bool operandsOfNext) {
  if (set.empty()) return;
  AccessSet norm = set;
  norm.normalize();
  stale_.apply(norm, epochs, s, block_, result_.issues);
  AccessOwner who{nextId_++, Pipe::S, sIndex_, issueVC_[pipeIndex(Pipe::S)], s.get(), block_};
  who.core = static_cast<uint8_t>(core_);
  if (operandsOfNext) who.operandsOf = nextId_;  // newInstr takes the next id
  races_.access(who, norm);
  // A scalar T.atomic_* update is atomic like one in a VF region.
  if (s->kind == StmtKind::Store)
    globalRaces_.access(who, norm, atomics_.of(s));
  else
    globalRaces_.access(who, norm);
  ++sIndex_;
  issueVC_[pipeIndex(Pipe::S)][lane(Pipe::S)] = sIndex_;
}

int64_t BlockSim::evalId(const Expr& e, Pipe src, Pipe dst, SourceLoc loc, const char* what) {
  int64_t id = -1;
  {
    ScalarScope scope(machine_, scalarEnv_, machine_.access);
    machine_.loc = loc;
    Scalar v = machine_.eval(e);
    machine_.requireDefined(v, std::string("the event id of this ") + what);
    id = v.asInt();
  }
  if (id < 0 || id >= target_.eventIdsPerHardEvent) {
    flagError(loc, fmt::format("{} uses event id {}, but hard event {} has ids 0 to {}",
                               flagText(what, src, dst, id), id, hardEventName(src, dst),
                               target_.eventIdsPerHardEvent - 1));
    return -1;
  }
  return id;
}

void BlockSim::setFlag(Pipe src, Pipe dst, int64_t id, const VClock& clock, int64_t t,
                       SourceLoc loc) {
  FlagState& f = flag(src, dst, id);
  if (f.set) {
    flagError(
        loc,
        fmt::format("{} sets a flag that is already set (set at line {} and not waited for since)",
                    flagText("set_flag", src, dst, id), f.setter.line));
    f.clock = join(f.clock, clock);
    return;
  }
  f.set = true;
  f.clock = clock;
  f.setTime = t;
  f.setter = loc;
}

void BlockSim::consumeFlag(Instr* w, Pipe dst, int64_t t) {
  FlagState& f = flag(w->fsrc, w->fdst, w->fid);
  f.set = false;
  VClock& vc = issueVC_[pipeIndex(dst)];
  vc = join(vc, f.clock);
  if (trace_)
    result_.arrows.back().push_back(
        FlagArrow{w->fsrc, w->fdst, w->fid, f.setTime, t, core_, core_});
}

bool BlockSim::allIdle() const {
  for (Pipe p : kAllPipes) {
    const auto& s = pipes_[pipeIndex(p)];
    if (!s.queue.empty() || !s.inflight.empty()) return false;
  }
  return true;
}

// ---------------------------------------------------------------- scalar unit

bool BlockSim::scalarStep(int64_t t) {
  while (true) {
    if (pendingLeaf_) {
      if (!processLeaf(*pendingLeaf_, t)) return false;
      pendingLeaf_ = nullptr;
      return true;
    }
    if (stack_.empty()) {
      scalarDone_ = true;
      return true;
    }
    Frame& f = stack_.back();
    const Stmt& s = *f.stmt;
    if (!s) {
      stack_.pop_back();
      continue;
    }
    switch (s->kind) {
      case StmtKind::Seq: {
        const auto* seq = as<SeqStmt>(s);
        if (f.idx < seq->stmts.size()) {
          const Stmt* child = &seq->stmts[f.idx++];
          stack_.push_back(Frame{child});
        } else {
          stack_.pop_back();
        }
        continue;
      }
      case StmtKind::For: {
        const auto* loop = as<ForStmt>(s);
        if (!f.started) {
          f.started = true;
          AccessSet acc;
          StaleVersionCheck::Epochs epochs;
          {
            ScalarScope scope(machine_, scalarEnv_, &acc);
            epochs = stale_.epochsOf(s, machine_);
            machine_.loc = loop->loc;
            Scalar min = machine_.eval(loop->min), extent = machine_.eval(loop->extent);
            machine_.requireDefined(min, "the start of loop '" + loop->var->name + "'");
            machine_.requireDefined(extent, "the trip count of loop '" + loop->var->name + "'");
            f.cur = min.asInt();
            f.end = f.cur + extent.asInt();
          }
          scalarAccess(acc, s, epochs);
        }
        if (f.cur < f.end) {
          if (trace_) {
            f.iteration = -1;  // the parent is an enclosing loop's iteration, not our last one
            // Charged to the trace budget like an event: a scalar loop of
            // 2^24 iterations would otherwise fill memory with records.
            if (traceBudget_ > 0) {
              --traceBudget_;
              int32_t parent = currentIteration();
              auto& its = result_.iterations.back();
              its.push_back(TraceIteration{traceLoopIndex(loop), f.cur, parent});
              f.iteration = static_cast<int32_t>(its.size() - 1);
            }
          }
          scalarEnv_[static_cast<size_t>(loop->var->id)] = Scalar::ofInt(f.cur++);
          const Stmt* body = &loop->body;
          stack_.push_back(Frame{body});
          chargeScalar(t, target_.cost.scalar.loopOverheadCycles);
          return true;
        }
        stack_.pop_back();
        continue;
      }
      case StmtKind::If: {
        const auto* br = as<IfStmt>(s);
        stack_.pop_back();
        AccessSet acc;
        StaleVersionCheck::Epochs epochs;
        bool taken = false;
        {
          ScalarScope scope(machine_, scalarEnv_, &acc);
          epochs = stale_.epochsOf(s, machine_);
          machine_.loc = br->loc;
          Scalar cond = machine_.eval(br->cond);
          machine_.requireDefined(cond, "the condition of this if");
          taken = cond.truthy();
        }
        scalarAccess(acc, s, epochs);
        const Stmt* next = taken ? &br->thenBody : &br->elseBody;
        if (*next) stack_.push_back(Frame{next});
        chargeScalar(t, target_.cost.scalar.cyclesPerStatement);
        return true;
      }
      default:
        pendingLeaf_ = f.stmt;
        stack_.pop_back();
        continue;
    }
  }
}

bool BlockSim::processLeaf(const Stmt& s, int64_t t) {
  switch (s->kind) {
    case StmtKind::Assign:
    case StmtKind::Store: {
      AccessSet acc;
      StaleVersionCheck::Epochs epochs;
      {
        ScalarScope scope(machine_, scalarEnv_, &acc);
        epochs = stale_.epochsOf(s, machine_);
        machine_.exec(s);
      }
      scalarAccess(acc, s, epochs);
      // A let of pure arithmetic is folded into issuing its uses, like an
      // address written inline (cost::InstructionCost::registerOnly).
      auto it = costs_.find(s.get());
      if (it == costs_.end()) it = costs_.emplace(s.get(), cost::instructionCost(s, target_)).first;
      if (it->second.registerOnly) return true;
      chargeScalar(t, std::max<int64_t>(1, target_.cost.scalar.cyclesPerStatement));
      ++stats_.pipes[pipeIndex(Pipe::S)].instructions;
      return true;
    }
    case StmtKind::SetFlag: {
      const auto* sf = as<SetFlagStmt>(s);
      if (sf->crossCore()) return crossCoreFlag(s, t);
      int64_t id = evalId(sf->eventId, sf->src, sf->dst, sf->loc, "set_flag");
      if (id < 0) {
        chargeScalar(t, 1);
        return true;
      }
      if (sf->src == Pipe::S) {
        // The scalar unit runs S work synchronously: everything earlier on S is done.
        VClock clock = issueVC_[pipeIndex(Pipe::S)];
        clock[lane(Pipe::S)] = ++sIndex_;
        issueVC_[pipeIndex(Pipe::S)][lane(Pipe::S)] = sIndex_;
        setFlag(sf->src, sf->dst, id, clock, t, sf->loc);
        addEvent(Pipe::S, OpKind::SetFlag, t, t + 1, sf->loc,
                 flagText("set_flag", sf->src, sf->dst, id), currentIteration());
        chargeScalar(t, 1);
        return true;
      }
      return enqueueFlag(s, InstrType::SetFlag, OpKind::SetFlag, sf->src, sf->src, sf->dst, id, t);
    }
    case StmtKind::WaitFlag: {
      const auto* wf = as<WaitFlagStmt>(s);
      if (wf->crossCore()) return crossCoreFlag(s, t);
      int64_t id = evalId(wf->eventId, wf->src, wf->dst, wf->loc, "wait_flag");
      if (id < 0) {
        chargeScalar(t, 1);
        return true;
      }
      if (wf->dst == Pipe::S) {
        FlagState& f = flag(wf->src, wf->dst, id);
        if (!f.set) {
          if (scalarBlockedSince_ < 0) scalarBlockedSince_ = t;
          scalarBlockedOnFlag_ = true;
          return false;
        }
        if (scalarBlockedSince_ >= 0) {
          stats_.pipes[pipeIndex(Pipe::S)].flagStall += t - scalarBlockedSince_;
          addEvent(Pipe::S, OpKind::WaitFlag, scalarBlockedSince_, t, wf->loc,
                   flagText("wait_flag", wf->src, wf->dst, id), currentIteration());
        }
        scalarBlockedSince_ = -1;
        scalarBlockedOnFlag_ = false;
        Instr tmp;
        tmp.fsrc = wf->src;
        tmp.fdst = wf->dst;
        tmp.fid = id;
        consumeFlag(&tmp, Pipe::S, t);
        issueVC_[pipeIndex(Pipe::S)][lane(Pipe::S)] = ++sIndex_;
        chargeScalar(t, 1);
        return true;
      }
      return enqueueFlag(s, InstrType::WaitFlag, OpKind::WaitFlag, wf->dst, wf->src, wf->dst, id,
                         t);
    }
    case StmtKind::Barrier: {
      const auto* b = as<BarrierStmt>(s);
      if (b->all) {
        if (!allIdle()) {
          if (scalarBlockedSince_ < 0) scalarBlockedSince_ = t;
          scalarBlockedOnFlag_ = false;
          return false;
        }
        if (scalarBlockedSince_ >= 0) {
          stats_.pipes[pipeIndex(Pipe::S)].barrierStall += t - scalarBlockedSince_;
          addEvent(Pipe::S, OpKind::Barrier, scalarBlockedSince_, t, b->loc, "barrier_all",
                   currentIteration());
        }
        scalarBlockedSince_ = -1;
        // Everything issued so far has completed: every pipe learns it.
        VClock all{};
        for (Pipe p : kAllPipes) {
          VClock c = issueVC_[pipeIndex(p)];
          c[lane(p)] = p == Pipe::S ? sIndex_ : ps(p).issued;
          all = join(all, c);
        }
        for (auto& vc : issueVC_) vc = join(vc, all);
        chargeScalar(t, 1);
        return true;
      }
      if (b->pipe == Pipe::S) {
        chargeScalar(t, 1);
        return true;
      }
      auto& q = ps(b->pipe);
      if (static_cast<int64_t>(q.queue.size()) >= target_.queueDepth(b->pipe)) return false;
      Instr* in = newInstr(s, InstrType::Barrier, b->pipe);
      in->kind = OpKind::Barrier;
      q.queue.push_back(in);
      chargeScalar(t, target_.cost.scalar.issueCycles);
      return true;
    }
    default:
      return issueTile(s, t);
  }
}

bool BlockSim::issueTile(const Stmt& s, int64_t t) {
  auto it = costs_.find(s.get());
  if (it == costs_.end()) it = costs_.emplace(s.get(), cost::instructionCost(s, target_)).first;
  const cost::InstructionCost& c = it->second;
  bool l1Gemm = c.secondPipe.has_value();
  if (static_cast<int64_t>(ps(c.pipe).queue.size()) >= target_.queueDepth(c.pipe)) return false;
  if (l1Gemm &&
      static_cast<int64_t>(ps(*c.secondPipe).queue.size()) >= target_.queueDepth(*c.secondPipe))
    return false;

  // Address arithmetic and scalar operands: evaluated by the scalar unit now.
  AccessSet acc;
  std::vector<ResolvedRegion> regions;
  Scalar value;
  bool clear = false;
  bool tailFill = false;  // a clipped copy into L1 zero-fills the rest of the tile
  StaleVersionCheck::Epochs epochs;
  {
    ScalarScope scope(machine_, scalarEnv_, &acc);
    epochs = stale_.epochsOf(s, machine_);
    switch (s->kind) {
      case StmtKind::Copy: {
        const auto* x = as<CopyStmt>(s);
        CopyRegions r = machine_.resolveCopy(*x);
        regions = {r.src, r.dst};
        if (x->padValue) {
          machine_.loc = x->loc;
          value = machine_.eval(x->padValue);
        } else if (r.tailFill) {
          value = *r.tailFill;
          tailFill = true;
        }
        break;
      }
      case StmtKind::Gemm: {
        const auto* g = as<GemmStmt>(s);
        regions = {machine_.resolve(g->a, g->loc), machine_.resolve(g->b, g->loc),
                   machine_.resolve(g->c, g->loc)};
        machine_.loc = g->loc;
        if (g->clearAccum) {
          Scalar c = machine_.eval(g->clearAccum);
          machine_.requireDefined(c, "clear_accum of this T.gemm");
          clear = c.truthy();
        }
        break;
      }
      case StmtKind::Fill: {
        const auto* f = as<FillStmt>(s);
        regions = {machine_.resolve(f->dst, f->loc)};
        machine_.loc = f->loc;
        value = machine_.eval(f->value);
        break;
      }
      case StmtKind::Reduce: {
        const auto* r = as<ReduceStmt>(s);
        regions = {machine_.resolve(r->src, r->loc), machine_.resolve(r->dst, r->loc)};
        break;
      }
      default:
        break;  // T.Parallel and VF regions compute their addresses on the vector unit
    }
  }
  // The T.alloc_var scalars a vector body only reads are handed over now, as
  // register operands: the scalar unit reads them at issue.
  std::vector<Instr::Captured> captured;
  for (const auto& st : capturedOf(s)) {
    int index = memory_.viewStorage(memory_.index(st), machine_.coreView());
    int64_t size = memory_.size(index);
    const uint8_t* bytes = memory_.bytesAt(index, 0, size);
    const uint8_t* defined = memory_.definedAt(index, 0, size);
    captured.push_back({index, {bytes, bytes + size}, {defined, defined + size}});
    acc.add(index, 0, size, /*write=*/false);
  }
  scalarAccess(acc, s, epochs, /*operandsOfNext=*/true);

  OpKind kind = kindOf(s, c);
  Instr* loadPart = nullptr;
  if (l1Gemm) {
    loadPart = newInstr(s, InstrType::GemmLoad, *c.secondPipe);
    loadPart->kind = OpKind::L1ToL0;
    loadPart->latency = c.secondLatency;
    loadPart->ii = c.secondIi;
    loadPart->regions = regions;
    loadPart->gemm = std::make_shared<GemmOperands>();
    loadPart->epochs = epochs;
    ps(*c.secondPipe).queue.push_back(loadPart);
  }
  Instr* in =
      newInstr(s, s->kind == StmtKind::Gemm ? InstrType::GemmCompute : InstrType::Work, c.pipe);
  if (loadPart) in->id = loadPart->id;  // one instruction, two parts
  in->kind = kind;
  in->latency = c.latency;
  in->ii = c.ii;
  in->regions = std::move(regions);
  in->value = value;
  in->clear = clear;
  in->hasPad = (s->kind == StmtKind::Copy && as<CopyStmt>(s)->padValue != nullptr) || tailFill;
  in->partner = loadPart;
  in->epochs = std::move(epochs);
  in->captured = std::move(captured);
  if (loadPart) in->gemm = loadPart->gemm;
  if (s->kind == StmtKind::Parallel || s->kind == StmtKind::VFRegion) in->env = scalarEnv_;
  ps(c.pipe).queue.push_back(in);
  chargeScalar(t, target_.cost.scalar.issueCycles);
  return true;
}

// ---------------------------------------------------------------- pipes

void BlockSim::execute(Instr* in, bool deferred) {
  AccessSet acc;
  machine_.access = &acc;
  // T.Parallel and VF bodies run with the scalar values captured at issue.
  bool swapped = !in->env.empty();
  if (swapped) std::swap(machine_.env, in->env);
  auto swapCaptured = [&] {
    for (auto& c : in->captured) {
      int64_t size = static_cast<int64_t>(c.bytes.size());
      std::swap_ranges(c.bytes.begin(), c.bytes.end(), memory_.bytesAt(c.storage, 0, size));
      if (!memory_.alwaysDefined(c.storage))
        std::swap_ranges(c.defined.begin(), c.defined.end(), memory_.definedAt(c.storage, 0, size));
    }
  };
  swapCaptured();
  machine_.loc = in->stmt->loc;
  machine_.instruction = instrName(in->stmt);
  if (deferred) machine_.beginDeferred();
  auto finish = [&] {
    if (deferred) in->pending = machine_.endDeferred();
    swapCaptured();
    if (swapped) std::swap(machine_.env, in->env);
    machine_.access = nullptr;
    machine_.instruction.clear();
  };
  try {
    const Stmt& s = in->stmt;
    switch (in->type) {
      case InstrType::GemmLoad:
        *in->gemm = machine_.readGemmOperands(*as<GemmStmt>(s), in->regions[0], in->regions[1]);
        break;
      case InstrType::GemmCompute:
        if (!in->gemm) in->gemm = std::make_shared<GemmOperands>();
        if (!in->partner)
          *in->gemm = machine_.readGemmOperands(*as<GemmStmt>(s), in->regions[0], in->regions[1]);
        machine_.finishGemm(*in->gemm, in->regions[2], in->clear, s->loc);
        break;
      default:
        switch (s->kind) {
          case StmtKind::Copy:
            if (as<CopyStmt>(s)->dual != CopyStmt::Dual::None) {
              machine_.dualCopy(*as<CopyStmt>(s), in->regions[0], in->regions[1]);
              break;
            }
            machine_.copy(in->regions[0], in->regions[1], s->loc, in->hasPad ? &in->value : nullptr,
                          as<CopyStmt>(s)->atomic, as<CopyStmt>(s)->transpose);
            break;
          case StmtKind::Fill:
            machine_.fill(in->regions[0], in->value);
            break;
          case StmtKind::Reduce:
            machine_.reduce(*as<ReduceStmt>(s), in->regions[0], in->regions[1]);
            break;
          default:
            machine_.exec(s);
            break;
        }
    }
  } catch (...) {
    finish();
    throw;
  }
  finish();
  in->env.clear();
  in->env.shrink_to_fit();
  // The captured scalars were read at issue (by the scalar unit), not now.
  if (!in->captured.empty())
    std::erase_if(acc.entries, [&](const AccessSet::Entry& e) {
      return std::any_of(in->captured.begin(), in->captured.end(),
                         [&](const Instr::Captured& c) { return c.storage == e.storage; });
    });
  in->captured.clear();
  acc.normalize();
  stale_.apply(acc, in->epochs, in->stmt, block_, result_.issues);
  AccessOwner who{in->id, in->pipe, in->pipeIndex, in->clock, in->stmt.get(), block_};
  who.core = static_cast<uint8_t>(core_);
  races_.access(who, acc);
  globalRaces_.access(who, acc, atomics_.of(in->stmt));
}

void BlockSim::startWork(Instr* in, int64_t t) {
  PipeState& p = ps(in->pipe);
  size_t pi = pipeIndex(in->pipe);
  in->start = t;
  in->clock = join(issueVC_[pi], in->issuedAfter);
  if (in->partner) in->clock = join(in->clock, in->partner->clock);
  bool inOrder = target_.completesInOrder(in->pipe);
  in->complete = t + in->latency;
  if (inOrder) {
    in->complete = std::max(in->complete, p.lastComplete);
    // The next instruction of an in-order pipe sees this one complete.
    issueVC_[pi][lane(in->pipe)] = in->pipeIndex + 1;
  }
  p.lastComplete = std::max(p.lastComplete, in->complete);
  p.freeAt = t + in->ii;
  stats_.pipes[pi].busy += in->ii;
  ++stats_.pipes[pi].instructions;
  ++stats_.instructions;
  if (!inOrder) execute(in, /*deferred=*/true);
  p.inflight.push_back(in);
}

bool BlockSim::startPipe(Pipe pipe, int64_t t) {
  PipeState& p = ps(pipe);
  if (p.queue.empty() || t < p.freeAt) return false;
  Instr* in = p.queue.front();
  size_t pi = pipeIndex(pipe);
  switch (in->type) {
    case InstrType::Work:
    case InstrType::GemmLoad:
      break;
    case InstrType::GemmCompute:
      if (in->partner && !in->partner->done) return false;
      break;
    case InstrType::SetFlag:
      p.queue.pop_front();
      in->start = t;
      in->clock = join(issueVC_[pi], in->issuedAfter);
      p.freeAt = t + 1;
      p.inflight.push_back(in);  // fires in fireFlags once every earlier instruction completed
      return true;
    case InstrType::WaitFlag: {
      bool ready =
          in->crossCore ? group_->available(in->counter, t) : flag(in->fsrc, in->fdst, in->fid).set;
      if (!ready) {
        if (in->blockedSince < 0) in->blockedSince = t;
        return false;
      }
      p.queue.pop_front();
      int64_t since = in->blockedSince >= 0 ? in->blockedSince : t;
      stats_.pipes[pi].flagStall += t - since;
      if (in->crossCore)
        crossConsume(in->counter, pipe, t);
      else
        consumeFlag(in, pipe, t);
      in->start = since;
      in->complete = t + 1;
      in->done = true;
      if (target_.completesInOrder(pipe)) issueVC_[pi][lane(pipe)] = in->pipeIndex + 1;
      p.freeAt = t + 1;
      p.lastComplete = std::max(p.lastComplete, t + 1);
      addEvent(
          pipe, OpKind::WaitFlag, since, t + 1, in->stmt->loc,
          in->crossCore ? crossText(in->stmt) : flagText("wait_flag", in->fsrc, in->fdst, in->fid),
          in->iteration);
      return true;
    }
    case InstrType::Barrier: {
      if (!p.inflight.empty()) {
        if (in->blockedSince < 0) in->blockedSince = t;
        return false;
      }
      p.queue.pop_front();
      int64_t since = in->blockedSince >= 0 ? in->blockedSince : t;
      stats_.pipes[pi].barrierStall += t - since;
      issueVC_[pi][lane(pipe)] = in->pipeIndex + 1;
      in->done = true;
      p.freeAt = t + 1;
      addEvent(pipe, OpKind::Barrier, since, t + 1, in->stmt->loc,
               fmt::format("pipe_barrier({})", pipeName(pipe)), in->iteration);
      return true;
    }
  }
  p.queue.pop_front();
  startWork(in, t);
  return true;
}

bool BlockSim::processCompletions(int64_t t) {
  std::vector<Instr*> due;
  for (auto& p : pipes_)
    for (Instr* in : p.inflight)
      if (in->type != InstrType::SetFlag && in->complete <= t) due.push_back(in);
  if (due.empty()) return false;
  std::sort(due.begin(), due.end(), [](const Instr* a, const Instr* b) {
    if (a->complete != b->complete) return a->complete < b->complete;
    if (a->pipe != b->pipe) return a->pipe < b->pipe;
    return a->pipeIndex < b->pipeIndex;
  });
  for (Instr* in : due) {
    if (target_.completesInOrder(in->pipe))
      execute(in, /*deferred=*/false);
    else
      machine_.applyPatches(in->pending);
    in->pending = Patches{};
    in->done = true;
    auto& fl = ps(in->pipe).inflight;
    fl.erase(std::find(fl.begin(), fl.end(), in));
    if (trace_)
      addEvent(in->pipe, in->kind, in->start, in->complete, in->stmt->loc, instrName(in->stmt),
               in->iteration, instructionLabel(in->stmt.get()));
  }
  return true;
}

bool BlockSim::fireFlags(int64_t t) {
  bool progress = false;
  for (Pipe pipe : kAllPipes) {
    auto& fl = ps(pipe).inflight;
    for (size_t i = 0; i < fl.size();) {
      Instr* f = fl[i];
      if (f->type != InstrType::SetFlag) {
        ++i;
        continue;
      }
      bool earlierPending = false;
      for (Instr* o : fl)
        if (o != f && o->pipeIndex < f->pipeIndex) earlierPending = true;
      if (earlierPending) {
        ++i;
        continue;
      }
      VClock clock = f->clock;
      clock[lane(pipe)] = std::max(clock[lane(pipe)], f->pipeIndex + 1);
      if (f->crossCore)
        crossSet(f->counter, clock, t, f->stmt->loc, pipe);
      else
        setFlag(f->fsrc, f->fdst, f->fid, clock, t, f->stmt->loc);
      f->done = true;
      f->complete = t;
      addEvent(pipe, OpKind::SetFlag, f->start, t + 1, f->stmt->loc,
               f->crossCore ? crossText(f->stmt) : flagText("set_flag", f->fsrc, f->fdst, f->fid),
               f->iteration);
      fl.erase(fl.begin() + static_cast<long>(i));
      progress = true;
    }
  }
  return progress;
}

void BlockSim::deadlock(int64_t t) { result_.issues.push_back(deadlockReport(t)); }

SimIssue BlockSim::deadlockReport(int64_t t) {
  SimIssue issue;
  issue.kind = SimIssue::Deadlock;
  issue.block = block_;
  issue.message =
      fmt::format("deadlock in block {} at cycle {}: no pipe can make progress", block_, t);
  std::string who = group_ ? coreName(core_) + " " : "";
  auto crossWait = [&](const Stmt& s, const CrossCoreCounter& c) {
    return fmt::format("{} waits for {}, which no core has set (or will set)", crossText(s),
                       counterText(c));
  };
  // Why a wait can never be satisfied: its set_flag is stuck in SRC's queue
  // behind SRC's own blocked head, or it was never issued. A wait with no
  // set_flag anywhere is the root cause, so the error points at it.
  SourceLoc rootCause;
  auto describeWait = [&](Pipe src, Pipe dst, int64_t id, SourceLoc at) {
    std::string text = flagText("wait_flag", src, dst, id);
    if (src != Pipe::S)
      for (const Instr* q : ps(src).queue)
        if (q->type == InstrType::SetFlag && q->fsrc == src && q->fdst == dst && q->fid == id)
          return fmt::format(
              "{} waits for the set_flag at line {}, which is queued on {} behind {}'s blocked "
              "head",
              text, q->stmt->loc.line, pipeName(src), pipeName(src));
    if (!rootCause.valid()) rootCause = at;
    if (scalarDone_)
      return fmt::format("{} waits for a flag that is never set (no matching set_flag was issued)",
                         text);
    return fmt::format(
        "{} waits for a flag that no issued set_flag sets, and the scalar unit is stuck before "
        "issuing more",
        text);
  };
  if (pendingLeaf_ && *pendingLeaf_) {
    const Stmt& s = *pendingLeaf_;
    issue.loc = s->loc;
    std::string what;
    if (const auto* w = as<WaitFlagStmt>(s); w && w->dst == Pipe::S && w->crossCore()) {
      std::string error;
      int64_t id = 0;
      {
        ScalarScope scope(machine_, scalarEnv_, machine_.access);
        id = machine_.eval(w->eventId).asInt();
      }
      auto c = crossCoreWaitCounter(core_, id, group_ ? group_->aivs : 2, error);
      if (!rootCause.valid()) rootCause = s->loc;
      what = who + "scalar unit (S): " + (c ? crossWait(s, *c) : error);
    } else if (w && w->dst == Pipe::S) {
      int64_t id = 0;
      {
        ScalarScope scope(machine_, scalarEnv_, machine_.access);
        id = machine_.eval(w->eventId).asInt();
      }
      what = who + "scalar unit (S): " + describeWait(w->src, w->dst, id, s->loc);
    } else if (const auto* b = as<BarrierStmt>(s); b && b->all) {
      what = who + "scalar unit (S): barrier_all waits for the pipes to drain";
    } else {
      what = who + "scalar unit (S): waits for room in a full pipe queue";
    }
    issue.notes.push_back({s->loc, what});
  }
  for (Pipe p : kAllPipes) {
    const auto& st = ps(p);
    if (st.queue.empty()) continue;
    Instr* in = st.queue.front();
    std::string what;
    if (in->type == InstrType::WaitFlag && in->crossCore) {
      what = crossWait(in->stmt, in->counter);
      if (!rootCause.valid()) rootCause = in->stmt->loc;
    } else if (in->type == InstrType::WaitFlag)
      what = describeWait(in->fsrc, in->fdst, in->fid, in->stmt->loc);
    else if (in->type == InstrType::Barrier)
      what = fmt::format("pipe_barrier({}) waits for earlier instructions", pipeName(p));
    else
      what = instrName(in->stmt) + " waits behind its pipe's blocked head";
    if (!issue.loc.valid()) issue.loc = in->stmt->loc;
    issue.notes.push_back({in->stmt->loc, fmt::format("{}pipe {}: {}", who, pipeName(p), what)});
  }
  if (rootCause.valid()) issue.loc = rootCause;
  return issue;
}

bool BlockSim::step(int64_t t) {
  bool any = false;
  bool progress = true;
  while (progress) {
    progress = processCompletions(t);
    progress |= fireFlags(t);
    for (Pipe p : kAllPipes)
      if (p != Pipe::S) progress |= startPipe(p, t);
    if (!scalarDone_ && scalarFree_ <= t) progress |= scalarStep(t);
    any |= progress;
  }
  return any;
}

int64_t BlockSim::nextTime(int64_t t) const {
  int64_t next = kNever;
  for (const auto& p : pipes_) {
    for (const Instr* in : p.inflight)
      if (in->type != InstrType::SetFlag && in->complete > t) next = std::min(next, in->complete);
    if (!p.queue.empty() && p.freeAt > t) next = std::min(next, p.freeAt);
  }
  if (!scalarDone_ && scalarFree_ > t) next = std::min(next, scalarFree_);
  return next;
}

void BlockSim::run() {
  int64_t t = 0;
  bool deadlocked = false;
  while (true) {
    step(t);
    if (finished()) break;
    int64_t next = nextTime(t);
    if (next == kNever) {
      deadlock(t);
      deadlocked = true;
      result_.aborted = true;
      break;
    }
    t = next;
  }
  result_.blocks.push_back(finish(t, deadlocked));
}

BlockStats BlockSim::finish(int64_t t, bool deadlocked) {
  deadlocked_ = deadlocked;
  if (scalarEventStart_ >= 0)
    addEvent(Pipe::S, OpKind::Scalar, scalarEventStart_, scalarEventEnd_, {}, "scalar unit", -1,
             "scalar");
  if (deadlocked_) {
    stats_.cycles = t;
  } else {
    int64_t end = std::max(t, scalarFree_);
    for (const auto& p : pipes_) end = std::max(end, p.lastComplete);
    stats_.cycles = end;
    // Every set must have been consumed by the end of the block.
    for (const auto& [key, f] : flags_) {
      auto [src, dst, id] = key;
      if (f.set)
        flagError(
            f.setter,
            fmt::format("{}{} is still set at the end of the kernel: every set needs exactly one "
                        "wait_flag",
                        group_ ? coreName(core_) + ": " : "", flagText("set_flag", src, dst, id)));
    }
  }
  Pipe best = Pipe::S;
  for (Pipe p : kAllPipes) {
    stats_.flagStall += stats_.pipes[pipeIndex(p)].flagStall;
    if (stats_.pipes[pipeIndex(p)].busy > stats_.pipes[pipeIndex(best)].busy) best = p;
  }
  stats_.bottleneck = best;
  stats_.lowerBound = stats_.pipes[pipeIndex(best)].busy;
  return stats_;
}

}  // namespace detail

using namespace detail;

void checkAssumptions(const Kernel& kernel, Machine& machine, int64_t block) {
  for (const auto& a : kernel.assumptions)
    if (!machine.eval(a.cond).truthy())
      throw ExecError{a.loc, fmt::format("T.assume({}) is false in this run (block {}); the kernel "
                                         "was compiled on the assumption that it holds",
                                         printExpr(a.cond), block)};
}

namespace {

// What one thread needs to simulate blocks: a Machine over its Memory and the
// instruction-cost cache.
struct BlockRunner {
  const Kernel& kernel;
  const Target& target;
  Memory& memory;
  Machine machine;
  std::unordered_map<const StmtNode*, cost::InstructionCost> costs;
  AtomicKinds atomics;
  StaleVersionCheck stale;

  // The AIVs of a manual-form core group (the AIC runs on `machine`).
  std::vector<std::unique_ptr<Machine>> aivs;

  BlockRunner(const Kernel& k, const Target& t, Memory& m, const SimOptions& options)
      : kernel(k), target(t), memory(m), machine(k, m), atomics(k, m), stale(k, m) {
    setUp(machine, options);
    if (kernel.manualCores) {
      bindGroupCore(kernel, machine, 0);
      for (int core = 1; core < groupCores(kernel); ++core) {
        aivs.push_back(std::make_unique<Machine>(k, m));
        setUp(*aivs.back(), options);
        bindGroupCore(kernel, *aivs.back(), core);
      }
    }
  }

  void setUp(Machine& mach, const SimOptions& options) {
    mach.trackPoison = true;
    mach.fastPaths = options.fastPaths;
    for (const auto& [name, value] : options.bindings) {
      for (const auto& p : kernel.params)
        if (p.var && p.name == name) mach.env[static_cast<size_t>(p.var->id)] = value;
      for (const auto& dv : kernel.dynamicVars)
        if (dv->name == name) mach.env[static_cast<size_t>(dv->id)] = value;
    }
    mach.resolveShapes();
  }

  // Simulates block `b` into `result` (its stats, issues, trace); false when
  // a run-time error stopped it (which stops the whole simulation).
  // Poison uses go to `poison` when given (the machine reports the first use
  // per statement of the blocks *it* ran), else to result.issues.
  bool run(int64_t b, RaceDetector& races, GlobalRaceChecker& globalRaces, SimResult& result,
           bool trace, int64_t& traceBudget, std::vector<SimIssue>* poison = nullptr) {
    bool ok = true;
    memory.resetOnChip();
    races.clear();
    stale.resetBlock();
    machine.bindBlock(b);
    if (trace) {
      result.trace.emplace_back();
      result.arrows.emplace_back();
      result.iterations.emplace_back();
    }
    for (auto& m : aivs) m->bindBlock(b);
    try {
      checkAssumptions(kernel, machine, b);
      if (kernel.manualCores) {
        GroupFlags flags;
        flags.aivs = static_cast<int>(aivs.size());
        flags.latency = target.coreGroup.crossCoreFlagLatency;
        std::vector<std::unique_ptr<BlockSim>> cores;
        for (int core = 0; core <= static_cast<int>(aivs.size()); ++core) {
          Machine& m = core == 0 ? machine : *aivs[static_cast<size_t>(core - 1)];
          cores.push_back(std::make_unique<BlockSim>(kernel, target, m, memory, races, globalRaces,
                                                     result, costs, atomics, stale, b, trace,
                                                     traceBudget));
          cores.back()->joinGroup(core, &flags);
        }
        runGroup(cores, flags, result, b);
      } else {
        BlockSim sim(kernel, target, machine, memory, races, globalRaces, result, costs, atomics,
                     stale, b, trace, traceBudget);
        sim.run();
      }
    } catch (const ExecError& e) {
      SimIssue issue;
      issue.kind = SimIssue::Runtime;
      issue.loc = e.loc;
      issue.message = e.message;
      issue.block = b;
      result.issues.push_back(std::move(issue));
      result.aborted = true;
      ok = false;
    }
    // Uses of uninitialised memory: run-time errors that did not stop the block.
    for (auto& m : aivs) {
      machine.poisonUses.insert(machine.poisonUses.end(), m->poisonUses.begin(),
                                m->poisonUses.end());
      m->poisonUses.clear();
    }
    for (ExecError& e : machine.poisonUses) {
      SimIssue issue;
      issue.kind = SimIssue::Runtime;
      issue.loc = e.loc;
      issue.message = std::move(e.message);
      issue.block = b;
      (poison ? *poison : result.issues).push_back(std::move(issue));
    }
    machine.poisonUses.clear();
    return ok;
  }
};

std::vector<bool> globalStorages(const Memory& memory) {
  std::vector<bool> isGlobal(static_cast<size_t>(memory.numStorages()));
  for (int i = 0; i < memory.numStorages(); ++i)
    isGlobal[static_cast<size_t>(i)] = memory.storage(i)->scope == MemScope::Global;
  return isGlobal;
}

// The blocks of one launch on two threads (issue 10): even blocks on this
// thread over `memory`, odd ones on a second thread over a copy of it. Each
// block gets its own race detector and global-access summary; afterwards
// everything is merged in block order, exactly as the sequential loop would
// have produced it. That is only the same result when no block reads or
// writes global bytes another block writes (then every block sees the
// initial global memory either way): the summaries are checked for that in
// block order, and on any inter-block race or run-time error `memory` is
// restored and nullopt returned, so the caller simulates sequentially.
std::optional<SimResult> simulateOnTwoThreads(const Kernel& kernel, const Target& target,
                                              Memory& memory, const SimOptions& options,
                                              SimResult result) {
  struct Outcome {
    SimResult part;
    std::vector<SimIssue> poison;
    std::vector<Race> races;
    int64_t raceOccurrences = 0;
    GlobalRaceChecker::Summary globals;
    bool ok = true;
  };
  const auto grid = static_cast<size_t>(kernel.grid);
  std::vector<Outcome> outcomes(grid);
  std::vector<bool> isGlobal = globalStorages(memory);
  Memory snapshot = memory;  // to restore for the sequential fallback
  Memory second = memory;
  auto work = [&](size_t first, Memory& mem) {
    BlockRunner runner(kernel, target, mem, options);
    GlobalRaceChecker collector(isGlobal);
    int64_t noTrace = 0;
    for (size_t b = first; b < grid; b += 2) {
      Outcome& o = outcomes[b];
      RaceDetector races;
      o.ok =
          runner.run(static_cast<int64_t>(b), races, collector, o.part, false, noTrace, &o.poison);
      if (options.blockDone) options.blockDone();
      o.races = races.races();
      o.raceOccurrences = races.totalOccurrences();
      o.globals = collector.takeBlock();
      if (!o.ok) return;
    }
  };
  std::exception_ptr failure;
  std::thread other([&] {
    try {
      work(1, second);
    } catch (...) {
      failure = std::current_exception();
    }
  });
  try {
    work(0, memory);
  } catch (...) {
    other.join();
    throw;
  }
  other.join();
  if (failure) std::rethrow_exception(failure);

  auto fallBack = [&] {
    memory = std::move(snapshot);
    return std::nullopt;
  };
  for (const Outcome& o : outcomes)
    if (!o.ok) return fallBack();
  // The odd blocks' global writes, from the second memory into `memory`
  // (before their summaries move into the checker).
  for (size_t b = 1; b < grid; b += 2)
    for (size_t storage = 0; storage < outcomes[b].globals.storages.size(); ++storage)
      for (const auto& piece : outcomes[b].globals.storages[storage][GlobalRaceChecker::Write])
        std::memcpy(memory.data(static_cast<int>(storage)) + piece.lo,
                    second.data(static_cast<int>(storage)) + piece.lo,
                    static_cast<size_t>(piece.hi - piece.lo));
  GlobalRaceChecker checker(isGlobal);
  for (Outcome& o : outcomes) checker.addBlock(std::move(o.globals));
  if (!checker.races().empty()) return fallBack();

  // Merge in block order; intra-block races deduplicated across blocks by
  // (instruction, instruction, storage) as the shared detector does.
  // Poison: the first use per statement over all blocks, as one machine reports it.
  std::map<std::tuple<const void*, const void*, int>, size_t> raceIndex;
  std::set<std::pair<uint32_t, uint32_t>> poisonReported;
  for (Outcome& o : outcomes) {
    for (auto& s : o.part.blocks) result.blocks.push_back(s);
    for (auto& i : o.part.issues) result.issues.push_back(std::move(i));
    for (auto& i : o.poison)
      if (poisonReported.insert({i.loc.line, i.loc.col}).second)
        result.issues.push_back(std::move(i));
    result.aborted |= o.part.aborted;
    for (const Race& r : o.races) {
      auto key = std::make_tuple(static_cast<const void*>(r.first.stmt),
                                 static_cast<const void*>(r.second.stmt), r.storage);
      auto [it, fresh] = raceIndex.try_emplace(key, result.races.size());
      if (fresh)
        result.races.push_back(r);
      else
        result.races[it->second].occurrences += r.occurrences;
    }
    result.raceOccurrences += o.raceOccurrences;
  }
  return result;
}

}  // namespace

SimResult simulate(const Kernel& kernel, const Target& target, Memory& memory,
                   const SimOptions& options) {
  SimResult result;
  result.allocations = allocate(kernel, target, result.issues, result.used);
  // Two threads copy global memory twice (a snapshot for the fallback and the
  // second thread's memory): measured to cost more than it saves on streaming
  // kernels with big tensors (vec_add at 4 M elements), so only up to 16 MiB.
  int64_t globalBytes = 0;
  for (int i = 0; i < memory.numStorages(); ++i)
    if (memory.storage(i)->scope == MemScope::Global) globalBytes += memory.size(i);
  if (options.threads >= 2 && kernel.grid >= 2 && options.blocks.empty() && !options.recordTrace &&
      globalBytes <= (int64_t{16} << 20) && !hasAtomicStore(kernel)) {
    if (auto parallel = simulateOnTwoThreads(kernel, target, memory, options, result)) {
      detail::finish(*parallel, kernel, options);
      return std::move(*parallel);
    }
  }
  BlockRunner runner(kernel, target, memory, options);
  RaceDetector races;
  GlobalRaceChecker globalRaces(globalStorages(memory));
  int64_t traceBudget = options.maxTraceEvents;
  // A run-time error stops the simulation; a deadlock stops only its own
  // block (the other cores go on), so every blocked block is reported.
  std::vector<int64_t> blocks = options.blocks;
  if (blocks.empty())
    for (int64_t b = 0; b < kernel.grid; ++b) blocks.push_back(b);
  for (int64_t b : blocks) {
    bool ok = runner.run(b, races, globalRaces, result, options.recordTrace, traceBudget);
    globalRaces.endBlock();
    if (options.blockDone) options.blockDone();
    if (!ok) break;
  }
  result.races = races.races();
  result.raceOccurrences = races.totalOccurrences();
  for (Race race : globalRaces.races()) {
    race.element = detail::elementName(kernel, memory, runner.machine, race.storage, race.lo);
    result.races.push_back(std::move(race));
  }
  result.raceOccurrences += globalRaces.totalOccurrences();
  detail::finish(result, kernel, options);
  return result;
}
}  // namespace tilesched::sim
