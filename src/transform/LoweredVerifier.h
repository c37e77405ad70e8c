// The lowered-IR verifier: rejects illegal synchronisation before it is
// simulated (SPEC §3.3, §6.3). It shares no code with SyncInsertion.
//
// Expects: any kernel (typically the output of lowerKernel).
// Guarantees: returns one message per violation of
//  - id range: every set/wait id is provably within 0..ids-1 (constants,
//    `a + b`, `x % c`, `min`/`max` are bounded by interval arithmetic; an id
//    that cannot be bounded is rejected);
//  - set twice: in one straight-line sequence, a set of an id followed by a
//    set of the same id (same hard event, same expression) with no wait of it
//    in between;
//  - balance: per hard event, the two branches of every `if` and the body of
//    every loop leave the same number of flags set (sets minus waits: 0 for
//    loop bodies, equal for branches), and the whole kernel leaves none.
//
//   T.set_flag("MTE2", "V", 0)
//   T.set_flag("MTE2", "V", 0)      error: set_flag MTE2_V id 0 set twice ...
#pragma once

#include <string>
#include <vector>

#include "ir/IR.h"

namespace tilesched::transform {

std::vector<std::string> verifyLoweredSync(const ir::Kernel& kernel, int64_t idsPerHardEvent = 8);

}  // namespace tilesched::transform
