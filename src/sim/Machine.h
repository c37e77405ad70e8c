// The state one AI core computes on and the exact semantics of every IR
// statement (SPEC §1.5, §1.6). Shared by the reference interpreter (which
// calls `exec` on the whole kernel body) and the cycle simulator (which
// resolves regions when the scalar unit issues an instruction and calls the
// per-op entry points when the instruction executes on its pipe).
//
// Semantics, in one place:
//  - T.copy pairs the k-th element of the source and destination regions in
//    row-major order, converting the dtype (fp16/bf16 round to nearest even).
//    With pad_value= a smaller source is lined up from the right: dst[i] =
//    src[i] where i lies inside the source extents in every dimension, else
//    the pad value.
//  - T.gemm: acc = clear ? 0 : C; acc = acc + A[m,k] * B[k,n] for k = 0, 1, ...
//    in binary32 (int64 for integer operands); C = acc in C's dtype.
//  - reductions fold in increasing index order in binary32 (int64 for ints),
//    starting from the identity (clear) or the old destination value.
//  - T.Parallel runs its body once per element in row-major order; VF regions
//    run their body statements in order.
//  - integer `//` and `%` are floor division/modulo; division by zero and any
//    out-of-bounds index are run-time errors carrying the statement's line.
//
// Assumes: a verified kernel (ir::verifyKernel); `Memory` holds a byte array
// for every storage the kernel touches.
//  - with `trackPoison` (the simulator), loads of on-chip bytes nothing wrote
//    are poison; poison propagates and is an error where it is used (global
//    memory, conditions, bounds, indices): see Machine::trackPoison.
//
// Guarantees: identical inputs give bit-identical memory on every call path;
// every read and write of memory is reported to `access` when it is set.
// The tile-at-a-time paths (`fastPaths`, on by default) give the same bytes,
// shadow bytes, accesses and errors as the element-at-a-time ones: e.g.
//   for i, j in T.Parallel(4, 64): c[i, j] = a[i, j] + b[i, 0]
// is compiled once into columns (load a, load b, add, store c) evaluated 2048
// elements at a time, with the per-element functions `eval` uses.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/IR.h"
#include "sim/Numerics.h"

namespace tilesched::sim {

// A run-time error of the kernel (not of tilesched): out-of-bounds access,
// division by zero, malformed operands. Thrown by the Machine.
struct ExecError {
  SourceLoc loc;
  std::string message;
};

// Half-open byte range [lo, hi) of one storage.
struct ByteRange {
  int64_t lo = 0, hi = 0;
};

// The bytes one instruction read and wrote, per storage, as sorted disjoint
// ranges after `normalize()`.
struct AccessSet {
  struct Entry {
    int storage = -1;  // dense storage index (Memory::index)
    std::vector<ByteRange> reads, writes;
  };
  std::vector<Entry> entries;

  void add(int storage, int64_t lo, int64_t hi, bool write);
  void normalize();
  bool empty() const { return entries.empty(); }
};

// Every storage of a kernel once, in the order Memory indexes them (the
// kernel's storages, then those only its buffers name), so a storage index of
// a race or an access names the same storage everywhere.
std::vector<ir::Storage> storageOrder(const ir::Kernel& kernel);
// The storages every core of a manual-form group has its own of.
inline bool perCoreScope(ir::MemScope s) {
  return s == ir::MemScope::UB || s == ir::MemScope::Fragment || s == ir::MemScope::LocalVar ||
         s == ir::MemScope::Local;
}
// What a report calls the storage at each Memory index: its name, and for an
// AIV's copy (Memory::viewStorage) "temp (AIV 1)".
std::vector<std::string> storageNames(const ir::Kernel& kernel);

// Byte arrays of all storages of one kernel. Global tensors are shared by all
// blocks; on-chip storages are reset per block (`resetOnChip`).
class Memory {
 public:
  // `demandPaged`: global storages are reserved, not allocated, and filled a
  // chunk at a time on first touch (setChunkFill); for sampled runs of kernels
  // whose global tensors exceed the simulator's memory (docs/simulator.md,
  // "Sampled runs"). Such a Memory cannot be copied.
  explicit Memory(const ir::Kernel& kernel, bool demandPaged = false);
  Memory(const Memory& other);
  Memory& operator=(const Memory& other);
  Memory(Memory&&) noexcept;
  Memory& operator=(Memory&&) noexcept;
  ~Memory();

  int index(const ir::Storage& s) const { return indexOfId_.at(static_cast<size_t>(s->id)); }
  // The whole byte array of a storage that is not demand-paged.
  uint8_t* data(int index) { return dense(index).data(); }
  const uint8_t* data(int index) const {
    requireDense(index);
    return bytes_[static_cast<size_t>(index)].data();
  }
  int64_t size(int index) const { return sizes_[static_cast<size_t>(index)]; }
  const ir::Storage& storage(int index) const { return storages_[static_cast<size_t>(index)]; }
  int numStorages() const { return static_cast<int>(storages_.size()); }
  // Sets the size of a storage whose size depends on run-time values (dynamic GM).
  void resize(int index, int64_t bytes);
  // Starts a block: on-chip bytes are zero and undefined (never written).
  void resetOnChip();
  // The manual form's core group (ir::Kernel::manualCores): every core has
  // its own UB, fragments and scalar registers. View 1 + s (AIV s) has a
  // copy of each such storage, appended after the kernel's; view 0 (the AIC)
  // keeps the kernel's registers and addresses AIV 0's UB and fragments (the
  // AIC has none; a plain L0C -> UB copy lands in AIV 0's). `index` in view `view`; the index
  // itself for a storage the cores share (global memory, L1, L0) or a kernel on one core.
  int viewStorage(int index, int view) const {
    return views_.empty() ? index : views_[static_cast<size_t>(view)][static_cast<size_t>(index)];
  }
  // 0 for storages of the kernel itself, else 1 + s of AIV s's copy.
  int viewOf(int index) const { return viewOf_.empty() ? 0 : viewOf_[static_cast<size_t>(index)]; }
  std::vector<uint8_t>& raw(int index) { return dense(index); }
  // Shadow memory: 1 per byte that holds a defined value. Global tensors are
  // always defined (inputs); on-chip bytes become defined when written with a
  // value that is not poison. A (dense) global storage has no shadow of its
  // own: it reads a shared read-only page run of ones (a write to it would
  // fault), and the writers below leave it alone. That halves what a run
  // touches on big tensors.
  const uint8_t* defined(int index) { return definedAt(index, 0, size(index)); }
  bool alwaysDefined(int index) const {
    return !isPaged(index) && storages_[static_cast<size_t>(index)]->scope == ir::MemScope::Global;
  }
  // Sets the shadow bytes [offset, offset + size) to `value` (1: defined),
  // or copies them from `from`; no-ops on an always-defined storage.
  void setDefined(int index, int64_t offset, int64_t size, uint8_t value = 1) {
    if (!alwaysDefined(index))
      std::memset(definedAt(index, offset, size), value, static_cast<size_t>(size));
  }
  void copyDefinedIn(int index, int64_t offset, const uint8_t* from, int64_t size) {
    if (!alwaysDefined(index))
      std::memcpy(definedAt(index, offset, size), from, static_cast<size_t>(size));
  }

  // The bytes [offset, offset + size) of storage `index` and their shadow
  // bytes, filled first where demand-paged; nullptr when filling them would
  // take the filled bytes of this Memory past its budget.
  uint8_t* bytesAt(int index, int64_t offset, int64_t size) {
    if (!isPaged(index)) return bytes_[static_cast<size_t>(index)].data() + offset;
    return pagedAt(index, offset, size, false);
  }
  // Writable only where !alwaysDefined(index) (use setDefined/copyDefinedIn).
  uint8_t* definedAt(int index, int64_t offset, int64_t size) {
    if (alwaysDefined(index)) return ones_->data + offset;
    if (!isPaged(index)) return defined_[static_cast<size_t>(index)].data() + offset;
    return pagedAt(index, offset, size, true);
  }

  // Demand paging. A chunk is kPageChunk bytes of one storage (the last may
  // be shorter); `fill` writes a chunk's initial bytes.
  static constexpr int64_t kPageChunk = int64_t(4) << 10;  // one page
  using ChunkFill = std::function<void(int64_t offset, uint8_t* bytes, int64_t size)>;
  bool isPaged(int index) const { return paged_[static_cast<size_t>(index)] != nullptr; }
  void setChunkFill(int index, ChunkFill fill);
  bool chunkFilled(int index, int64_t chunk) const;
  int64_t filledBytes() const { return filledBytes_; }
  void setPagedBudget(int64_t bytes) { pagedBudget_ = bytes; }

 private:
  struct Paged;  // a reserved mapping of bytes and shadow bytes, filled per chunk
  // Whole-array access: an internal error on a demand-paged storage.
  void requireDense(int index) const;
  std::vector<uint8_t>& dense(int index) {
    requireDense(index);
    return bytes_[static_cast<size_t>(index)];
  }
  // Read-only ones, at least as many as the largest always-defined storage.
  struct Ones {
    uint8_t* data = nullptr;
    size_t size = 0;
    explicit Ones(size_t n);
    Ones(const Ones&) = delete;
    Ones& operator=(const Ones&) = delete;
    ~Ones();
  };
  static std::shared_ptr<const Ones> onesOfAtLeast(size_t n);
  uint8_t* pagedAt(int index, int64_t offset, int64_t size, bool shadow);

  std::vector<ir::Storage> storages_;
  std::vector<int> indexOfId_;
  std::vector<int64_t> sizes_;
  std::vector<std::vector<uint8_t>> bytes_;
  std::vector<std::vector<uint8_t>> defined_;
  std::vector<std::unique_ptr<Paged>> paged_;
  std::shared_ptr<const Ones> ones_;
  std::vector<std::vector<int>> views_;  // per core view: index -> the index it uses
  std::vector<int> viewOf_;              // per index
  int64_t filledBytes_ = 0;
  int64_t pagedBudget_ = INT64_MAX;
};

// A region with its start evaluated: what the scalar unit hands to a pipe.
struct ResolvedRegion {
  ir::Buffer buffer;
  std::vector<int64_t> mins;
  std::vector<int64_t> extents;
  int64_t numElements() const;
};

// A copy's two regions after tail clipping (Machine::resolveCopy); with
// `tailFill` the destination keeps its extents and the elements outside the
// source box get that value (an L1 tile past the end of its tensor).
struct CopyRegions {
  ResolvedRegion src, dst;
  std::optional<Scalar> tailFill;
};

// Bytes written while deferring, as ranges: the bytes (and shadow bytes) each
// range will hold at the instruction's completion.
struct Patches {
  struct Range {
    int storage;
    int64_t offset, size;
    size_t at;  // start of this range's bytes in `bytes` / `defined`
  };
  std::vector<Range> ranges;
  std::vector<uint8_t> bytes;
  std::vector<uint8_t> defined;  // the shadow bytes (Memory::defined)
  bool empty() const { return ranges.empty(); }
};

// Gemm operands read by the MTE1 part of an L1 gemm (or by the M part).
struct GemmOperands {
  int64_t m = 0, n = 0, k = 0;
  bool integer = false;
  std::vector<double> a;                  // m x k, row-major
  std::vector<double> b;                  // k x n, row-major
  std::vector<uint8_t> aPoison, bPoison;  // same layout; empty unless tracking poison
};

class Machine {
 public:
  Machine(const ir::Kernel& kernel, Memory& memory);

  // Variable environment, indexed by VarNode::id.
  std::vector<Scalar> env;
  // Poison tracking (the simulator turns it on; the reference leaves it off):
  // a load of on-chip bytes that nothing wrote gives a poison value; poison
  // propagates through expressions, stores, copies, reductions and gemms;
  // poison reaching global memory, an index, a region start, a loop bound or
  // a condition is a run-time error (like MemorySanitizer). The errors are
  // collected in `poisonUses` (the first per statement) and execution goes on
  // with the value the bytes hold, so races and later errors are still found.
  bool trackPoison = false;
  std::vector<ExecError> poisonUses;
  // The instruction being executed ("T.copy a -> O"), for poison errors.
  std::string instruction;
  // Records the run-time error for a poison value used as `what` ("the
  // condition of this if") when tracking poison.
  void requireDefined(const Scalar& v, const std::string& what);
  // Fails with the values it read when a T.assume about kernel-computed
  // values (`a` assigns its hidden boolean) is false.
  void checkAssumption(const ir::AssignStmt& a);
  // Tile-at-a-time evaluation of copies, fills, gemm operands and simple
  // T.Parallel bodies (the cache-friendly gemm loop too). Results, accesses,
  // shadow bytes and errors are those of the element-at-a-time paths, which
  // run when this is off (tests compare the two) or when a fast path declines.
  bool fastPaths = true;
  // T.Parallel statements evaluated a tile at a time (tests check the fast
  // path is taken where it should be).
  int64_t parallelTiles = 0;
  // When set, every memory access is recorded here.
  AccessSet* access = nullptr;
  // Per storage index: 1 once anything was stored to it (outputs detection).
  std::vector<uint8_t> written;
  // The shape of a buffer after resolveShapes().
  const std::vector<int64_t>& shapeOf(const ir::Buffer& b) { return info(b).shape; }

  void bindBlock(int64_t block);
  // Runs as core `view` of a manual-form core group (Memory::viewStorage):
  // its buffers address that core's copies of the per-core storages.
  void setCoreView(int view);
  // 'name', or 'name' of AIV s for an AIV's own copy of a per-core storage.
  std::string storageLabel(int storage) const;
  int coreView() const { return coreView_; }
  // T.dual_copy(l0c, ub) (CopyStmt::dual): half `s` of the source goes to
  // `dst` in AIV s's UB, for both AIVs of the group.
  void dualCopy(const ir::CopyStmt& c, const ResolvedRegion& src, const ResolvedRegion& dst);
  // Evaluates the shapes of global tensors (dynamic sizes must be bound in env).
  void resolveShapes();

  // Reference semantics of any statement (flags and barriers do nothing,
  // except that cross-core flags call this when set: GroupReference.cpp).
  void exec(const ir::Stmt& s);
  std::function<void(const ir::Stmt&)> onCrossCoreFlag;
  Scalar eval(const ir::Expr& e);

  // Per-op entry points for the simulator.
  // `clippedFrom`: clip a region past the end of a dimension there instead of
  // failing, and say the extents it had (global copy sides; see resolveCopy).
  ResolvedRegion resolve(const ir::Region& r, SourceLoc loc,
                         std::vector<int64_t>* clippedFrom = nullptr);
  CopyRegions resolveCopy(const ir::CopyStmt& c);
  // `pad` (pad_value=, may be null): a source smaller than the destination is
  // lined up from the right; destination elements outside it get `pad`.
  // `atomic` (T.set_atomic, stores to global memory): every destination
  // element becomes `old op value` (value converted to the destination dtype
  // first) in the destination dtype's arithmetic, as a binary operator would.
  // `transpose`: the 2-D source box is read transposed (CopyStmt::transpose).
  void copy(const ResolvedRegion& src, const ResolvedRegion& dst, SourceLoc loc,
            const Scalar* pad = nullptr, ir::AtomicOp atomic = ir::AtomicOp::None,
            bool transpose = false);
  GemmOperands readGemmOperands(const ir::GemmStmt& g, const ResolvedRegion& a,
                                const ResolvedRegion& b);
  void finishGemm(const GemmOperands& ops, const ResolvedRegion& c, bool clear, SourceLoc loc);
  void fill(const ResolvedRegion& dst, const Scalar& value);
  void reduce(const ir::ReduceStmt& r, const ResolvedRegion& src, const ResolvedRegion& dst);

  // Deferred writes: between beginDeferred and endDeferred every store is
  // applied and logged; endDeferred restores the old bytes and returns the
  // new ones, to be applied at the instruction's completion (applyPatches).
  void beginDeferred();
  Patches endDeferred();
  void applyPatches(const Patches& patches);

  SourceLoc loc;  // statement being executed, for error messages

 private:
  struct BufferInfo {
    int storage = -1;
    int elemBytes = 1;
    std::vector<int64_t> shape;
    std::vector<int64_t> strides;  // in elements
  };
  const BufferInfo& info(const ir::Buffer& b);
  int64_t elementOffset(const ir::Buffer& b, const std::vector<int64_t>& idx);
  Scalar evalValue(const ir::Expr& e);
  int64_t indexValue(const Scalar& v);
  // memory_.bytesAt, or a run-time error when a demand-paged storage would
  // pass the Memory's budget (a sampled run touching too much global memory).
  uint8_t* bytesOf(int storage, int64_t offset, int64_t size);
  Scalar loadAt(int storage, int64_t offset, ir::DType t, int bytes);
  void storeAt(int storage, int64_t offset, ir::DType t, int bytes, const Scalar& v);
  template <class F>
  void forEachElement(const ResolvedRegion& r, F&& fn);
  [[noreturn]] void fail(const std::string& message);
  void reportPoison(const std::string& message);

  const ir::Kernel& kernel_;
  Memory& memory_;
  std::vector<BufferInfo> buffers_;  // by buffer id
  int coreView_ = 0;
  bool deferring_ = false;
  Patches undo_;  // the old bytes of everything written while deferring
  // Writes a fast path made straight into the completion patches while
  // deferring (memory untouched, nothing to undo); no other write of the
  // same instruction touches their bytes.
  Patches direct_;
  // Logs the old bytes of [offset, offset + size) of `storage` before a write.
  void logOld(int storage, int64_t offset, int64_t size);
  // Calls fn(byteOffset, elements) for every row (innermost extent) of `r`.
  template <class F>
  void forEachRow(const ResolvedRegion& r, F&& fn);
  // Calls fn(Scalar) for every element of `r` in row-major order, recording
  // one read access per row (fp16 decoded through a table). The values of the
  // element-at-a-time loads when `r` holds no poison, which the caller checks.
  template <class F>
  void readRowWise(const ResolvedRegion& r, F&& fn);
  bool regionDefined(const ResolvedRegion& r);
  // Tile-at-a-time paths: same results, accesses and shadow bytes as the
  // element-at-a-time ones; they return false (having changed nothing) when
  // they cannot guarantee that, and the caller takes the general path.
  bool copyFast(const ResolvedRegion& src, const ResolvedRegion& dst);
  bool parallelFast(const ir::ParallelStmt& p);
  struct TileSteps;  // parallelFast's steps (ParallelFast.cpp)
  // parallelFast's scratch: node columns, variable columns, byte offsets.
  std::vector<double> tileFloats_;
  std::vector<int64_t> tileInts_;
  std::vector<std::vector<int64_t>> tileVarColumns_;
  std::vector<int64_t> tileOffsets_;
  // Poison seen while evaluating the current expression, and where the last
  // poison load came from (for messages).
  bool poisonSeen_ = false;
  std::vector<std::pair<uint32_t, uint32_t>> poisonReportedAt_;  // (line, col)
  int poisonStorage_ = -1;
  int64_t poisonLo_ = 0, poisonHi_ = 0;
  // Where the poison a message follows comes from: the first load in this
  // block from an on-chip storage that holds no written byte at all (a
  // buffer the kernel reads but never writes), and the storages already
  // looked at. Poison copied through other buffers keeps pointing here.
  int poisonRoot_ = -1;
  SourceLoc poisonRootLoc_;
  std::vector<uint8_t> poisonRootChecked_;
  void notePoisonLoad(int storage, int64_t lo, int64_t hi);
  std::string poisonOrigin() const;
};

}  // namespace tilesched::sim
