// Task and unit extraction (SPEC §4.1): the first AutoSchedule analysis.
//
// Expects: a verified kernel (ir::verifyKernel) and a loaded target.
// Guarantees: every statement of the kernel root and of every loop body becomes
// one schedule unit, in program order:
//  - a *task*: one leaf instruction (copy, gemm, fill, reduce, T.Parallel, VF
//    region, scalar store/assign, flag), atomic, with its pipe(s), latency and
//    II from cost::instructionCost, and its read/write accesses as boxes over
//    storages (aliases resolved to their storage);
//  - a *loop*: a nested `for` whose body is again a unit list; its accesses are
//    those of its body, hulled over its loop variable;
//  - the statements of an `if` become units guarded by the condition (its
//    `else` by the negation); guards nest as conjunctions.
// Boxes never mention T.Parallel variables or variables of loops nested in the
// unit: those are hulled to the range they sweep (exact for affine indices with
// constant coefficients, the whole dimension otherwise). Scalar variables
// (`x = expr`) are accesses too (`var` set, no storage). Loop units get an
// estimated timing (a sequential list schedule of their body) that the
// scheduler replaces with the solved one (Dependencies.h,
// recomputeDependencyLatencies). Loads the scalar unit makes when a statement
// issues (loop bounds, region starts, fill values) are marked `scalarOperand`.
//
//   for s in T.Pipelined(4, num_stages=2):        units of loop s (float32):
//       T.copy(A[s * 1024:s * 1024 + 1024], a_ub) #0 MTE2 lat 172 ii 82  R A[s * 1024:s *
//       1024+1024]  W a_ub[0:1024] for i in T.Parallel(1024):                #1 V    lat 32  ii 32
//       R a_ub[0:1024]  W c_ub[0:1024]
//           c_ub[i] = a_ub[i] * 2.0
//       if s > 0:
//           T.copy(c_ub, C[...])                  #2 MTE3 lat 252 ii 72  if (s > 0)  R c_ub[0:1024]
//           W C[...]
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cost/InstructionCost.h"
#include "ir/IR.h"
#include "target/Target.h"

namespace tilesched::analysis {

// One literal of a guard: `cond` or `not cond`.
struct GuardLiteral {
  ir::Expr cond;  // single-assignment scalars resolved (see ExprUtil.h)
  bool negated = false;
  ir::Expr source;  // the condition as written (its scalar reads are dependencies)
};
// A conjunction of literals; empty = unconditional.
using Guard = std::vector<GuardLiteral>;

// True when `inner` implies `outer` syntactically: every literal of `outer`
// occurs in `inner` (same condition, same polarity).
bool guardImplies(const Guard& inner, const Guard& outer);
std::string printGuard(const Guard& g);

// One dimension of an access box: [start, start + extent), or the whole
// dimension when the start could not be bounded.
struct BoxDim {
  ir::Expr start;
  int64_t extent = 1;
  bool whole = false;
};

enum class AccessKind { Read, Write };

struct Access {
  AccessKind kind = AccessKind::Read;
  ir::Storage storage;      // null for a scalar variable
  ir::Buffer buffer;        // the buffer as written (an alias of `storage` or the allocation)
  ir::Var var;              // the scalar variable when `storage` is null
  std::vector<BoxDim> box;  // over `buffer`'s shape; empty for scalars and 0-d buffers
  Guard guard;              // relative to the unit list's body (includes the unit's guard)
  SourceLoc loc;
  // Which leaf task makes the access, as unit indices from the unit down
  // (empty for a task unit; [3, 0] = unit 3 of the loop's body, then unit 0
  // of that unit's body).
  std::vector<int> path;
  // Made by the scalar unit when the instruction issues, not by the
  // instruction's pipe: a load in a loop bound, a region start, a fill or pad
  // value, clear_accum, or a scalar store/assignment. (Loads inside T.Parallel
  // and VF bodies are the vector unit's, except those of the T.alloc_var
  // scalars the body reads but does not write: ir::issueCapturedScalars.)
  // Synchronisation waits for such a read on S.
  bool scalarOperand = false;

  bool isWrite() const { return kind == AccessKind::Write; }
  bool isScalarVar() const { return storage == nullptr; }
};

std::string printAccess(const Access& a);

enum class UnitKind { Task, Loop };

struct UnitList;

// Start offsets and period of a loop body, used for dependency latencies
// through nested loops (SPEC §4.2).
struct LoopTiming {
  int64_t ii = 1;              // cycles between iteration starts
  std::vector<int64_t> start;  // per unit: start offset within one iteration
  int64_t makespan = 1;        // one iteration, first start to last completion
  int64_t trips = 1;           // constant trip count (1 when unknown)
  bool tripsKnown = true;
  bool estimated = true;  // a list-schedule estimate, not a solved schedule
  // Start of the first iteration to completion of the last.
  int64_t totalTime() const { return (trips > 0 ? trips - 1 : 0) * ii + makespan; }
};

struct Unit {
  UnitKind kind = UnitKind::Task;
  int index = 0;  // position in its list
  ir::Stmt stmt;  // the leaf instruction or the ForStmt
  Guard guard;    // conditions of the enclosing ifs within the list
  SourceLoc loc;
  uint32_t pipeMask = 0;  // pipes it occupies (bitmask of pipeMask())
  // Tasks: the instruction cost (the issue pipe, and the MTE1 part of an L1
  // gemm). Loops: the pipe of their first task.
  cost::InstructionCost cost;
  int64_t latency = 1;  // tasks: totalLatency(cost); loops: timing totalTime()
  int64_t ii = 1;       // tasks: cycles the busiest of its pipes is occupied; loops: = latency
  std::shared_ptr<UnitList> body;  // loops only
  std::vector<Access> accesses;

  bool isLoop() const { return kind == UnitKind::Loop; }
  const ir::ForStmt* loop() const { return ir::as<ir::ForStmt>(stmt); }
};

// "MTE2", "MTE1+M", "MTE2+V+MTE3" (pipes in bit order).
std::string pipeMaskName(uint32_t mask);

enum class DepKind { RAW, WAR, WAW };
std::string_view depKindName(DepKind k);

enum class DistanceKind {
  Same,       // 0: same iteration, forward in program order
  Versioned,  // some later iteration: the storage's version count (automatic storage owned by this
              // loop)
  Carried,    // some later iteration of an ordinary storage or scalar: distance 1
  Exact,      // manual ring: exactly `distance` iterations later
};
std::string_view distanceKindName(DistanceKind k);

struct Dependency {
  DepKind kind = DepKind::RAW;
  int from = 0;  // producer unit
  int to = 0;    // consumer unit
  DistanceKind distanceKind = DistanceKind::Same;
  int64_t distance =
      0;  // 0, 1 (Versioned/Carried: the smallest possible), or the exact ring distance
  int64_t latency = 0;  // producer finish − consumer start (nested loops: last/first iteration)
  ir::Storage storage;  // null for a scalar variable
  ir::Var var;
  // The leaf tasks that carry it: unit index paths from this list down to the
  // task (length 1 for a task unit).
  std::vector<int> fromPath, toPath;
  // The access at that end is a scalar operand read (Access::scalarOperand):
  // it is made by S, whatever the task's pipe.
  bool fromScalar = false, toScalar = false;
};

// Units that own one storage with several disjoint owners (SPEC §4.2): their
// accesses exclude each other in time; the solver picks an order.
struct OwnerExclusion {
  int a = 0, b = 0;  // a < b
  ir::Storage storage;
  int64_t forwardLatency = 0;  // a then b: a's finish − b's start
  int64_t reverseLatency = 0;  // b then a
};

struct UnitList {
  ir::Stmt loopStmt;  // the ForStmt whose body this is; null for the kernel root
  std::vector<Unit> units;
  std::vector<Dependency> deps;
  std::vector<OwnerExclusion> exclusions;
  LoopTiming timing;

  const ir::ForStmt* loop() const { return ir::as<ir::ForStmt>(loopStmt); }
  bool isRoot() const { return loopStmt == nullptr; }
};

// Builds the unit tree of a kernel: the root list and, through loop units,
// every loop body. Dependencies are left empty (see Dependencies.h); timings
// are sequential estimates.
UnitList extractUnits(const ir::Kernel& kernel, const Target& target,
                      const cost::CostOptions& options = {});

// Sequential list-schedule estimate of a list's timing from its units'
// latencies and IIs and its distance-0 dependencies (ASAP, one unit at a time
// per pipe, program order). Used before the scheduler has solved the loop.
LoopTiming estimateTiming(const UnitList& list);

// Calls fn on `list` and every nested list, inner lists first (post-order).
void forEachListPostOrder(UnitList& list, const std::function<void(UnitList&)>& fn);
void forEachList(const UnitList& list, const std::function<void(const UnitList&)>& fn);

}  // namespace tilesched::analysis
