// The JSON report of SPEC §7.3 — a stable interface read by scripts and tests.
// Fields that later stages fill (versions, schedule, simulation) are null
// until those stages exist; no field ever changes meaning.
#pragma once

#include <nlohmann/json.hpp>

#include "analysis/TaskGraph.h"
#include "ir/IR.h"
#include "support/Diagnostics.h"
#include "target/Target.h"

namespace tilesched::driver {

// One buffer entry of `kernels[].buffers`.
nlohmann::json bufferReport(const ir::Kernel& k, const ir::Buffer& b);
nlohmann::json kernelReport(const ir::Kernel& k, const std::string& file, const Target& target);
nlohmann::json diagnosticsReport(const DiagnosticEngine& diags);
// The whole report; `program` may be null when compilation failed. With
// `analyses` (one per kernel, in order) buffers and loops carry eligibility,
// owners, tasks and dependencies.
nlohmann::json compileReport(const ir::Program* program, const std::string& file,
                             const Target* target, const DiagnosticEngine& diags,
                             const std::vector<analysis::KernelAnalysis>* analyses = nullptr);

}  // namespace tilesched::driver
