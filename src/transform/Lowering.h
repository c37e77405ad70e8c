// The lowering pipeline (SPEC §4, §6): schedule → version modes →
// materialised versions → synchronisation (and stages) → verified lowered
// kernel. Materialisation runs before synchronisation so that stage
// shifting rewrites the version indices along with everything else.
//
// Expects: a verified kernel, its analyses and a KernelSchedule (from the
// scheduler, or uniformSchedule for `--schedule none|double`).
// Guarantees: the lowered kernel keeps the parameters of the input; every
// pass's header says what it adds. Errors (a mode that cannot hold) go to
// `diags` and the result is nullopt; an illegal program found by the
// lowered-IR verifier is an internal error (never simulated).
//
// Stages (SPEC §6.4) are lowered by SyncInsertion for loops with
// enable_offset whose ListSchedule has stages; everything else stays flat.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/TaskGraph.h"
#include "ir/IR.h"
#include "schedule/Schedule.h"
#include "support/Diagnostics.h"
#include "target/Target.h"
#include "transform/LoweringTypes.h"

namespace tilesched::transform {

struct LoweredKernel {
  ir::Kernel kernel;
  schedule::KernelSchedule schedule;  // what was lowered
  LoweringPlan plan;
  SyncStats sync;
};

// Called after each named pass with the kernel it produced and its time in
// milliseconds (the driver's --print-after and --time-passes).
using AfterPass = std::function<void(std::string_view pass, const ir::Kernel& after, double ms)>;

// Runs chooseVersionModes, materializeVersions, insertSynchronization and
// verifyLoweredSync.
std::optional<LoweredKernel> lowerKernel(const ir::Kernel& kernel,
                                         const analysis::KernelAnalysis& analysis,
                                         const schedule::KernelSchedule& schedule,
                                         const Target& target, DiagnosticEngine& diags,
                                         const AfterPass& afterPass = {});

// The baseline schedules of `tilesched run`: every eligible automatic storage
// gets `versions` copies (1: `none`, 2: `double`, capped by nothing else);
// manual storages keep their ring; fixed counts are overridden too. A scope
// whose versions do not fit its capacity (and is not unlimited) is an error
// at the kernel naming the scope, its capacity and the bytes needed; the
// schedule is returned anyway.
schedule::KernelSchedule uniformSchedule(const ir::Kernel& kernel,
                                         const analysis::KernelAnalysis& analysis, int64_t versions,
                                         const Target& target, DiagnosticEngine& diags);

}  // namespace tilesched::transform
