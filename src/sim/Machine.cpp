// Exact statement semantics (see Machine.h). Errors are thrown as ExecError
// with the statement's location; everything else is plain loops.
#include "sim/Machine.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <new>
#include <set>

#include <sys/mman.h>

#include <fmt/format.h>

#include "ir/Functor.h"
#include "ir/IROperator.h"
#include "ir/Printer.h"

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

Memory::Memory(const Kernel& kernel, bool demandPaged) {
  std::vector<Storage> order = storageOrder(kernel);
  int maxId = 0;
  for (const auto& s : order) maxId = std::max(maxId, s->id);
  indexOfId_.assign(static_cast<size_t>(maxId) + 1, -1);
  for (const auto& s : order) {
    indexOfId_[static_cast<size_t>(s->id)] = static_cast<int>(storages_.size());
    storages_.push_back(s);
    int64_t bytes = std::max<int64_t>(s->bytes, 0);
    sizes_.push_back(bytes);
    bool paged = demandPaged && s->scope == MemScope::Global;
    bytes_.emplace_back(paged ? 0 : static_cast<size_t>(bytes), 0);
    defined_.emplace_back(paged ? 0 : static_cast<size_t>(bytes),
                          s->scope == MemScope::Global ? 1 : 0);
    paged_.push_back(paged ? std::make_unique<Paged>(bytes) : nullptr);
  }
}

Memory::Memory(const Memory& other)
    : storages_(other.storages_),
      indexOfId_(other.indexOfId_),
      sizes_(other.sizes_),
      bytes_(other.bytes_),
      defined_(other.defined_),
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
  defined_[i].assign(static_cast<size_t>(bytes), 1);
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

// ---------------------------------------------------------------- machine

namespace {}  // namespace

Machine::Machine(const Kernel& kernel, Memory& memory) : kernel_(kernel), memory_(memory) {
  env.assign(static_cast<size_t>(maxVarId(kernel)) + 1, Scalar{});
  int maxBuf = 0;
  for (const auto& b : kernel.buffers) maxBuf = std::max(maxBuf, b->id);
  buffers_.resize(static_cast<size_t>(maxBuf) + 1);
  written.assign(static_cast<size_t>(memory.numStorages()), 0);
  resolveShapes();
}

void Machine::bindBlock(int64_t block) {
  poisonRoot_ = -1;
  poisonRootChecked_.assign(static_cast<size_t>(memory_.numStorages()), 0);
  if (kernel_.blockIdx) env[static_cast<size_t>(kernel_.blockIdx->id)] = Scalar::ofInt(block);
}

void Machine::resolveShapes() {
  for (const auto& b : kernel_.buffers) {
    BufferInfo bi;
    bi.storage = memory_.index(b->storage);
    bi.elemBytes = dtypeBytes(b->dtype);
    for (const auto& d : b->shape) {
      auto c = asConstInt(d);
      bi.shape.push_back(c ? *c : eval(d).asInt());
    }
    bi.strides.assign(bi.shape.size(), 1);
    for (size_t i = bi.shape.size(); i-- > 1;) bi.strides[i - 1] = bi.strides[i] * bi.shape[i];
    buffers_[static_cast<size_t>(b->id)] = std::move(bi);
  }
}

const Machine::BufferInfo& Machine::info(const Buffer& b) {
  const auto& bi = buffers_.at(static_cast<size_t>(b->id));
  if (bi.storage < 0) fail(fmt::format("buffer '{}' is not declared in the kernel", b->name));
  return bi;
}

void Machine::fail(const std::string& message) { throw ExecError{loc, message}; }

static std::string indexText(const std::vector<int64_t>& idx) {
  std::string s = "[";
  for (size_t i = 0; i < idx.size(); ++i) s += (i ? ", " : "") + std::to_string(idx[i]);
  return s + "]";
}

static std::string shapeText(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

// A materialised buffer's leading version dimension is not in the source:
// messages show the index and shape the author wrote and name the version.
static size_t sourceDims(const Buffer& b) { return b->versionDim > 0 ? 1 : 0; }

static std::string versionText(const Buffer& b, int64_t version) {
  return b->versionDim > 0 ? fmt::format(" (version {} of its {} versions)", version, b->versionDim)
                           : "";
}

template <class T>
static std::vector<T> dropVersion(const Buffer& b, const std::vector<T>& v) {
  return std::vector<T>(v.begin() + static_cast<std::ptrdiff_t>(std::min(sourceDims(b), v.size())),
                        v.end());
}

int64_t Machine::elementOffset(const Buffer& b, const std::vector<int64_t>& idx) {
  const auto& bi = info(b);
  if (idx.size() != bi.shape.size() && !(bi.shape.size() == 1 && idx.empty()))
    fail(fmt::format("access to '{}' with {} indices, but it has {} dimensions", b->name,
                     idx.size(), bi.shape.size()));
  int64_t off = 0;
  for (size_t d = 0; d < idx.size(); ++d) {
    if (idx[d] < 0 || idx[d] >= bi.shape[d])
      fail(fmt::format("out-of-bounds access to '{}': index {} is outside its shape {}{}", b->name,
                       indexText(dropVersion(b, idx)), shapeText(dropVersion(b, bi.shape)),
                       versionText(b, idx.empty() ? 0 : idx[0])));
    off += idx[d] * bi.strides[d];
  }
  int64_t byteOff = off * bi.elemBytes;
  if (byteOff + bi.elemBytes > memory_.size(bi.storage))
    fail(fmt::format(
        "out-of-bounds access to '{}': index {} lies beyond its storage '{}' ({} bytes)", b->name,
        indexText(idx), memory_.storage(bi.storage)->name, memory_.size(bi.storage)));
  return byteOff;
}

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

// "'a_ub' bytes [12, 16), which hold poison (...)": where the last poison
// value was loaded from, and the buffer nothing writes that it started at.
std::string Machine::poisonOrigin() const {
  if (poisonStorage_ < 0) return "on-chip memory that nothing wrote in this block";
  std::string root;
  if (poisonRoot_ >= 0)
    root = fmt::format("'{}', which nothing writes in this block before its first read at line {}",
                       memory_.storage(poisonRoot_)->name, poisonRootLoc_.line);
  if (poisonRoot_ == poisonStorage_)
    return fmt::format("'{}' bytes [{}, {}), which hold poison: it comes from {}",
                       memory_.storage(poisonStorage_)->name, poisonLo_, poisonHi_, root);
  return fmt::format(
      "'{}' bytes [{}, {}), which hold poison (never written in this block, or computed from "
      "such bytes){}",
      memory_.storage(poisonStorage_)->name, poisonLo_, poisonHi_,
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

int64_t Machine::indexValue(const Scalar& v) {
  requireDefined(v, "an index");
  return v.asInt();
}

void Machine::storeAt(int storage, int64_t offset, DType t, int bytes, const Scalar& v) {
  if (access) access->add(storage, offset, offset + bytes, true);
  written[static_cast<size_t>(storage)] = 1;
  uint8_t* p = bytesOf(storage, offset, bytes);
  uint8_t* d = memory_.definedAt(storage, offset, bytes);
  bool toGlobal = memory_.storage(storage)->scope == MemScope::Global;
  if (trackPoison && v.poison && toGlobal)
    reportPoison(
        fmt::format("use of uninitialised memory: {}writes poison to global memory '{}' (bytes "
                    "[{}, {})), derived from {}",
                    instruction.empty() ? std::string("this statement ") : instruction + " ",
                    memory_.storage(storage)->name, offset, offset + bytes, poisonOrigin()));
  if (deferring_) logOld(storage, offset, bytes);
  storeElement(p, t, v);
  std::memset(d, v.poison && !toGlobal ? 0 : 1, static_cast<size_t>(bytes));
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
    std::memcpy(memory_.definedAt(r.storage, r.offset, r.size), undo_.defined.data() + r.at,
                static_cast<size_t>(r.size));
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
    std::memcpy(memory_.definedAt(r.storage, r.offset, r.size), patches.defined.data() + r.at,
                static_cast<size_t>(r.size));
  }
}

// ---------------------------------------------------------------- expressions

namespace {

double unaryFloat(UnOp op, double x) {
  float f = static_cast<float>(x);
  switch (op) {
    case UnOp::Neg:
      return -f;
    case UnOp::Abs:
      return std::fabs(f);
    case UnOp::Exp:
      return std::exp(f);
    case UnOp::Log:
      return std::log(f);
    case UnOp::Sqrt:
      return std::sqrt(f);
    case UnOp::Rsqrt:
      return 1.0f / std::sqrt(f);
    case UnOp::Tanh:
      return std::tanh(f);
    case UnOp::Sigmoid:
      return 1.0f / (1.0f + std::exp(-f));
    case UnOp::Not:
      return f == 0.0f ? 1.0 : 0.0;
  }
  return f;
}

// `op a` with the result in dtype `t`.
Scalar unaryValue(UnOp op, DType t, const Scalar& a) {
  if (op == UnOp::Not) return Scalar::ofInt(a.truthy() ? 0 : 1);
  if (isFloat(t)) return Scalar::ofFloat(roundToFloat(unaryFloat(op, a.asDouble()), t));
  int64_t v = a.asInt();
  switch (op) {
    case UnOp::Neg:
      return Scalar::ofInt(wrapToInt(-v, t));
    case UnOp::Abs:
      return Scalar::ofInt(wrapToInt(v < 0 ? -v : v, t));
    default:
      return convert(Scalar::ofFloat(unaryFloat(op, a.asDouble())), t);
  }
}

// The comparison `a op b` (in double when either side is a float).
bool compareValues(BinOp op, const Scalar& a, const Scalar& b) {
  bool r = false;
  if (a.isFloat || b.isFloat) {
    double x = a.asDouble(), y = b.asDouble();
    switch (op) {
      case BinOp::EQ:
        r = x == y;
        break;
      case BinOp::NE:
        r = x != y;
        break;
      case BinOp::LT:
        r = x < y;
        break;
      case BinOp::LE:
        r = x <= y;
        break;
      case BinOp::GT:
        r = x > y;
        break;
      default:
        r = x >= y;
        break;
    }
  } else {
    switch (op) {
      case BinOp::EQ:
        r = a.i == b.i;
        break;
      case BinOp::NE:
        r = a.i != b.i;
        break;
      case BinOp::LT:
        r = a.i < b.i;
        break;
      case BinOp::LE:
        r = a.i <= b.i;
        break;
      case BinOp::GT:
        r = a.i > b.i;
        break;
      default:
        r = a.i >= b.i;
        break;
    }
  }
  return r;
}

// Float `a op b`: binary32 arithmetic, then the expression's dtype `t`
// (fp16/bf16: RNE).
double floatBinary(BinOp op, double a, double b, DType t) {
  float x = static_cast<float>(roundToFloat(a, t));
  float y = static_cast<float>(roundToFloat(b, t));
  float r = 0;
  switch (op) {
    case BinOp::Add:
      r = x + y;
      break;
    case BinOp::Sub:
      r = x - y;
      break;
    case BinOp::Mul:
      r = x * y;
      break;
    case BinOp::Div:
      r = x / y;
      break;
    case BinOp::FloorDiv:
      r = std::floor(x / y);
      break;
    case BinOp::FloorMod:
      r = x - std::floor(x / y) * y;
      break;
    case BinOp::Min:
      r = y < x ? y : x;
      break;
    case BinOp::Max:
      r = x < y ? y : x;
      break;
    default:
      break;
  }
  return roundToFloat(r, t);
}

// Integer `x op y` wrapped to `t`; the caller rejects division by zero.
int64_t intBinary(BinOp op, int64_t x, int64_t y, DType t) {
  int64_t r = 0;
  switch (op) {
    case BinOp::Add:
      r = static_cast<int64_t>(static_cast<uint64_t>(x) + static_cast<uint64_t>(y));
      break;
    case BinOp::Sub:
      r = static_cast<int64_t>(static_cast<uint64_t>(x) - static_cast<uint64_t>(y));
      break;
    case BinOp::Mul:
      r = static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
      break;
    case BinOp::Div:
    case BinOp::FloorDiv:
      r = floorDiv(x, y);
      break;
    case BinOp::FloorMod:
      r = floorMod(x, y);
      break;
    case BinOp::Min:
      r = std::min(x, y);
      break;
    case BinOp::Max:
      r = std::max(x, y);
      break;
    default:
      break;
  }
  return wrapToInt(r, t);
}

}  // namespace

Scalar Machine::eval(const Expr& e) {
  if (!trackPoison) return evalValue(e);
  // The value is poison when any load or register it reads is.
  bool outer = poisonSeen_;
  poisonSeen_ = false;
  Scalar r = evalValue(e);
  r.poison = r.poison || poisonSeen_;
  poisonSeen_ = outer || r.poison;
  return r;
}

Scalar Machine::evalValue(const Expr& e) {
  switch (e->kind) {
    case ExprKind::IntImm:
      return Scalar::ofInt(e->intValue);
    case ExprKind::FloatImm:
      return Scalar::ofFloat(roundToFloat(e->floatValue, e->dtype));
    case ExprKind::VarRef: {
      const Scalar& v = env[static_cast<size_t>(e->var->id)];
      poisonSeen_ = poisonSeen_ || v.poison;
      return v;
    }
    case ExprKind::Cast:
      return convert(eval(e->operands[0]), e->dtype);
    case ExprKind::Select: {
      // Only the taken branch is evaluated: guards like
      // T.if_then_else(i < n, A[i], 0) must not fault on the other one.
      bool c = eval(e->operands[0]).truthy();
      return convert(eval(e->operands[c ? 1 : 2]), e->dtype);
    }
    case ExprKind::Load: {
      std::vector<int64_t> idx;
      idx.reserve(e->operands.size());
      for (const auto& o : e->operands) idx.push_back(indexValue(eval(o)));
      const auto& bi = info(e->buffer);
      int64_t off = elementOffset(e->buffer, idx);
      return loadAt(bi.storage, off, e->buffer->dtype, bi.elemBytes);
    }
    case ExprKind::Unary: {
      return unaryValue(e->unOp, e->dtype, eval(e->operands[0]));
    }
    case ExprKind::Binary:
      break;
  }
  BinOp op = e->binOp;
  if (op == BinOp::And)
    return Scalar::ofInt(eval(e->operands[0]).truthy() && eval(e->operands[1]).truthy());
  if (op == BinOp::Or)
    return Scalar::ofInt(eval(e->operands[0]).truthy() || eval(e->operands[1]).truthy());
  Scalar a = eval(e->operands[0]);
  Scalar b = eval(e->operands[1]);
  if (isComparison(op)) return Scalar::ofInt(compareValues(op, a, b));
  if (isFloat(e->dtype))
    return Scalar::ofFloat(floatBinary(op, a.asDouble(), b.asDouble(), e->dtype));
  int64_t x = a.asInt(), y = b.asInt();
  if (y == 0 && (op == BinOp::Div || op == BinOp::FloorDiv))
    fail(fmt::format("integer division by zero in '{}'", printExpr(e)));
  if (y == 0 && op == BinOp::FloorMod)
    fail(fmt::format("integer modulo by zero in '{}'", printExpr(e)));
  return Scalar::ofInt(intBinary(op, x, y, e->dtype));
}

// ---------------------------------------------------------------- regions

ResolvedRegion Machine::resolve(const Region& r, SourceLoc where,
                                std::vector<int64_t>* clippedFrom) {
  loc = where;
  ResolvedRegion out;
  out.buffer = r.buffer;
  for (const auto& range : r.ranges) {
    Scalar start = eval(range.min);
    requireDefined(start, fmt::format("the start of a region of '{}'", r.buffer->name));
    out.mins.push_back(start.asInt());
    out.extents.push_back(range.extent);
  }
  const auto& bi = info(r.buffer);
  // A global region of a copy that runs past the end of a dimension is
  // clipped there (TileLang-Ascend's tail clamping); the caller clips the
  // other side to match (resolveCopy).
  if (clippedFrom && out.mins.size() == bi.shape.size()) {
    bool clip = false;
    // Only a region that starts inside the tensor: one wholly past its end is
    // more likely a wrong index than a tail, and stays an error.
    auto tail = [&](size_t d) {
      return out.mins[d] >= 0 && out.mins[d] < bi.shape[d] &&
             out.mins[d] + out.extents[d] > bi.shape[d];
    };
    for (size_t d = 0; d < out.mins.size(); ++d) clip |= tail(d);
    if (clip) {
      *clippedFrom = out.extents;
      for (size_t d = 0; d < out.mins.size(); ++d)
        if (tail(d)) out.extents[d] = bi.shape[d] - out.mins[d];
    }
  }
  bool ok = out.mins.size() == bi.shape.size();
  for (size_t d = 0; ok && d < out.mins.size(); ++d)
    ok = out.mins[d] >= 0 && out.extents[d] >= 0 && out.mins[d] + out.extents[d] <= bi.shape[d];
  if (!ok) {
    std::string text = r.buffer->name + "[";
    for (size_t d = sourceDims(r.buffer); d < out.mins.size(); ++d)
      text += fmt::format("{}{}:{}", d > sourceDims(r.buffer) ? ", " : "", out.mins[d],
                          out.mins[d] + out.extents[d]);
    fail(fmt::format("out-of-bounds access: region {}] is outside the shape {} of '{}'{}", text,
                     shapeText(dropVersion(r.buffer, bi.shape)), r.buffer->name,
                     versionText(r.buffer, out.mins.empty() ? 0 : out.mins[0])));
  }
  if (out.numElements() > 0) {
    int64_t last = 0;
    for (size_t d = 0; d < out.mins.size(); ++d)
      last += (out.mins[d] + out.extents[d] - 1) * bi.strides[d];
    if ((last + 1) * bi.elemBytes > memory_.size(bi.storage))
      fail(fmt::format(
          "out-of-bounds access: region of '{}' lies beyond its storage '{}' ({} bytes)",
          r.buffer->name, memory_.storage(bi.storage)->name, memory_.size(bi.storage)));
  }
  return out;
}

// Where a box's significant extents start: its leading 1s dropped (the last
// extent kept), so boxes of different ranks line up from the right.
static size_t significantFrom(const std::vector<int64_t>& extents) {
  size_t i = 0;
  while (i + 1 < extents.size() && extents[i] == 1) ++i;
  return i;
}

// The two regions of a copy. A global side that runs past the end of the
// tensor is clipped there (TileLang-Ascend's tail clamping), and the on-chip
// side loses the same rows and columns: the copy moves the in-bounds box only.
// Into L1 the rest of the tile is zero-filled instead, as upstream's OOB
// padding pass does, so a gemm over the whole tile adds zeros for the missing
// K columns (docs/simulator.md, "Tails"). Padded copies and sides whose
// extents do not line up keep the bounds error.
CopyRegions Machine::resolveCopy(const CopyStmt& c) {
  bool srcGlobal = c.src.buffer->storage->scope == MemScope::Global;
  bool dstGlobal = c.dst.buffer->storage->scope == MemScope::Global;
  // A load with pad_value= may run past its tensor's end too: the source is
  // clipped there and the padded copy fills the rest of the tile (a tail).
  bool padTail = c.padValue && srcGlobal && !dstGlobal;
  bool clippable = padTail || (!c.padValue && srcGlobal != dstGlobal &&
                               c.src.numElements() == c.dst.numElements());
  std::vector<int64_t> declared;
  CopyRegions out;
  out.src = resolve(c.src, c.loc, clippable && srcGlobal ? &declared : nullptr);
  out.dst = resolve(c.dst, c.loc, clippable && dstGlobal ? &declared : nullptr);
  if (declared.empty() || padTail) return out;
  const ResolvedRegion& gm = srcGlobal ? out.src : out.dst;
  ResolvedRegion& chip = srcGlobal ? out.dst : out.src;
  // Line the significant extents up from the right.
  if (c.transpose) std::reverse(declared.begin(), declared.end());
  size_t g0 = significantFrom(declared), c0 = significantFrom(chip.extents);
  bool lined = declared.size() - g0 == chip.extents.size() - c0;
  for (size_t i = 0; lined && g0 + i < declared.size(); ++i)
    lined = declared[g0 + i] == chip.extents[c0 + i];
  if (!lined) {
    loc = c.loc;
    fail(
        fmt::format("out-of-bounds access: the region of '{}' runs past its shape {} and the "
                    "region of '{}' does not line up with it dimension by dimension, so the "
                    "copy cannot be clipped at the tensor's end",
                    gm.buffer->name, shapeText(dropVersion(gm.buffer, info(gm.buffer).shape)),
                    chip.buffer->name));
  }
  if (srcGlobal && chip.buffer->storage->scope == MemScope::L1) {
    DType t = chip.buffer->dtype;
    out.tailFill = isFloat(t) ? Scalar::ofFloat(0.0) : Scalar::ofInt(0);
    return out;
  }
  for (size_t i = 0; g0 + i < declared.size(); ++i) chip.extents[c0 + i] = gm.extents[g0 + i];
  return out;
}

// Calls fn(byteOffset) for every element of `r` in row-major order.
template <class F>
void Machine::forEachElement(const ResolvedRegion& r, F&& fn) {
  const auto& bi = info(r.buffer);
  size_t rank = r.extents.size();
  if (r.numElements() == 0) return;
  std::vector<int64_t> idx(rank, 0);
  int64_t base = 0;
  for (size_t d = 0; d < rank; ++d) base += r.mins[d] * bi.strides[d];
  int64_t inner = rank ? r.extents[rank - 1] : 1;
  int64_t innerStride = rank ? bi.strides[rank - 1] : 1;
  if (rank == 0) {
    fn(base * bi.elemBytes);
    return;
  }
  while (true) {
    int64_t off = base;
    for (size_t d = 0; d + 1 < rank; ++d) off += idx[d] * bi.strides[d];
    for (int64_t i = 0; i < inner; ++i) fn((off + i * innerStride) * bi.elemBytes);
    // Odometer over the outer dimensions.
    size_t d = rank - 1;
    while (d > 0) {
      --d;
      if (++idx[d] < r.extents[d]) break;
      idx[d] = 0;
      if (d == 0) return;
    }
    if (rank == 1) return;
  }
}

namespace {

// fp16 bits -> value, as decodeHalf.
const std::vector<double>& halfTable() {
  static const std::vector<double> table = [] {
    std::vector<double> t(65536);
    for (uint32_t b = 0; b < 65536; ++b) t[b] = decodeHalf(static_cast<uint16_t>(b));
    return t;
  }();
  return table;
}

}  // namespace

template <class F>
void Machine::forEachRow(const ResolvedRegion& r, F&& fn) {
  const auto& bi = info(r.buffer);
  size_t rank = r.extents.size();
  if (r.numElements() == 0) return;
  int64_t base = 0;
  for (size_t d = 0; d < rank; ++d) base += r.mins[d] * bi.strides[d];
  if (rank == 0) {
    fn(base * bi.elemBytes, int64_t{1});
    return;
  }
  int64_t inner = r.extents[rank - 1];  // the innermost stride is 1 (row-major)
  std::vector<int64_t> idx(rank, 0);
  while (true) {
    int64_t off = base;
    for (size_t d = 0; d + 1 < rank; ++d) off += idx[d] * bi.strides[d];
    fn(off * bi.elemBytes, inner);
    if (rank == 1) return;
    size_t d = rank - 1;
    while (true) {
      --d;
      if (++idx[d] < r.extents[d]) break;
      idx[d] = 0;
      if (d == 0) return;
    }
  }
}

template <class F>
void Machine::readRowWise(const ResolvedRegion& r, F&& fn) {
  const auto& bi = info(r.buffer);
  DType dt = r.buffer->dtype;
  const double* half = dt == DType::Float16 ? halfTable().data() : nullptr;
  forEachRow(r, [&](int64_t off, int64_t len) {
    if (access) access->add(bi.storage, off, off + len * bi.elemBytes, false);
    const uint8_t* row = bytesOf(bi.storage, off, len * bi.elemBytes);
    for (int64_t k = 0; k < len; ++k) {
      const uint8_t* p = row + k * bi.elemBytes;
      if (!half) {
        fn(loadElement(p, dt));
        continue;
      }
      uint16_t h;
      std::memcpy(&h, p, 2);
      fn(Scalar::ofFloat(half[h]));
    }
  });
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

// Converts `n` elements of dtype `from` at `in` to dtype `to` at `out`, as
// storeElement(loadElement()) does one by one.
static void convertElements(const uint8_t* in, DType from, uint8_t* out, DType to, int64_t n) {
  int fb = dtypeBytes(from), tb = dtypeBytes(to);
  if (from == to && isInt(from) && from != DType::Bool) {
    if (out != in) std::memcpy(out, in, static_cast<size_t>(n * fb));
    return;
  }
  if (from == to && (from == DType::Float32 || from == DType::Float16 || from == DType::BFloat16)) {
    // Bit copy, except NaNs, which the load/store pair canonicalises.
    if (out != in) std::memcpy(out, in, static_cast<size_t>(n * fb));
    bool anyNan = false;
    if (fb == 4) {
      uint32_t found = 0;
      for (int64_t k = 0; k < n; ++k) {
        uint32_t u;
        std::memcpy(&u, in + k * 4, 4);
        found |= static_cast<uint32_t>((u & 0x7fffffffu) > 0x7f800000u);
      }
      anyNan = found != 0;
    } else {
      uint32_t found = 0;
      uint32_t inf = from == DType::Float16 ? 0x7c00u : 0x7f80u;
      for (int64_t k = 0; k < n; ++k) {
        uint16_t u;
        std::memcpy(&u, in + k * 2, 2);
        found |= static_cast<uint32_t>((u & 0x7fffu) > inf);
      }
      anyNan = found != 0;
    }
    for (int64_t k = 0; anyNan && k < n; ++k) {
      bool nan = false;
      if (fb == 4) {
        uint32_t u;
        std::memcpy(&u, in + k * 4, 4);
        nan = (u & 0x7f800000u) == 0x7f800000u && (u & 0x7fffffu);
      } else {
        uint16_t u;
        std::memcpy(&u, in + k * 2, 2);
        nan = from == DType::Float16 ? (u & 0x7c00u) == 0x7c00u && (u & 0x3ffu)
                                     : (u & 0x7f80u) == 0x7f80u && (u & 0x7fu);
      }
      if (nan) storeElement(out + k * tb, to, loadElement(in + k * fb, from));
    }
    return;
  }
  for (int64_t k = 0; k < n; ++k) storeElement(out + k * tb, to, loadElement(in + k * fb, from));
}

bool Machine::copyFast(const ResolvedRegion& src, const ResolvedRegion& dst) {
  if (trackPoison && !regionDefined(src)) return false;  // the general path reports it
  const auto& s = info(src.buffer);
  const auto& d = info(dst.buffer);
  int64_t n = src.numElements();
  if (n == 0) return true;
  // Every source element is read before any is written (as the general path).
  std::vector<uint8_t> raw(static_cast<size_t>(n * s.elemBytes));
  size_t at = 0;
  forEachRow(src, [&](int64_t off, int64_t len) {
    size_t bytes = static_cast<size_t>(len * s.elemBytes);
    if (access) access->add(s.storage, off, off + static_cast<int64_t>(bytes), false);
    std::memcpy(raw.data() + at, bytesOf(s.storage, off, static_cast<int64_t>(bytes)), bytes);
    at += bytes;
  });
  std::vector<uint8_t> convertedBytes;
  const uint8_t* converted = raw.data();
  if (src.buffer->dtype == dst.buffer->dtype) {
    convertElements(raw.data(), src.buffer->dtype, raw.data(), dst.buffer->dtype, n);
  } else {
    convertedBytes.resize(static_cast<size_t>(n * d.elemBytes));
    convertElements(raw.data(), src.buffer->dtype, convertedBytes.data(), dst.buffer->dtype, n);
    converted = convertedBytes.data();
  }
  written[static_cast<size_t>(d.storage)] = 1;
  at = 0;
  forEachRow(dst, [&](int64_t off, int64_t len) {
    int64_t bytes = len * d.elemBytes;
    if (access) access->add(d.storage, off, off + bytes, true);
    if (deferring_) {
      direct_.ranges.push_back({d.storage, off, bytes, direct_.bytes.size()});
      direct_.bytes.insert(direct_.bytes.end(), converted + at, converted + at + bytes);
      direct_.defined.resize(direct_.defined.size() + static_cast<size_t>(bytes), 1);
    } else {
      std::memcpy(bytesOf(d.storage, off, bytes), converted + at, static_cast<size_t>(bytes));
      std::memset(memory_.definedAt(d.storage, off, bytes), 1, static_cast<size_t>(bytes));
    }
    at += static_cast<size_t>(bytes);
  });
  return true;
}

void Machine::copy(const ResolvedRegion& src, const ResolvedRegion& dst, SourceLoc where,
                   const Scalar* pad, AtomicOp atomic, bool transpose) {
  loc = where;
  // The source box as the destination sees it: rows and columns swapped by
  // transpose=True (a (rows, cols) box read column by column).
  std::vector<int64_t> se(src.extents.begin() + static_cast<long>(significantFrom(src.extents)),
                          src.extents.end());
  int64_t cols = se.back(), rows = cols ? src.numElements() / cols : 0;
  if (transpose) se = {cols, rows};
  // With a pad value, the source's extents lined up from the right under the
  // destination's (leading 1s of the source dropped, missing ones are 1).
  std::vector<int64_t> inside;
  if (src.numElements() != dst.numElements()) {
    bool fits = pad && se.size() <= dst.extents.size();
    inside.assign(dst.extents.size(), 1);
    for (size_t i = 0; fits && i < se.size(); ++i) {
      size_t dd = dst.extents.size() - 1 - i;
      inside[dd] = se[se.size() - 1 - i];
      fits = inside[dd] <= dst.extents[dd];
    }
    if (!fits)
      fail(fmt::format("T.copy between regions of {} and {} elements", src.numElements(),
                       dst.numElements()));
  }
  if (fastPaths && inside.empty() && atomic == AtomicOp::None && !transpose && copyFast(src, dst))
    return;
  const auto& s = info(src.buffer);
  const auto& d = info(dst.buffer);
  // The value an element of the destination receives: with an atomic op, the
  // old value combined with the new one in the destination dtype.
  DType dt = dst.buffer->dtype;
  auto store = [&](int64_t off, const Scalar& v) {
    if (atomic == AtomicOp::None) return storeAt(d.storage, off, dt, d.elemBytes, v);
    Scalar old = loadAt(d.storage, off, dt, d.elemBytes);
    Scalar value = convert(v, dt);
    BinOp op = atomicBinOp(atomic);
    Scalar r = isFloat(dt) ? Scalar::ofFloat(floatBinary(op, old.f, value.f, dt))
                           : Scalar::ofInt(intBinary(op, old.i, value.i, dt));
    r.poison = old.poison || value.poison;
    storeAt(d.storage, off, dt, d.elemBytes, r);
  };
  std::vector<Scalar> values;
  std::vector<int64_t> srcOffs;  // for poison messages: where each value came from
  values.reserve(static_cast<size_t>(src.numElements()));
  forEachElement(src, [&](int64_t off) {
    values.push_back(loadAt(s.storage, off, src.buffer->dtype, s.elemBytes));
    if (trackPoison) srcOffs.push_back(off);
  });
  if (transpose) {
    // Row-major over the transposed box: element (j, i) is source (i, j).
    std::vector<Scalar> t(values.size());
    std::vector<int64_t> tOffs(srcOffs.size());
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        t[j * rows + i] = values[i * cols + j];
        if (trackPoison) tOffs[j * rows + i] = srcOffs[i * cols + j];
      }
    values = std::move(t);
    srcOffs = std::move(tOffs);
  }
  auto origin = [&](size_t i) {
    if (!trackPoison || !values[i].poison) return;
    notePoisonLoad(s.storage, srcOffs[i], srcOffs[i] + s.elemBytes);
  };
  size_t k = 0;
  if (inside.empty()) {
    forEachElement(dst, [&](int64_t off) {
      origin(k);
      store(off, values[k++]);
    });
    return;
  }
  // Row-major walk of the destination with its multi-index; the source
  // elements come in the same order, one per inside position.
  std::vector<int64_t> idx(dst.extents.size(), 0);
  forEachElement(dst, [&](int64_t off) {
    bool in = true;
    for (size_t i = 0; in && i < idx.size(); ++i) in = idx[i] < inside[i];
    if (in) origin(k);
    store(off, in ? values[k++] : *pad);
    for (size_t i = idx.size(); i-- > 0;) {
      if (++idx[i] < dst.extents[i]) break;
      idx[i] = 0;
    }
  });
}

namespace {

// (rows, cols) of a gemm operand: leading 1s dropped, at most two dimensions.
bool matrixShape(const ResolvedRegion& r, int64_t& rows, int64_t& cols) {
  std::vector<int64_t> e = r.extents;
  size_t i = 0;
  while (i + 1 < e.size() && e[i] == 1) ++i;
  e.erase(e.begin(), e.begin() + static_cast<long>(i));
  if (e.size() > 2 || e.empty()) return false;
  rows = e.size() == 2 ? e[0] : 1;
  cols = e.back();
  return true;
}

}  // namespace

GemmOperands Machine::readGemmOperands(const GemmStmt& g, const ResolvedRegion& a,
                                       const ResolvedRegion& b) {
  loc = g.loc;
  int64_t ar = 0, ac = 0, br = 0, bc = 0;
  if (!matrixShape(a, ar, ac) || !matrixShape(b, br, bc))
    fail("T.gemm operands must be at most 2-D");
  GemmOperands ops;
  ops.m = g.transA ? ac : ar;
  ops.k = g.transA ? ar : ac;
  int64_t kb = g.transB ? bc : br;
  ops.n = g.transB ? br : bc;
  if (kb != ops.k)
    fail(fmt::format("T.gemm reduction extents differ: A gives K = {}, B gives K = {}", ops.k, kb));
  ops.integer = isInt(a.buffer->dtype);
  std::vector<double> am, bm;
  const auto& ai = info(a.buffer);
  const auto& bi = info(b.buffer);
  std::vector<uint8_t> ap, bp;  // poison, when tracked
  // Operands without poison: read row by row (same values and accesses).
  auto readRows = [&](const ResolvedRegion& r, std::vector<double>& out) {
    if (!fastPaths || (trackPoison && !regionDefined(r))) return false;
    out.reserve(static_cast<size_t>(r.numElements()));
    readRowWise(r, [&](const Scalar& v) { out.push_back(v.asDouble()); });
    return true;
  };
  bool fastA = readRows(a, am);
  bool fastB = readRows(b, bm);
  if (trackPoison && fastA) ap.assign(am.size(), 0);
  if (trackPoison && fastB) bp.assign(bm.size(), 0);
  if (!fastA)
    forEachElement(a, [&](int64_t off) {
      Scalar v = loadAt(ai.storage, off, a.buffer->dtype, ai.elemBytes);
      am.push_back(v.asDouble());
      if (trackPoison) ap.push_back(v.poison);
    });
  if (!fastB)
    forEachElement(b, [&](int64_t off) {
      Scalar v = loadAt(bi.storage, off, b.buffer->dtype, bi.elemBytes);
      bm.push_back(v.asDouble());
      if (trackPoison) bp.push_back(v.poison);
    });
  ops.a.resize(static_cast<size_t>(ops.m * ops.k));
  ops.b.resize(static_cast<size_t>(ops.k * ops.n));
  for (int64_t m = 0; m < ops.m; ++m)
    for (int64_t k = 0; k < ops.k; ++k)
      ops.a[static_cast<size_t>(m * ops.k + k)] =
          g.transA ? am[static_cast<size_t>(k * ac + m)] : am[static_cast<size_t>(m * ac + k)];
  for (int64_t k = 0; k < ops.k; ++k)
    for (int64_t n = 0; n < ops.n; ++n)
      ops.b[static_cast<size_t>(k * ops.n + n)] =
          g.transB ? bm[static_cast<size_t>(n * bc + k)] : bm[static_cast<size_t>(k * bc + n)];
  if (trackPoison) {
    ops.aPoison.resize(ops.a.size());
    ops.bPoison.resize(ops.b.size());
    for (int64_t m = 0; m < ops.m; ++m)
      for (int64_t k = 0; k < ops.k; ++k)
        ops.aPoison[static_cast<size_t>(m * ops.k + k)] =
            g.transA ? ap[static_cast<size_t>(k * ac + m)] : ap[static_cast<size_t>(m * ac + k)];
    for (int64_t k = 0; k < ops.k; ++k)
      for (int64_t n = 0; n < ops.n; ++n)
        ops.bPoison[static_cast<size_t>(k * ops.n + n)] =
            g.transB ? bp[static_cast<size_t>(n * bc + k)] : bp[static_cast<size_t>(k * bc + n)];
  }
  return ops;
}

void Machine::finishGemm(const GemmOperands& ops, const ResolvedRegion& c, bool clear,
                         SourceLoc where) {
  loc = where;
  int64_t cr = 0, cc = 0;
  if (!matrixShape(c, cr, cc) || cr * cc != ops.m * ops.n || cc != ops.n)
    fail(fmt::format("T.gemm accumulator has {} elements, but A and B give a {} x {} result",
                     c.numElements(), ops.m, ops.n));
  const auto& ci = info(c.buffer);
  std::vector<int64_t> offs;
  offs.reserve(static_cast<size_t>(ops.m * ops.n));
  forEachElement(c, [&](int64_t off) { offs.push_back(off); });
  if (!fastPaths) {
    // Element by element, k innermost: the definition the fast loop keeps.
    for (int64_t m = 0; m < ops.m; ++m) {
      for (int64_t n = 0; n < ops.n; ++n) {
        int64_t off = offs[static_cast<size_t>(m * ops.n + n)];
        Scalar old = clear ? Scalar{} : loadAt(ci.storage, off, c.buffer->dtype, ci.elemBytes);
        bool poison = old.poison;
        for (int64_t k = 0; !poison && k < ops.k && !ops.aPoison.empty(); ++k)
          poison = ops.aPoison[static_cast<size_t>(m * ops.k + k)] ||
                   ops.bPoison[static_cast<size_t>(k * ops.n + n)];
        Scalar result;
        if (ops.integer) {
          int64_t acc = clear ? 0 : old.asInt();
          for (int64_t k = 0; k < ops.k; ++k)
            acc += static_cast<int64_t>(ops.a[static_cast<size_t>(m * ops.k + k)]) *
                   static_cast<int64_t>(ops.b[static_cast<size_t>(k * ops.n + n)]);
          result = Scalar::ofInt(acc);
        } else {
          float acc = clear ? 0.0f : static_cast<float>(old.asDouble());
          for (int64_t k = 0; k < ops.k; ++k) {
            float prod = static_cast<float>(ops.a[static_cast<size_t>(m * ops.k + k)]) *
                         static_cast<float>(ops.b[static_cast<size_t>(k * ops.n + n)]);
            acc = acc + prod;
          }
          result = Scalar::ofFloat(acc);
        }
        result.poison = poison;
        storeAt(ci.storage, off, c.buffer->dtype, ci.elemBytes, result);
      }
    }
    return;
  }
  // C[m, n] is poison when its old value or any A[m, k] or B[k, n] is: the
  // OR over k splits into "row m of A has poison" or "column n of B has".
  std::vector<uint8_t> rowPoison(static_cast<size_t>(ops.m), 0);
  std::vector<uint8_t> colPoison(static_cast<size_t>(ops.n), 0);
  if (!ops.aPoison.empty()) {
    for (int64_t m = 0; m < ops.m; ++m)
      for (int64_t k = 0; k < ops.k; ++k)
        rowPoison[static_cast<size_t>(m)] |= ops.aPoison[static_cast<size_t>(m * ops.k + k)];
    for (int64_t k = 0; k < ops.k; ++k)
      for (int64_t n = 0; n < ops.n; ++n)
        colPoison[static_cast<size_t>(n)] |= ops.bPoison[static_cast<size_t>(k * ops.n + n)];
  }
  // A row of accumulators per output row, walked k-major (i-k-j): each
  // C[m, n] still sums its products in increasing k, one binary32 (int64)
  // product and add at a time, so the values are those of the plain loop.
  size_t N = static_cast<size_t>(ops.n);
  std::vector<float> af, bf, accF;
  std::vector<int64_t> ai, bi, accI;
  if (ops.integer) {
    ai.assign(ops.a.size(), 0);
    bi.assign(ops.b.size(), 0);
    for (size_t x = 0; x < ops.a.size(); ++x) ai[x] = static_cast<int64_t>(ops.a[x]);
    for (size_t x = 0; x < ops.b.size(); ++x) bi[x] = static_cast<int64_t>(ops.b[x]);
    accI.resize(N);
  } else {
    af.assign(ops.a.size(), 0);
    bf.assign(ops.b.size(), 0);
    for (size_t x = 0; x < ops.a.size(); ++x) af[x] = static_cast<float>(ops.a[x]);
    for (size_t x = 0; x < ops.b.size(); ++x) bf[x] = static_cast<float>(ops.b[x]);
    accF.resize(N);
  }
  const uint8_t* cBytes = memory_.data(ci.storage);
  bool rowsFast = std::none_of(rowPoison.begin(), rowPoison.end(), [](uint8_t x) { return x; }) &&
                  std::none_of(colPoison.begin(), colPoison.end(), [](uint8_t x) { return x; }) &&
                  (clear || !trackPoison || regionDefined(c));
  for (size_t x = 0; rowsFast && x < offs.size(); ++x)  // rows of N contiguous elements
    rowsFast = x % N == 0 || offs[x] == offs[x - 1] + ci.elemBytes;
  for (int64_t m = 0; m < ops.m; ++m) {
    const int64_t* rowOffs = offs.data() + m * ops.n;
    if (ops.integer) {
      int64_t* acc = accI.data();
      for (size_t n = 0; n < N; ++n)
        acc[n] = clear ? 0 : loadElement(cBytes + rowOffs[n], c.buffer->dtype).asInt();
      for (int64_t k = 0; k < ops.k; ++k) {
        int64_t x = ai[static_cast<size_t>(m * ops.k + k)];
        const int64_t* brow = bi.data() + k * ops.n;
        for (size_t n = 0; n < N; ++n) acc[n] += x * brow[n];
      }
    } else {
      float* acc = accF.data();
      for (size_t n = 0; n < N; ++n)
        acc[n] =
            clear
                ? 0.0f
                : static_cast<float>(loadElement(cBytes + rowOffs[n], c.buffer->dtype).asDouble());
      for (int64_t k = 0; k < ops.k; ++k) {
        float x = af[static_cast<size_t>(m * ops.k + k)];
        const float* __restrict brow = bf.data() + k * ops.n;
        float* __restrict out = acc;
        for (size_t n = 0; n < N; ++n) {
          float prod = x * brow[n];
          out[n] = out[n] + prod;
        }
      }
    }
    // Without poison, a whole (contiguous) row at once: the same accesses,
    // bytes and shadow bytes as the element loop below.
    if (rowsFast && N > 0) {
      int64_t off = rowOffs[0], bytes = static_cast<int64_t>(N) * ci.elemBytes;
      if (access && !clear) access->add(ci.storage, off, off + bytes, false);
      if (access) access->add(ci.storage, off, off + bytes, true);
      written[static_cast<size_t>(ci.storage)] = 1;
      if (deferring_) logOld(ci.storage, off, bytes);
      uint8_t* p = memory_.data(ci.storage) + off;
      if (!ops.integer && c.buffer->dtype == DType::Float32) {
        std::memcpy(p, accF.data(), static_cast<size_t>(bytes));  // float -> float32: as is
      } else {
        for (size_t n = 0; n < N; ++n)
          storeElement(
              p + static_cast<int64_t>(n) * ci.elemBytes, c.buffer->dtype,
              ops.integer ? Scalar::ofInt(accI[n]) : Scalar::ofFloat(static_cast<double>(accF[n])));
      }
      std::memset(memory_.defined(ci.storage) + off, 1, static_cast<size_t>(bytes));
      continue;
    }
    // Element by element: the old value's load (access, poison) and the store.
    for (size_t n = 0; n < N; ++n) {
      int64_t off = rowOffs[n];
      Scalar old = clear ? Scalar{} : loadAt(ci.storage, off, c.buffer->dtype, ci.elemBytes);
      Scalar result =
          ops.integer ? Scalar::ofInt(accI[n]) : Scalar::ofFloat(static_cast<double>(accF[n]));
      result.poison = old.poison || rowPoison[static_cast<size_t>(m)] || colPoison[n];
      storeAt(ci.storage, off, c.buffer->dtype, ci.elemBytes, result);
    }
  }
}

void Machine::fill(const ResolvedRegion& dst, const Scalar& value) {
  const auto& d = info(dst.buffer);
  Scalar v = convert(value, dst.buffer->dtype);
  if (fastPaths && !v.poison) {
    // One encoded element, copied row by row.
    if (dst.numElements() == 0) return;
    uint8_t one[8] = {};
    storeElement(one, dst.buffer->dtype, v);
    written[static_cast<size_t>(d.storage)] = 1;
    std::vector<uint8_t> row;
    forEachRow(dst, [&](int64_t off, int64_t len) {
      int64_t bytes = len * d.elemBytes;
      if (access) access->add(d.storage, off, off + bytes, true);
      if (deferring_) logOld(d.storage, off, bytes);
      if (row.size() < static_cast<size_t>(bytes))
        for (int64_t k = static_cast<int64_t>(row.size()) / d.elemBytes; k < len; ++k)
          row.insert(row.end(), one, one + d.elemBytes);
      std::memcpy(bytesOf(d.storage, off, bytes), row.data(), static_cast<size_t>(bytes));
      std::memset(memory_.definedAt(d.storage, off, bytes), 1, static_cast<size_t>(bytes));
    });
    return;
  }
  forEachElement(dst,
                 [&](int64_t off) { storeAt(d.storage, off, dst.buffer->dtype, d.elemBytes, v); });
}

void Machine::reduce(const ReduceStmt& r, const ResolvedRegion& src, const ResolvedRegion& dst) {
  loc = r.loc;
  size_t rank = src.extents.size();
  if (r.dim < 0 || static_cast<size_t>(r.dim) >= rank) fail("reduction dimension out of range");
  int64_t len = src.extents[static_cast<size_t>(r.dim)];
  int64_t outer = src.numElements() / std::max<int64_t>(len, 1);
  if (len == 0) outer = 0;
  if (dst.numElements() != std::max<int64_t>(outer, 1) && !(outer == 0 && dst.numElements() == 0))
    fail(fmt::format("reduction destination has {} elements, expected {}", dst.numElements(),
                     outer));
  const auto& s = info(src.buffer);
  const auto& d = info(dst.buffer);
  std::vector<int64_t> srcOffs;
  srcOffs.reserve(static_cast<size_t>(src.numElements()));
  forEachElement(src, [&](int64_t off) { srcOffs.push_back(off); });
  std::vector<int64_t> dstOffs;
  forEachElement(dst, [&](int64_t off) { dstOffs.push_back(off); });
  // Without poison, and when the stores cannot change the source, every
  // source element is read once up front, row by row: the same values (each
  // is read exactly once either way) and the same accesses.
  std::vector<Scalar> values;
  bool fastSource =
      fastPaths && s.storage != d.storage && (!trackPoison || regionDefined(src)) && outer > 0;
  if (fastSource) {
    values.reserve(static_cast<size_t>(src.numElements()));
    readRowWise(src, [&](const Scalar& v) { values.push_back(v); });
  }
  // Row-major strides of the source region, to walk `dim` for each output.
  std::vector<int64_t> rstride(rank, 1);
  for (size_t i = rank; i-- > 1;) rstride[i - 1] = rstride[i] * src.extents[i];
  int64_t dimStride = rstride[static_cast<size_t>(r.dim)];
  bool integer = isInt(src.buffer->dtype) && isInt(dst.buffer->dtype);
  bool isAbs = r.reduceKind == ReduceKind::AbsSum || r.reduceKind == ReduceKind::AbsMax;
  for (int64_t o = 0; o < outer; ++o) {
    // Linear index of output o with `dim` removed -> base index in the source.
    int64_t inner = dimStride;
    int64_t base = (o / inner) * inner * len + (o % inner);
    Scalar init;
    if (!r.clear) {
      init = loadAt(d.storage, dstOffs[static_cast<size_t>(o)], dst.buffer->dtype, d.elemBytes);
    }
    bool poison = init.poison;  // any folded element poison: the result is
    auto element = [&](int64_t k) {
      if (fastSource) return values[static_cast<size_t>(base + k * dimStride)];
      Scalar x = loadAt(s.storage, srcOffs[static_cast<size_t>(base + k * dimStride)],
                        src.buffer->dtype, s.elemBytes);
      poison = poison || x.poison;
      return x;
    };
    if (integer) {
      int64_t acc = 0;
      if (!r.clear)
        acc = init.asInt();
      else if (r.reduceKind == ReduceKind::Max)
        acc = std::numeric_limits<int64_t>::min();
      else if (r.reduceKind == ReduceKind::Min)
        acc = std::numeric_limits<int64_t>::max();
      for (int64_t k = 0; k < len; ++k) {
        int64_t x = element(k).asInt();
        if (isAbs && x < 0) x = -x;
        switch (r.reduceKind) {
          case ReduceKind::Sum:
          case ReduceKind::AbsSum:
            acc += x;
            break;
          case ReduceKind::Max:
          case ReduceKind::AbsMax:
            acc = std::max(acc, x);
            break;
          case ReduceKind::Min:
            acc = std::min(acc, x);
            break;
        }
      }
      Scalar result = Scalar::ofInt(acc);
      result.poison = poison;
      storeAt(d.storage, dstOffs[static_cast<size_t>(o)], dst.buffer->dtype, d.elemBytes, result);
      continue;
    }
    float acc = 0;
    if (!r.clear)
      acc = static_cast<float>(init.asDouble());
    else if (r.reduceKind == ReduceKind::Max)
      acc = -std::numeric_limits<float>::infinity();
    else if (r.reduceKind == ReduceKind::Min)
      acc = std::numeric_limits<float>::infinity();
    for (int64_t k = 0; k < len; ++k) {
      float x = static_cast<float>(element(k).asDouble());
      if (isAbs) x = std::fabs(x);
      switch (r.reduceKind) {
        case ReduceKind::Sum:
        case ReduceKind::AbsSum:
          acc = acc + x;
          break;
        case ReduceKind::Max:
        case ReduceKind::AbsMax:
          acc = acc < x ? x : acc;
          break;
        case ReduceKind::Min:
          acc = x < acc ? x : acc;
          break;
      }
    }
    Scalar result = Scalar::ofFloat(acc);
    result.poison = poison;
    storeAt(d.storage, dstOffs[static_cast<size_t>(o)], dst.buffer->dtype, d.elemBytes, result);
  }
}

// ---------------------------------------------------------------- T.Parallel, tile at a time
//
// A T.Parallel whose body is a sequence of stores with affine indices
// (`var + invariant` or invariant per dimension) is evaluated a chunk of
// elements at a time: the body's expressions become a post-order list of
// nodes, each computing a column of values with the same per-element
// functions as `eval` (unaryValue, floatBinary, intBinary, compareValues,
// convert), so every element gets the bits the element-at-a-time walk gives.
// The order of work changes (statement by statement over a chunk instead of
// element by element), which cannot change a value because:
//  - every storage the body writes is accessed only through one buffer and
//    one index tuple, written injectively (each element its own location) —
//    or it is accessed by its single store and nothing else (last write wins
//    in both orders);
//  - nothing can fail: indices are proved in bounds for the whole tile, integer
//    division only by a nonzero invariant, no poison anywhere (checked first),
//    loads are never conditional (no loads under T.if_then_else, `and`, `or`).
// Anything else returns false before touching memory, and the general path runs.

namespace {

struct TileDim {
  int var = -1;   // parallel variable index, or -1 for an invariant index
  int64_t c = 0;  // added invariant
};

struct TileAccess {
  Buffer buffer;
  int storage = -1;
  int elemBytes = 1;
  std::vector<TileDim> dims;
  int stmt = 0;  // index of the store statement it belongs to
  bool write = false;
  int64_t base = 0;                // byte offset of the invariant part
  std::vector<int64_t> varStride;  // bytes per step of each parallel variable
};

enum class TileKind { Const, Var, Load, Cast, Unary, Binary, AndOr, Select };

struct TileNode {
  TileKind kind = TileKind::Const;
  bool isFloat = false;
  DType dtype = DType::Int32;
  UnOp unOp = UnOp::Neg;
  BinOp binOp = BinOp::Add;
  int a = -1, b = -1, c = -1;  // operand nodes
  Scalar constant;
  int var = -1;     // Var
  int access = -1;  // Load
  std::vector<double> f;
  std::vector<int64_t> i;
  Scalar get(size_t e) const {
    Scalar s;
    s.isFloat = isFloat;
    if (isFloat)
      s.f = f[e];
    else
      s.i = i[e];
    return s;
  }
  void set(size_t e, const Scalar& v) {
    if (isFloat)
      f[e] = v.f;
    else
      i[e] = v.i;
  }
};

struct TileProgram {
  std::vector<int> varIds;  // VarNode ids of the parallel variables
  std::vector<int64_t> extents;
  std::vector<TileNode> nodes;
  std::vector<TileAccess> accesses;
  struct Store {
    int access = -1;
    int value = -1;  // root node
    int firstNode = 0;
    SourceLoc loc;
  };
  std::vector<Store> stores;
  int parallelVar(const Var& v) const {
    for (size_t k = 0; k < varIds.size(); ++k)
      if (varIds[k] == v->id) return static_cast<int>(k);
    return -1;
  }
};

bool mentionsTileWork(const TileProgram& p, const Expr& e) {
  if (e->kind == ExprKind::Load) return true;
  if (e->kind == ExprKind::VarRef) return p.parallelVar(e->var) >= 0;
  for (const auto& o : e->operands)
    if (mentionsTileWork(p, o)) return true;
  return false;
}

bool hasLoad(const Expr& e) {
  if (e->kind == ExprKind::Load) return true;
  for (const auto& o : e->operands)
    if (hasLoad(o)) return true;
  return false;
}

}  // namespace

bool Machine::parallelFast(const ParallelStmt& ps) {
  TileProgram prog;
  for (const auto& v : ps.vars) prog.varIds.push_back(v->id);
  prog.extents = ps.extents;
  if (prog.extents.size() != prog.varIds.size() || prog.varIds.empty()) return false;
  int64_t total = 1;
  for (int64_t e : prog.extents) total *= e;
  if (total <= 0) return false;

  // The body: stores only.
  std::vector<const StoreStmt*> stores;
  std::function<bool(const Stmt&)> collect = [&](const Stmt& s) {
    if (!s) return true;
    if (s->kind == StmtKind::Store) {
      stores.push_back(as<StoreStmt>(s));
      return !stores.back()->prev;  // it also sets a scalar: the general path
    }
    if (s->kind == StmtKind::Seq) {
      for (const auto& c : as<SeqStmt>(s)->stmts)
        if (!collect(c)) return false;
      return true;
    }
    return false;
  };
  if (!collect(ps.body) || stores.empty()) return false;

  bool savedPoisonSeen = poisonSeen_;
  auto giveUp = [&] {
    poisonSeen_ = savedPoisonSeen;
    return false;
  };
  // An invariant value (no parallel variable, no load), evaluated once.
  auto invariant = [&](const Expr& e, Scalar& out) {
    try {
      out = eval(e);
    } catch (const ExecError&) {
      return false;
    }
    return !out.poison;
  };
  auto affineIndex = [&](const Expr& e, TileDim& d) {
    if (!isInt(e->dtype) || (e->dtype != DType::Int32 && e->dtype != DType::Int64)) return false;
    if (!mentionsTileWork(prog, e)) {
      Scalar v;
      if (!invariant(e, v) || v.isFloat) return false;
      d.c = v.i;
      return true;
    }
    if (e->kind == ExprKind::VarRef) {
      d.var = prog.parallelVar(e->var);
      return d.var >= 0;
    }
    if (e->kind != ExprKind::Binary || (e->binOp != BinOp::Add && e->binOp != BinOp::Sub))
      return false;
    const Expr& l = e->operands[0];
    const Expr& r = e->operands[1];
    const Expr* varSide = nullptr;
    const Expr* constSide = nullptr;
    if (l->kind == ExprKind::VarRef && prog.parallelVar(l->var) >= 0 && !mentionsTileWork(prog, r))
      varSide = &l, constSide = &r;
    else if (e->binOp == BinOp::Add && r->kind == ExprKind::VarRef &&
             prog.parallelVar(r->var) >= 0 && !mentionsTileWork(prog, l))
      varSide = &r, constSide = &l;
    if (!varSide) return false;
    Scalar v;
    if (!invariant(*constSide, v) || v.isFloat) return false;
    d.var = prog.parallelVar((*varSide)->var);
    // |c| bounded so that var + c never wraps in int32 once it is in bounds.
    if (v.i > (int64_t{1} << 30) || v.i < -(int64_t{1} << 30)) return false;
    d.c = e->binOp == BinOp::Add ? v.i : -v.i;
    return true;
  };
  auto addAccess = [&](const Buffer& b, const std::vector<Expr>& idx, int stmt, bool write) {
    const auto& bi = buffers_.at(static_cast<size_t>(b->id));
    if (bi.storage < 0 || idx.size() != bi.shape.size()) return -1;
    if (memory_.isPaged(bi.storage)) return -1;  // element by element fills its chunks
    TileAccess a;
    a.buffer = b;
    a.storage = bi.storage;
    a.elemBytes = bi.elemBytes;
    a.stmt = stmt;
    a.write = write;
    a.varStride.assign(prog.varIds.size(), 0);
    int64_t last = 0;
    for (size_t d = 0; d < idx.size(); ++d) {
      TileDim td;
      if (!affineIndex(idx[d], td)) return -1;
      int64_t lo = td.c, hi = td.c;
      if (td.var >= 0) {
        if (a.varStride[static_cast<size_t>(td.var)] != 0) return -1;  // a variable twice
        hi = td.c + prog.extents[static_cast<size_t>(td.var)] - 1;
        a.varStride[static_cast<size_t>(td.var)] = bi.strides[d] * bi.elemBytes;
        if (bi.strides[d] == 0) return -1;
      }
      if (lo < 0 || hi >= bi.shape[d] || hi >= (int64_t{1} << 31)) return -1;
      a.base += td.c * bi.strides[d] * bi.elemBytes;
      last += hi * bi.strides[d];
      a.dims.push_back(td);
    }
    if ((last + 1) * bi.elemBytes > memory_.size(bi.storage)) return -1;
    prog.accesses.push_back(std::move(a));
    return static_cast<int>(prog.accesses.size()) - 1;
  };
  int stmtIndex = 0;
  std::function<int(const Expr&)> compile = [&](const Expr& e) -> int {
    TileNode n;
    n.dtype = e->dtype;
    if (!mentionsTileWork(prog, e)) {
      n.kind = TileKind::Const;
      if (!invariant(e, n.constant)) return -1;
      n.isFloat = n.constant.isFloat;
    } else {
      switch (e->kind) {
        case ExprKind::VarRef:
          n.kind = TileKind::Var;
          n.var = prog.parallelVar(e->var);
          break;
        case ExprKind::Load:
          n.kind = TileKind::Load;
          n.access = addAccess(e->buffer, e->operands, stmtIndex, false);
          if (n.access < 0) return -1;
          n.isFloat = isFloat(e->buffer->dtype);
          break;
        case ExprKind::Cast:
          n.kind = TileKind::Cast;
          if ((n.a = compile(e->operands[0])) < 0) return -1;
          n.isFloat = isFloat(e->dtype);
          break;
        case ExprKind::Select:
          if (hasLoad(e->operands[1]) || hasLoad(e->operands[2])) return -1;
          n.kind = TileKind::Select;
          if ((n.a = compile(e->operands[0])) < 0 || (n.b = compile(e->operands[1])) < 0 ||
              (n.c = compile(e->operands[2])) < 0)
            return -1;
          n.isFloat = isFloat(e->dtype);
          break;
        case ExprKind::Unary:
          n.kind = TileKind::Unary;
          n.unOp = e->unOp;
          if ((n.a = compile(e->operands[0])) < 0) return -1;
          n.isFloat = e->unOp != UnOp::Not && isFloat(e->dtype);
          break;
        case ExprKind::Binary: {
          n.binOp = e->binOp;
          bool logical = e->binOp == BinOp::And || e->binOp == BinOp::Or;
          if (logical && hasLoad(e->operands[1])) return -1;
          n.kind = logical ? TileKind::AndOr : TileKind::Binary;
          if ((n.a = compile(e->operands[0])) < 0 || (n.b = compile(e->operands[1])) < 0) return -1;
          if (logical || isComparison(e->binOp)) {
            n.isFloat = false;
          } else {
            n.isFloat = isFloat(e->dtype);
            bool division = e->binOp == BinOp::Div || e->binOp == BinOp::FloorDiv ||
                            e->binOp == BinOp::FloorMod;
            if (!n.isFloat && division) {
              const TileNode& d = prog.nodes[static_cast<size_t>(n.b)];
              if (d.kind != TileKind::Const || d.constant.asInt() == 0) return -1;
            }
          }
          break;
        }
        default:
          return -1;
      }
    }
    prog.nodes.push_back(std::move(n));
    return static_cast<int>(prog.nodes.size()) - 1;
  };
  for (const StoreStmt* st : stores) {
    TileProgram::Store s;
    s.firstNode = static_cast<int>(prog.nodes.size());
    s.loc = st->loc;
    if ((s.value = compile(st->value)) < 0) return giveUp();
    if ((s.access = addAccess(st->buffer, st->indices, stmtIndex, true)) < 0) return giveUp();
    prog.stores.push_back(s);
    ++stmtIndex;
  }

  // Storages the body writes: one buffer, one index tuple, injective writes
  // (unless the store is the storage's only access).
  auto sameDims = [](const TileAccess& x, const TileAccess& y) {
    if (x.buffer != y.buffer || x.dims.size() != y.dims.size()) return false;
    for (size_t d = 0; d < x.dims.size(); ++d)
      if (x.dims[d].var != y.dims[d].var || x.dims[d].c != y.dims[d].c) return false;
    return true;
  };
  for (const auto& w : prog.accesses) {
    if (!w.write) continue;
    int count = 0;
    for (const auto& x : prog.accesses) {
      if (x.storage != w.storage) continue;
      ++count;
      if (!sameDims(w, x)) return giveUp();
    }
    if (count > 1)
      for (size_t v = 0; v < prog.extents.size(); ++v)
        if (prog.extents[v] > 1 && w.varStride[v] == 0) return giveUp();
  }
  // Region (box) of an access: exact, as each variable indexes at most one dimension.
  auto box = [&](const TileAccess& a) {
    ResolvedRegion r;
    r.buffer = a.buffer;
    for (const auto& d : a.dims) {
      r.mins.push_back(d.c);
      r.extents.push_back(d.var >= 0 ? prog.extents[static_cast<size_t>(d.var)] : 1);
    }
    return r;
  };
  if (trackPoison) {
    for (const auto& n : prog.nodes)
      if (n.kind == TileKind::Const && n.constant.poison) return giveUp();
    for (const auto& a : prog.accesses) {
      if (a.write) continue;
      bool writtenBefore = false;  // by an earlier statement: defined by then
      for (const auto& w : prog.accesses)
        writtenBefore = writtenBefore || (w.write && w.storage == a.storage && w.stmt < a.stmt);
      if (!writtenBefore && !regionDefined(box(a))) return giveUp();
    }
  }

  // Committed: from here on nothing fails.
  for (const auto& a : prog.accesses) {
    ResolvedRegion r = box(a);
    forEachRow(r, [&](int64_t off, int64_t len) {
      int64_t bytes = len * a.elemBytes;
      if (access) access->add(a.storage, off, off + bytes, a.write);
      if (a.write && deferring_) logOld(a.storage, off, bytes);
    });
    if (a.write) written[static_cast<size_t>(a.storage)] = 1;
  }

  const size_t chunk = static_cast<size_t>(std::min<int64_t>(total, 2048));
  for (auto& n : prog.nodes) {
    if (n.isFloat)
      n.f.assign(chunk, n.constant.f);
    else
      n.i.assign(chunk, n.constant.i);
  }
  size_t rank = prog.extents.size();
  std::vector<std::vector<int64_t>> varCol(rank, std::vector<int64_t>(chunk));
  std::vector<int64_t> idx(rank, 0);
  std::vector<int64_t> offs(chunk);
  const std::vector<double>* half = nullptr;
  for (int64_t done = 0; done < total;) {
    size_t n = static_cast<size_t>(std::min<int64_t>(total - done, static_cast<int64_t>(chunk)));
    for (size_t e = 0; e < n;) {
      // A run along the innermost variable, then the odometer steps.
      size_t run = static_cast<size_t>(
          std::min<int64_t>(prog.extents[rank - 1] - idx[rank - 1], static_cast<int64_t>(n - e)));
      for (size_t d = 0; d + 1 < rank; ++d)
        std::fill(varCol[d].begin() + static_cast<long>(e),
                  varCol[d].begin() + static_cast<long>(e + run), idx[d]);
      for (size_t k = 0; k < run; ++k)
        varCol[rank - 1][e + k] = idx[rank - 1] + static_cast<int64_t>(k);
      e += run;
      idx[rank - 1] += static_cast<int64_t>(run);
      for (size_t d = rank; d-- > 0;) {
        if (idx[d] < prog.extents[d]) break;
        idx[d] = 0;
        if (d > 0) ++idx[d - 1];
      }
    }
    auto offsets = [&](const TileAccess& a) {
      for (size_t e = 0; e < n; ++e) offs[e] = a.base;
      for (size_t d = 0; d < rank; ++d) {
        int64_t s = a.varStride[d];
        if (s == 0) continue;
        const int64_t* v = varCol[d].data();
        for (size_t e = 0; e < n; ++e) offs[e] += v[e] * s;
      }
    };
    for (const auto& st : prog.stores) {
      for (int ni = st.firstNode; ni <= st.value; ++ni) {
        TileNode& t = prog.nodes[static_cast<size_t>(ni)];
        switch (t.kind) {
          case TileKind::Const:
            break;
          case TileKind::Var:
            std::copy(varCol[static_cast<size_t>(t.var)].begin(),
                      varCol[static_cast<size_t>(t.var)].begin() + static_cast<long>(n),
                      t.i.begin());
            break;
          case TileKind::Load: {
            const TileAccess& a = prog.accesses[static_cast<size_t>(t.access)];
            offsets(a);
            const uint8_t* mem = memory_.data(a.storage);
            DType dt = a.buffer->dtype;
            if (dt == DType::Float32) {
              for (size_t e = 0; e < n; ++e) {
                float v;
                std::memcpy(&v, mem + offs[e], 4);
                t.f[e] = v;
              }
            } else if (dt == DType::Float16) {
              if (!half) half = &halfTable();
              for (size_t e = 0; e < n; ++e) {
                uint16_t v;
                std::memcpy(&v, mem + offs[e], 2);
                t.f[e] = (*half)[v];
              }
            } else {
              for (size_t e = 0; e < n; ++e) t.set(e, loadElement(mem + offs[e], dt));
            }
            break;
          }
          case TileKind::Cast: {
            const TileNode& x = prog.nodes[static_cast<size_t>(t.a)];
            for (size_t e = 0; e < n; ++e) t.set(e, convert(x.get(e), t.dtype));
            break;
          }
          case TileKind::Select: {
            const TileNode& c = prog.nodes[static_cast<size_t>(t.a)];
            const TileNode& x = prog.nodes[static_cast<size_t>(t.b)];
            const TileNode& y = prog.nodes[static_cast<size_t>(t.c)];
            for (size_t e = 0; e < n; ++e)
              t.set(e, convert(c.get(e).truthy() ? x.get(e) : y.get(e), t.dtype));
            break;
          }
          case TileKind::Unary: {
            const TileNode& x = prog.nodes[static_cast<size_t>(t.a)];
            for (size_t e = 0; e < n; ++e) t.set(e, unaryValue(t.unOp, t.dtype, x.get(e)));
            break;
          }
          case TileKind::AndOr: {
            const TileNode& x = prog.nodes[static_cast<size_t>(t.a)];
            const TileNode& y = prog.nodes[static_cast<size_t>(t.b)];
            bool isAnd = t.binOp == BinOp::And;
            for (size_t e = 0; e < n; ++e) {
              bool l = x.get(e).truthy();
              t.i[e] = isAnd ? (l && y.get(e).truthy()) : (l || y.get(e).truthy());
            }
            break;
          }
          case TileKind::Binary: {
            const TileNode& x = prog.nodes[static_cast<size_t>(t.a)];
            const TileNode& y = prog.nodes[static_cast<size_t>(t.b)];
            BinOp op = t.binOp;
            if (isComparison(op)) {
              for (size_t e = 0; e < n; ++e) t.i[e] = compareValues(op, x.get(e), y.get(e));
            } else if (t.isFloat && t.dtype == DType::Float32 && x.isFloat && y.isFloat &&
                       (op == BinOp::Add || op == BinOp::Sub || op == BinOp::Mul ||
                        op == BinOp::Div)) {
              // floatBinary for binary32: operands to float, one float op.
              const double* xs = x.f.data();
              const double* ys = y.f.data();
              double* out = t.f.data();
              switch (op) {
                case BinOp::Add:
                  for (size_t e = 0; e < n; ++e)
                    out[e] = static_cast<float>(xs[e]) + static_cast<float>(ys[e]);
                  break;
                case BinOp::Sub:
                  for (size_t e = 0; e < n; ++e)
                    out[e] = static_cast<float>(xs[e]) - static_cast<float>(ys[e]);
                  break;
                case BinOp::Mul:
                  for (size_t e = 0; e < n; ++e)
                    out[e] = static_cast<float>(xs[e]) * static_cast<float>(ys[e]);
                  break;
                default:
                  for (size_t e = 0; e < n; ++e)
                    out[e] = static_cast<float>(xs[e]) / static_cast<float>(ys[e]);
                  break;
              }
            } else if (t.isFloat) {
              for (size_t e = 0; e < n; ++e)
                t.f[e] = floatBinary(op, x.get(e).asDouble(), y.get(e).asDouble(), t.dtype);
            } else {
              for (size_t e = 0; e < n; ++e)
                t.i[e] = intBinary(op, x.get(e).asInt(), y.get(e).asInt(), t.dtype);
            }
            break;
          }
        }
      }
      // The store: converted to the buffer's dtype as storeElement does.
      const TileAccess& a = prog.accesses[static_cast<size_t>(st.access)];
      const TileNode& v = prog.nodes[static_cast<size_t>(st.value)];
      offsets(a);
      uint8_t* mem = memory_.data(a.storage);
      DType dt = a.buffer->dtype;
      if (dt == DType::Float32 && v.isFloat) {
        for (size_t e = 0; e < n; ++e) {
          float f = static_cast<float>(v.f[e]);
          std::memcpy(mem + offs[e], &f, 4);
        }
      } else {
        for (size_t e = 0; e < n; ++e) storeElement(mem + offs[e], dt, v.get(e));
      }
    }
    done += static_cast<int64_t>(n);
  }
  // Every value stored was defined.
  for (const auto& a : prog.accesses)
    if (a.write)
      forEachRow(box(a), [&](int64_t off, int64_t len) {
        std::memset(memory_.defined(a.storage) + off, 1, static_cast<size_t>(len * a.elemBytes));
      });
  for (size_t d = 0; d < rank; ++d)
    env[static_cast<size_t>(prog.varIds[d])] = Scalar::ofInt(prog.extents[d] - 1);
  loc = prog.stores.back().loc;
  poisonSeen_ = savedPoisonSeen;
  return true;
}

// ---------------------------------------------------------------- statements

void Machine::exec(const Stmt& s) {
  if (!s) return;
  switch (s->kind) {
    case StmtKind::Seq:
      for (const auto& c : as<SeqStmt>(s)->stmts) exec(c);
      return;
    case StmtKind::For: {
      const auto* f = as<ForStmt>(s);
      loc = f->loc;
      Scalar min = eval(f->min), extent = eval(f->extent);
      requireDefined(min, "the start of loop '" + f->var->name + "'");
      requireDefined(extent, "the trip count of loop '" + f->var->name + "'");
      int64_t lo = min.asInt();
      int64_t n = extent.asInt();
      for (int64_t i = 0; i < n; ++i) {
        env[static_cast<size_t>(f->var->id)] = Scalar::ofInt(lo + i);
        exec(f->body);
      }
      return;
    }
    case StmtKind::If: {
      const auto* i = as<IfStmt>(s);
      loc = i->loc;
      Scalar cond = eval(i->cond);
      requireDefined(cond, "the condition of this if");
      if (cond.truthy())
        exec(i->thenBody);
      else
        exec(i->elseBody);
      return;
    }
    case StmtKind::Assign: {
      const auto* a = as<AssignStmt>(s);
      loc = a->loc;
      env[static_cast<size_t>(a->var->id)] = convert(eval(a->value), a->var->dtype);
      return;
    }
    case StmtKind::Store: {
      const auto* st = as<StoreStmt>(s);
      loc = st->loc;
      std::vector<int64_t> idx;
      for (const auto& i : st->indices) idx.push_back(indexValue(eval(i)));
      // An atomic update with return_prev: the value before, `dst` of `dst op v`.
      if (st->prev)
        env[static_cast<size_t>(st->prev->id)] =
            convert(eval(st->value->operands[0]), st->prev->dtype);
      Scalar v = eval(st->value);
      const auto& bi = info(st->buffer);
      int64_t off = elementOffset(st->buffer, idx);
      storeAt(bi.storage, off, st->buffer->dtype, bi.elemBytes, v);
      return;
    }
    case StmtKind::Copy: {
      const auto* c = as<CopyStmt>(s);
      CopyRegions r = resolveCopy(*c);
      Scalar pad;
      if (c->padValue) {
        loc = c->loc;
        pad = eval(c->padValue);
      } else if (r.tailFill) {
        pad = *r.tailFill;
      }
      copy(r.src, r.dst, c->loc, c->padValue || r.tailFill ? &pad : nullptr, c->atomic,
           c->transpose);
      return;
    }
    case StmtKind::Gemm: {
      const auto* g = as<GemmStmt>(s);
      ResolvedRegion a = resolve(g->a, g->loc), b = resolve(g->b, g->loc),
                     c = resolve(g->c, g->loc);
      bool clear = g->clearAccum && eval(g->clearAccum).truthy();
      GemmOperands ops = readGemmOperands(*g, a, b);
      finishGemm(ops, c, clear, g->loc);
      return;
    }
    case StmtKind::Fill: {
      const auto* f = as<FillStmt>(s);
      ResolvedRegion dst = resolve(f->dst, f->loc);
      fill(dst, eval(f->value));
      return;
    }
    case StmtKind::Reduce: {
      const auto* r = as<ReduceStmt>(s);
      ResolvedRegion src = resolve(r->src, r->loc);
      ResolvedRegion dst = resolve(r->dst, r->loc);
      reduce(*r, src, dst);
      return;
    }
    case StmtKind::Parallel: {
      const auto* p = as<ParallelStmt>(s);
      if (fastPaths && parallelFast(*p)) return;
      size_t rank = p->vars.size();
      int64_t total = 1;
      for (int64_t e : p->extents) total *= e;
      if (total == 0) return;
      std::vector<int64_t> idx(rank, 0);
      for (int64_t n = 0; n < total; ++n) {
        for (size_t d = 0; d < rank; ++d)
          env[static_cast<size_t>(p->vars[d]->id)] = Scalar::ofInt(idx[d]);
        exec(p->body);
        for (size_t d = rank; d-- > 0;) {
          if (++idx[d] < p->extents[d]) break;
          idx[d] = 0;
        }
      }
      return;
    }
    case StmtKind::VFRegion:
      exec(as<VFRegionStmt>(s)->body);
      return;
    case StmtKind::SetFlag:
    case StmtKind::WaitFlag:
    case StmtKind::Barrier:
      return;
  }
}

}  // namespace tilesched::sim
