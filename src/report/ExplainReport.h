// The report's explanation fields (docs/scheduler.md "Explanations"):
// `buffers[].why` and `loops[].ii_bound_by`, from schedule::explainSchedule.
#pragma once

#include <nlohmann/json.hpp>

#include "analysis/TaskGraph.h"
#include "ir/IR.h"
#include "schedule/Schedule.h"
#include "target/Target.h"

namespace tilesched::report {

// Sets `buffers[].why` (aliases share their storage's) and `loops[].ii_bound_by`
// (matched by var and line) of a kernel entry of the report; nothing when the
// schedule is not an auto schedule (no problems kept: `--schedule none|double`).
void annotateExplanations(nlohmann::json& kernelEntry, const ir::Kernel& kernel,
                          const analysis::KernelAnalysis& analysis,
                          const schedule::KernelSchedule& schedule, const Target& target);

}  // namespace tilesched::report
