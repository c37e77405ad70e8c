// Happens-before race detection over byte ranges (SPEC §7.1), independent of
// the timing that happened to occur.
//
// Clocks: a `VClock` has one entry per pipe (per core of a group); entry P = k means "the
// completions of P's first k instructions (in issue order on P) happen before
// this point". Every source of completion knowledge on an Ascend core is
// prefix-closed — an in-order pipe (S, V, M) completes its instructions in
// order, pipe_barrier(X) and set_flag(X, ...) wait for *all* earlier
// instructions of X, barrier_all for all of every pipe — so a count per pipe
// is exact, not an approximation.
//
// Each instruction accesses byte ranges with the clock of its start. Two
// accesses of different instructions conflict when their ranges overlap and
// one writes; they are ordered when the earlier one's completion is known to
// the later one's start. Unordered conflicts are races.
//
// History: a record is dropped (or trimmed) when a later write covers its
// bytes and is ordered after it (or raced with it, already reported); a read
// record also when a later ordered read covers it. Any future conflict with a
// dropped record is then also a conflict with the covering access, so no race
// goes unreported (its partner may be the newer access).
//
// The history of a storage is a sorted map of disjoint byte segments, each
// listing the records still live on all of its bytes; an access visits only
// the segments it overlaps (O(log n) to find them), so checking is linear in
// the number of accesses, not quadratic. Adjacent segments with the same live
// records are merged again, so a tile instruction covering many small scalar
// records leaves one segment behind.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "sim/Machine.h"
#include "target/Hardware.h"

namespace tilesched::sim {

// A core group (SPEC §9.2: the AIC and two AIVs of the manual form) has one
// lane per pipe per core: lane core * kNumPipes + pipe. A kernel on one core
// uses the first kNumPipes lanes.
inline constexpr size_t kMaxGroupCores = 3;
inline constexpr size_t kClockLanes = kNumPipes * kMaxGroupCores;
constexpr size_t clockLane(int core, Pipe p) {
  return static_cast<size_t>(core) * kNumPipes + pipeIndex(p);
}
using VClock = std::array<int64_t, kClockLanes>;

inline VClock join(const VClock& a, const VClock& b) {
  VClock out;
  for (size_t i = 0; i < kClockLanes; ++i) out[i] = std::max(a[i], b[i]);
  return out;
}

// Who made an access: enough to order it and to report it.
struct AccessOwner {
  int64_t instr = -1;  // unique per instruction of a block (partners share it)
  Pipe pipe = Pipe::S;
  int64_t pipeIndex = 0;  // index of the instruction in its pipe's issue order
  VClock clock{};         // clock at its start
  const ir::StmtNode* stmt = nullptr;
  int64_t block = 0;  // the block (core) that ran it
  // The scalar unit's operand reads of tile instruction `operandsOf` (its
  // addresses, fill or pad value), made when it issues: the instruction
  // cannot start before the values it was issued with were read, so they are
  // ordered before that instruction's own accesses (and only before those).
  int64_t operandsOf = -1;
  uint8_t core = 0;  // of the core group: 0 the AIC (or the one core), 1 + s AIV s
  size_t lane() const { return clockLane(core, pipe); }
};

struct Race {
  int storage = -1;
  int64_t lo = 0, hi = 0;  // overlapping bytes of the first occurrence
  AccessOwner first, second;
  bool firstWrites = false, secondWrites = false;
  int64_t occurrences = 1;
  // Between two blocks on global memory (GlobalRaceChecker): `first` ran in
  // the lower block id. `element` names the first overlapping element
  // ("C[0, 4]"), filled in by the simulator.
  bool betweenBlocks = false;
  bool firstAtomic = false, secondAtomic = false;
  std::string element;
};

// The races found so far, one per (first statement, second statement,
// storage) with an occurrence count: a loop repeating a race reports it once.
class RaceList {
 public:
  // Adds `race`, or counts one more occurrence of an equal one.
  void add(const Race& race);
  const std::vector<Race>& races() const { return races_; }
  int64_t totalOccurrences() const { return total_; }

 private:
  std::vector<Race> races_;
  std::map<std::tuple<const void*, const void*, int>, size_t> index_;
  int64_t total_ = 0;
};

class RaceDetector {
 public:
  // Checks the accesses of one instruction against the history, reports
  // races, then adds them to the history.
  void access(const AccessOwner& who, const AccessSet& set);
  // Forgets the history of one storage (e.g. on-chip storages between blocks).
  void clear() {
    history_.clear();
    records_.clear();
  }
  const std::vector<Race>& races() const { return found_.races(); }
  int64_t totalOccurrences() const { return found_.totalOccurrences(); }

 private:
  struct Record {
    AccessOwner who;
    bool write = false;
  };
  struct Segment {
    int64_t hi = 0;
    std::vector<int64_t> records;  // ids into records_, increasing (= insertion order)
  };
  using Segments = std::map<int64_t, Segment>;  // by lo

  static bool ordered(const AccessOwner& a, const AccessOwner& b);
  void report(const Record& r, const AccessOwner& who, bool whoWrites, int storage,
              ByteRange overlap);
  // Makes [lo, hi) exactly a union of segments (splitting, filling gaps).
  static void cover(Segments& segs, int64_t lo, int64_t hi);
  // Merges equal neighbours and drops empty segments in [lo, hi] and at its edges.
  static void compact(Segments& segs, int64_t lo, int64_t hi);

  std::map<int, Segments> history_;
  std::vector<Record> records_;  // every record of the current block, by id
  RaceList found_;
};

// Races between blocks on global memory (issue 11). Blocks of one launch run
// on different cores with no order between them (waves included: which core
// runs which block when is not the kernel's to decide), so two blocks
// touching the same global byte, at least one writing, race, unless both
// accesses are atomic accumulates (T.set_atomic): those commute on hardware.
// An atomic access against a plain read or write is a race.
//
// Per block, the accesses to global storages are summarised per storage as
// interval lists of five kinds (plain reads, plain writes, one per atomic
// op), each interval remembering the first instruction that touched it.
// While the block runs an access only appends its ranges (a loop storing
// 8192 tile rows appends 8192 pieces, no search); when the block ends the
// pieces are sorted into disjoint first-touch intervals, adjacent intervals
// of one statement merged, so a loop storing tile after tile leaves one
// interval. They are then checked against the union of the earlier blocks'
// intervals (which keeps, per byte, the first block that touched it) with
// one forward cursor per kind, and merged into that union. Every byte two
// blocks conflict on is reported at least once (as one race per statement
// pair and storage, with an occurrence count); time is
// O(intervals · log intervals).
class GlobalRaceChecker {
 public:
  // isGlobal[storage index]: accesses to other storages are ignored.
  explicit GlobalRaceChecker(std::vector<bool> isGlobal) : isGlobal_(std::move(isGlobal)) {}
  // The global storages (by memory index) an instruction's accesses update
  // atomically, with the kind; its accesses to every other storage are plain.
  using StorageAtomics = std::vector<std::pair<int, ir::AtomicOp>>;
  // Records one instruction's accesses in the current block's summary. Its
  // accesses to a storage in `atomics` are atomic accumulates of that kind
  // (two atomics of different kinds, add and max, do not commute: a race).
  void access(const AccessOwner& who, const AccessSet& set, const StorageAtomics& atomics = {});
  // Checks the current block against every earlier block and starts a new one.
  void endBlock();
  const std::vector<Race>& races() const { return found_.races(); }
  int64_t totalOccurrences() const { return found_.totalOccurrences(); }

  // Read, Write, then one kind per atomic op (Atomic + AtomicOp - 1).
  enum Kind { Read = 0, Write = 1, Atomic = 2 };
  static constexpr size_t kKinds = 5;
  struct Piece {
    int64_t lo = 0, hi = 0;
    int32_t owner = 0;  // index into the owning summary's `owners`
  };
  // One block's accesses. After takeBlock(), every list is sorted, disjoint
  // and first-touch (normalized).
  struct Summary {
    std::vector<AccessOwner> owners;
    std::vector<std::array<std::vector<Piece>, kKinds>> storages;  // by storage index
    bool normalized = false;
    bool empty() const { return owners.empty(); }
  };

  // For a block simulated elsewhere (another thread): its normalized
  // summary, taken out of that thread's checker (which starts a new block) ...
  Summary takeBlock();
  // ... then checked and merged here in block order: the same as endBlock().
  void addBlock(Summary s) {
    block_ = std::move(s);
    endBlock();
  }

  // Sorts `pieces` (in the order they were recorded) into disjoint intervals,
  // each byte owned by the first piece that covered it, and merges adjacent
  // intervals of one statement (`owners[piece.owner].stmt`).
  static void normalize(std::vector<Piece>& pieces, const std::vector<AccessOwner>& owners);

 private:
  static bool conflict(size_t a, size_t b) {
    if (a == Read && b == Read) return false;
    return a < Atomic || b < Atomic || a != b;
  }
  void report(const AccessOwner& earlier, size_t earlierKind, const AccessOwner& later,
              size_t laterKind, int storage, ByteRange overlap);
  void normalizeBlock();

  struct Seen {
    int64_t hi = 0;
    int32_t owner = 0;  // index into seenOwners_
  };
  using SeenIntervals = std::map<int64_t, Seen>;  // by lo, disjoint

  std::vector<bool> isGlobal_;
  Summary block_;                                        // the block running now
  std::vector<std::array<SeenIntervals, kKinds>> seen_;  // union of the finished blocks
  std::vector<AccessOwner> seenOwners_;
  RaceList found_;
};

// Ranges helpers (sorted, disjoint inputs).
bool firstOverlap(const std::vector<ByteRange>& a, const std::vector<ByteRange>& b, ByteRange& out);
std::vector<ByteRange> subtractRanges(const std::vector<ByteRange>& a,
                                      const std::vector<ByteRange>& b);

}  // namespace tilesched::sim
