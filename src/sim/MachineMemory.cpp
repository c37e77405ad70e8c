// Memory and the Machine's access to it (see Machine.h): the byte arrays and
// shadow bytes of every storage, demand paging of global tensors, access
// sets; the Machine's element loads and stores (shadow bytes, poison and
// where it came from) and its deferred writes (undo log and patches).
// Assumes: indices were bounds-checked by the caller (elementOffset, resolve).
// Guarantees: every load and store is recorded in `access` when it is set,
// and restoring the undo log gives back the bytes and shadow bytes exactly.
#include "sim/Machine.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <new>
#include <set>

#include <sys/mman.h>

#include <fmt/format.h>

#include "sim/MachineImpl.h"

namespace tilesched::sim {

using namespace ir;

// ---------------------------------------------------------------- accesses

void AccessSet::add(int storage, int64_t lo, int64_t hi, bool write) {
  if (hi <= lo) return;
  Entry* e = nullptr;
  if (!entries.empty() && entries.back().storage == storage)
    e = &entries.back();
  else
    for (auto& x : entries)
      if (x.storage == storage) e = &x;
  if (!e) {
    entries.push_back(Entry{storage, {}, {}});
    e = &entries.back();
  }
  auto& list = write ? e->writes : e->reads;
  // Element-by-element accesses are mostly ascending: extend the last range.
  if (!list.empty() && lo >= list.back().lo && lo <= list.back().hi) {
    list.back().hi = std::max(list.back().hi, hi);
    return;
  }
  list.push_back({lo, hi});
}

static void normalizeRanges(std::vector<ByteRange>& v) {
  if (v.size() < 2) return;
  std::sort(v.begin(), v.end(), [](const ByteRange& a, const ByteRange& b) { return a.lo < b.lo; });
  size_t out = 0;
  for (size_t i = 1; i < v.size(); ++i) {
    if (v[i].lo <= v[out].hi)
      v[out].hi = std::max(v[out].hi, v[i].hi);
    else
      v[++out] = v[i];
  }
  v.resize(out + 1);
}

void AccessSet::normalize() {
  for (auto& e : entries) {
    normalizeRanges(e.reads);
    normalizeRanges(e.writes);
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.storage < b.storage; });
}

// ---------------------------------------------------------------- memory

// A global storage reserved with mmap (pages appear on first write) and
// filled a chunk at a time on first touch.
struct Memory::Paged {
  uint8_t* bytes = nullptr;
  uint8_t* shadow = nullptr;
  size_t size = 0;
  std::vector<uint8_t> filled;  // per chunk
  ChunkFill fill;

  explicit Paged(int64_t n) : size(static_cast<size_t>(std::max<int64_t>(n, 0))) {
    filled.assign((size + static_cast<size_t>(kPageChunk) - 1) / static_cast<size_t>(kPageChunk),
                  0);
    if (size == 0) return;
    void* p = mmap(nullptr, 2 * size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    // Small pages: a block touching a chunk every 2 MiB must not commit a
    // transparent huge page for each.
    madvise(p, 2 * size, MADV_NOHUGEPAGE);
    bytes = static_cast<uint8_t*>(p);
    shadow = bytes + size;
  }
  Paged(const Paged&) = delete;
  Paged& operator=(const Paged&) = delete;
  ~Paged() {
    if (bytes) munmap(bytes, 2 * size);
  }
};

std::vector<Storage> storageOrder(const Kernel& kernel) {
  std::vector<Storage> order;
  std::set<int> seen;
  for (const auto& s : kernel.storages)
    if (seen.insert(s->id).second) order.push_back(s);
  for (const auto& b : kernel.buffers)
    if (seen.insert(b->storage->id).second) order.push_back(b->storage);
  return order;
}

std::vector<std::string> storageNames(const Kernel& kernel) {
  std::vector<Storage> order = storageOrder(kernel);
  std::vector<std::string> names;
  for (const auto& s : order) names.push_back(s->name);
  if (kernel.manualCores)
    for (int aiv = 0; aiv < 2; ++aiv)
      for (const auto& s : order)
        if (perCoreScope(s->scope)) names.push_back(fmt::format("{} (AIV {})", s->name, aiv));
  return names;
}

// Ones in pages mapped read-only once written: a stray write to the shadow of
// an always-defined storage faults instead of passing unnoticed.
Memory::Ones::Ones(size_t n) : size(std::max<size_t>(n, 1)) {
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  std::memset(p, 1, size);
  mprotect(p, size, PROT_READ);
  data = static_cast<uint8_t*>(p);
}

Memory::Ones::~Ones() { munmap(data, size); }

// One buffer for every Memory of the process while it is big enough (the
// reference's and the simulation's share it).
std::shared_ptr<const Memory::Ones> Memory::onesOfAtLeast(size_t n) {
  static std::mutex mutex;
  static std::weak_ptr<const Ones> shared;
  std::lock_guard<std::mutex> lock(mutex);
  auto ones = shared.lock();
  if (!ones || ones->size < n) {
    ones = std::make_shared<const Ones>(n);
    shared = ones;
  }
  return ones;
}

Memory::Memory(const Kernel& kernel, bool demandPaged) {
  std::vector<Storage> order = storageOrder(kernel);
  int maxId = 0;
  for (const auto& s : order) maxId = std::max(maxId, s->id);
  indexOfId_.assign(static_cast<size_t>(maxId) + 1, -1);
  int64_t maxGlobal = 0;
  for (const auto& s : order) {
    indexOfId_[static_cast<size_t>(s->id)] = static_cast<int>(storages_.size());
    storages_.push_back(s);
    int64_t bytes = std::max<int64_t>(s->bytes, 0);
    sizes_.push_back(bytes);
    bool paged = demandPaged && s->scope == MemScope::Global;
    bytes_.emplace_back(paged ? 0 : static_cast<size_t>(bytes), 0);
    bool global = s->scope == MemScope::Global;
    defined_.emplace_back(paged || global ? 0 : static_cast<size_t>(bytes), 0);
    paged_.push_back(paged ? std::make_unique<Paged>(bytes) : nullptr);
    if (global && !paged) maxGlobal = std::max(maxGlobal, bytes);
  }
  ones_ = onesOfAtLeast(static_cast<size_t>(maxGlobal));
  if (kernel.manualCores) {
    size_t original = storages_.size();
    viewOf_.assign(original, 0);
    for (int view = 1; view < 3; ++view) {
      std::vector<int> map(original);
      for (size_t i = 0; i < original; ++i) {
        map[i] = static_cast<int>(i);
        if (!perCoreScope(storages_[i]->scope)) continue;
        map[i] = static_cast<int>(storages_.size());
        storages_.push_back(storages_[i]);
        sizes_.push_back(sizes_[i]);
        bytes_.emplace_back(bytes_[i].size(), 0);
        defined_.emplace_back(defined_[i].size(), 0);
        paged_.push_back(nullptr);
        viewOf_.push_back(view);
      }
      views_.push_back(std::move(map));
    }
    // The AIC has no UB of its own: what it addresses there (the destination
    // of a plain FixPipe L0C -> UB copy) is AIV 0's; its registers are its own.
    std::vector<int> cube(original);
    for (size_t i = 0; i < original; ++i) {
      MemScope scope = storages_[i]->scope;
      bool vectorSide = scope == MemScope::UB || scope == MemScope::Fragment;
      cube[i] = vectorSide ? views_[0][i] : static_cast<int>(i);
    }
    views_.insert(views_.begin(), std::move(cube));
  }
}

Memory::Memory(const Memory& other)
    : storages_(other.storages_),
      indexOfId_(other.indexOfId_),
      sizes_(other.sizes_),
      bytes_(other.bytes_),
      defined_(other.defined_),
      ones_(other.ones_),
      views_(other.views_),
      viewOf_(other.viewOf_),
      filledBytes_(other.filledBytes_),
      pagedBudget_(other.pagedBudget_) {
  for (const auto& p : other.paged_) TS_INTERNAL(!p, "a demand-paged Memory cannot be copied");
  paged_.resize(other.paged_.size());
}

Memory& Memory::operator=(const Memory& other) {
  if (this != &other) *this = Memory(other);
  return *this;
}

Memory::Memory(Memory&&) noexcept = default;
Memory& Memory::operator=(Memory&&) noexcept = default;
Memory::~Memory() = default;

void Memory::requireDense(int index) const {
  TS_INTERNAL(!isPaged(index), "whole-array access to the demand-paged storage '" +
                                   storages_[static_cast<size_t>(index)]->name + "'");
}

void Memory::resize(int index, int64_t bytes) {
  auto i = static_cast<size_t>(index);
  sizes_[i] = bytes;
  if (paged_[i]) {
    TS_INTERNAL(std::none_of(paged_[i]->filled.begin(), paged_[i]->filled.end(),
                             [](uint8_t f) { return f; }),
                "resizing a demand-paged storage after it was touched");
    ChunkFill fill = std::move(paged_[i]->fill);
    paged_[i] = std::make_unique<Paged>(bytes);
    paged_[i]->fill = std::move(fill);
    return;
  }
  bytes_[i].assign(static_cast<size_t>(bytes), 0);
  if (alwaysDefined(index)) {
    if (ones_->size < static_cast<size_t>(bytes)) ones_ = onesOfAtLeast(static_cast<size_t>(bytes));
  } else {
    defined_[i].assign(static_cast<size_t>(bytes), 1);
  }
}

void Memory::setChunkFill(int index, ChunkFill fill) {
  TS_INTERNAL(isPaged(index), "setChunkFill on a storage that is not demand-paged");
  paged_[static_cast<size_t>(index)]->fill = std::move(fill);
}

bool Memory::chunkFilled(int index, int64_t chunk) const {
  const auto& p = paged_[static_cast<size_t>(index)];
  return !p || p->filled[static_cast<size_t>(chunk)] != 0;
}

uint8_t* Memory::pagedAt(int index, int64_t offset, int64_t size, bool shadow) {
  Paged& p = *paged_[static_cast<size_t>(index)];
  if (size > 0) {
    for (int64_t c = offset / kPageChunk, last = (offset + size - 1) / kPageChunk; c <= last; ++c) {
      if (p.filled[static_cast<size_t>(c)]) continue;
      int64_t lo = c * kPageChunk;
      int64_t n = std::min<int64_t>(kPageChunk, static_cast<int64_t>(p.size) - lo);
      if (filledBytes_ + n > pagedBudget_) return nullptr;
      if (p.fill) p.fill(lo, p.bytes + lo, n);
      std::memset(p.shadow + lo, 1, static_cast<size_t>(n));  // global bytes are defined
      p.filled[static_cast<size_t>(c)] = 1;
      filledBytes_ += n;
    }
  }
  return (shadow ? p.shadow : p.bytes) + offset;
}

void Memory::resetOnChip() {
  for (size_t i = 0; i < storages_.size(); ++i)
    if (storages_[i]->scope != MemScope::Global) {
      std::fill(bytes_[i].begin(), bytes_[i].end(), 0);
      std::fill(defined_[i].begin(), defined_[i].end(), 0);
    }
}

int64_t ResolvedRegion::numElements() const {
  int64_t n = 1;
  for (int64_t e : extents) n *= e;
  return n;
}

// ---------------------------------------------------------------- loads and stores

uint8_t* Machine::bytesOf(int storage, int64_t offset, int64_t size) {
  if (uint8_t* p = memory_.bytesAt(storage, offset, size)) return p;
  fail(fmt::format(
      "the simulated blocks touch more than {} bytes of global memory (here '{}' bytes [{}, {})), "
      "beyond the simulator, which holds at most 1 GiB per kernel; use a smaller shape to run it",
      memory_.filledBytes(), memory_.storage(storage)->name, offset, offset + size));
}

Scalar Machine::loadAt(int storage, int64_t offset, DType t, int bytes) {
  if (access) access->add(storage, offset, offset + bytes, false);
  Scalar v = loadElement(bytesOf(storage, offset, bytes), t);
  if (trackPoison) {
    const uint8_t* d = memory_.definedAt(storage, offset, bytes);
    for (int b = 0; b < bytes && !v.poison; ++b) v.poison = d[b] == 0;
    if (v.poison) {
      poisonSeen_ = true;
      notePoisonLoad(storage, offset, offset + bytes);
    }
  }
  return v;
}

void Machine::notePoisonLoad(int storage, int64_t lo, int64_t hi) {
  poisonStorage_ = storage;
  poisonLo_ = lo;
  poisonHi_ = hi;
  auto s = static_cast<size_t>(storage);
  if (poisonRoot_ >= 0 || s >= poisonRootChecked_.size() || poisonRootChecked_[s]) return;
  poisonRootChecked_[s] = 1;
  if (memory_.storage(storage)->scope == MemScope::Global) return;
  const uint8_t* d = memory_.defined(storage);
  if (std::all_of(d, d + memory_.size(storage), [](uint8_t b) { return b == 0; })) {
    poisonRoot_ = storage;
    poisonRootLoc_ = loc;
  }
}

// A storage as a message names it: 'temp', or 'temp' of AIV 1 for an AIV's
// own copy in a core group (the AIC's view of UB is AIV 0's).
std::string Machine::storageLabel(int storage) const {
  std::string name = fmt::format("'{}'", memory_.storage(storage)->name);
  int view = memory_.viewOf(storage);
  return view > 0 ? fmt::format("{} of AIV {}", name, view - 1) : name;
}

// "'a_ub' bytes [12, 16), which hold poison (...)": where the last poison
// value was loaded from, and the buffer nothing writes that it started at.
std::string Machine::poisonOrigin() const {
  if (poisonStorage_ < 0) return "on-chip memory that nothing wrote in this block";
  std::string root;
  if (poisonRoot_ >= 0)
    root = fmt::format("{}, which nothing writes in this block before its first read at line {}",
                       storageLabel(poisonRoot_), poisonRootLoc_.line);
  if (poisonRoot_ == poisonStorage_)
    return fmt::format("{} bytes [{}, {}), which hold poison: it comes from {}",
                       storageLabel(poisonStorage_), poisonLo_, poisonHi_, root);
  return fmt::format(
      "{} bytes [{}, {}), which hold poison (never written in this block, or computed from "
      "such bytes){}",
      storageLabel(poisonStorage_), poisonLo_, poisonHi_,
      root.empty() ? "" : "; the poison comes from " + root);
}

void Machine::reportPoison(const std::string& message) {
  std::pair<uint32_t, uint32_t> at{loc.line, loc.col};
  if (std::find(poisonReportedAt_.begin(), poisonReportedAt_.end(), at) != poisonReportedAt_.end())
    return;
  poisonReportedAt_.push_back(at);
  poisonUses.push_back(ExecError{loc, message});
}

void Machine::requireDefined(const Scalar& v, const std::string& what) {
  if (!trackPoison || !v.poison) return;
  reportPoison(fmt::format("use of uninitialised memory: {} is poison, derived from {}", what,
                           poisonOrigin()));
}

void Machine::storeAt(int storage, int64_t offset, DType t, int bytes, const Scalar& v) {
  if (access) access->add(storage, offset, offset + bytes, true);
  written[static_cast<size_t>(storage)] = 1;
  uint8_t* p = bytesOf(storage, offset, bytes);
  bool toGlobal = memory_.storage(storage)->scope == MemScope::Global;
  if (trackPoison && v.poison && toGlobal)
    reportPoison(
        fmt::format("use of uninitialised memory: {}writes poison to global memory '{}' (bytes "
                    "[{}, {})), derived from {}",
                    instruction.empty() ? std::string("this statement ") : instruction + " ",
                    memory_.storage(storage)->name, offset, offset + bytes, poisonOrigin()));
  if (deferring_) logOld(storage, offset, bytes);
  storeElement(p, t, v);
  memory_.setDefined(storage, offset, bytes, v.poison && !toGlobal ? 0 : 1);
}

void Machine::logOld(int storage, int64_t offset, int64_t size) {
  // Consecutive element writes extend the last range (restoring is per byte,
  // so a longer range restores exactly what its pieces would).
  if (!undo_.ranges.empty()) {
    auto& last = undo_.ranges.back();
    if (last.storage == storage && last.offset + last.size == offset &&
        last.at + static_cast<size_t>(last.size) == undo_.bytes.size()) {
      last.size += size;
      const uint8_t* old = bytesOf(storage, offset, size);
      const uint8_t* oldShadow = memory_.definedAt(storage, offset, size);
      undo_.bytes.insert(undo_.bytes.end(), old, old + size);
      undo_.defined.insert(undo_.defined.end(), oldShadow, oldShadow + size);
      return;
    }
  }
  undo_.ranges.push_back({storage, offset, size, undo_.bytes.size()});
  const uint8_t* old = bytesOf(storage, offset, size);
  const uint8_t* oldShadow = memory_.definedAt(storage, offset, size);
  undo_.bytes.insert(undo_.bytes.end(), old, old + size);
  undo_.defined.insert(undo_.defined.end(), oldShadow, oldShadow + size);
}

void Machine::beginDeferred() {
  deferring_ = true;
  undo_ = Patches{};
  direct_ = Patches{};
}

Patches Machine::endDeferred() {
  deferring_ = false;
  // The new bytes of every logged range (a range written twice holds its
  // final bytes in both patches), then the old bytes back, newest first.
  Patches out;
  out.ranges = undo_.ranges;
  out.bytes.reserve(undo_.bytes.size());
  out.defined.reserve(undo_.defined.size());
  for (const auto& r : undo_.ranges) {  // ranges are laid out in order: `at` is the running size
    const uint8_t* now = memory_.bytesAt(r.storage, r.offset, r.size);  // filled by logOld
    const uint8_t* nowShadow = memory_.definedAt(r.storage, r.offset, r.size);
    out.bytes.insert(out.bytes.end(), now, now + r.size);
    out.defined.insert(out.defined.end(), nowShadow, nowShadow + r.size);
  }
  for (size_t i = undo_.ranges.size(); i-- > 0;) {
    const auto& r = undo_.ranges[i];
    std::memcpy(memory_.bytesAt(r.storage, r.offset, r.size), undo_.bytes.data() + r.at,
                static_cast<size_t>(r.size));
    memory_.copyDefinedIn(r.storage, r.offset, undo_.defined.data() + r.at, r.size);
  }
  undo_ = Patches{};
  size_t shift = out.bytes.size();
  for (auto r : direct_.ranges) {
    r.at += shift;
    out.ranges.push_back(r);
  }
  out.bytes.insert(out.bytes.end(), direct_.bytes.begin(), direct_.bytes.end());
  out.defined.insert(out.defined.end(), direct_.defined.begin(), direct_.defined.end());
  direct_ = Patches{};
  return out;
}

void Machine::applyPatches(const Patches& patches) {
  for (const auto& r : patches.ranges) {
    std::memcpy(bytesOf(r.storage, r.offset, r.size), patches.bytes.data() + r.at,
                static_cast<size_t>(r.size));
    memory_.copyDefinedIn(r.storage, r.offset, patches.defined.data() + r.at, r.size);
  }
}

const std::vector<double>& detail::halfTable() {
  static const std::vector<double> table = [] {
    std::vector<double> t(65536);
    for (uint32_t b = 0; b < 65536; ++b) t[b] = decodeHalf(static_cast<uint16_t>(b));
    return t;
  }();
  return table;
}

bool Machine::regionDefined(const ResolvedRegion& r) {
  const auto& bi = info(r.buffer);
  if (memory_.storage(bi.storage)->scope == MemScope::Global) return true;  // always defined
  const uint8_t* shadow = memory_.defined(bi.storage);
  bool ok = true;
  forEachRow(r, [&](int64_t off, int64_t n) {
    if (ok && std::memchr(shadow + off, 0, static_cast<size_t>(n * bi.elemBytes))) ok = false;
  });
  return ok;
}

}  // namespace tilesched::sim
