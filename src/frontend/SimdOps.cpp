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
// Guarantees: intrinsics outside the supported set are "not supported yet"
// errors naming the intrinsic; widening, narrowing and interleaving
// distributions (UNPK, PK, DINTLV, ...) and merging mode likewise.
#include <deque>

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

bool isMask(const Value& v) { return v.kind == K::Opaque && v.s == kMaskTag; }

}  // namespace

bool Elaborator::isSimdRegister(const Value& v) const {
  return v.kind == K::Buffer && simdRegisters_.count(v.buffer->storage.get());
}

// The active elements of width `t` a mask argument selects (all without one).
Expr Elaborator::simdActive(const Value* mask, DType t, SourceLoc loc) {
  int64_t lanes = lanesOf(t);
  if (!mask || mask->kind == K::None) return intImm(lanes);
  if (!isMask(*mask))
    fail(loc, fmt::format("a T.simd mask must come from T.simd.pset or T.simd.update_mask, got {}",
                          describe(*mask)));
  int bits = static_cast<int>(mask->i), width = static_cast<int>(dtypeBytes(t) * 8);
  Expr active = mask->expr;
  // Same active bytes at another element width: ceil(n * bits / width).
  if (bits != width) active = floordiv(add(mul(active, bits), width - 1), intImm(width));
  if (auto c = asConstInt(active)) return intImm(std::min(*c, lanes));
  return binary(BinOp::Min, active, intImm(lanes));
}

// One T.Parallel over `lanes` lanes whose body `body(lane)` makes; under a
// run-time `active` count the body runs only for the active lanes.
void Elaborator::emitLanes(int64_t lanes, const Expr& active,
                           const std::function<Stmt(const Expr&)>& body, SourceLoc loc) {
  auto active0 = asConstInt(active);
  int64_t extent = active0 ? *active0 : lanes;
  if (extent <= 0) return;
  auto p = std::make_shared<ParallelStmt>(loc);
  Var lane = makeVar("lane", DType::Int32, VarKind::Loop);
  p->vars.push_back(lane);
  p->extents.push_back(extent);
  Stmt s = body(varRef(lane));
  if (!active0)
    s = std::make_shared<IfStmt>(binary(BinOp::LT, varRef(lane), active), s, nullptr, loc);
  p->body = s;
  currentCtx_->out->push_back(p);
}

// A fresh register of dtype `t`, every lane written by `lane(l)` (zero where
// `active` does not reach).
Value Elaborator::simdResult(DType t, const Expr& active,
                             const std::function<Expr(const Expr&)>& lane, const std::string& what,
                             SourceLoc loc) {
  int64_t lanes = lanesOf(t);
  Buffer r = makeBuffer(what, MemScope::Local, t, {intImm(lanes)}, loc);
  simdRegisters_.insert(r->storage.get());
  bool all = asConstInt(active) && *asConstInt(active) >= lanes;
  emitLanes(
      lanes, intImm(lanes),
      [&](const Expr& l) {
        Expr v = cast(t, lane(l));
        if (!all) v = select(binary(BinOp::LT, l, active), v, cast(t, intImm(0)));
        return std::make_shared<StoreStmt>(r, std::vector<Expr>{l}, v, loc);
      },
      loc);
  return Value::buf(r);
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
  auto reg = [&](size_t i, const char* kw) -> Buffer {
    const Value* v = arg(i, kw);
    if (!v) fail(call.loc, fmt::format("{} needs a vector register as its {}", what, kw));
    if (!isSimdRegister(*v))
      fail(where(i, kw), fmt::format("{} takes a vector register (the result of a T.simd "
                                     "intrinsic) as {}, got {}",
                                     what, kw, describe(*v)));
    return v->buffer;
  };
  auto zeroing = [&](size_t i) {
    std::string mode = text(i, "mode", "MODE_ZEROING");
    if (mode != "MODE_ZEROING")
      fail(where(i, "mode"), fmt::format("{}(..., mode=\"{}\") is not supported yet; tilesched "
                                         "models MODE_ZEROING (inactive lanes are zero)",
                                         what, mode));
  };
  auto lanesLoad = [&](const Buffer& r, const Expr& l) { return load(r, {l}); };
  // float8 lanes are moved (vld, vsts, vdupv, interleaves), never computed with.
  auto noFloat8 = [&](const Buffer& r) {
    rejectFloat8Compute({load(r, {intImm(0)})}, call.loc, what);
  };

  if (op == "pset" || op == "pge") {
    checkKeywords(call, what, {"dist"});
    if (args.empty()) fail(call.loc, fmt::format("{} takes (elem_width, dist=\"PAT_ALL\")", what));
    int64_t bits = toConstInt(args[0], argLoc(call, 0), "the predicate element width");
    if (bits != 8 && bits != 16 && bits != 32)
      fail(argLoc(call, 0),
           fmt::format("{} element width must be 8, 16 or 32, got {}", what, bits));
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
  if (op == "update_mask") {
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
  if (op == "mem_bar") {
    // Orders a VF's vector stores and loads; statements of a VF body already
    // run in order in tilesched.
    return Value::none();
  }
  if (op == "alloc_var") {
    checkKeywords(call, what, {"dtype"});
    const Value* d = arg(0, "dtype");
    if (!d) fail(call.loc, fmt::format("{} takes a dtype", what));
    DType t = toDType(*d, where(0, "dtype"));
    Buffer r = makeBuffer(simdNameHint_.empty() ? "vreg" : simdNameHint_, MemScope::Local, t,
                          {intImm(lanesOf(t))}, call.loc);
    simdRegisters_.insert(r->storage.get());
    simdMutable_.insert(r->storage.get());
    return Value::buf(r);
  }
  if (op == "vld") {
    checkKeywords(call, what, {"dist"});
    if (args.empty()) fail(call.loc, fmt::format("{} takes (address, dist=\"NORM\")", what));
    auto [b, off] = simdAddress(args[0], argLoc(call, 0), what);
    DType t = b->dtype;
    std::string dist = text(1, "dist", "NORM");
    std::string bits = std::to_string(dtypeBytes(t) * 8);
    bool norm = dist == "NORM" || dist == "NORM_B" + bits;
    bool brc = dist == "BRC_B" + bits;
    if (!norm && !brc)
      fail(where(1, "dist"),
           fmt::format("{}(..., dist=\"{}\") is not supported yet on {} data; tilesched models "
                       "NORM and BRC_B{}",
                       what, dist, dtypeName(t), bits));
    if (!brc) simdCheckSpan(b, off, lanesOf(t), what, "reads", call.loc);
    Buffer src = b;
    Expr base = off;
    return simdResult(
        t, intImm(lanesOf(t)),
        [&](const Expr& l) { return load(src, {brc ? base : add(base, l)}); }, "vld", call.loc);
  }
  if (op == "vsts") {
    checkKeywords(call, what, {"mask", "dist", "extent"});
    if (args.size() < 2) fail(call.loc, fmt::format("{} takes (address, vector, mask=None)", what));
    auto [b, off] = simdAddress(args[0], argLoc(call, 0), what);
    Buffer src = reg(1, "src");
    if (src->dtype != b->dtype)
      fail(argLoc(call, 1), fmt::format("{} stores {} lanes into '{}', which holds {}", what,
                                        dtypeName(src->dtype), b->name, dtypeName(b->dtype)));
    std::string dist = text(3, "dist", "NORM_B32");
    bool onePoint = dist.rfind("ONEPT_", 0) == 0;
    if (dist.rfind("NORM", 0) != 0 && !onePoint)
      fail(where(3, "dist"), fmt::format("{}(..., dist=\"{}\") is not supported yet; tilesched "
                                         "models NORM_B* and ONEPT_B*",
                                         what, dist));
    if (keyword(call, "extent"))
      fail(keyword(call, "extent")->loc,
           fmt::format("{}(..., extent=) is not supported yet", what));
    Expr active = simdActive(arg(2, "mask"), src->dtype, call.loc);
    if (onePoint) active = binary(BinOp::Min, active, intImm(1));
    if (auto c = asConstInt(active)) {
      active = intImm(*c);
      simdCheckSpan(b, off, *c, what, "writes", call.loc);
    }
    Buffer dst = b;
    Expr base = off;
    emitLanes(
        lanesOf(src->dtype), active,
        [&](const Expr& l) {
          return std::make_shared<StoreStmt>(dst, std::vector<Expr>{add(base, l)}, load(src, {l}),
                                             call.loc);
        },
        call.loc);
    return Value::none();
  }
  static const std::map<std::string, BinOp> kBinary = {{"vadd", BinOp::Add}, {"vsub", BinOp::Sub},
                                                       {"vmul", BinOp::Mul}, {"vdiv", BinOp::Div},
                                                       {"vmax", BinOp::Max}, {"vmin", BinOp::Min}};
  if (auto it = kBinary.find(op); it != kBinary.end()) {
    checkKeywords(call, what, {"mask", "mode", "precision"});
    Buffer a = reg(0, "src0"), b = reg(1, "src1");
    if (a->dtype != b->dtype)
      fail(call.loc, fmt::format("{} needs two registers of one dtype, got {} and {}", what,
                                 dtypeName(a->dtype), dtypeName(b->dtype)));
    if (it->second == BinOp::Div && !isFloat(a->dtype))
      fail(call.loc, fmt::format("{} on {} lanes is not supported yet", what, dtypeName(a->dtype)));
    zeroing(3);
    noFloat8(a);
    Expr active = simdActive(arg(2, "mask"), a->dtype, call.loc);
    BinOp bop = it->second;
    return simdResult(
        a->dtype, active,
        [&](const Expr& l) { return binary(bop, lanesLoad(a, l), lanesLoad(b, l)); }, op, call.loc);
  }
  static const std::map<std::string, BinOp> kScalar = {
      {"vadds", BinOp::Add}, {"vmuls", BinOp::Mul}, {"vmaxs", BinOp::Max}, {"vmins", BinOp::Min}};
  if (auto it = kScalar.find(op); it != kScalar.end()) {
    checkKeywords(call, what, {"mask", "mode"});
    Buffer a = reg(0, "src");
    if (args.size() < 2) fail(call.loc, fmt::format("{} takes (vector, scalar, mask=None)", what));
    noFloat8(a);
    Expr x = cast(a->dtype, toExpr(args[1], argLoc(call, 1), a->dtype));
    zeroing(3);
    Expr active = simdActive(arg(2, "mask"), a->dtype, call.loc);
    BinOp bop = it->second;
    return simdResult(
        a->dtype, active, [&](const Expr& l) { return binary(bop, lanesLoad(a, l), x); }, op,
        call.loc);
  }
  static const std::map<std::string, UnOp> kUnary = {{"vexp", UnOp::Exp},
                                                     {"vln", UnOp::Log},
                                                     {"vsqrt", UnOp::Sqrt},
                                                     {"vabs", UnOp::Abs},
                                                     {"vneg", UnOp::Neg}};
  auto unaryLanes = [&](const std::function<Expr(const Expr&)>& f) {
    checkKeywords(call, what, {"mask", "mode", "precision"});
    Buffer a = reg(0, "src");
    noFloat8(a);
    if (op != "vabs" && op != "vneg" && !isFloat(a->dtype))
      fail(call.loc, fmt::format("{} on {} lanes is not supported", what, dtypeName(a->dtype)));
    zeroing(2);
    Expr active = simdActive(arg(1, "mask"), a->dtype, call.loc);
    return simdResult(
        a->dtype, active, [&](const Expr& l) { return f(load(a, {l})); }, op, call.loc);
  };
  if (auto it = kUnary.find(op); it != kUnary.end()) {
    UnOp uop = it->second;
    return unaryLanes([&](const Expr& x) { return unary(uop, x); });
  }
  if (op == "vrelu")
    return unaryLanes(
        [&](const Expr& x) { return binary(BinOp::Max, x, cast(x->dtype, intImm(0))); });
  if (op == "vabsdif" || op == "vexpdif") {
    checkKeywords(call, what, {"mask", "mode"});
    Buffer a = reg(0, "src0"), b = reg(1, "src1");
    noFloat8(a);
    if (a->dtype != b->dtype || !isFloat(a->dtype))
      fail(call.loc, fmt::format("{} needs two float registers of one dtype, got {} and {}", what,
                                 dtypeName(a->dtype), dtypeName(b->dtype)));
    zeroing(3);
    Expr active = simdActive(arg(2, "mask"), a->dtype, call.loc);
    UnOp uop = op == "vabsdif" ? UnOp::Abs : UnOp::Exp;
    return simdResult(
        a->dtype, active,
        [&](const Expr& l) { return unary(uop, sub(lanesLoad(a, l), lanesLoad(b, l))); }, op,
        call.loc);
  }
  if (op == "vlrelu") {
    checkKeywords(call, what, {"mask"});
    Buffer a = reg(0, "src");
    noFloat8(a);
    if (!isFloat(a->dtype))
      fail(call.loc, fmt::format("{} on {} lanes is not supported", what, dtypeName(a->dtype)));
    if (args.size() < 2) fail(call.loc, fmt::format("{} takes (vector, alpha, mask=None)", what));
    Expr alpha = cast(a->dtype, toExpr(args[1], argLoc(call, 1), a->dtype));
    Expr active = simdActive(arg(2, "mask"), a->dtype, call.loc);
    DType t = a->dtype;
    return simdResult(
        t, active,
        [&](const Expr& l) {
          Expr x = lanesLoad(a, l);
          return select(binary(BinOp::GE, x, cast(t, intImm(0))), x, binary(BinOp::Mul, alpha, x));
        },
        op, call.loc);
  }
  if (op == "vintlv" || op == "vdintlv") {
    // vintlv(x, y): (x0 y0 x1 y1 ...) over the low halves, then the high
    // halves; vdintlv(a, b) undoes it: the even and the odd elements of a ++ b.
    checkKeywords(call, what, {});
    Buffer a = reg(0, "src0"), b = reg(1, "src1");
    if (a->dtype != b->dtype)
      fail(call.loc, fmt::format("{} needs two registers of one dtype, got {} and {}", what,
                                 dtypeName(a->dtype), dtypeName(b->dtype)));
    int64_t lanes = lanesOf(a->dtype), half = lanes / 2;
    std::vector<Value> out;
    for (int64_t part = 0; part < 2; ++part)
      out.push_back(simdResult(
          a->dtype, intImm(lanes),
          [&](const Expr& l) {
            if (op == "vintlv") {
              Expr from = add(floordiv(l, intImm(2)), intImm(part * half));
              return select(binary(BinOp::EQ, floormod(l, intImm(2)), intImm(0)), load(a, {from}),
                            load(b, {from}));
            }
            // Element 2l + part of a ++ b; both loads stay in bounds.
            Expr j = add(mul(l, 2), intImm(part));
            Expr inA = binary(BinOp::Min, j, intImm(lanes - 1));
            Expr inB = binary(BinOp::Max, sub(j, intImm(lanes)), intImm(0));
            return select(binary(BinOp::LT, j, intImm(lanes)), load(a, {inA}), load(b, {inB}));
          },
          op, call.loc));
    return Value::tuple(std::move(out));
  }
  if (op == "vdup") {
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
    Expr active = simdActive(arg(2, "mask"), t, call.loc);
    return simdResult(
        t, active, [&](const Expr&) { return x; }, "vdup", call.loc);
  }
  if (op == "vdupv") {
    checkKeywords(call, what, {"mask", "pos", "mode"});
    Buffer a = reg(0, "src");
    std::string pos = text(2, "pos", "POS_LOWEST");
    if (pos != "POS_LOWEST" && pos != "POS_HIGHEST")
      fail(where(2, "pos"),
           fmt::format("{} pos= is POS_LOWEST or POS_HIGHEST, got \"{}\"", what, pos));
    zeroing(3);
    Expr active = simdActive(arg(1, "mask"), a->dtype, call.loc);
    Expr from = intImm(pos == "POS_LOWEST" ? 0 : lanesOf(a->dtype) - 1);
    return simdResult(
        a->dtype, active, [&](const Expr&) { return load(a, {from}); }, "vdupv", call.loc);
  }
  fail(call.loc, fmt::format("{} is not supported yet; tilesched models T.simd.pset, "
                             "update_mask, vld, vsts, vadd/vsub/vmul/vdiv/vmax/vmin, "
                             "vadds/vmuls/vmaxs/vmins, vexp/vln/vsqrt/vabs/vneg/vrelu, vabsdif, "
                             "vexpdif, vlrelu, vintlv/vdintlv, vdup, vdupv, alloc_var and mem_bar "
                             "(docs/language.md)",
                             what));
}

// `acc = <register>` where `acc` is a T.simd.alloc_var: its lanes are written
// (a mutable register); any other register assignment binds the name.
bool Elaborator::assignSimdRegister(const Value* old, Value& v, bool readsName, SourceLoc loc) {
  bool oldMutable = old && old->kind == K::Buffer && simdMutable_.count(old->buffer->storage.get());
  if (!oldMutable) {
    // `b = acc` reads the mutable register now: `b` is a snapshot of its lanes
    // (a later write of `acc` or `b` does not reach the other).
    if (readsName && v.kind == K::Buffer && simdMutable_.count(v.buffer->storage.get())) {
      Buffer src = v.buffer;
      v = simdResult(
          src->dtype, intImm(lanesOf(src->dtype)), [&](const Expr& l) { return load(src, {l}); },
          src->name, loc);
    }
    return false;
  }
  if (!isSimdRegister(v))
    fail(loc, fmt::format("'{}' is a T.simd.alloc_var register; assign it the result of a T.simd "
                          "intrinsic, got {}",
                          old->buffer->name, describe(v)));
  Buffer dst = old->buffer, src = v.buffer;
  if (dst->dtype != src->dtype)
    fail(loc, fmt::format("'{}' holds {} lanes, the value {} lanes", dst->name,
                          dtypeName(dst->dtype), dtypeName(src->dtype)));
  emitLanes(
      lanesOf(dst->dtype), intImm(lanesOf(dst->dtype)),
      [&](const Expr& l) {
        return std::make_shared<StoreStmt>(dst, std::vector<Expr>{l}, load(src, {l}), loc);
      },
      loc);
  return true;
}

}  // namespace tilesched::frontend
