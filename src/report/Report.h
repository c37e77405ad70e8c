// The JSON report (docs/report.md): a stable interface read by scripts and
// tests. Fields that later stages fill (versions, schedule, simulation) are
// null until those stages ran; a field that changes meaning or moves raises
// `schema_version`.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>

#include "analysis/TaskGraph.h"
#include "ir/IR.h"
#include "schedule/Schedule.h"
#include "support/Diagnostics.h"
#include "target/Target.h"

namespace tilesched::report {

// Version 2: `schema_version` itself, global tensors in `kernels[].tensors`
// (no longer in `buffers`), and a top-level `simulation` that only sums the
// run (no copies of the kernels' own `simulation` objects).
inline constexpr int kReportSchemaVersion = 2;

// One buffer entry of `kernels[].buffers`.
nlohmann::json bufferReport(const ir::Kernel& k, const ir::Buffer& b);
nlohmann::json kernelReport(const ir::Kernel& k, const std::string& file, const Target& target);
nlohmann::json diagnosticsReport(const DiagnosticEngine& diags);
// The whole report; `program` may be null when compilation failed. With
// `analyses` (one per kernel, in order) buffers and loops carry eligibility,
// owners, tasks and dependencies.
nlohmann::json compileReport(const ir::Program* program, const std::string& file,
                             const Target* target, const DiagnosticEngine& diags,
                             const std::vector<analysis::KernelAnalysis>* analyses = nullptr,
                             const std::vector<schedule::KernelSchedule>* schedules = nullptr);

// The schedule's figures of one `loops[]` entry: ii, ii_lower_bound,
// proven_optimal, max_stage, solve_ms, fallback.
void setLoopSchedule(nlohmann::json& loop, const schedule::ListSchedule& ls);

// Fills a kernel entry with the scheduler's results: `loops[]`
// becomes one entry per scheduled loop (num_stages, enable_offset, ii,
// ii_lower_bound, proven_optimal, max_stage, solve_ms, fallback, plus
// iteration and trips); `buffers[].versions`/`source`;
// `annotations.buffer_versions` (the written-back map); `memory` per scope
// with `used` = Σ versions·aligned bytes (manual rings once); `root` the
// kernel root's makespan.
void annotateScheduleReport(nlohmann::json& kernelEntry, const ir::Kernel& kernel,
                            const schedule::KernelSchedule& schedule, const Target& target);

// A storage's version decision as the report counts it: `versions` physical
// copies, or one allocation already holding its ring when `source` is Manual.
struct VersionCount {
  int64_t versions = 1;
  schedule::VersionSource source = schedule::VersionSource::Ineligible;
};

// Sets `memory.<scope>.used` of a kernel entry for every capacity scope: the
// aligned bytes of one version of each storage times its copies (manual rings
// once; a storage `decision` gives nullopt for counts once).
void setMemoryUsed(nlohmann::json& kernelEntry, const ir::Kernel& kernel, const Target& target,
                   const std::function<std::optional<VersionCount>(const ir::Storage&)>& decision);

}  // namespace tilesched::report
