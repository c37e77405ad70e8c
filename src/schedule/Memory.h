// Memory accounting of the scheduler (SPEC §5 capacity, §2.3, §3.2): what a
// storage occupies with a given version count and what each scope may hold.
//
// Guarantees: sizes are aligned per version as the simulator's allocator
// aligns them; a manual ring (§2.2) already holds its N copies and is charged
// once at its full size; scopes named by T.annotate_unlimit_memory and scopes
// without a capacity have no limit (nullopt).
//
//   a_ub (4100 bytes, shared, 32-byte alignment), 2 versions -> 8224 bytes
#pragma once

#include <cstdint>
#include <optional>

#include "analysis/Ownership.h"
#include "ir/IR.h"
#include "target/Target.h"

namespace tilesched::schedule {

int64_t alignedVersionBytes(const ir::Storage& storage, const Target& target);
// Bytes of `storage` with `versions` copies (manual rings: their allocation).
int64_t footprintBytes(const analysis::StorageOwnership& storage, int64_t versions,
                       const Target& target);
bool isUnlimited(const ir::Kernel& kernel, MemScope scope);
// The capacity the scheduler enforces, nullopt when unbounded.
std::optional<int64_t> schedulingCapacity(const ir::Kernel& kernel, const Target& target,
                                          MemScope scope);

}  // namespace tilesched::schedule
