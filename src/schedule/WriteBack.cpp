// The version write-back (see WriteBack.h).
#include "schedule/WriteBack.h"

#include <fmt/format.h>

namespace tilesched::schedule {

void writeBackVersions(ir::Kernel& kernel, const KernelSchedule& schedule,
                       DiagnosticEngine& diags) {
  kernel.annotations.selectedVersions.clear();
  for (const auto& st : kernel.storages) {
    const StorageDecision* d = schedule.find(st);
    if (d && (d->source == VersionSource::Solver || d->source == VersionSource::Fixed))
      kernel.annotations.selectedVersions.push_back({st, d->versions});
  }
  for (const auto& spec : kernel.annotations.bufferVersions) {
    if (!spec.count || *spec.count < 2) continue;
    const StorageDecision* d = schedule.find(spec.storage);
    if (d && d->source == VersionSource::Fixed && d->versions == *spec.count) continue;
    // Same key as the ownership analysis' warning: one warning per storage.
    diags.warningOnce(
        "fixed-ineligible:" + std::to_string(spec.storage->id), spec.loc,
        fmt::format("'{}' asks for {} versions but gets {} ({}); the request never applies",
                    spec.buffer->name, *spec.count, d ? d->versions : 1,
                    d ? std::string(versionSourceName(d->source)) : "not scheduled"));
  }
}

}  // namespace tilesched::schedule
