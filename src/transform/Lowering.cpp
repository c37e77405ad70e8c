// The fixed-rule schedules (see Lowering.h).
#include "transform/Lowering.h"

#include <algorithm>

#include <fmt/format.h>

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
    int64_t copies = d.source == schedule::VersionSource::Manual ? 1 : d.versions;
    needed[st->scope] += copies * st->bytes;
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
