// Exact statement semantics (see Machine.h): the machine's state and buffer
// shapes, expressions, regions (tail clipping of copies included),
// reductions, and `exec`, which dispatches every statement. Copies and fills
// (MachineCopy.cpp), gemms (MachineGemm.cpp), memory (MachineMemory.cpp) and
// the T.Parallel fast path (ParallelFast.cpp) are the other parts.
// Assumes and guarantees what Machine.h says. Errors are thrown as ExecError
// with the statement's location; everything else is plain loops.
#include "sim/Machine.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "ir/Functor.h"
#include "ir/IROperator.h"
#include "ir/Printer.h"
#include "sim/IndexText.h"
#include "sim/MachineImpl.h"

namespace tilesched::sim {

using namespace ir;

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

void Machine::setCoreView(int view) {
  coreView_ = view;
  for (const auto& b : kernel_.buffers) {
    auto& bi = buffers_[static_cast<size_t>(b->id)];
    if (bi.storage >= 0) bi.storage = memory_.viewStorage(memory_.index(b->storage), view);
  }
}

void Machine::resolveShapes() {
  for (const auto& b : kernel_.buffers) {
    BufferInfo bi;
    bi.storage = memory_.viewStorage(memory_.index(b->storage), coreView_);
    bi.elemBytes = dtypeBytes(b->dtype);
    for (const auto& d : b->shape) {
      auto c = asConstInt(d);
      bi.shape.push_back(c ? *c : eval(d).asInt());
    }
    bi.strides.assign(bi.shape.size(), 1);
    for (size_t i = bi.shape.size(); i-- > 1;) bi.strides[i - 1] = bi.strides[i] * bi.shape[i];
    // Versions start at aligned addresses: the version dimension's stride is
    // the padded version, not the shape's product.
    if (b->versionDim > 0 && b->versionStrideBytes > 0 && !bi.strides.empty())
      bi.strides[0] = b->versionStrideBytes / std::max(1, bi.elemBytes);
    buffers_[static_cast<size_t>(b->id)] = std::move(bi);
  }
}

const Machine::BufferInfo& Machine::info(const Buffer& b) {
  const auto& bi = buffers_.at(static_cast<size_t>(b->id));
  if (bi.storage < 0) fail(fmt::format("buffer '{}' is not declared in the kernel", b->name));
  return bi;
}

void Machine::fail(const std::string& message) { throw ExecError{loc, message}; }

static std::string bracketedIndex(const std::vector<int64_t>& idx) {
  return "[" + indexText(idx) + "]";
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
                       bracketedIndex(dropVersion(b, idx)), shapeText(dropVersion(b, bi.shape)),
                       versionText(b, idx.empty() ? 0 : idx[0])));
    off += idx[d] * bi.strides[d];
  }
  int64_t byteOff = off * bi.elemBytes;
  if (byteOff + bi.elemBytes > memory_.size(bi.storage))
    fail(fmt::format(
        "out-of-bounds access to '{}': index {} lies beyond its storage '{}' ({} bytes)", b->name,
        bracketedIndex(idx), memory_.storage(bi.storage)->name, memory_.size(bi.storage)));
  return byteOff;
}

void Machine::checkAssumption(const AssignStmt& a) {
  const Scalar& holds = env[static_cast<size_t>(a.var->id)];
  requireDefined(holds, "the condition of this T.assume");
  if (holds.truthy()) return;
  // The scalars it reads, in order of appearance, each once.
  std::vector<Var> read;
  std::function<void(const Expr&)> collect = [&](const Expr& e) {
    if (!e) return;
    if (e->kind == ExprKind::VarRef && e->var &&
        std::find(read.begin(), read.end(), e->var) == read.end())
      read.push_back(e->var);
    for (const auto& o : e->operands) collect(o);
  };
  collect(a.value);
  std::string values;
  for (const auto& v : read) {
    const Scalar& x = env[static_cast<size_t>(v->id)];
    values += fmt::format("{}{} = {}", values.empty() ? "" : ", ", v->name,
                          x.isFloat ? fmt::format("{}", x.f) : fmt::format("{}", x.i));
  }
  if (kernel_.blockIdx)
    values += fmt::format("{}block {}", values.empty() ? "" : "; ",
                          env[static_cast<size_t>(kernel_.blockIdx->id)].i);
  fail(
      fmt::format("T.assume({}) is false in this run ({}); the kernel was compiled on the "
                  "assumption that it holds",
                  printExpr(a.value), values));
}

int64_t Machine::indexValue(const Scalar& v) {
  requireDefined(v, "an index");
  return v.asInt();
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

namespace detail {

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
    case BinOp::BitAnd:
      r = x & y;
      break;
    case BinOp::BitOr:
      r = x | y;
      break;
    case BinOp::BitXor:
      r = x ^ y;
      break;
    case BinOp::Shl:  // a negative count is the caller's error; wraps like the other ops
      r = y < 0 || y >= 64 ? 0 : static_cast<int64_t>(static_cast<uint64_t>(x) << y);
      break;
    case BinOp::Shr:  // arithmetic on the value (sign-extended or zero-extended by its dtype)
      r = y < 0 ? 0 : y >= 64 ? (x < 0 ? -1 : 0) : x >> y;
      break;
    default:
      break;
  }
  return wrapToInt(r, t);
}

}  // namespace detail

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
      return detail::unaryValue(e->unOp, e->dtype, eval(e->operands[0]));
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
  if (isComparison(op)) return Scalar::ofInt(detail::compareValues(op, a, b));
  if (isFloat(e->dtype))
    return Scalar::ofFloat(detail::floatBinary(op, a.asDouble(), b.asDouble(), e->dtype));
  int64_t x = a.asInt(), y = b.asInt();
  if (y == 0 && (op == BinOp::Div || op == BinOp::FloorDiv))
    fail(fmt::format("integer division by zero in '{}'", printExpr(e)));
  if (y == 0 && op == BinOp::FloorMod)
    fail(fmt::format("integer modulo by zero in '{}'", printExpr(e)));
  if (y < 0 && (op == BinOp::Shl || op == BinOp::Shr))
    fail(fmt::format("negative shift count {} in '{}'", y, printExpr(e)));
  return Scalar::ofInt(detail::intBinary(op, x, y, e->dtype));
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

size_t detail::significantFrom(const std::vector<int64_t>& extents) {
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
void Machine::dualCopy(const CopyStmt& c, const ResolvedRegion& src, const ResolvedRegion& dst) {
  size_t axis = src.extents.size() - (c.dual == CopyStmt::Dual::Rows ? 2 : 1);
  int64_t half = src.extents[axis] / 2;
  int view = coreView_;
  ResolvedRegion part = src;
  part.extents[axis] = half;
  try {
    for (int s = 0; s < 2; ++s) {
      part.mins[axis] = src.mins[axis] + s * half;
      setCoreView(1 + s);
      copy(part, dst, c.loc);
    }
  } catch (...) {
    setCoreView(view);
    throw;
  }
  setCoreView(view);
}

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
  size_t g0 = detail::significantFrom(declared), c0 = detail::significantFrom(chip.extents);
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
  bool integer = isInt(src.buffer->dtype) && isInt(dst.buffer->dtype);
  // The values as the fold reads them (asInt for an integer fold, else asDouble).
  std::vector<int64_t> intValues;
  std::vector<double> floatValues;
  bool fastSource =
      fastPaths && s.storage != d.storage && (!trackPoison || regionDefined(src)) && outer > 0;
  if (fastSource) {
    auto n = static_cast<size_t>(src.numElements());
    size_t at = 0;
    if (integer) {
      intValues.resize(n);
      readRowWise(src, [&](const Scalar& v) { intValues[at++] = v.asInt(); });
    } else {
      floatValues.resize(n);
      readRowWise(src, [&](const Scalar& v) { floatValues[at++] = v.asDouble(); });
    }
  }
  // Row-major strides of the source region, to walk `dim` for each output.
  std::vector<int64_t> rstride(rank, 1);
  for (size_t i = rank; i-- > 1;) rstride[i - 1] = rstride[i] * src.extents[i];
  int64_t dimStride = rstride[static_cast<size_t>(r.dim)];
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
      if (fastSource) {
        auto at = static_cast<size_t>(base + k * dimStride);
        return integer ? Scalar::ofInt(intValues[at]) : Scalar::ofFloat(floatValues[at]);
      }
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
      if (a->var->assumption) checkAssumption(*a);
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
      if (c->dual != CopyStmt::Dual::None) return dualCopy(*c, r.src, r.dst);
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
      if (as<SetFlagStmt>(s)->crossCore() && onCrossCoreFlag) onCrossCoreFlag(s);
      return;
    case StmtKind::WaitFlag:
      if (as<WaitFlagStmt>(s)->crossCore() && onCrossCoreFlag) onCrossCoreFlag(s);
      return;
    case StmtKind::Barrier:
      return;
  }
}

}  // namespace tilesched::sim
