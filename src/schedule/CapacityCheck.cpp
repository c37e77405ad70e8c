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
    int64_t used = 0, usedWithOne = 0;
    SourceLoc crossing, ownerLoop;
    bool anyFixed = false;
    // The annotated count that adds the most bytes beyond one version.
    const ir::VersionSpec* largest = nullptr;
    int64_t largestExtra = 0, largestCount = 1;
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
      int64_t one = footprintBytes(so, 1, target), all = footprintBytes(so, versions, target);
      used += all;
      usedWithOne += one;
      if (used > *capacity && !crossing.valid()) crossing = so.storage->loc;
      for (const auto& spec : kernel.annotations.bufferVersions)
        if (spec.storage == so.storage && spec.loc.valid() && all - one > largestExtra) {
          largest = &spec;
          largestExtra = all - one;
          largestCount = versions;
        }
    }
    if (used <= *capacity) continue;
    ok = false;
    std::string name(memScopeName(scope));
    if (largest && usedWithOne <= *capacity) {
      // One version of everything fits: the annotation is what does not.
      diags.error(largest->loc,
                  fmt::format("{} versions of '{}' make scope '{}' need {} bytes, but its "
                              "capacity is {} bytes (one version of every buffer needs {}); "
                              "annotate fewer versions, or add T.annotate_unlimit_memory(\"{}\")",
                              largestCount, largest->buffer->name, name, used, *capacity,
                              usedWithOne, name));
      continue;
    }
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
