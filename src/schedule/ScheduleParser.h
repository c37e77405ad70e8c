// Reads a schedule back from text: what `tilesched compile --emit schedule`
// prints, or the same written by hand (`--schedule-file`, the pass tests'
// `# SCHEDULE-FILE:`), so the lowering can be driven and tested without the
// solver.
//
//   # loop s (line 40): II 164, max stage 1, iteration 554 cycles, enable_offset false
//   T.copy(A[...], a_ub)   # unit 0  MTE2  stage 0  start 0
//   ...                    # unit 3  MTE3  stage 1  start 302
//   # kernel root: makespan 1046
//   for s in T.Pipelined(4, num_stages=2):   # unit 0  MTE2+MTE3+V  stage 0  start 0
//   # versions: a_ub 2, b_ub 2 (solver, bound 2), c_ub 1
//
// Only the numbers the lowering reads matter: per list its II (the makespan
// for the root), enable_offset, `iteration N cycles` (else computed from the
// starts and the units' latencies), and per unit (by `# unit K`) its stage and
// start; every other word of a header, the statement text before `# unit` and
// the pipes are for the reader. A loop is named by its variable and line. A
// file with several kernels has a `# schedule of NAME` line before each one's
// section (as --emit schedule prints); without one the text is every kernel's.
// The versions line sets the named buffers' counts (its `(source, bound ...)`
// is ignored); unnamed storages keep one version (manual rings their ring).
//
// Expects: the kernel and its analysis.
// Guarantees: a KernelSchedule for the kernel, or nullopt with `error` set to
// "line N: what is wrong" (an unknown loop or buffer, a unit that does not
// exist or is missing, a malformed number). The schedule is not checked: the
// caller runs schedule::checkSchedule on it.
#pragma once

#include <optional>
#include <string>

#include "analysis/TaskGraph.h"
#include "ir/IR.h"
#include "schedule/Schedule.h"

namespace tilesched::schedule {

std::optional<KernelSchedule> parseSchedule(const std::string& text, const ir::Kernel& kernel,
                                            const analysis::KernelAnalysis& analysis,
                                            std::string& error);

}  // namespace tilesched::schedule
