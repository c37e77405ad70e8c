// The write-back of SPEC §2.1: AutoSchedule consumes the buffer-versions map
// and replaces it with the selected count of every eligible storage.
//
// Expects: a KernelSchedule of `kernel` (scheduleKernel).
// Guarantees: kernel.annotations.selectedVersions holds (storage, versions)
// for every storage decided by the solver or fixed by the author, including
// 1, in Kernel::storages order; a requested count N >= 2 that the schedule
// does not give (the storage is not eligible in any scheduled loop) warns at
// the annotation, once per storage (the ownership analysis' warning of the
// same storage counts as that warning).
//
//   T.annotate_buffer_versions({a_ub: 3, c_ub: "counter"})
//   after:  T.annotate_buffer_versions({a_ub: 3, b_ub: 2, c_ub: 1})
#pragma once

#include "ir/IR.h"
#include "schedule/Schedule.h"
#include "support/Diagnostics.h"

namespace tilesched::schedule {

void writeBackVersions(ir::Kernel& kernel, const KernelSchedule& schedule, DiagnosticEngine& diags);

}  // namespace tilesched::schedule
