// The target model (SPEC §3): pipes, memory capacities and alignment, event
// ids, scalar-unit costs and cost-model parameters of one Ascend AI core, read
// from a JSON data file under targets/ (schema in docs/targets.md).
//
// Assumes: nothing about the file — every field is validated.
// Guarantees: a Target returned by loadTarget/parseTarget is complete and
// consistent (all seven pipes, all five capacity scopes, positive rates, sorted
// strided tables); every figure comes from the file, none is a constant in
// code. Errors name the file and the JSON path of the bad field, one per line.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "target/CostModel.h"
#include "target/Hardware.h"

namespace tilesched {

struct PipeProps {
  // S, V, M: an instruction completes before the next one of the pipe does,
  // so same-pipe dependencies need no sync. MTE1/2/3 and FIX may overlap
  // consecutive instructions: same-pipe dependencies need pipe_barrier.
  bool inOrderCompletion = true;
  // Depth of the pipe's issue queue; the scalar unit stalls on a full queue.
  int64_t queueDepth = 32;
};

// The core group (SPEC §9.2): one cube core (AIC) and `aivPerAic` vector
// cores (AIV), each kind with its own pipes and on-chip scopes. Core
// assignment (analysis/CoreAssignment.h) reads the pipe and scope sets. The
// one part of a target a file may omit: without `core_group` the Ascend
// split (docs/targets.md "Core group") applies.
struct CoreGroup {
  int64_t aivPerAic = 2;
  uint32_t cubePipes = 0, vectorPipes = 0;    // pipeMask bits
  uint32_t cubeScopes = 0, vectorScopes = 0;  // bit memScopeIndex(s) per scope
  int64_t crossCoreFlags = 16;                // slots of the cross-core flag pool
  int64_t crossCoreFlagLatency = 0;           // cycles a cross-core flag adds (assumed)

  bool cubeHas(MemScope s) const { return cubeScopes >> memScopeIndex(s) & 1; }
  bool vectorHas(MemScope s) const { return vectorScopes >> memScopeIndex(s) & 1; }
};

struct Target {
  std::string name;         // "ascend950"
  std::string description;  // one line, for --help and reports
  std::string path;         // the file it was loaded from ("" when parsed from text)

  // Capacity in bytes of the capacity-checked scopes (0 for the others).
  std::array<int64_t, kNumMemScopes> capacityBytes{};
  // Capacity when the kernel has any `T.SimtVF` region (ascend950 UB: 221184).
  std::array<int64_t, kNumMemScopes> capacityWithSimtVFBytes{};
  // Allocation alignment in bytes (1 for scopes without one).
  std::array<int64_t, kNumMemScopes> alignmentBytes{};

  int64_t eventIdsPerHardEvent = 8;
  std::array<PipeProps, kNumPipes> pipes{};
  CoreGroup coreGroup;
  CostModelParams cost;

  // Capacity of `scope`, or nullopt for scopes that are not capacity-checked.
  std::optional<int64_t> capacity(MemScope scope, bool kernelHasSimtVF = false) const;
  // Alignment of allocations in `scope` (1 when the scope has none).
  int64_t alignment(MemScope scope) const { return alignmentBytes[memScopeIndex(scope)]; }
  const PipeProps& pipe(Pipe p) const { return pipes[pipeIndex(p)]; }
  bool completesInOrder(Pipe p) const { return pipe(p).inOrderCompletion; }
  // Same-pipe dependencies on this pipe need `pipe_barrier(p)`.
  bool needsPipeBarrier(Pipe p) const { return !completesInOrder(p); }
  int64_t queueDepth(Pipe p) const { return pipe(p).queueDepth; }
  // The pipe that executes copies along `path` (from the data file).
  Pipe copyPipe(CopyPath path) const { return cost.path(path).pipe; }
};

// "ascend950" — the default of `--target`.
const char* defaultTargetName();

// The targets shipped in targets/: {"ascend950", "ascend910b"}.
std::vector<std::string> builtinTargetNames();

// Directory holding the built-in target files: $TILESCHED_TARGETS_DIR when set,
// else <TILESCHED_SOURCE_DIR>/targets.
std::string targetsDirectory();

// Loads a target. A bare name ("ascend950") resolves to
// <targetsDirectory()>/<name>.json; anything containing '/' or ending in
// ".json" is a path to a JSON file. On failure returns nullopt and sets
// `error` to one message per line, each naming the file and the bad field.
std::optional<Target> loadTarget(const std::string& nameOrPath, std::string& error);

// Validates and converts JSON text; `displayName` prefixes error messages.
std::optional<Target> parseTarget(const std::string& jsonText, const std::string& displayName,
                                  std::string& error);

}  // namespace tilesched
