// The lowered kernel as the commands report it, and the fixed-rule
// schedules of `--schedule none|double` (SPEC §6). The lowering passes
// themselves (VersionModes, Materialize, SyncInsertion, LoweredVerifier) are
// one file each, run in the order pipeline/Pipelines.h writes: version modes
// → materialised versions → synchronisation (and stages) → verified
// synchronisation. Materialisation runs before synchronisation so that stage
// shifting rewrites the version indices along with everything else.
#pragma once

#include <optional>
#include <string>
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
