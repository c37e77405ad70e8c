// Fill and drain of each pipe: the part of the kernel's run that no schedule
// can overlap with a pipe's own work (issue 10, docs/performance.md "Bounds").
//
// Expects: the analysis of a kernel (analyzeKernel), its dependencies filled.
// Guarantees, per pipe P that runs at least one leaf task:
//  - fill[P]  = min over the tasks' parts on P of head(u) + offset_P(u), where
//    head(u) is the longest chain of distance-0 ("same") dependencies ending
//    at u, each step the least start-to-start time the lowered kernel
//    guarantees: the producer's latency (start → completion), but only its
//    II between two tasks of one pipe that completes in order (S, V, M); a
//    dependency between two L1 gemms sharing a pipe is left out;
//    offset_P(u) is the wait before u's part on P (an L1 gemm's M part
//    starts when its MTE1 part has completed);
//  - drain[P] = min over the same parts of rest(u) − (end of u's occupancy
//    of P − u's start), rest(u) = max(latency(u), max over distance-0
//    successors w of step(u, w) + rest(w)): u's start to the kernel's end.
// Every leaf task appears once (one iteration stands for the first and the
// last); a dependency between loop units counts between the leaf tasks its
// fromPath / toPath name. Dependencies from or to a task under a guard or in
// a loop whose trip count is unknown or zero are left out (the task might not
// run), so fill and drain never exceed what the lowered kernel must wait.
// The lowered kernel honours every such dependency with a flag or barrier, so
// a block whose busiest pipe P is busy B cycles takes at least
// B + fill[P] + drain[P] cycles (boundWithFillDrain takes the max over pipes).
//
//   vec_add loop s: copy A, copy B (MTE2, lat 172, ii 82) → add (V, lat 48)
//   → copy C (MTE3, lat 252, ii 72):
//     fill  MTE2 0,   V 172, MTE3 172 + 48
//     drain MTE2 (172 − 82) + 48 + 252, V 252, MTE3 252 − 72
#pragma once

#include <array>
#include <cstdint>

#include "analysis/TaskGraph.h"
#include "target/Hardware.h"
#include "target/Target.h"

namespace tilesched::analysis {

struct FillDrain {
  std::array<bool, kNumPipes> hasTasks{};  // a leaf task occupies the pipe
  std::array<int64_t, kNumPipes> fill{};
  std::array<int64_t, kNumPipes> drain{};
};

FillDrain computeFillDrain(const KernelAnalysis& analysis, const Target& target);

// The bound of one block from its pipes' busy cycles: max over pipes P of
// busy[P] + fill[P] + drain[P] (the fill and drain of a pipe without leaf
// tasks, e.g. the scalar unit's issue cycles, count 0; a pipe that was not
// busy in this block gives no bound).
int64_t boundWithFillDrain(const FillDrain& fd, const std::array<int64_t, kNumPipes>& busy);

}  // namespace tilesched::analysis
