// The cross-core flags of a core group (SPEC §9.2), shared by the sequential
// reference (GroupReference.cpp) and the cycle simulator: where a set lands
// and which counter a wait takes from.
//
// Mode 4 (the AIC with one AIV): the pool has 16 slots per AIV. AIV s sets
// and waits on its slot `id mod 16` (upstream's AIVs write `6 + 16 * sid`);
// the AIC addresses slot `id mod 16` of AIV `id / 16`, i.e. ids 0-15 for AIV
// 0 and 16-31 for AIV 1. A set by AIV s on id i is seen by the AIC as
// i + 16 s; a set by the AIC on id j is seen by AIV j / 16 as j mod 16. Every
// flag is a counter: a set adds one, a wait blocks while it is 0 and then
// takes one.
//
// Guarantees: a counter is named by the core that waits on it and its slot
// as that core addresses it, so a set and the wait it releases meet.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace tilesched::sim {

// Core numbers of a group: 0 the AIC, 1 + s AIV s.
inline std::string coreName(int core) {
  return core == 0 ? "AIC" : "AIV " + std::to_string(core - 1);
}

struct CrossCoreCounter {
  int core = 0;      // the core that waits on it
  int64_t slot = 0;  // as that core addresses it
  bool operator<(const CrossCoreCounter& o) const {
    return core != o.core ? core < o.core : slot < o.slot;
  }
};

inline std::string outsideThePool(int64_t id) {
  return "flag id " + std::to_string(id) +
         " is outside the pool (0-31 on both sides: an AIV takes its id mod 16, the AIC addresses "
         "AIV s as id + 16 * s)";
}

// The counter a mode-4 set by `core` with `id` adds to, for a group running
// `aivs` AIVs; nullopt with `error` when the id addresses nothing.
inline std::optional<CrossCoreCounter> crossCoreSetCounter(int core, int64_t id, int aivs,
                                                           std::string& error) {
  if (id < 0 || id >= 32) {
    error = outsideThePool(id);
    return std::nullopt;
  }
  if (core > 0) return CrossCoreCounter{0, id % 16 + 16 * (core - 1)};
  int aiv = static_cast<int>(id / 16);
  if (aiv >= aivs) {
    error = "flag id " + std::to_string(id) + " addresses AIV " + std::to_string(aiv) +
            ", which does not run this kernel (T.Vector(vector=" + std::to_string(aivs) + "))";
    return std::nullopt;
  }
  return CrossCoreCounter{1 + aiv, id % 16};
}

// The counter a mode-4 wait by `core` with `id` takes from.
inline std::optional<CrossCoreCounter> crossCoreWaitCounter(int core, int64_t id, int aivs,
                                                            std::string& error) {
  if (id < 0 || id >= 32) {
    error = outsideThePool(id);
    return std::nullopt;
  }
  if (core > 0) return CrossCoreCounter{core, id % 16};
  if (id / 16 >= aivs) {
    error = "flag id " + std::to_string(id) + " waits for AIV " + std::to_string(id / 16) +
            ", which does not run this kernel (T.Vector(vector=" + std::to_string(aivs) + "))";
    return std::nullopt;
  }
  return CrossCoreCounter{0, id};
}

// Who set a counter, for messages: "AIV 0's set", "the AIC's sets".
inline std::string counterText(const CrossCoreCounter& c) {
  int64_t slot = c.slot;
  if (c.core == 0)
    return "cross-core flag " + std::to_string(slot) + " of the AIC (set by AIV " +
           std::to_string(slot / 16) + " with id " + std::to_string(slot % 16) + ")";
  return "cross-core flag " + std::to_string(slot) + " of " + coreName(c.core) +
         " (set by the AIC with id " + std::to_string(slot + 16 * (c.core - 1)) + ")";
}

// The pending sets one counter holds at most (SPEC §9.2: 15 on 950).
inline constexpr int64_t kMaxPendingCrossCoreSets = 15;

}  // namespace tilesched::sim
