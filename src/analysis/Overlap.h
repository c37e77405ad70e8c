// Region overlap (SPEC §4.2, §2.2): can two accesses touch a common element,
// the second one `d` iterations of a loop after the first?
//
// Expects: accesses from extractUnits (boxes free of T.Parallel and nested-loop
// variables, single-assignment scalars resolved).
// Guarantees: sound — "no" only when proven. Proofs are exact for affine box
// starts with `%` and `//` by constants (the indices of hand-written rings) and
// take the loop bounds and the accesses' guards into account. A syntactic
// test decides most pairs without a solver (decideSyntactically below); the
// rest go to Z3 (linear integer arithmetic, `x // c` and `x % c` as c·q + r
// with 0 <= r < c), with a time budget per query; "unknown" counts as overlap.
// Aliases of one storage with different shapes are compared as flattened byte
// ranges (the hull of each box), which may report overlap that is not there.
//
//   W buf[l % 2, 0:64]  vs  R buf[(l + 1) % 2, 0:64]
//     shift 0 → no;  shift 1 → yes  (the reader one iteration later)
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "analysis/Tasks.h"
#include "ir/IR.h"

namespace tilesched::analysis {

// The syntactic test, exact when it answers (the Z3 query would give the same
// answer): distinct storages never overlap; on one storage, when every box
// start is `c·loopVar + rest` with the same c on both sides and the two rests
// differ by a constant e, dimension by dimension the shifts d at which the
// boxes meet are the integers with -extentB < c·d + e < extentA — an
// interval; the accesses overlap iff the intervals of all dimensions and the
// loop's shift range ([shift, shift], or [1, trips - 1] for "some shift")
// share a d. "No" is proven whatever the guards; "yes" only when neither
// access is guarded and the trip count is a constant. Anything else (a start
// not affine in the loop variable, a private scalar or load in a start,
// different coefficients) is nullopt: undecided.
//
//   W A[t*64 + 16 : +16] vs R A[t*64 + 32 : +16], some shift:  c = 64, e = 16
//     -16 < 64·d + 16 < 16 has no integer d >= 1 → no
std::optional<bool> decideSyntactically(const Access& a, const Access& b, const ir::ForStmt* loop,
                                        std::optional<int64_t> shift);

struct OverlapStats {
  int64_t queries = 0;
  int64_t decidedWithoutSolver = 0;
  int64_t solverCalls = 0;
  int64_t solverUnknown = 0;
};

class OverlapOracle {
 public:
  // `syntacticFirst` false sends every undecided pair past the constant-
  // difference fast path straight to Z3 (tests compare the two).
  explicit OverlapOracle(unsigned timeoutMs = 200, bool syntacticFirst = true);
  ~OverlapOracle();
  OverlapOracle(const OverlapOracle&) = delete;
  OverlapOracle& operator=(const OverlapOracle&) = delete;

  // `a` runs in iteration p of `loop`, `b` in iteration p + shift (both inside
  // the loop's range); `shift` nullopt means "some shift >= 1". `loop` null:
  // both at the same point (the kernel root; shift must be 0). Scalar
  // variables always overlap themselves.
  bool mayOverlap(const Access& a, const Access& b, const ir::ForStmt* loop,
                  std::optional<int64_t> shift);

  // The smallest shift in [lo, hi] at which they may overlap, or nullopt.
  std::optional<int64_t> smallestShift(const Access& a, const Access& b, const ir::ForStmt* loop,
                                       int64_t lo, int64_t hi);

  const OverlapStats& stats() const { return stats_; }

  struct FormCache;  // the syntactic test's view of each box start, per loop

 private:
  bool solve(const Access& a, const Access& b, const ir::ForStmt* loop,
             std::optional<int64_t> shift);

  struct Solver;
  std::unique_ptr<Solver> solver_;
  std::unique_ptr<FormCache> forms_;
  bool syntacticFirst_ = true;
  OverlapStats stats_;
};

}  // namespace tilesched::analysis
