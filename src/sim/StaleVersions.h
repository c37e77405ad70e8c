// Stale-version reads (SPEC §2.4): the run-time half of the optimistic
// write-first rule.
//
// A loop owns a storage when every iteration writes it before reading it, so
// multi-buffering may give each iteration ("epoch") its own version: what an
// epoch reads, it wrote itself. The rule is optimistic: a write that does not
// cover the buffer (a copy clipped at its tensor's end, a loop of stores with
// a run-time trip count) leaves bytes of an older epoch in the version, and
// the sequential program would read another, later epoch's bytes there. Such
// a read is reported here, at the reading instruction, with the buffer and
// its owner loop.
//
// Expects: a lowered kernel whose `annotations.versioned` lists the storages
// with N > 1 versions; every access of their buffers names its version as
// `floormod(clock, N)` in its leading index (transform/Materialize.h), where
// `clock` is the epoch number. An access whose leading index has any other
// form (a whole-buffer fill outside the owners, written to every version at
// once) is a broadcast: it belongs to no epoch.
// Guarantees: per block, every byte of a versioned storage remembers the epoch
// of its last write. A read of bytes last written in another epoch is stale,
// and so is a read of broadcast bytes that some epoch has since written in
// another version (the sequential program would see that epoch's write).
// Bytes never written are poison's business (Machine::trackPoison), not this
// check's.
//
//   for s in T.Pipelined(3, num_stages=2):           A has 3000 elements:
//       T.copy(A[s * 1024:s * 1024 + 1024], a_ub)    s = 2 writes a_ub[0:952] of
//       T.copy(a_ub, C[s * 1024:s * 1024 + 1024])    version 0; the read of
//                                                    a_ub[952:1024] is stale (s = 0's)
#pragma once

#include <cstdint>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/IR.h"
#include "sim/Machine.h"

namespace tilesched::sim {

struct SimIssue;

class StaleVersionCheck {
 public:
  StaleVersionCheck(const ir::Kernel& kernel, const Memory& memory);

  bool active() const { return !tracked_.empty(); }

  // The epoch of each versioned storage an instruction accesses, in storage
  // index order; evaluated by the scalar unit when it issues the instruction.
  struct Epoch {
    int storage = -1;
    int64_t epoch = 0;  // kBroadcast for an access of every version at once
  };
  using Epochs = std::vector<Epoch>;
  static constexpr int64_t kBroadcast = -2;

  // The epochs of the accesses `s` makes itself (a loop's or a branch's
  // bounds and condition, not its body), with `machine`'s current variables.
  Epochs epochsOf(const ir::Stmt& s, Machine& machine);

  // Checks the reads of `acc` (one instruction's accesses) against the
  // epochs the bytes were written in, then stamps its writes. Returns the
  // first stale read of each (statement, storage) to `issues`, once per block.
  void apply(const AccessSet& acc, const Epochs& epochs, const ir::Stmt& s, int64_t block,
             std::vector<SimIssue>& issues);

  // A new block: no byte of any version is written yet.
  void resetBlock();

 private:
  struct Tracked {
    const ir::VersionedStorage* record = nullptr;
    int64_t versionBytes = 0;     // bytes of one version
    std::vector<int64_t> stamps;  // per byte: epoch of the last write, kNever, kBroadcast
  };
  static constexpr int64_t kNever = -1;

  // Per statement: the leading-index expressions of its versioned accesses.
  struct Clock {
    int storage = -1;
    ir::Expr clock;       // null: a broadcast access
    bool decoded = true;  // false: the leading index shows no clock
  };
  const std::vector<Clock>& clocksOf(const ir::Stmt& s);
  int64_t staleByte(const Tracked& t, int64_t offset, int64_t epoch) const;
  SimIssue staleIssue(const Tracked& t, int64_t lo, int64_t hi, int64_t writer, int64_t epoch,
                      const ir::Stmt& s, int64_t block) const;

  const Memory* memory_ = nullptr;
  std::unordered_map<int, Tracked> tracked_;                          // by storage index
  std::unordered_map<int, const ir::VersionedStorage*> byStorageId_;  // by StorageNode::id
  std::unordered_map<const ir::StmtNode*, std::vector<Clock>> clocks_;
  std::set<std::pair<const ir::StmtNode*, int>> reported_;
};

}  // namespace tilesched::sim
