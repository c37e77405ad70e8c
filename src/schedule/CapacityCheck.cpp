// The capacity pre-check (see CapacityCheck.h).
#include "schedule/CapacityCheck.h"

#include <fmt/format.h>

#include "schedule/Memory.h"
#include "schedule/Problem.h"

namespace tilesched::schedule {

bool checkMinimumCapacity(const analysis::Ownership& ownership, const ir::Kernel& kernel,
                          const Target& target, DiagnosticEngine& diags) {
  bool ok = true;
  for (MemScope scope : kCapacityScopes) {
    auto capacity = schedulingCapacity(kernel, target, scope);
    if (!capacity) continue;
    int64_t used = 0;
    SourceLoc crossing, ownerLoop;
    bool anyFixed = false;
    for (const auto& so : ownership.storages) {
      if (so.storage->scope != scope) continue;
      int64_t versions = 1;
      if (so.eligible) {
        if (auto fixed = fixedVersionCount(kernel, so.storage)) {
          versions = *fixed;
          anyFixed |= *fixed > 1;
        }
        if (!ownerLoop.valid() && !so.owners.empty()) ownerLoop = so.owners.front()->loc;
      }
      used += footprintBytes(so, versions, target);
      if (used > *capacity && !crossing.valid()) crossing = so.storage->loc;
    }
    if (used <= *capacity) continue;
    ok = false;
    std::string name(memScopeName(scope));
    diags.error(
        ownerLoop.valid() ? ownerLoop : crossing,
        fmt::format("scope '{}' needs at least {} bytes with one version of every buffer{} but its "
                    "capacity is {} bytes; use smaller buffers or add "
                    "T.annotate_unlimit_memory(\"{}\")",
                    name, used, anyFixed ? " and the annotated version counts" : "", *capacity,
                    name));
  }
  return ok;
}

}  // namespace tilesched::schedule
