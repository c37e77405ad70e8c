// The fixed-rule schedules (see Lowering.h).
#include "transform/Lowering.h"

#include <algorithm>

#include <fmt/format.h>

#include "schedule/Memory.h"

namespace tilesched::transform {

using namespace ir;

schedule::KernelSchedule uniformSchedule(const Kernel& kernel,
                                         const analysis::KernelAnalysis& analysis, int64_t versions,
                                         const Target& target, DiagnosticEngine& diags) {
  schedule::KernelSchedule s;
  std::map<MemScope, int64_t> needed;
  for (const auto& st : kernel.storages) {
    schedule::StorageDecision d;
    d.storage = st;
    const auto* own = analysis.ownership.find(st);
    if (own && own->manual) {
      d.source = schedule::VersionSource::Manual;
      d.versions = own->ring;
    } else if (own && own->optOut) {
      d.source = schedule::VersionSource::OptOut;
    } else if (own && own->eligible) {
      d.source = schedule::VersionSource::Fixed;
      d.versions = versions;
      d.bound = own->versionBound;
    }
    // As the scheduler counts memory: every version aligned, a manual ring once.
    needed[st->scope] += own ? schedule::footprintBytes(*own, d.versions, target)
                             : schedule::alignedVersionBytes(st, target) * d.versions;
    s.storages.push_back(d);
  }
  for (const auto& [scope, bytes] : needed) {
    auto cap = target.capacity(scope, kernel.hasSimtVF);
    // The hardware's capacity: T.annotate_unlimit_memory lifts the solver's
    // limit only, and a baseline must run on the real core.
    if (!cap || bytes <= *cap) continue;
    diags.error(kernel.kernelLoc.valid() ? kernel.kernelLoc : kernel.loc,
                fmt::format("{} version{} of every eligible buffer need {} bytes of {}, more than "
                            "the {} bytes of {}; use --schedule none or fewer versions",
                            versions, versions == 1 ? "" : "s", bytes, memScopeName(scope), *cap,
                            target.name));
  }
  return s;
}

}  // namespace tilesched::transform
