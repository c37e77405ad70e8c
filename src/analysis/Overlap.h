// Region overlap (SPEC §4.2, §2.2): can two accesses touch a common element,
// the second one `d` iterations of a loop after the first?
//
// Expects: accesses from extractUnits (boxes free of T.Parallel and nested-loop
// variables, single-assignment scalars resolved).
// Guarantees: sound — "no" only when proven. Proofs are exact for affine box
// starts with `%` and `//` by constants (the indices of hand-written rings) and
// take the loop bounds and the accesses' guards into account. A constant
// difference of the starts decides most pairs without a solver; the rest go to
// Z3 (linear integer arithmetic, `x // c` and `x % c` as c·q + r with
// 0 <= r < c), with a time budget per query; "unknown" counts as overlap.
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

struct OverlapStats {
  int64_t queries = 0;
  int64_t decidedWithoutSolver = 0;
  int64_t solverCalls = 0;
  int64_t solverUnknown = 0;
};

class OverlapOracle {
 public:
  explicit OverlapOracle(unsigned timeoutMs = 200);
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

 private:
  bool solve(const Access& a, const Access& b, const ir::ForStmt* loop,
             std::optional<int64_t> shift);

  struct Solver;
  std::unique_ptr<Solver> solver_;
  OverlapStats stats_;
};

}  // namespace tilesched::analysis
