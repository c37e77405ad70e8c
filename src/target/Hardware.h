// Hardware vocabulary shared by every layer: the pipes of an Ascend AI core and
// the memory scopes a buffer can live in.
//
// Assumes: nothing — this header depends only on the standard library so that
// the IR (which depends on nothing of ours) can include it.
// Guarantees: names round-trip exactly (`parsePipe(pipeName(p)) == p`,
// `parseMemScope(memScopeName(s)) == s`); the spellings are the ones of the
// kernel language and the JSON report ("MTE2", "shared.l1", ...); pipe bitmask
// values are the ones of `--dump-schedule-problems` (MTE1=1 ... S=64).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tilesched {

// The seven hardware pipes (SPEC §3.1). The enumerator order is the bit order
// of the pipe bitmask.
enum class Pipe : uint8_t { MTE1, MTE2, MTE3, M, V, FIX, S };

inline constexpr size_t kNumPipes = 7;
inline constexpr std::array<Pipe, kNumPipes> kAllPipes = {
    Pipe::MTE1, Pipe::MTE2, Pipe::MTE3, Pipe::M, Pipe::V, Pipe::FIX, Pipe::S};

constexpr size_t pipeIndex(Pipe p) { return static_cast<size_t>(p); }

// Bitmask value of one pipe: MTE1=1, MTE2=2, MTE3=4, M=8, V=16, FIX=32, S=64.
constexpr uint32_t pipeMask(Pipe p) { return uint32_t{1} << pipeIndex(p); }

constexpr std::string_view pipeName(Pipe p) {
  constexpr std::array<std::string_view, kNumPipes> kNames = {"MTE1", "MTE2", "MTE3", "M",
                                                              "V",    "FIX",  "S"};
  return kNames[pipeIndex(p)];
}

// Exact, case-sensitive spelling ("MTE2", not "mte2").
constexpr std::optional<Pipe> parsePipe(std::string_view name) {
  for (Pipe p : kAllPipes)
    if (pipeName(p) == name) return p;
  return std::nullopt;
}

// "MTE1, MTE2, MTE3, M, V, FIX, S" — for error messages.
inline std::string allPipeNames() {
  std::string out;
  for (Pipe p : kAllPipes) {
    if (!out.empty()) out += ", ";
    out += pipeName(p);
  }
  return out;
}

// A hard event is one (SRC, DST) pipe pair, named "SRC_DST", e.g. "MTE2_V".
inline std::string hardEventName(Pipe src, Pipe dst) {
  std::string out(pipeName(src));
  out += '_';
  out += pipeName(dst);
  return out;
}

// Memory scopes of SPEC §1.3. `UB` is spelled "shared", `L1` "shared.l1".
enum class MemScope : uint8_t { Global, UB, L1, L0A, L0B, L0C, Fragment, LocalVar, Local };

inline constexpr size_t kNumMemScopes = 9;
inline constexpr std::array<MemScope, kNumMemScopes> kAllMemScopes = {
    MemScope::Global, MemScope::UB,       MemScope::L1,       MemScope::L0A,  MemScope::L0B,
    MemScope::L0C,    MemScope::Fragment, MemScope::LocalVar, MemScope::Local};

// The on-chip scopes whose capacity the scheduler and simulator check, in the
// order the report lists them.
inline constexpr std::array<MemScope, 5> kCapacityScopes = {
    MemScope::UB, MemScope::L1, MemScope::L0A, MemScope::L0B, MemScope::L0C};

constexpr size_t memScopeIndex(MemScope s) { return static_cast<size_t>(s); }

constexpr std::string_view memScopeName(MemScope s) {
  constexpr std::array<std::string_view, kNumMemScopes> kNames = {
      "global",     "shared",         "shared.l1", "shared.l0a", "shared.l0b",
      "shared.l0c", "local.fragment", "local.var", "local"};
  return kNames[memScopeIndex(s)];
}

// Exact spelling, as in `T.alloc_*` scopes and `T.annotate_unlimit_memory`.
constexpr std::optional<MemScope> parseMemScope(std::string_view name) {
  for (MemScope s : kAllMemScopes)
    if (memScopeName(s) == name) return s;
  return std::nullopt;
}

// UB, L1, L0A, L0B, L0C: allocations there are charged against a capacity.
constexpr bool isCapacityChecked(MemScope s) {
  for (MemScope c : kCapacityScopes)
    if (c == s) return true;
  return false;
}

// `local.fragment`, `local.var`, `local`: registers and scalars, never versioned.
constexpr bool isLocalScope(MemScope s) {
  return s == MemScope::Fragment || s == MemScope::LocalVar || s == MemScope::Local;
}

// "shared, shared.l1, shared.l0a, shared.l0b, shared.l0c" — for error messages.
inline std::string capacityScopeNames() {
  std::string out;
  for (MemScope s : kCapacityScopes) {
    if (!out.empty()) out += ", ";
    out += memScopeName(s);
  }
  return out;
}

}  // namespace tilesched
