// Memory accounting (see Memory.h).
#include "schedule/Memory.h"

namespace tilesched::schedule {

int64_t alignedVersionBytes(const ir::Storage& storage, const Target& target) {
  int64_t a = target.alignment(storage->scope);
  int64_t b = std::max<int64_t>(0, storage->bytes);
  return a <= 1 ? b : (b + a - 1) / a * a;
}

int64_t footprintBytes(const analysis::StorageOwnership& storage, int64_t versions,
                       const Target& target) {
  int64_t one = alignedVersionBytes(storage.storage, target);
  if (storage.manual) return one;
  return one * std::max<int64_t>(1, versions);
}

bool isUnlimited(const ir::Kernel& kernel, MemScope scope) {
  for (MemScope s : kernel.annotations.unlimited)
    if (s == scope) return true;
  return false;
}

std::optional<int64_t> schedulingCapacity(const ir::Kernel& kernel, const Target& target,
                                          MemScope scope) {
  if (isUnlimited(kernel, scope)) return std::nullopt;
  return target.capacity(scope, kernel.hasSimtVF);
}

}  // namespace tilesched::schedule
