// Checks the structural invariants of IR.h after elaboration and after every
// pass. A violation is a tilesched bug, never a user error: the messages are
// for compiler engineers and carry the statement's source line.
#pragma once

#include <string>
#include <vector>

#include "ir/IR.h"

namespace tilesched::ir {

// Empty when the kernel is well formed.
std::vector<std::string> verifyKernel(const Kernel& k);

}  // namespace tilesched::ir
