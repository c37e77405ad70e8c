// T.simd.*: the register-level vector intrinsics of a T.SimdVF region.
//
// What it does: each intrinsic becomes tile IR the rest of tilesched already
// understands. A vector register is a `local` buffer of one 256-byte register's
// lanes (64 float32, 128 float16, 256 int8); an intrinsic that makes a register
// allocates a fresh one and fills it with one T.Parallel over its lanes (one
// vector instruction to the cost model, element-wise semantics to the
// simulator):
//
//   mask = T.simd.pset(32)                  (no statement: every lane active)
//   r = T.simd.vld(ub[i * 64])              for l in T.Parallel(64): r[l] = ub[i * 64 + l]
//   s = T.simd.vadd(r, r, mask)             for l in T.Parallel(64): s[l] = r[l] + r[l]
//   T.simd.vsts(out[i * 64], s, mask)       for l in T.Parallel(64): out[i * 64 + l] = s[l]
//
// A predicate (mask) is the number of leading active elements of its width:
// pset's PAT_ALL / PAT_VLn / PAT_H / PAT_Q, or update_mask(n) at run time. An
// operation with a mask leaves inactive lanes zero (MODE_ZEROING); a store
// with one writes the active lanes only. A mask of another element width
// keeps the same active bytes.
//
// Assumes: called only inside a T.SimdVF region (checked); addresses are
// elements of on-chip (UB) buffers; a multi-dimensional buffer is addressed
// row-major through a flat alias of its storage, as the hardware's pointer is.
// Conversions (vcvt) place a narrowed value in the part-th slot of its source
// lane and read a widened one from there; PK stores and UNPK loads move
// between slots and consecutive elements. Slot accesses go through a
// (lanes / k, k) view of the register, so every index stays affine.
//
// Guarantees: intrinsics outside the supported set are "not supported yet"
// errors naming the intrinsic; the other distributions (DINTLV, INTLV, ...),
// rounding modes other than the ones modelled and merging mode likewise.
#include <deque>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "frontend/ElaboratorImpl.h"

namespace tilesched::frontend {

using namespace ir;
using K = Value::Kind;

namespace {

constexpr const char* kMaskTag = "T.simd predicate";
constexpr int64_t kRegisterBytes = 256;

int64_t lanesOf(DType t) { return kRegisterBytes / dtypeBytes(t); }

Value maskValue(int bits, Expr active) {
  Value m = Value::opaque(kMaskTag);
  m.i = bits;
  m.expr = std::move(active);
  return m;
}

Value predicateValue(int bits, Buffer predicate) {
  Value m = Value::opaque(kMaskTag);
  m.i = bits;
  m.buffer = std::move(predicate);
  return m;
}

bool isMask(const Value& v) { return v.kind == K::Opaque && v.s == kMaskTag; }

// The smallest or largest value of an integer dtype.
int64_t intLimit(DType t, bool largest) {
  int bits = dtypeBytes(t) * 8;
  if (isSigned(t)) {
    int64_t half =
        bits >= 64 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << (bits - 1)) - 1;
    return largest ? half : -half - 1;
  }
  return largest ? (bits >= 63 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << bits) - 1)
                 : 0;
}

}  // namespace

// A register operand: a whole register, or row `row` of a T.simd.alloc_local
// array of registers.
struct SimdReg {
  Buffer buf;
  Expr row;
  DType dtype() const { return buf->dtype; }
  Expr at(const Expr& l) const { return row ? load(buf, {row, l}) : load(buf, {l}); }
};

bool SimdLanes::all() const {
  auto c = count ? asConstInt(count) : std::nullopt;
  return c && *c >= lanes;
}

Expr SimdLanes::at(const Expr& l) const {
  if (all()) return nullptr;
  if (count) return binary(BinOp::LT, l, count);
  // The predicate bit of a lane's first byte, in the predicate's elements.
  Expr idx = opBits == predicateBits ? l : floordiv(mul(l, opBits), intImm(predicateBits));
  return binary(BinOp::NE, load(predicate, {idx}), intImm(0, predicate->dtype));
}

bool Elaborator::isSimdRegister(const Value& v) const {
  if (v.kind == K::Buffer) return simdRegisters_.count(v.buffer->storage.get()) != 0;
  return v.kind == K::Access && v.access.size() == 1 && !v.access[0].isSlice &&
         simdArrays_.count(v.buffer->storage.get()) != 0;
}

// The lanes of width `t` a mask argument selects (all without one).
SimdLanes Elaborator::simdLanes(const Value* mask, DType t, SourceLoc loc) {
  SimdLanes out;
  out.lanes = lanesOf(t);
  out.opBits = dtypeBytes(t) * 8;
  if (!mask || mask->kind == K::None) {
    out.count = intImm(out.lanes);
    return out;
  }
  if (!isMask(*mask))
    fail(loc, fmt::format("a T.simd mask must come from T.simd.pset, update_mask, vcmp or vcmps, "
                          "got {}",
                          describe(*mask)));
  int64_t bits = mask->i;
  if (mask->buffer) {
    out.predicate = mask->buffer;
    out.predicateBits = bits;
    return out;
  }
  Expr active = mask->expr;
  // Same active bytes at another element width: ceil(n * bits / width).
  if (bits != out.opBits)
    active = floordiv(add(mul(active, bits), out.opBits - 1), intImm(out.opBits));
  if (auto c = asConstInt(active))
    out.count = intImm(std::min(*c, out.lanes));
  else
    out.count = binary(BinOp::Min, active, intImm(out.lanes));
  return out;
}

// One T.Parallel over the lanes whose body `body(lane)` makes: over the
// active prefix when it is a constant, else every lane, guarded.
void Elaborator::emitLanes(const SimdLanes& active, const std::function<Stmt(const Expr&)>& body,
                           SourceLoc loc) {
  auto prefix = active.count ? asConstInt(active.count) : std::nullopt;
  int64_t extent = prefix ? *prefix : active.lanes;
  if (extent <= 0) return;
  auto p = std::make_shared<ParallelStmt>(loc);
  Var lane = makeVar("lane", DType::Int32, VarKind::Loop);
  p->vars.push_back(lane);
  p->extents.push_back(extent);
  Stmt s = body(varRef(lane));
  if (!prefix)
    if (Expr on = active.at(varRef(lane))) s = std::make_shared<IfStmt>(on, s, nullptr, loc);
  p->body = s;
  currentCtx_->out->push_back(p);
}

// A fresh register of dtype `t`, every lane written by `lane(l)` (zero where
// `active` does not reach: MODE_ZEROING).
Value Elaborator::simdResult(DType t, const SimdLanes& active,
                             const std::function<Expr(const Expr&)>& lane, const std::string& what,
                             SourceLoc loc) {
  int64_t lanes = lanesOf(t);
  Buffer r = makeBuffer(what, MemScope::Local, t, {intImm(lanes)}, loc);
  simdRegisters_.insert(r->storage.get());
  SimdLanes every;
  every.lanes = lanes;
  every.count = intImm(lanes);
  emitLanes(
      every,
      [&](const Expr& l) {
        Expr v = cast(t, lane(l));
        if (Expr on = active.at(l)) v = select(on, v, cast(t, intImm(0)));
        return std::make_shared<StoreStmt>(r, std::vector<Expr>{l}, v, loc);
      },
      loc);
  return Value::buf(r);
}

// A fresh register of dtype `t` seen as (lanes / ratio) slots of `ratio`
// lanes, every lane written by `lane(slot, k)` in one T.Parallel over both: a
// narrowing vcvt or an UNPK load places one value per slot, and a per-slot
// view keeps each index affine (the simulator computes such a statement as
// whole columns).
Value Elaborator::simdSlots(DType t, int64_t ratio,
                            const std::function<Expr(const Expr&, const Expr&)>& lane,
                            const std::string& what, SourceLoc loc) {
  int64_t lanes = lanesOf(t);
  Buffer r = makeBuffer(what, MemScope::Local, t, {intImm(lanes)}, loc);
  simdRegisters_.insert(r->storage.get());
  Buffer slots = makeBuffer(what + "_slots", MemScope::Local, t,
                            {intImm(lanes / ratio), intImm(ratio)}, loc, r->storage);
  auto p = std::make_shared<ParallelStmt>(loc);
  Var slot = makeVar("slot", DType::Int32, VarKind::Loop);
  Var k = makeVar("k", DType::Int32, VarKind::Loop);
  p->vars = {slot, k};
  p->extents = {lanes / ratio, ratio};
  p->body = std::make_shared<StoreStmt>(slots, std::vector<Expr>{varRef(slot), varRef(k)},
                                        cast(t, lane(varRef(slot), varRef(k))), loc);
  currentCtx_->out->push_back(p);
  return Value::buf(r);
}

// Lane k * slot + part of register `r`, read through a view of its lanes
// as slots of k (an affine index per dimension, as for simdSlots).
Expr Elaborator::simdSlotAt(const SimdReg& r, int64_t k, const Expr& slot, int64_t part,
                            SourceLoc loc) {
  Buffer& view = simdSlotViews_[{r.buf.get(), k}];
  if (!view) {
    std::vector<Expr> shape = r.buf->shape;
    int64_t lanes = lanesOf(r.dtype());
    shape.back() = intImm(lanes / k);
    shape.push_back(intImm(k));
    view =
        makeBuffer(r.buf->name + "_slots", MemScope::Local, r.dtype(), shape, loc, r.buf->storage);
  }
  std::vector<Expr> idx;
  if (r.row) idx.push_back(r.row);
  idx.push_back(slot);
  idx.push_back(intImm(part));
  return load(view, idx);
}

// The buffer and flat element offset an address `buf[i, j]` names: lanes run
// along the row-major order of the buffer's storage.
std::pair<Buffer, Expr> Elaborator::simdAddress(const Value& addr, SourceLoc loc,
                                                const std::string& what) {
  bool point = addr.kind == K::Access;
  for (const auto& a : addr.access) point &= !a.isSlice;
  if (!point)
    fail(loc, fmt::format("{} takes the address of one element of a UB buffer, e.g. ub[i * 64], "
                          "got {}",
                          what, describe(addr)));
  const Buffer& b = addr.buffer;
  if (b->storage->scope != MemScope::UB)
    fail(loc, fmt::format("{} addresses a UB buffer (T.alloc_shared / T.alloc_ub); '{}' is {}",
                          what, b->name, memScopeName(b->storage->scope)));
  auto shape = constShape(b);
  if (!shape) fail(loc, fmt::format("{} needs '{}' to have a constant shape", what, b->name));
  if (shape->size() == 1) return {b, addr.access[0].start};
  Expr off = intImm(0);
  int64_t stride = 1;
  for (size_t d = shape->size(); d-- > 0;) {
    off = add(mul(addr.access[d].start, stride), off);
    stride *= (*shape)[d];
  }
  auto& flat = simdFlat_[b.get()];
  if (!flat)
    flat = makeBuffer(b->name + "_flat", b->storage->scope, b->dtype, {intImm(stride)}, loc,
                      b->storage);
  return {flat, off};
}

// A register load or store of `lanes` elements from a constant offset must
// stay inside the buffer: one register is always 256 bytes, whatever the
// buffer's size (a run-time offset is checked by the simulator).
void Elaborator::simdCheckSpan(const Buffer& flat, const Expr& offset, int64_t lanes,
                               const std::string& what, const char* verb, SourceLoc loc) {
  auto off = asConstInt(offset);
  auto shape = constShape(flat);
  if (!off || !shape) return;
  int64_t total = 1;
  for (int64_t d : *shape) total *= d;
  if (*off >= 0 && *off + lanes <= total) return;
  fail(loc, fmt::format("{} {} {} {} lanes ({} bytes) at element {} of '{}', which holds {} "
                        "elements; a register is always {} bytes",
                        what, verb, lanes, dtypeName(flat->dtype), lanes * dtypeBytes(flat->dtype),
                        *off, flat->name, total, kRegisterBytes));
}

// One T.simd call as its handler sees it: the operands and the helpers that
// read them with the intrinsic's name in every message.
struct SimdCall {
  const std::string& op;
  const std::string& what;
  const py::Expr& call;
  Env& env;
  std::vector<Value>& args;
  std::function<const Value*(size_t, const char*)> arg;  // positional i or keyword kw
  std::function<SourceLoc(size_t, const char*)> where;
  std::function<std::string(size_t, const char*, const std::string&)> text;
  std::function<SimdReg(size_t, const char*)> reg;
  std::function<void(size_t)> zeroing;
  std::function<void(const SimdReg&)> noFloat8;
  std::function<void(const SimdReg&, const SimdReg&)> sameDtype;
};

// The dispatch table: every T.simd spelling and its handler (below).
Value Elaborator::callSimd(const std::string& op, const py::Expr& call, Env& env) {
  const std::string what = "T.simd." + op;
  if (!currentCtx_ || !currentCtx_->inVF || currentCtx_->inSimt || currentCtx_->inParallel)
    fail(call.loc, fmt::format("{} is a vector register intrinsic: use it inside "
                               "'with T.SimdVF():'",
                               what));
  auto args = positional(call, env);
  std::deque<Value> keywordValues;  // stable addresses for arg()
  auto arg = [&](size_t i, const char* kw) -> const Value* {
    if (const py::Keyword* k = keyword(call, kw)) {
      keywordValues.push_back(eval(*k->value, env));
      return &keywordValues.back();
    }
    return i < args.size() ? &args[i] : nullptr;
  };
  auto where = [&](size_t i, const char* kw) {
    if (const py::Keyword* k = keyword(call, kw)) return k->value->loc;
    return argLoc(call, i);
  };
  auto text = [&](size_t i, const char* kw, const std::string& dflt) {
    const Value* v = arg(i, kw);
    if (!v || v->kind == K::None) return dflt;
    if (v->kind != K::Str) fail(where(i, kw), fmt::format("{}: {}= must be a string", what, kw));
    return v->s;
  };
  auto reg = [&](size_t i, const char* kw) -> SimdReg {
    const Value* v = arg(i, kw);
    if (!v) fail(call.loc, fmt::format("{} needs a vector register as its {}", what, kw));
    if (!isSimdRegister(*v))
      fail(where(i, kw), fmt::format("{} takes a vector register (the result of a T.simd "
                                     "intrinsic) as {}, got {}",
                                     what, kw, describe(*v)));
    if (v->kind == K::Access) return {v->buffer, v->access[0].start};
    return {v->buffer, nullptr};
  };
  auto zeroing = [&](size_t i) {
    std::string mode = text(i, "mode", "MODE_ZEROING");
    if (mode != "MODE_ZEROING")
      fail(where(i, "mode"), fmt::format("{}(..., mode=\"{}\") is not supported yet; tilesched "
                                         "models MODE_ZEROING (inactive lanes are zero)",
                                         what, mode));
  };
  // float8 lanes are moved (vld, vsts, vdupv, interleaves, selects), never computed with.
  auto noFloat8 = [&](const SimdReg& r) { rejectFloat8Compute({r.at(intImm(0))}, call.loc, what); };
  auto sameDtype = [&](const SimdReg& a, const SimdReg& b) {
    if (a.dtype() != b.dtype())
      fail(call.loc, fmt::format("{} needs two registers of one dtype, got {} and {}", what,
                                 dtypeName(a.dtype()), dtypeName(b.dtype())));
  };

  using Handler = Value (Elaborator::*)(SimdCall&);
  static const std::map<std::string, Handler> kHandlers = {
      {"pset", &Elaborator::simdPredicate},
      {"pge", &Elaborator::simdPredicate},
      {"update_mask", &Elaborator::simdUpdateMask},
      {"vcmp", &Elaborator::simdCompare},
      {"vcmps", &Elaborator::simdCompare},
      {"mem_bar", &Elaborator::simdMemBar},
      {"alloc_var", &Elaborator::simdAlloc},
      {"alloc_local", &Elaborator::simdAlloc},
      {"vld", &Elaborator::simdLoad},
      {"vsts", &Elaborator::simdStore},
      {"vadd", &Elaborator::simdBinary},
      {"vsub", &Elaborator::simdBinary},
      {"vmul", &Elaborator::simdBinary},
      {"vdiv", &Elaborator::simdBinary},
      {"vmax", &Elaborator::simdBinary},
      {"vmin", &Elaborator::simdBinary},
      {"vadds", &Elaborator::simdScalar},
      {"vmuls", &Elaborator::simdScalar},
      {"vmaxs", &Elaborator::simdScalar},
      {"vmins", &Elaborator::simdScalar},
      {"vexp", &Elaborator::simdUnary},
      {"vln", &Elaborator::simdUnary},
      {"vsqrt", &Elaborator::simdUnary},
      {"vabs", &Elaborator::simdUnary},
      {"vneg", &Elaborator::simdUnary},
      {"vrelu", &Elaborator::simdUnary},
      {"vabsdif", &Elaborator::simdDifference},
      {"vexpdif", &Elaborator::simdDifference},
      {"vlrelu", &Elaborator::simdLeakyRelu},
      {"vsel", &Elaborator::simdSelect},
      {"vci", &Elaborator::simdIndex},
      {"vcmax", &Elaborator::simdReduce},
      {"vcmin", &Elaborator::simdReduce},
      {"vcadd", &Elaborator::simdReduce},
      {"vintlv", &Elaborator::simdInterleave},
      {"vdintlv", &Elaborator::simdInterleave},
      {"vdup", &Elaborator::simdDup},
      {"vdupv", &Elaborator::simdDupVector},
      {"vcvt", &Elaborator::simdConvert},
      {"vand", &Elaborator::simdBinary},
      {"vor", &Elaborator::simdBinary},
      {"vxor", &Elaborator::simdBinary},
      {"vshl", &Elaborator::simdBinary},
      {"vshr", &Elaborator::simdBinary},
      {"vshls", &Elaborator::simdScalar},
      {"vshrs", &Elaborator::simdScalar},
      {"vnot", &Elaborator::simdUnary},
  };
  auto handler = kHandlers.find(op);
  if (handler == kHandlers.end())
    fail(call.loc,
         fmt::format("{} is not supported yet; tilesched models T.simd.pset, "
                     "update_mask, vcmp, vcmps, vld, vsts, vadd/vsub/vmul/vdiv/vmax/vmin, "
                     "vadds/vmuls/vmaxs/vmins, vexp/vln/vsqrt/vabs/vneg/vrelu, vabsdif, "
                     "vexpdif, vlrelu, vsel, vci, vcmax/vcmin/vcadd, vintlv/vdintlv, vdup, "
                     "vdupv, vcvt, vand/vor/vxor/vnot, vshl/vshr/vshls/vshrs, alloc_var, "
                     "alloc_local and mem_bar (docs/language.md)",
                     what));
  SimdCall c{op, what, call, env, args, arg, where, text, reg, zeroing, noFloat8, sameDtype};
  return (this->*handler->second)(c);
}

Value Elaborator::simdPredicate(SimdCall& c) {
  [[maybe_unused]] auto& [op, what, call, env, args, arg, where, text, reg, zeroing, noFloat8,
                          sameDtype] = c;
  checkKeywords(call, what, {"dist"});
  if (args.empty()) fail(call.loc, fmt::format("{} takes (elem_width, dist=\"PAT_ALL\")", what));
  int64_t bits = toConstInt(args[0], argLoc(call, 0), "the predicate element width");
  if (bits != 8 && bits != 16 && bits != 32)
    fail(argLoc(call, 0), fmt::format("{} element width must be 8, 16 or 32, got {}", what, bits));
  int64_t lanes = 2048 / bits;
  std::string dist = text(1, "dist", "PAT_ALL");
  int64_t active = -1;
  if (dist == "PAT_ALL") active = lanes;
  if (dist == "PAT_H") active = lanes / 2;
  if (dist == "PAT_Q") active = lanes / 4;
  if (dist.rfind("PAT_VL", 0) == 0) {
    try {
      active = std::min<int64_t>(std::stoll(dist.substr(6)), lanes);
    } catch (const std::exception&) {
    }
  }
  if (active < 0)
    fail(where(1, "dist"), fmt::format("{}(..., \"{}\") is not supported yet; tilesched models "
                                       "PAT_ALL, PAT_VLn, PAT_H and PAT_Q",
                                       what, dist));
  return maskValue(static_cast<int>(bits), intImm(active));
}

Value Elaborator::simdUpdateMask(SimdCall& c) {
  [[maybe_unused]] auto& [op, what, call, env, args, arg, where, text, reg, zeroing, noFloat8,
                          sameDtype] = c;
  checkKeywords(call, what, {"width"});
  if (args.empty()) fail(call.loc, fmt::format("{} takes (value, width=32)", what));
  int64_t bits = 32;
  if (const Value* w = arg(1, "width")) bits = toConstInt(*w, where(1, "width"), "width");
  if (bits != 8 && bits != 16 && bits != 32)
    fail(where(1, "width"), fmt::format("{} width must be 8, 16 or 32, got {}", what, bits));
  Expr n = toExpr(args[0], argLoc(call, 0));
  if (!isInt(n->dtype)) fail(argLoc(call, 0), fmt::format("{} counts lanes: an integer", what));
  if (auto c = asConstInt(n)) n = intImm(std::max<int64_t>(*c, 0));
  return maskValue(static_cast<int>(bits), n);
}

Value Elaborator::simdCompare(SimdCall& c) {
  [[maybe_unused]] auto& [op, what, call, env, args, arg, where, text, reg, zeroing, noFloat8,
                          sameDtype] = c;
  // A predicate register: lane l is true where the comparison holds on an
  // active lane (one uint8 per element of the operands' width).
  bool scalar = op == "vcmps";
  checkKeywords(call, what, {"mask", "op"});
  SimdReg a = reg(0, "src0");
  if (args.size() < 2)
    fail(call.loc,
         fmt::format("{} takes (src0, {}, mask=None, op=...)", what, scalar ? "scalar" : "src1"));
  noFloat8(a);
  std::function<Expr(const Expr&)> rhs;
  if (scalar) {
    Expr x = cast(a.dtype(), toExpr(args[1], argLoc(call, 1), a.dtype()));
    rhs = [x](const Expr&) { return x; };
  } else {
    SimdReg b = reg(1, "src1");
    sameDtype(a, b);
    rhs = [b](const Expr& l) { return b.at(l); };
  }
  static const std::map<std::string, BinOp> kCmp = {{"eq", BinOp::EQ}, {"ne", BinOp::NE},
                                                    {"gt", BinOp::GT}, {"ge", BinOp::GE},
                                                    {"lt", BinOp::LT}, {"le", BinOp::LE}};
  std::string cmp = text(3, "op", scalar ? "lt" : "eq");
  auto it = kCmp.find(cmp);
  if (it == kCmp.end())
    fail(where(3, "op"),
         fmt::format("{} op= is one of eq, ne, gt, ge, lt, le, got \"{}\"", what, cmp));
  SimdLanes active = simdLanes(arg(2, "mask"), a.dtype(), call.loc);
  BinOp bop = it->second;
  Value p = simdResult(
      DType::UInt8, simdLanes(nullptr, DType::UInt8, call.loc),
      [&](const Expr& l) {
        // Lanes past the operands' count (narrower predicates) stay false.
        Expr in = binary(BinOp::LT, l, intImm(active.lanes));
        Expr safe = binary(BinOp::Min, l, intImm(active.lanes - 1));
        Expr on = binary(bop, a.at(safe), rhs(safe));
        if (Expr act = active.at(safe)) on = binary(BinOp::And, on, act);
        return select(binary(BinOp::And, in, on), intImm(1, DType::UInt8), intImm(0, DType::UInt8));
      },
      op, call.loc);
  return predicateValue(static_cast<int>(dtypeBytes(a.dtype()) * 8), p.buffer);
}

Value Elaborator::simdMemBar(SimdCall& c) {
  [[maybe_unused]] auto& [op, what, call, env, args, arg, where, text, reg, zeroing, noFloat8,
                          sameDtype] = c;
  // Orders a VF's vector stores and loads; statements of a VF body already
  // run in order in tilesched.
  return Value::none();
}

Value Elaborator::simdAlloc(SimdCall& c) {
  [[maybe_unused]] auto& [op, what, call, env, args, arg, where, text, reg, zeroing, noFloat8,
                          sameDtype] = c;
  bool array = op == "alloc_local";
  checkKeywords(call, what,
                array ? std::initializer_list<const char*>{"shape", "dtype"}
                      : std::initializer_list<const char*>{"dtype"});
  const Value* d = arg(array ? 1 : 0, "dtype");
  if (!d) fail(call.loc, fmt::format("{} takes {}dtype", what, array ? "a count and a " : "a "));
  DType t = toDType(*d, where(array ? 1 : 0, "dtype"));
  std::string name = simdNameHint_.empty() ? "vreg" : simdNameHint_;
  std::vector<Expr> shape{intImm(lanesOf(t))};
  if (array) {
    const Value* n = arg(0, "shape");
    Value count = n && n->isSequence() && n->elts.size() == 1 ? n->elts[0] : (n ? *n : Value{});
    int64_t rows = toConstInt(count, where(0, "shape"), "the number of registers");
    if (rows < 1 || rows > 64)
      fail(where(0, "shape"), fmt::format("{} holds 1 to 64 registers, got {}", what, rows));
    shape.insert(shape.begin(), intImm(rows));
  }
  Buffer r = makeBuffer(name, MemScope::Local, t, shape, call.loc);
  (array ? simdArrays_ : simdRegisters_).insert(r->storage.get());
  if (!array) simdMutable_.insert(r->storage.get());
  return Value::buf(r);
}

Value Elaborator::simdLoad(SimdCall& c) {
  [[maybe_unused]] auto& [op, what, call, env, args, arg, where, text, reg, zeroing, noFloat8,
                          sameDtype] = c;
  checkKeywords(call, what, {"dist"});
  if (args.empty()) fail(call.loc, fmt::format("{} takes (address, dist=\"NORM\")", what));
  auto [b, off] = simdAddress(args[0], argLoc(call, 0), what);
  DType t = b->dtype;
  std::string dist = text(1, "dist", "NORM");
  std::string bits = std::to_string(dtypeBytes(t) * 8);
  bool norm = dist == "NORM" || dist == "NORM_B" + bits;
  bool brc = dist == "BRC_B" + bits;
  // UNPK_B<w>: <w>-bit elements, one per 2w-bit slot (UNPK4_B8: per 32-bit
  // slot), in the slot's low part; the rest of each slot zero.
  int64_t unpack = dist == "UNPK_B" + bits                                    ? 2
                   : (bits == "8" && (dist == "UNPK4_B8" || dist == "UNPK4")) ? 4
                                                                              : 0;
  if (unpack && dtypeBytes(t) > 4) unpack = 0;
  if (!norm && !brc && !unpack)
    fail(where(1, "dist"),
         fmt::format("{}(..., dist=\"{}\") is not supported yet on {} data; tilesched models "
                     "NORM, BRC_B{}, UNPK_B{}{}",
                     what, dist, dtypeName(t), bits, bits, bits == "8" ? " and UNPK4_B8" : ""));
  int64_t lanes = lanesOf(t);
  if (!brc) simdCheckSpan(b, off, unpack ? lanes / unpack : lanes, what, "reads", call.loc);
  Buffer src = b;
  Expr base = off;
  if (unpack)
    return simdSlots(
        t, unpack,
        [&](const Expr& slot, const Expr& k) {
          return select(binary(BinOp::EQ, k, intImm(0)), load(src, {add(base, slot)}),
                        cast(t, intImm(0)));
        },
        "vld", call.loc);
  return simdResult(
      t, simdLanes(nullptr, t, call.loc),
      [&](const Expr& l) { return load(src, {brc ? base : add(base, l)}); }, "vld", call.loc);
}

Value Elaborator::simdStore(SimdCall& c) {
  [[maybe_unused]] auto& [op, what, call, env, args, arg, where, text, reg, zeroing, noFloat8,
                          sameDtype] = c;
  checkKeywords(call, what, {"mask", "dist", "extent"});
  if (args.size() < 2) fail(call.loc, fmt::format("{} takes (address, vector, mask=None)", what));
  auto [b, off] = simdAddress(args[0], argLoc(call, 0), what);
  SimdReg src = reg(1, "src");
  if (src.dtype() != b->dtype)
    fail(argLoc(call, 1), fmt::format("{} stores {} lanes into '{}', which holds {}", what,
                                      dtypeName(src.dtype()), b->name, dtypeName(b->dtype)));
  std::string dist = text(3, "dist", "NORM_B32");
  bool onePoint = dist.rfind("ONEPT_", 0) == 0;
  // PK_B<g> / PK4_B32: from each g-bit group of the register its low g/2-bit
  // (g/4-bit) element, stored consecutively: the narrowed lanes of a vcvt.
  static const std::map<std::string, std::pair<int64_t, DType>> kPacks = {
      {"PK_B16", {2, DType::Int16}},
      {"PK_B32", {2, DType::Int32}},
      {"PK_B64", {2, DType::Int64}},
      {"PK4_B32", {4, DType::Int32}}};
  auto pack = kPacks.find(dist);
  if (dist.rfind("NORM", 0) != 0 && !onePoint && pack == kPacks.end())
    fail(where(3, "dist"), fmt::format("{}(..., dist=\"{}\") is not supported yet; tilesched "
                                       "models NORM_B*, ONEPT_B*, PK_B16, PK_B32, PK_B64 and "
                                       "PK4_B32",
                                       what, dist));
  if (keyword(call, "extent"))
    fail(keyword(call, "extent")->loc, fmt::format("{}(..., extent=) is not supported yet", what));
  // Element l of the store: lane l, or (packing) lane 0 of the l-th group.
  std::function<Expr(const Expr&)> element = [&](const Expr& l) { return src.at(l); };
  SimdLanes active;
  if (pack != kPacks.end()) {
    auto [ratio, group] = pack->second;
    int elementBits = dtypeBytes(group) * 8 / static_cast<int>(ratio);
    if (dtypeBytes(src.dtype()) * 8 != elementBits)
      fail(where(3, "dist"),
           fmt::format("{}(..., dist=\"{}\") stores {}-bit elements; the register holds {} lanes",
                       what, dist, elementBits, dtypeName(src.dtype())));
    active = simdLanes(arg(2, "mask"), group, call.loc);  // the mask counts groups
    element = [&, ratio = ratio](const Expr& l) { return simdSlotAt(src, ratio, l, 0, call.loc); };
  } else {
    active = simdLanes(arg(2, "mask"), src.dtype(), call.loc);
  }
  if (onePoint) {
    // Lane 0 only, when the mask has it.
    Expr on = active.at(intImm(0));
    active.predicate = nullptr;
    active.count = on ? select(on, intImm(1), intImm(0)) : intImm(1);
    if (auto c = asConstInt(active.count)) active.count = intImm(*c);
  }
  if (auto c = active.count ? asConstInt(active.count) : std::nullopt)
    simdCheckSpan(b, off, *c, what, "writes", call.loc);
  Buffer dst = b;
  Expr base = off;
  emitLanes(
      active,
      [&](const Expr& l) {
        return std::make_shared<StoreStmt>(dst, std::vector<Expr>{add(base, l)}, element(l),
                                           call.loc);
      },
      call.loc);
  return Value::none();
}

Value Elaborator::simdBinary(SimdCall& c) {
  [[maybe_unused]] auto& [op, what, call, env, args, arg, where, text, reg, zeroing, noFloat8,
                          sameDtype] = c;
  static const std::map<std::string, BinOp> kBinary = {
      {"vadd", BinOp::Add},    {"vsub", BinOp::Sub}, {"vmul", BinOp::Mul},    {"vdiv", BinOp::Div},
      {"vmax", BinOp::Max},    {"vmin", BinOp::Min}, {"vand", BinOp::BitAnd}, {"vor", BinOp::BitOr},
      {"vxor", BinOp::BitXor}, {"vshl", BinOp::Shl}, {"vshr", BinOp::Shr}};
  BinOp bop = kBinary.at(op);
  bool bitwise = bop == BinOp::BitAnd || bop == BinOp::BitOr || bop == BinOp::BitXor ||
                 bop == BinOp::Shl || bop == BinOp::Shr;
  checkKeywords(call, what, {"mask", "mode", "precision"});
  SimdReg a = reg(0, "src0"), b = reg(1, "src1");
  sameDtype(a, b);
  if ((bop == BinOp::Div && !isFloat(a.dtype())) || (bitwise && !isInt(a.dtype())))
    fail(call.loc, fmt::format("{} on {} lanes is not supported yet", what, dtypeName(a.dtype())));
  zeroing(3);
  noFloat8(a);
  SimdLanes active = simdLanes(arg(2, "mask"), a.dtype(), call.loc);
  return simdResult(
      a.dtype(), active, [&](const Expr& l) { return binary(bop, a.at(l), b.at(l)); }, op,
      call.loc);
}

Value Elaborator::simdScalar(SimdCall& c) {
  [[maybe_unused]] auto& [op, what, call, env, args, arg, where, text, reg, zeroing, noFloat8,
                          sameDtype] = c;
  static const std::map<std::string, BinOp> kScalar = {
      {"vadds", BinOp::Add}, {"vmuls", BinOp::Mul}, {"vmaxs", BinOp::Max},
      {"vmins", BinOp::Min}, {"vshls", BinOp::Shl}, {"vshrs", BinOp::Shr}};
  BinOp bop = kScalar.at(op);
  if ((bop == BinOp::Shl || bop == BinOp::Shr) && !isInt(reg(0, "src").dtype()))
    fail(call.loc, fmt::format("{} on {} lanes is not supported yet", what,
                               dtypeName(reg(0, "src").dtype())));
  checkKeywords(call, what, {"mask", "mode"});
  SimdReg a = reg(0, "src");
  if (args.size() < 2) fail(call.loc, fmt::format("{} takes (vector, scalar, mask=None)", what));
  noFloat8(a);
  Expr x = cast(a.dtype(), toExpr(args[1], argLoc(call, 1), a.dtype()));
  zeroing(3);
  SimdLanes active = simdLanes(arg(2, "mask"), a.dtype(), call.loc);
  return simdResult(
      a.dtype(), active, [&](const Expr& l) { return binary(bop, a.at(l), x); }, op, call.loc);
}

Value Elaborator::simdUnary(SimdCall& c) {
  [[maybe_unused]] auto& [op, what, call, env, args, arg, where, text, reg, zeroing, noFloat8,
                          sameDtype] = c;
  static const std::map<std::string, UnOp> kUnary = {{"vexp", UnOp::Exp},
                                                     {"vln", UnOp::Log},
                                                     {"vsqrt", UnOp::Sqrt},
                                                     {"vabs", UnOp::Abs},
                                                     {"vneg", UnOp::Neg}};
  std::function<Expr(const Expr&)> f;
  if (op == "vrelu")
    f = [&](const Expr& x) { return binary(BinOp::Max, x, cast(x->dtype, intImm(0))); };
  else if (op == "vnot")  // every bit flipped: x ^ all-ones of the lane's width
    f = [&](const Expr& x) { return binary(BinOp::BitXor, x, intImm(-1, x->dtype)); };
  else
    f = [uop = kUnary.at(op)](const Expr& x) { return unary(uop, x); };
  checkKeywords(call, what, {"mask", "mode", "precision"});
  SimdReg a = reg(0, "src");
  noFloat8(a);
  if (op == "vnot" && !isInt(a.dtype()))
    fail(call.loc, fmt::format("{} on {} lanes is not supported", what, dtypeName(a.dtype())));
  if (op != "vabs" && op != "vneg" && op != "vnot" && !isFloat(a.dtype()))
    fail(call.loc, fmt::format("{} on {} lanes is not supported", what, dtypeName(a.dtype())));
  zeroing(2);
  SimdLanes active = simdLanes(arg(1, "mask"), a.dtype(), call.loc);
  return simdResult(
      a.dtype(), active, [&](const Expr& l) { return f(a.at(l)); }, op, call.loc);
}

Value Elaborator::simdDifference(SimdCall& c) {
  [[maybe_unused]] auto& [op, what, call, env, args, arg, where, text, reg, zeroing, noFloat8,
                          sameDtype] = c;
  checkKeywords(call, what, {"mask", "mode"});
  SimdReg a = reg(0, "src0"), b = reg(1, "src1");
  noFloat8(a);
  sameDtype(a, b);
  if (!isFloat(a.dtype()))
    fail(call.loc, fmt::format("{} on {} lanes is not supported", what, dtypeName(a.dtype())));
  zeroing(3);
  SimdLanes active = simdLanes(arg(2, "mask"), a.dtype(), call.loc);
  UnOp uop = op == "vabsdif" ? UnOp::Abs : UnOp::Exp;
  return simdResult(
      a.dtype(), active, [&](const Expr& l) { return unary(uop, sub(a.at(l), b.at(l))); }, op,
      call.loc);
}

Value Elaborator::simdLeakyRelu(SimdCall& c) {
  [[maybe_unused]] auto& [op, what, call, env, args, arg, where, text, reg, zeroing, noFloat8,
                          sameDtype] = c;
  checkKeywords(call, what, {"mask"});
  SimdReg a = reg(0, "src");
  noFloat8(a);
  if (!isFloat(a.dtype()))
    fail(call.loc, fmt::format("{} on {} lanes is not supported", what, dtypeName(a.dtype())));
  if (args.size() < 2) fail(call.loc, fmt::format("{} takes (vector, alpha, mask=None)", what));
  Expr alpha = cast(a.dtype(), toExpr(args[1], argLoc(call, 1), a.dtype()));
  SimdLanes active = simdLanes(arg(2, "mask"), a.dtype(), call.loc);
  DType t = a.dtype();
  return simdResult(
      t, active,
      [&](const Expr& l) {
        Expr x = a.at(l);
        return select(binary(BinOp::GE, x, cast(t, intImm(0))), x, binary(BinOp::Mul, alpha, x));
      },
      op, call.loc);
}

Value Elaborator::simdSelect(SimdCall& c) {
  [[maybe_unused]] auto& [op, what, call, env, args, arg, where, text, reg, zeroing, noFloat8,
                          sameDtype] = c;
  // vsel(a, b, predicate): a where the predicate holds, else b.
  checkKeywords(call, what, {"mask"});
  SimdReg a = reg(0, "src0"), b = reg(1, "src1");
  sameDtype(a, b);
  const Value* m = arg(2, "mask");
  if (!m) fail(call.loc, fmt::format("{} takes (src0, src1, predicate)", what));
  SimdLanes pick = simdLanes(m, a.dtype(), call.loc);
  return simdResult(
      a.dtype(), simdLanes(nullptr, a.dtype(), call.loc),
      [&](const Expr& l) {
        Expr on = pick.at(l);
        return on ? select(on, a.at(l), b.at(l)) : a.at(l);
      },
      op, call.loc);
}

Value Elaborator::simdIndex(SimdCall& c) {
  [[maybe_unused]] auto& [op, what, call, env, args, arg, where, text, reg, zeroing, noFloat8,
                          sameDtype] = c;
  // An index ramp: index + lane (INC_ORDER) or index - lane (DEC_ORDER).
  checkKeywords(call, what, {"order"});
  if (args.size() < 2) fail(call.loc, fmt::format("{} takes (index, dtype, order)", what));
  DType t = toDType(args[1], argLoc(call, 1));
  if (isFloat8(t)) fail(argLoc(call, 1), fmt::format("{} to float8 lanes is not supported", what));
  std::string order = text(2, "order", "INC_ORDER");
  if (order != "INC_ORDER" && order != "DEC_ORDER")
    fail(where(2, "order"),
         fmt::format("{} order= is INC_ORDER or DEC_ORDER, got \"{}\"", what, order));
  Expr start = toExpr(args[0], argLoc(call, 0));
  bool inc = order == "INC_ORDER";
  return simdResult(
      t, simdLanes(nullptr, t, call.loc),
      [&](const Expr& l) {
        Expr lane = cast(start->dtype, l);
        return inc ? add(start, lane) : sub(start, lane);
      },
      op, call.loc);
}

Value Elaborator::simdReduce(SimdCall& c) {
  [[maybe_unused]] auto& [op, what, call, env, args, arg, where, text, reg, zeroing, noFloat8,
                          sameDtype] = c;
  // A reduction over the active lanes into lane 0 (lanes in order for a
  // sum); the other lanes are zero. tilesched does not model a second
  // result lane (such as the index of the maximum) some hardware forms write.
  checkKeywords(call, what, {"mask", "mode"});
  SimdReg a = reg(0, "src");
  noFloat8(a);
  zeroing(2);
  DType t = a.dtype();
  if (op == "vcadd" && !isFloat(t) && dtypeBytes(t) < 4)
    fail(call.loc,
         fmt::format("{} on {} lanes (a widening sum) is not supported yet", what, dtypeName(t)));
  SimdLanes active = simdLanes(arg(1, "mask"), t, call.loc);
  int64_t lanes = lanesOf(t);
  // Inactive lanes take the reduction's identity, then one reduction.
  Expr identity;
  if (op == "vcadd")
    identity = cast(t, intImm(0));
  else if (isFloat(t))
    identity = floatImm(op == "vcmax" ? -std::numeric_limits<double>::infinity()
                                      : std::numeric_limits<double>::infinity(),
                        t);
  else
    identity = intImm(intLimit(t, op != "vcmax"), t);
  Value masked = simdResult(
      t, simdLanes(nullptr, t, call.loc),
      [&](const Expr& l) {
        Expr on = active.at(l);
        return on ? select(on, a.at(l), identity) : a.at(l);
      },
      op + "_in", call.loc);
  Buffer out = makeBuffer(op, MemScope::Local, t, {intImm(lanes)}, call.loc);
  simdRegisters_.insert(out->storage.get());
  auto r = std::make_shared<ReduceStmt>(call.loc);
  r->reduceKind = op == "vcmax"   ? ReduceKind::Max
                  : op == "vcmin" ? ReduceKind::Min
                                  : ReduceKind::Sum;
  r->src = Region{masked.buffer, {Range{intImm(0), lanes}}};
  r->dst = Region{out, {Range{intImm(0), 1}}};
  r->dim = 0;
  r->clear = true;
  SimdLanes rest;
  rest.lanes = lanes - 1;
  rest.count = intImm(lanes - 1);
  emitLanes(
      rest,
      [&](const Expr& l) {
        return std::make_shared<StoreStmt>(out, std::vector<Expr>{add(l, intImm(1))},
                                           cast(t, intImm(0)), call.loc);
      },
      call.loc);
  currentCtx_->out->push_back(r);
  return Value::buf(out);
}

Value Elaborator::simdInterleave(SimdCall& c) {
  [[maybe_unused]] auto& [op, what, call, env, args, arg, where, text, reg, zeroing, noFloat8,
                          sameDtype] = c;
  // vintlv(x, y): (x0 y0 x1 y1 ...) over the low halves, then the high
  // halves; vdintlv(a, b) undoes it: the even and the odd elements of a ++ b.
  checkKeywords(call, what, {});
  SimdReg a = reg(0, "src0"), b = reg(1, "src1");
  sameDtype(a, b);
  int64_t lanes = lanesOf(a.dtype()), half = lanes / 2;
  std::vector<Value> out;
  for (int64_t part = 0; part < 2; ++part)
    out.push_back(simdResult(
        a.dtype(), simdLanes(nullptr, a.dtype(), call.loc),
        [&](const Expr& l) {
          if (op == "vintlv") {
            Expr from = add(floordiv(l, intImm(2)), intImm(part * half));
            return select(binary(BinOp::EQ, floormod(l, intImm(2)), intImm(0)), a.at(from),
                          b.at(from));
          }
          // Element 2l + part of a ++ b; both loads stay in bounds.
          Expr j = add(mul(l, 2), intImm(part));
          Expr inA = binary(BinOp::Min, j, intImm(lanes - 1));
          Expr inB = binary(BinOp::Max, sub(j, intImm(lanes)), intImm(0));
          return select(binary(BinOp::LT, j, intImm(lanes)), a.at(inA), b.at(inB));
        },
        op, call.loc));
  return Value::tuple(std::move(out));
}

Value Elaborator::simdDup(SimdCall& c) {
  [[maybe_unused]] auto& [op, what, call, env, args, arg, where, text, reg, zeroing, noFloat8,
                          sameDtype] = c;
  checkKeywords(call, what, {"mask", "mode"});
  if (args.size() < 2) fail(call.loc, fmt::format("{} takes (scalar, dtype, mask=None)", what));
  DType t = toDType(args[1], argLoc(call, 1));
  if (isFloat8(t))
    fail(argLoc(call, 1), fmt::format("{} to float8 lanes is not supported; broadcast in "
                                      "float32 and convert",
                                      what));
  if (isSimdRegister(args[0]))
    fail(argLoc(call, 0), fmt::format("{} broadcasts a scalar; use T.simd.vdupv for a lane of a "
                                      "register",
                                      what));
  Expr x = cast(t, toExpr(args[0], argLoc(call, 0), t));
  zeroing(3);
  SimdLanes active = simdLanes(arg(2, "mask"), t, call.loc);
  return simdResult(
      t, active, [&](const Expr&) { return x; }, "vdup", call.loc);
}

Value Elaborator::simdDupVector(SimdCall& c) {
  [[maybe_unused]] auto& [op, what, call, env, args, arg, where, text, reg, zeroing, noFloat8,
                          sameDtype] = c;
  checkKeywords(call, what, {"mask", "pos", "mode"});
  SimdReg a = reg(0, "src");
  std::string pos = text(2, "pos", "POS_LOWEST");
  if (pos != "POS_LOWEST" && pos != "POS_HIGHEST")
    fail(where(2, "pos"),
         fmt::format("{} pos= is POS_LOWEST or POS_HIGHEST, got \"{}\"", what, pos));
  zeroing(3);
  SimdLanes active = simdLanes(arg(1, "mask"), a.dtype(), call.loc);
  Expr from = intImm(pos == "POS_LOWEST" ? 0 : lanesOf(a.dtype()) - 1);
  return simdResult(
      a.dtype(), active, [&](const Expr&) { return a.at(from); }, "vdupv", call.loc);
}

// vcvt(src, dtype, mask=None, round="ROUND_R", sat=True, part=0): each lane
// converted to `dtype`, placed as the hardware places it. Narrowing by k
// (f32 -> f16: 2, f32 -> fp8: 4) writes source lane i into lane k*i + part of
// the result (the part-th slot of lane i's bytes), the other lanes zero; a
// PK*_B* store or a k-way part read takes them back out. Widening by k reads
// source lane k*i + part into lane i (the UNPK loads put data there).
Value Elaborator::simdConvert(SimdCall& c) {
  [[maybe_unused]] auto& [op, what, call, env, args, arg, where, text, reg, zeroing, noFloat8,
                          sameDtype] = c;
  checkKeywords(call, what, {"target_dtype", "mask", "round", "sat", "part", "mode"});
  SimdReg a = reg(0, "src");
  const Value* d = arg(1, "target_dtype");
  if (!d) fail(call.loc, fmt::format("{} takes (src, target_dtype)", what));
  DType from = a.dtype(), to = toDType(*d, where(1, "target_dtype"));
  if (from == to)
    fail(where(1, "target_dtype"), fmt::format("{} converts {} lanes to {}: nothing to convert",
                                               what, dtypeName(from), dtypeName(to)));
  if (from == DType::Bool || to == DType::Bool)
    fail(call.loc, fmt::format("{} does not convert predicates", what));
  zeroing(6);
  std::string rounding = text(3, "round", "ROUND_R");
  static const std::set<std::string> kRoundings = {"ROUND_R", "ROUND_A", "ROUND_F", "ROUND_C",
                                                   "ROUND_Z", "ROUND_O", "ROUND_H"};
  if (!kRoundings.count(rounding))
    fail(where(3, "round"), fmt::format("{} round= is one of ROUND_R, ROUND_A, ROUND_F, ROUND_C, "
                                        "ROUND_Z, ROUND_O, ROUND_H, got \"{}\"",
                                        what, rounding));
  bool saturate = true;
  if (const Value* v = arg(4, "sat"); v && v->kind != K::None) {
    if (v->kind != K::Bool && v->kind != K::Int)
      fail(where(4, "sat"), fmt::format("{} sat= is True or False", what));
    saturate = v->kind == K::Bool ? v->b : v->i != 0;
  }
  int fromBytes = dtypeBytes(from), toBytes = dtypeBytes(to);
  int64_t ratio = std::max(fromBytes, toBytes) / std::min(fromBytes, toBytes);
  int64_t part = 0;
  if (const Value* v = arg(5, "part"); v && v->kind != K::None) {
    static const std::map<std::string, int64_t> kParts = {{"PART_EVEN", 0}, {"PART_ODD", 1},
                                                          {"PART_P0", 0},   {"PART_P1", 1},
                                                          {"PART_P2", 2},   {"PART_P3", 3}};
    if (v->kind == K::Str && kParts.count(v->s))
      part = kParts.at(v->s);
    else if (v->kind == K::Int)
      part = v->i;
    else
      fail(where(5, "part"), fmt::format("{} part= is PART_EVEN/PART_ODD, PART_P0..PART_P3 or a "
                                         "number, got {}",
                                         what, describe(*v)));
    if (part < 0 || part >= ratio)
      fail(where(5, "part"),
           fmt::format("{} from {} to {} has {} part{}; part {} does not exist", what,
                       dtypeName(from), dtypeName(to), ratio, ratio == 1 ? "" : "s", part));
  }
  if (ratio > 1 && arg(2, "mask") && arg(2, "mask")->kind != K::None)
    fail(where(2, "mask"), fmt::format("{} with a mask between widths ({} to {}) is not supported "
                                       "yet; tilesched models it on all lanes",
                                       what, dtypeName(from), dtypeName(to)));
  // What tilesched computes exactly: round to nearest even into floats
  // (T.cast), truncation into integers, saturation as below.
  auto unsupported = [&](const std::string& why) {
    fail(call.loc, fmt::format("{} from {} to {} {} is not supported yet", what, dtypeName(from),
                               dtypeName(to), why));
  };
  bool exact = (isFloat(from) && isFloat(to) && fromBytes < toBytes) ||
               (isInt(from) && isInt(to) && fromBytes < toBytes && isSigned(from) == isSigned(to));
  if (isFloat(from) && isInt(to) && rounding != "ROUND_Z")
    unsupported(
        fmt::format("with round=\"{}\" (tilesched converts floats to integers with "
                    "ROUND_Z, truncation)",
                    rounding));
  if (isFloat(to) && !exact && rounding != "ROUND_R")
    unsupported(
        fmt::format("with round=\"{}\" (tilesched rounds to nearest even, ROUND_R)", rounding));
  if ((isFloat8(to) || (isFloat(from) && isInt(to))) && !saturate)
    unsupported("with sat=False (tilesched's conversions to float8 and to integers saturate)");
  auto convert = [&, from, to](const Expr& x) -> Expr {
    if (isFloat8(to) || (isFloat(from) && isInt(to)) || !saturate || exact) return cast(to, x);
    if (isFloat(to)) {  // f32 -> f16/bf16: a finite overflow becomes the largest value
      if (toBytes >= fromBytes) return cast(to, x);
      double m = to == DType::Float16 ? 65504.0 : 3.3895313892515355e38;
      Expr clamped =
          binary(BinOp::Min, binary(BinOp::Max, x, floatImm(-m, from)), floatImm(m, from));
      return cast(to, clamped);
    }
    if (isInt(from) && isInt(to)) {  // narrowing or a change of sign: clamp to the range
      int64_t lo = intLimit(to, false), hi = intLimit(to, true);
      int64_t fromLo = intLimit(from, false), fromHi = intLimit(from, true);
      Expr y = x;
      if (lo > fromLo) y = binary(BinOp::Max, y, intImm(lo, from));
      if (hi < fromHi) y = binary(BinOp::Min, y, intImm(hi, from));
      return cast(to, y);
    }
    return cast(to, x);  // int -> float: rounds to nearest even
  };
  SimdLanes active = simdLanes(ratio > 1 ? nullptr : arg(2, "mask"), to, call.loc);
  if (fromBytes > toBytes)  // narrowing: lane i into lane ratio * i + part
    return simdSlots(
        to, ratio,
        [&](const Expr& slot, const Expr& k) {
          return select(binary(BinOp::EQ, k, intImm(part)), convert(a.at(slot)),
                        cast(to, intImm(0)));
        },
        "vcvt", call.loc);
  if (fromBytes < toBytes)  // widening: lane ratio * i + part into lane i
    return simdResult(
        to, active, [&](const Expr& l) { return convert(simdSlotAt(a, ratio, l, part, call.loc)); },
        "vcvt", call.loc);
  return simdResult(
      to, active, [&](const Expr& l) { return convert(a.at(l)); }, "vcvt", call.loc);
}

// `acc = <register>` where `acc` is a T.simd.alloc_var: its lanes are written
// (a mutable register); any other register assignment binds the name.
bool Elaborator::assignSimdRegister(const Value* old, Value& v, bool readsName, SourceLoc loc) {
  bool oldMutable = old && old->kind == K::Buffer && simdMutable_.count(old->buffer->storage.get());
  if (!oldMutable) {
    // `b = acc` reads the mutable register now: `b` is a snapshot of its lanes
    // (a later write of `acc` or `b` does not reach the other); so is `b = v[i]`
    // of a register array.
    bool mutableSource = (v.kind == K::Buffer && simdMutable_.count(v.buffer->storage.get())) ||
                         (v.kind == K::Access && isSimdRegister(v));
    if (readsName && mutableSource) v = simdCopy(v, loc);
    return false;
  }
  if (!isSimdRegister(v))
    fail(loc, fmt::format("'{}' is a T.simd.alloc_var register; assign it the result of a T.simd "
                          "intrinsic, got {}",
                          old->buffer->name, describe(v)));
  storeSimdRegister(old->buffer, nullptr, v, loc);
  return true;
}

// A register value (a register or a row of a register array) copied into a
// fresh register.
Value Elaborator::simdCopy(const Value& v, SourceLoc loc) {
  SimdReg src =
      v.kind == K::Access ? SimdReg{v.buffer, v.access[0].start} : SimdReg{v.buffer, nullptr};
  return simdResult(
      src.dtype(), simdLanes(nullptr, src.dtype(), loc), [&](const Expr& l) { return src.at(l); },
      src.buf->name, loc);
}

// Writes every lane of register value `v` into `dst` (row `row` of a register
// array, or a whole mutable register).
void Elaborator::storeSimdRegister(const Buffer& dst, const Expr& row, const Value& v,
                                   SourceLoc loc) {
  SimdReg src =
      v.kind == K::Access ? SimdReg{v.buffer, v.access[0].start} : SimdReg{v.buffer, nullptr};
  if (dst->dtype != src.dtype())
    fail(loc, fmt::format("'{}' holds {} lanes, the value {} lanes", dst->name,
                          dtypeName(dst->dtype), dtypeName(src.dtype())));
  emitLanes(
      simdLanes(nullptr, dst->dtype, loc),
      [&](const Expr& l) {
        std::vector<Expr> idx = row ? std::vector<Expr>{row, l} : std::vector<Expr>{l};
        return std::make_shared<StoreStmt>(dst, idx, src.at(l), loc);
      },
      loc);
}

// `v[i] = <register>` for a T.simd.alloc_local array: row i's lanes are
// written; false for any other subscript store.
bool Elaborator::storeSimdArrayRow(const Value& target, const Value& v, SourceLoc loc) {
  if (target.kind != K::Access || !simdArrays_.count(target.buffer->storage.get())) return false;
  if (target.access.size() != 1 || target.access[0].isSlice)
    fail(loc, fmt::format("'{}' is an array of T.simd registers; assign one register: {}[i] = ...",
                          target.buffer->name, target.buffer->name));
  if (!isSimdRegister(v))
    fail(loc, fmt::format("'{}[i]' is a T.simd register; assign it the result of a T.simd "
                          "intrinsic, got {}",
                          target.buffer->name, describe(v)));
  storeSimdRegister(target.buffer, target.access[0].start, v, loc);
  return true;
}

}  // namespace tilesched::frontend
