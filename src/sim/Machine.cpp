// Exact statement semantics (see Machine.h). Errors are thrown as ExecError
// with the statement's location; everything else is plain loops.
#include "sim/Machine.h"

#include <algorithm>
#include <cmath>
#include <limits>

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

Memory::Memory(const Kernel& kernel) {
  int maxId = 0;
  for (const auto& s : kernel.storages) maxId = std::max(maxId, s->id);
  for (const auto& b : kernel.buffers) maxId = std::max(maxId, b->storage->id);
  indexOfId_.assign(static_cast<size_t>(maxId) + 1, -1);
  auto addStorage = [&](const Storage& s) {
    if (indexOfId_[static_cast<size_t>(s->id)] >= 0) return;
    indexOfId_[static_cast<size_t>(s->id)] = static_cast<int>(storages_.size());
    storages_.push_back(s);
    bytes_.emplace_back(static_cast<size_t>(std::max<int64_t>(s->bytes, 0)), 0);
    defined_.emplace_back(static_cast<size_t>(std::max<int64_t>(s->bytes, 0)),
                          s->scope == MemScope::Global ? 1 : 0);
  };
  for (const auto& s : kernel.storages) addStorage(s);
  for (const auto& b : kernel.buffers) addStorage(b->storage);
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

namespace {

int maxVarId(const Kernel& k) {
  struct Finder : IRVisitor {
    int maxId = 0;
    void note(const Var& v) {
      if (v) maxId = std::max(maxId, v->id);
    }
    void visitExpr(const Expr& e) override {
      if (!e) return;
      if (e->kind == ExprKind::VarRef) note(e->var);
      IRVisitor::visitExpr(e);
    }
    void visitFor(const ForStmt& s) override {
      note(s.var);
      IRVisitor::visitFor(s);
    }
    void visitParallel(const ParallelStmt& s) override {
      for (const auto& v : s.vars) note(v);
      IRVisitor::visitParallel(s);
    }
    void visitAssign(const AssignStmt& s) override {
      note(s.var);
      IRVisitor::visitAssign(s);
    }
  } f;
  f.note(k.blockIdx);
  for (const auto& p : k.params) f.note(p.var);
  for (const auto& v : k.dynamicVars) f.note(v);
  for (const auto& b : k.buffers)
    for (const auto& d : b->shape) f.visitExpr(d);
  if (k.body) f.visitStmt(k.body);
  return f.maxId;
}

}  // namespace

Machine::Machine(const Kernel& kernel, Memory& memory) : kernel_(kernel), memory_(memory) {
  env.assign(static_cast<size_t>(maxVarId(kernel)) + 1, Scalar{});
  int maxBuf = 0;
  for (const auto& b : kernel.buffers) maxBuf = std::max(maxBuf, b->id);
  buffers_.resize(static_cast<size_t>(maxBuf) + 1);
  written.assign(static_cast<size_t>(memory.numStorages()), 0);
  resolveShapes();
}

void Machine::bindBlock(int64_t block) {
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

int64_t Machine::elementOffset(const Buffer& b, const std::vector<int64_t>& idx) {
  const auto& bi = info(b);
  if (idx.size() != bi.shape.size() && !(bi.shape.size() == 1 && idx.empty()))
    fail(fmt::format("access to '{}' with {} indices, but it has {} dimensions", b->name,
                     idx.size(), bi.shape.size()));
  int64_t off = 0;
  for (size_t d = 0; d < idx.size(); ++d) {
    if (idx[d] < 0 || idx[d] >= bi.shape[d])
      fail(fmt::format("out-of-bounds access to '{}': index {} is outside its shape {}", b->name,
                       indexText(idx), shapeText(bi.shape)));
    off += idx[d] * bi.strides[d];
  }
  int64_t byteOff = off * bi.elemBytes;
  if (byteOff + bi.elemBytes > memory_.size(bi.storage))
    fail(fmt::format(
        "out-of-bounds access to '{}': index {} lies beyond its storage '{}' ({} bytes)", b->name,
        indexText(idx), memory_.storage(bi.storage)->name, memory_.size(bi.storage)));
  return byteOff;
}

Scalar Machine::loadAt(int storage, int64_t offset, DType t, int bytes) {
  if (access) access->add(storage, offset, offset + bytes, false);
  Scalar v = loadElement(memory_.data(storage) + offset, t);
  if (trackPoison) {
    const uint8_t* d = memory_.defined(storage) + offset;
    for (int b = 0; b < bytes && !v.poison; ++b) v.poison = d[b] == 0;
    if (v.poison) {
      poisonSeen_ = true;
      poisonStorage_ = storage;
      poisonLo_ = offset;
      poisonHi_ = offset + bytes;
    }
  }
  return v;
}

// "'a_ub' bytes [12, 16), which hold poison (...)": where the last poison
// value was loaded from.
static std::string poisonOrigin(const Memory& memory, int storage, int64_t lo, int64_t hi) {
  if (storage < 0) return "on-chip memory that nothing wrote in this block";
  return fmt::format(
      "'{}' bytes [{}, {}), which hold poison (never written in this block, or computed from "
      "such bytes)",
      memory.storage(storage)->name, lo, hi);
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
                           poisonOrigin(memory_, poisonStorage_, poisonLo_, poisonHi_)));
}

int64_t Machine::indexValue(const Scalar& v) {
  requireDefined(v, "an index");
  return v.asInt();
}

void Machine::storeAt(int storage, int64_t offset, DType t, int bytes, const Scalar& v) {
  if (access) access->add(storage, offset, offset + bytes, true);
  written[static_cast<size_t>(storage)] = 1;
  uint8_t* p = memory_.data(storage) + offset;
  uint8_t* d = memory_.defined(storage) + offset;
  bool toGlobal = memory_.storage(storage)->scope == MemScope::Global;
  if (trackPoison && v.poison && toGlobal)
    reportPoison(
        fmt::format("use of uninitialised memory: {}writes poison to global memory '{}' (bytes "
                    "[{}, {})), derived from {}",
                    instruction.empty() ? std::string("this statement ") : instruction + " ",
                    memory_.storage(storage)->name, offset, offset + bytes,
                    poisonOrigin(memory_, poisonStorage_, poisonLo_, poisonHi_)));
  if (deferring_) {
    Patch old{storage, offset, static_cast<uint8_t>(bytes), {}, {}};
    std::memcpy(old.bytes, p, static_cast<size_t>(bytes));
    std::memcpy(old.defined, d, static_cast<size_t>(bytes));
    undo_.push_back(old);
  }
  storeElement(p, t, v);
  std::memset(d, v.poison && !toGlobal ? 0 : 1, static_cast<size_t>(bytes));
}

void Machine::beginDeferred() {
  deferring_ = true;
  undo_.clear();
}

std::vector<Patch> Machine::endDeferred() {
  deferring_ = false;
  std::vector<Patch> out;
  out.reserve(undo_.size());
  for (const Patch& u : undo_) {
    Patch n = u;
    std::memcpy(n.bytes, memory_.data(u.storage) + u.offset, u.size);
    std::memcpy(n.defined, memory_.defined(u.storage) + u.offset, u.size);
    out.push_back(n);
  }
  for (size_t i = undo_.size(); i-- > 0;) {
    std::memcpy(memory_.data(undo_[i].storage) + undo_[i].offset, undo_[i].bytes, undo_[i].size);
    std::memcpy(memory_.defined(undo_[i].storage) + undo_[i].offset, undo_[i].defined,
                undo_[i].size);
  }
  undo_.clear();
  return out;
}

void Machine::applyPatches(const std::vector<Patch>& patches) {
  for (const Patch& p : patches) {
    std::memcpy(memory_.data(p.storage) + p.offset, p.bytes, p.size);
    std::memcpy(memory_.defined(p.storage) + p.offset, p.defined, p.size);
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
      Scalar a = eval(e->operands[0]);
      if (e->unOp == UnOp::Not) return Scalar::ofInt(a.truthy() ? 0 : 1);
      if (isFloat(e->dtype))
        return Scalar::ofFloat(roundToFloat(unaryFloat(e->unOp, a.asDouble()), e->dtype));
      int64_t v = a.asInt();
      switch (e->unOp) {
        case UnOp::Neg:
          return Scalar::ofInt(wrapToInt(-v, e->dtype));
        case UnOp::Abs:
          return Scalar::ofInt(wrapToInt(v < 0 ? -v : v, e->dtype));
        default:
          return convert(Scalar::ofFloat(unaryFloat(e->unOp, a.asDouble())), e->dtype);
      }
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
  if (isComparison(op)) {
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
    return Scalar::ofInt(r);
  }
  if (isFloat(e->dtype)) {
    // binary32 arithmetic, then the expression's dtype (fp16/bf16: RNE).
    float x = static_cast<float>(roundToFloat(a.asDouble(), e->dtype));
    float y = static_cast<float>(roundToFloat(b.asDouble(), e->dtype));
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
    return Scalar::ofFloat(roundToFloat(r, e->dtype));
  }
  int64_t x = a.asInt(), y = b.asInt();
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
      if (y == 0) fail(fmt::format("integer division by zero in '{}'", printExpr(e)));
      r = floorDiv(x, y);
      break;
    case BinOp::FloorMod:
      if (y == 0) fail(fmt::format("integer modulo by zero in '{}'", printExpr(e)));
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
  return Scalar::ofInt(wrapToInt(r, e->dtype));
}

// ---------------------------------------------------------------- regions

ResolvedRegion Machine::resolve(const Region& r, SourceLoc where) {
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
  bool ok = out.mins.size() == bi.shape.size();
  for (size_t d = 0; ok && d < out.mins.size(); ++d)
    ok = out.mins[d] >= 0 && out.extents[d] >= 0 && out.mins[d] + out.extents[d] <= bi.shape[d];
  if (!ok) {
    std::string text = r.buffer->name + "[";
    for (size_t d = 0; d < out.mins.size(); ++d)
      text += fmt::format("{}{}:{}", d ? ", " : "", out.mins[d], out.mins[d] + out.extents[d]);
    fail(fmt::format("out-of-bounds access: region {}] is outside the shape {} of '{}'", text,
                     shapeText(bi.shape), r.buffer->name));
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

void Machine::copy(const ResolvedRegion& src, const ResolvedRegion& dst, SourceLoc where,
                   const Scalar* pad) {
  loc = where;
  // With a pad value, the source's extents lined up from the right under the
  // destination's (leading 1s of the source dropped, missing ones are 1).
  std::vector<int64_t> inside;
  if (src.numElements() != dst.numElements()) {
    std::vector<int64_t> se = src.extents;
    while (se.size() > 1 && se.front() == 1) se.erase(se.begin());
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
  const auto& s = info(src.buffer);
  const auto& d = info(dst.buffer);
  std::vector<Scalar> values;
  std::vector<int64_t> srcOffs;  // for poison messages: where each value came from
  values.reserve(static_cast<size_t>(src.numElements()));
  forEachElement(src, [&](int64_t off) {
    values.push_back(loadAt(s.storage, off, src.buffer->dtype, s.elemBytes));
    if (trackPoison) srcOffs.push_back(off);
  });
  auto origin = [&](size_t i) {
    if (!trackPoison || !values[i].poison) return;
    poisonStorage_ = s.storage;
    poisonLo_ = srcOffs[i];
    poisonHi_ = srcOffs[i] + s.elemBytes;
  };
  size_t k = 0;
  if (inside.empty()) {
    forEachElement(dst, [&](int64_t off) {
      origin(k);
      storeAt(d.storage, off, dst.buffer->dtype, d.elemBytes, values[k++]);
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
    storeAt(d.storage, off, dst.buffer->dtype, d.elemBytes, in ? values[k++] : *pad);
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
  forEachElement(a, [&](int64_t off) {
    Scalar v = loadAt(ai.storage, off, a.buffer->dtype, ai.elemBytes);
    am.push_back(v.asDouble());
    if (trackPoison) ap.push_back(v.poison);
  });
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
  for (int64_t m = 0; m < ops.m; ++m) {
    for (int64_t n = 0; n < ops.n; ++n) {
      int64_t off = offs[static_cast<size_t>(m * ops.n + n)];
      Scalar old = clear ? Scalar{} : loadAt(ci.storage, off, c.buffer->dtype, ci.elemBytes);
      // C[m, n] is poison when its old value or any A[m, k] or B[k, n] is.
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
}

void Machine::fill(const ResolvedRegion& dst, const Scalar& value) {
  const auto& d = info(dst.buffer);
  Scalar v = convert(value, dst.buffer->dtype);
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
      Scalar v = eval(st->value);
      const auto& bi = info(st->buffer);
      int64_t off = elementOffset(st->buffer, idx);
      storeAt(bi.storage, off, st->buffer->dtype, bi.elemBytes, v);
      return;
    }
    case StmtKind::Copy: {
      const auto* c = as<CopyStmt>(s);
      ResolvedRegion src = resolve(c->src, c->loc);
      ResolvedRegion dst = resolve(c->dst, c->loc);
      Scalar pad;
      if (c->padValue) {
        loc = c->loc;
        pad = eval(c->padValue);
      }
      copy(src, dst, c->loc, c->padValue ? &pad : nullptr);
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
