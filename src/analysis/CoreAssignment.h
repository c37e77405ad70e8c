// Core assignment (SPEC §9.3): which core of the group — the cube core (AIC)
// or the vector cores (AIV) — runs each task of a kernel, and why.
//
// Expects: the unit tree of analysis/Tasks.h and a target with a core group.
// Guarantees: every unit (task or loop, pre-order) gets a core — cube,
// vector, or both (scalar work both kinds read is duplicated) — and a reason
// a kernel author can read; or a located error and nullopt when a task needs
// both kinds: pipes of both, the on-chip memories of both, or a value that
// only the other kind computes (a UB-loaded scalar as a gemm's offset).
// The rules, in order:
//  1. a task's pipes decide (M, MTE1, FIX: cube; V, MTE3: vector; MTE2 by
//     its destination, L1 cube, anything else vector); a scalar task (S or
//     no pipe) goes by the on-chip memory it touches, and on both when it
//     touches none;
//  2. to a fixpoint: a task may run only where every scalar value it reads
//     (variables, `T.alloc_var` registers, guards; a loop's bounds) is
//     computed — where all of that value's writers may run;
//  3. scalar work that may run on both runs where its readers run (their
//     demand, to a fixpoint); work nobody reads goes to the cube core when the
//     kernel has one, else to the vector core.
// A kernel whose tasks all end on one kind is a pure cube or vector kernel.
// Upstream computes the same rules after its schedule (docs/mixed-kernels-design.md).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/Tasks.h"
#include "support/Diagnostics.h"
#include "target/Target.h"

namespace tilesched::analysis {

// A set of core kinds: bit 0 the cube core, bit 1 the vector cores.
using CoreMask = uint8_t;
inline constexpr CoreMask kNoCore = 0, kCubeCore = 1, kVectorCore = 2, kBothCores = 3;
// "cube", "vector", "both", "none".
std::string_view coreMaskName(CoreMask m);

enum class KernelCores { Vector, Cube, Mixed };
// "vector", "cube", "mixed".
std::string_view kernelCoresName(KernelCores k);

struct CoreChoice {
  const Unit* unit = nullptr;
  int depth = 0;  // loop nesting (0: the kernel root's units)
  CoreMask core = kBothCores;
  std::string reason;
};

struct CoreAssignment {
  KernelCores kind = KernelCores::Vector;
  int vectorCores = 2;            // the AIVs running the vector tasks (ir::Kernel::vectorCores)
  std::vector<CoreChoice> units;  // every unit, pre-order
  // The manual form (ir::Kernel::manualCores): simulated on the core group.
  bool manualForm = false;
};

// `vectorCores`: the AIVs that run the vector tasks (ir::Kernel::vectorCores).
// With 2, a mixed kernel's plain L0C -> UB copies get a warning: the fixpipe
// writes AIV 0's UB only (upstream's `sub_blockid` 0), while both AIVs run
// the vector tasks that read it. `manualForm` (`with T.Cube()` / `T.Vector()`
// blocks): the author splits and hands over tiles, so no such warning.
std::optional<CoreAssignment> assignCores(const UnitList& root, const Target& target,
                                          DiagnosticEngine& diags, int vectorCores = 2,
                                          bool manualForm = false);

// `explain`'s "cores:" section: the kernel's kind, then each unit's core and
// reason, indented by loop depth. `file` names locations in the compiled file.
std::string printCoreAssignment(const CoreAssignment& a, const std::string& file);

// The report's `cores`: {"kind", "group_simulated" (the manual form), "units": [{"line", "col",
// "op", "core", "reason"}]}.
nlohmann::json coreAssignmentJson(const CoreAssignment& a);

}  // namespace tilesched::analysis
