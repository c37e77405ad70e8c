// Elaboration of tile operations (T.copy, T.gemm, T.fill/T.clear,
// reductions, explicit flags) and of the three annotations (SPEC §1.5,
// §2.1–2.3). Each operation checks its operands' scopes, shapes and keywords
// and reports what would be legal.
#include <fmt/format.h>

#include "frontend/ElaboratorImpl.h"
#include "ir/IROperator.h"

namespace tilesched::frontend {

using K = Value::Kind;
using namespace ir;

namespace {

// Pipe and hard-event names are matched case-insensitively ("PIPE_V", "v").
std::string upperCase(std::string text) {
  for (auto& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

std::string extentsText(const std::vector<int64_t>& e) {
  std::string s = "(";
  for (size_t i = 0; i < e.size(); ++i) s += (i ? ", " : "") + std::to_string(e[i]);
  return s + (e.size() == 1 ? ",)" : ")");
}

std::vector<int64_t> extentsOf(const Region& r) {
  std::vector<int64_t> e;
  for (const auto& range : r.ranges) e.push_back(range.extent);
  return e;
}

// Extents with leading 1s dropped: how copies line up operands (SPEC §1.5).
std::vector<int64_t> significant(std::vector<int64_t> e) {
  size_t i = 0;
  while (i + 1 < e.size() && e[i] == 1) ++i;
  return {e.begin() + static_cast<long>(i), e.end()};
}

// The source's significant extents, lined up from the right, each fit inside
// the destination's: the copy can be padded (pad_value=).
bool fitsInside(const Region& src, const Region& dst) {
  std::vector<int64_t> s = significant(extentsOf(src)), d = extentsOf(dst);
  if (s.size() > d.size()) return false;
  for (size_t i = 0; i < s.size(); ++i)
    if (s[s.size() - 1 - i] > d[d.size() - 1 - i]) return false;
  return true;
}

bool isHeadAddress(const Value& v) {
  if (v.kind != K::Access) return false;
  for (const auto& a : v.access)
    if (a.isSlice) return false;
  return true;
}

std::optional<Pipe> copyPipe(MemScope src, MemScope dst) {
  using S = MemScope;
  if (src == S::Global && (dst == S::UB || dst == S::L1)) return Pipe::MTE2;
  if (src == S::UB && (dst == S::Global || dst == S::L1)) return Pipe::MTE3;
  if (src == S::L1 && (dst == S::L0A || dst == S::L0B)) return Pipe::MTE1;
  if (src == S::L0C && (dst == S::UB || dst == S::Global)) return Pipe::FIX;
  bool vecSide = [](S s) { return s == S::UB || s == S::Fragment || s == S::Local; }(src);
  bool vecOther = [](S s) { return s == S::UB || s == S::Fragment || s == S::Local; }(dst);
  if (vecSide && vecOther) return Pipe::V;
  return std::nullopt;
}

}  // namespace

Region Elaborator::toRegion(const Value& v, SourceLoc loc, const std::string& what, bool copyTail) {
  if (v.kind == K::Buffer) {
    Region r{v.buffer, {}};
    auto shape = constShape(v.buffer);
    if (!shape)
      fail(loc, fmt::format(
                    "{} '{}' has a symbolic shape; give an explicit region with constant extents",
                    what, v.buffer->name));
    for (auto d : *shape) r.ranges.push_back({intImm(0), d});
    return r;
  }
  if (v.kind != K::Access) {
    if (v.kind == K::Undefined)
      fail(loc, fmt::format("{} could not be evaluated at compile time: {}", what, v.s));
    fail(loc, fmt::format("{} must be a buffer or a buffer region, got {}", what, typeName(v)));
  }
  Region r{v.buffer, {}};
  auto shape = constShape(v.buffer);
  for (size_t i = 0; i < v.access.size(); ++i) {
    const AccessIndex& a = v.access[i];
    if (!a.isSlice) {
      r.ranges.push_back({a.start, 1});
      continue;
    }
    Expr start = a.start ? a.start : intImm(0);
    Expr stop = a.stop ? a.stop : v.buffer->shape[i];
    // `end = begin + TILE; A[begin:end]`: the extent through the names' values.
    auto extent = scalarBindings_.constExtent(stop, start);
    if (!extent)
      fail(a.loc, fmt::format("the extent of this slice of '{}' is not a compile-time constant",
                              v.buffer->name));
    if (*extent < 1)
      fail(a.loc, fmt::format("slice of '{}' in dimension {} is empty (extent {})", v.buffer->name,
                              i, *extent));
    r.ranges.push_back({start, *extent});
  }
  int64_t elements = 1;
  for (const auto& range : r.ranges)
    if (__builtin_mul_overflow(elements, range.extent, &elements) || elements > kMaxElements)
      fail(loc,
           fmt::format("{} region of '{}' may hold at most 2^40 elements", what, v.buffer->name));
  // Provably out-of-bounds boxes are compile errors (SPEC §1.6), except the
  // global side of a T.copy that starts inside the tensor and runs past its
  // end: a tail, clipped there as at run time (upstream pads such tiles).
  for (size_t i = 0; shape && i < r.ranges.size(); ++i) {
    auto start = asConstInt(r.ranges[i].min);
    int64_t size = (*shape)[i];
    bool past = r.ranges[i].extent > size || (start && *start + r.ranges[i].extent > size);
    bool before = start && (*start < 0 || *start >= size);
    if (!past && !before) continue;
    SourceLoc where = i < v.access.size() ? v.access[i].loc : loc;
    std::string box = fmt::format("region [{}:{}]", start ? std::to_string(*start) : "?",
                                  start ? std::to_string(*start + r.ranges[i].extent)
                                        : "?+" + std::to_string(r.ranges[i].extent));
    if (copyTail && !before && start && v.buffer->storage->scope == MemScope::Global) {
      warning(where, fmt::format("{} runs past the end of dimension {} of '{}' (size {}); the "
                                 "copy is clipped at the tensor's end, a tail (docs/simulator.md)",
                                 box, i, v.buffer->name, size));
      continue;
    }
    fail(where, fmt::format("{} is out of bounds for dimension {} of '{}' (size {})", box, i,
                            v.buffer->name, size));
  }
  return r;
}

bool Elaborator::elabTileOp(const std::string& name, const py::Expr& call, Env& env,
                            BlockCtx& ctx) {
  if (name == "copy") return elabCopy(call, env, ctx), true;
  if (name == "gemm") return elabGemm(call, env, ctx), true;
  if (name == "fill") return elabFill(call, env, ctx, false), true;
  if (name == "clear") return elabFill(call, env, ctx, true), true;
  static const std::map<std::string, ReduceKind> kReduce = {{"reduce_sum", ReduceKind::Sum},
                                                            {"reduce_max", ReduceKind::Max},
                                                            {"reduce_min", ReduceKind::Min},
                                                            {"reduce_abssum", ReduceKind::AbsSum},
                                                            {"reduce_absmax", ReduceKind::AbsMax}};
  if (auto it = kReduce.find(name); it != kReduce.end())
    return elabReduce(it->second, name, call, env, ctx), true;
  if (name == "set_flag" || name == "wait_flag" || name == "pipe_barrier" || name == "barrier_all")
    return elabFlag(name, call, env, ctx), true;
  if (name == "ascend_pipe_barrier" || name == "ascend_set_flag" || name == "ascend_wait_flag")
    return elabAscendFlag(name, call, env, ctx), true;
  if (name == "ascend_cross_core_set_flag" || name == "ascend_cross_core_wait_flag" ||
      name == "ascend_sync_inter_arrive" || name == "ascend_sync_inter_wait")
    return elabCrossCoreFlag(name, call, env, ctx), true;
  if (name == "dual_copy") return elabDualCopy(call, env, ctx), true;
  if (name == "ascend_get_buf" || name == "ascend_rls_buf")
    return elabBufferLock(name, call, env, ctx), true;
  if (name == "set_atomic" || name == "set_atomic_none")
    return elabSetAtomic(name, call, env, ctx), true;
  if (name == "ascend_set_copy_pad_value") return elabSetCopyPadValue(call, env, ctx), true;
  if (name == "annotate_buffer_versions") return annotateBufferVersions(call, env), true;
  if (name == "annotate_manual_multi_buffer") return annotateManual(call, env), true;
  if (name == "annotate_unlimit_memory") return annotateUnlimit(call, env), true;
  if (name == "assume") return elabAssume(call, env, &ctx), true;
  if (name == "assume_conflict") {
    // A hint that two buffers' accesses must be ordered as if they overlapped.
    // tilesched's buffers overlap only through views of one storage, which it
    // orders by the bytes they touch, so the hint changes nothing (checked:
    // both operands are buffers or slices).
    checkKeywords(call, "T.assume_conflict", {"cross"});
    auto a = positional(call, env);
    if (a.size() != 2 || (a[0].kind != K::Buffer && a[0].kind != K::Access) ||
        (a[1].kind != K::Buffer && a[1].kind != K::Access))
      fail(call.loc, "T.assume_conflict takes two buffers or slices: T.assume_conflict(a, b)");
    warning(call.loc,
            "T.assume_conflict has no effect: tilesched orders the accesses of two "
            "buffers by the bytes they touch, and distinct allocations never overlap");
    return true;
  }
  if (name == "assume_no_conflict") {
    // A hint that the accesses to a region never conflict (across loop
    // iterations at `level`, across cores with `cross=True`), which lets
    // upstream's scheduler drop dependences it cannot disprove. tilesched's
    // dependences come from the exact regions, so the hint is only checked.
    checkKeywords(call, "T.assume_no_conflict", {"level", "cross"});
    auto a = positional(call, env);
    if (a.size() != 1 || (a[0].kind != K::Buffer && a[0].kind != K::Access))
      fail(call.loc,
           "T.assume_no_conflict takes one buffer or slice: T.assume_no_conflict(a[...])");
    warning(call.loc,
            "T.assume_no_conflict has no effect: tilesched derives dependences from the exact "
            "regions each access touches, so there is nothing the hint could remove");
    return true;
  }
  if (name == "annotate_layout") {
    // A buffer's physical layout (a fragment's thread mapping, UB's NZ
    // fractals). tilesched indexes every buffer logically, so the layout
    // changes no value: the keys are checked, the layouts (lambdas, helper
    // calls) are not evaluated, and the warning says so.
    checkKeywords(call, "T.annotate_layout", {});
    if (call.elts.size() != 1 || call.elts[0]->kind != py::ExprKind::Dict)
      fail(call.loc, "T.annotate_layout takes one dict: {buffer: layout, ...}");
    for (const auto& key : call.elts[0]->keys) {
      if (!key) fail(call.loc, "T.annotate_layout takes one dict: {buffer: layout, ...}");
      if (eval(*key, env).kind != K::Buffer)
        fail(key->loc, "the keys of T.annotate_layout are buffers");
    }
    warning(call.loc,
            "T.annotate_layout has no effect in tilesched: buffers are indexed logically, and "
            "a layout changes only where the elements sit (the simulator does not model "
            "bank or fractal placement)");
    return true;
  }
  if (name == "print") {
    // A device-side debug print: checked, then left out (the simulator has
    // no print statement yet), which the warning says.
    checkKeywords(call, "T.print", {"msg"});
    auto a = positional(call, env);
    if (a.size() != 1)
      fail(call.loc, fmt::format("T.print takes one value or buffer ({} given)", a.size()));
    warning(call.loc,
            "T.print is not simulated yet: tilesched runs the kernel without it and "
            "prints nothing");
    return true;
  }
  if (name == "set_hf32_mode") {
    // The cube's HF32 mode for float32 operands: None turns it off; a
    // rounding mode turns it on, which tilesched does not model (the format
    // and its rounding are target-defined), so it says so.
    checkKeywords(call, "T.set_hf32_mode", {});
    auto a = positional(call, env);
    if (a.size() != 1)
      fail(call.loc, fmt::format("T.set_hf32_mode takes one mode ({} given)", a.size()));
    if (a[0].kind == K::None) return true;
    if (a[0].kind != K::Str || (a[0].s != "nearest_zero" && a[0].s != "nearest_even"))
      fail(argLoc(call, 0),
           fmt::format("T.set_hf32_mode takes None, \"nearest_zero\" or \"nearest_even\", got {}",
                       describe(a[0])));
    warning(call.loc,
            fmt::format("T.set_hf32_mode(\"{}\") is not modelled: the simulator multiplies "
                        "float32 gemm operands in float32, without HF32 rounding, so the device's "
                        "results can differ in the low mantissa bits",
                        a[0].s));
    return true;
  }
  if (name == "finalize_reducer") return elabFinalizeReducer(call, env), true;
  if (name == "atomic_add" || name == "atomic_max" || name == "atomic_min")
    return elabAtomicUpdate(name, call, env, ctx, false), true;
  return false;
}

// T.atomic_add/max/min(G[i], v): an atomic read-modify-write of one element of
// global memory (TileLang's per-thread atomics, e.g. every SIMT thread adding
// into one counter). A store `G[i] = G[i] op v` marked atomic: atomic updates
// of one kind do not race, and blocks apply theirs in block-id order
// (docs/simulator.md). With return_prev=True, used as a value inside a VF
// region, it also yields the element before the update (StoreStmt::prev).
Expr Elaborator::elabAtomicUpdate(const std::string& name, const py::Expr& call, Env& env,
                                  BlockCtx& ctx, bool wantPrev) {
  const std::string what = "T." + name;
  checkKeywords(call, what, {"return_prev", "memory_order"});
  bool returnPrev = false;
  if (const py::Keyword* k = keyword(call, "return_prev")) {
    Value v = eval(*k->value, env);
    if (!v.isConstant()) fail(k->value->loc, "return_prev= must be a compile-time True or False");
    returnPrev = truthy(v, k->value->loc);
  }
  if (wantPrev && !returnPrev)
    fail(call.loc, fmt::format("{}(...) has a value only with return_prev=True (the element "
                               "before the update); call it as a statement otherwise",
                               what));
  if (wantPrev && !ctx.inVF)
    fail(call.loc, fmt::format("the value of {}(..., return_prev=True) outside a VF region is "
                               "not supported yet; update inside a T.SimtVF region",
                               what));
  auto args = positional(call, env);
  if (args.size() != 2)
    fail(call.loc, fmt::format("{} takes an element of a global tensor and a value: "
                               "{}(C[i], v) ({} given)",
                               what, what, args.size()));
  const Value& dst = args[0];
  bool element = dst.kind == K::Access && dst.buffer->storage->scope == MemScope::Global;
  for (size_t i = 0; element && i < dst.access.size(); ++i) element = !dst.access[i].isSlice;
  if (!element)
    fail(argLoc(call, 0), fmt::format("{} updates one element of a global tensor, e.g. "
                                      "{}(C[i], v); got {}",
                                      what, what, describe(dst)));
  Buffer b = dst.buffer;
  if (!isFloat(b->dtype) && b->dtype != DType::Int32)
    fail(argLoc(call, 0), fmt::format("{} supports float32, float16, bfloat16 and int32 "
                                      "elements; '{}' is {}",
                                      what, b->name, dtypeName(b->dtype)));
  Expr v = cast(b->dtype, toExpr(args[1], argLoc(call, 1), b->dtype));
  if (containsLoad(v))
    fail(argLoc(call, 1), fmt::format("the value of {} must not read a buffer; load it into a "
                                      "scalar first (x = buf[i]) and pass the scalar",
                                      what));
  std::vector<Expr> idx;
  for (const auto& a : dst.access) idx.push_back(a.start);
  AtomicOp op = name == "atomic_add"   ? AtomicOp::Add
                : name == "atomic_max" ? AtomicOp::Max
                                       : AtomicOp::Min;
  auto st = std::make_shared<StoreStmt>(b, idx, atomicUpdateValue(op, load(b, idx), v), call.loc);
  st->atomic = op;
  if (wantPrev) {
    // Named after the assignment's target (`old = T.atomic_add(...)`), which
    // then names this scalar itself, so the printed IR reads back the same.
    st->prev = makeVar(simdNameHint_.empty() ? b->name + "_prev" : simdNameHint_, b->dtype,
                       VarKind::Local);
    lastPrevVar_ = st->prev;
  }
  ctx.out->push_back(st);
  return wantPrev ? varRef(st->prev) : nullptr;
}

// T.finalize_reducer(r) combines the threads' partial values of a reducer. The
// threads' contributions already went into the one fragment, in order, so only
// the argument is checked (docs/language.md, "Reducers").
void Elaborator::elabFinalizeReducer(const py::Expr& call, Env& env) {
  checkKeywords(call, "T.finalize_reducer", {});
  auto args = positional(call, env);
  if (args.size() != 1)
    fail(call.loc, fmt::format("T.finalize_reducer takes one reducer ({} given)", args.size()));
  if (args[0].kind != K::Buffer || !reducers_.count(args[0].buffer->storage.get()))
    fail(argLoc(call, 0), fmt::format("T.finalize_reducer needs a buffer made by T.alloc_reducer, "
                                      "got {}",
                                      describe(args[0])));
}

// transpose=True on a T.copy (checked where the keyword is read).
bool Elaborator::transposeRequested(const py::Expr& call, Env& env) {
  const py::Keyword* kw = keyword(call, "transpose");
  if (!kw) return false;
  Value v = eval(*kw->value, env);
  return v.isConstant() && truthy(v, kw->value->loc);
}

// A global→L1 copy of a box smaller than the L1 tile in every dimension (after
// transpose=True) fills the tile's top-left corner, as upstream's padded
// nd2nz copy does for the tail tiles of a GEMM (test_gemm_padded_copy: a
// (128, 96) weight transposed into a (112, 128) tile): the destination region
// becomes that corner, and the rest of the tile keeps what it held.
void Elaborator::narrowToTopLeftCorner(const Region& src, Region& dst, bool transposed) {
  // Transposed: the last two extents swap before the leading 1s go, so a
  // one-row box (1, k) lands as a column (k, 1).
  std::vector<int64_t> raw = extentsOf(src);
  if (transposed && raw.size() >= 2) std::swap(raw[raw.size() - 2], raw[raw.size() - 1]);
  std::vector<int64_t> box = significant(raw);
  if (box.size() > dst.ranges.size()) return;
  size_t lead = dst.ranges.size() - box.size();
  for (size_t i = 0; i < dst.ranges.size(); ++i) {
    int64_t want = i < lead ? 1 : box[i - lead];
    if (want > dst.ranges[i].extent) return;
  }
  for (size_t i = 0; i < dst.ranges.size(); ++i)
    dst.ranges[i].extent = i < lead ? 1 : box[i - lead];
}

// A T.copy operand given as a head address (`A[i, j]`) takes its extents
// from the other operand, lined up from the right.
Region Elaborator::copyRegionFromHead(const Value& head, const Region& other, SourceLoc loc) {
  std::vector<int64_t> ext = significant(extentsOf(other));
  size_t rank = head.access.size();
  if (ext.size() > rank)
    fail(loc, fmt::format("T.copy region {} does not fit the rank-{} buffer '{}'", extentsText(ext),
                          rank, head.buffer->name));
  Value acc = head;
  for (size_t i = 0; i < rank; ++i) {
    size_t fromRight = rank - 1 - i;
    if (fromRight < ext.size()) {
      int64_t e = ext[ext.size() - 1 - fromRight];
      acc.access[i].isSlice = true;
      acc.access[i].stop = add(acc.access[i].start, e);
    }
  }
  return toRegion(acc, loc, "T.copy operand", /*copyTail=*/true);
}

void Elaborator::elabCopy(const py::Expr& call, Env& env, BlockCtx& ctx) {
  requireNotElementwise("T.copy", call.loc, ctx);
  checkKeywords(call, "T.copy",
                {"l2_cache_ctrl", "unit_flag_ctrl", "pad_value", "data_select", "transpose"});
  auto args = positional(call, env);
  if (args.size() != 2)
    fail(call.loc, fmt::format("T.copy takes a source and a destination ({} given)", args.size()));
  SourceLoc srcLoc = argLoc(call, 0), dstLoc = argLoc(call, 1);
  bool srcHead = isHeadAddress(args[0]), dstHead = isHeadAddress(args[1]);
  if (srcHead && dstHead)
    fail(call.loc,
         "both operands of T.copy are single elements; give one of them as a buffer or a slice");
  Region src, dst;
  if (srcHead) {
    dst = toRegion(args[1], dstLoc, "T.copy destination", /*copyTail=*/true);
    src = copyRegionFromHead(args[0], dst, srcLoc);
  } else if (dstHead) {
    src = toRegion(args[0], srcLoc, "T.copy source", /*copyTail=*/true);
    dst = copyRegionFromHead(args[1], src, dstLoc);
  } else {
    src = toRegion(args[0], srcLoc, "T.copy source", /*copyTail=*/true);
    dst = toRegion(args[1], dstLoc, "T.copy destination", /*copyTail=*/true);
  }
  MemScope s = src.buffer->storage->scope, d = dst.buffer->storage->scope;
  // Inside a SIMT region, and between global memory and a fragment (which has
  // no DMA path), the elements are moved one by one.
  bool fragment = s == MemScope::Fragment || d == MemScope::Fragment;
  if ((ctx.inSimt || fragment) && (s == MemScope::Global || d == MemScope::Global) &&
      !ctx.inParallel)
    return elabSimtCopy(call, src, dst, ctx);
  // data_select=True pads like pad_value= with the value of the pad register.
  Expr padValue;
  const py::Keyword* padKw = keyword(call, "pad_value");
  if (const py::Keyword* sel = keyword(call, "data_select")) {
    Value on = eval(*sel->value, env);
    if (!on.isConstant())
      fail(sel->value->loc, "data_select= must be a compile-time True or False");
    if (truthy(on, sel->value->loc)) {
      if (padKw)
        fail(sel->loc,
             "pad_value= and data_select=True exclude each other: pad_value= sets the "
             "pad value for this copy, data_select=True reuses the one set by "
             "T.ascend_set_copy_pad_value");
      if (!padRegister_.value)
        fail(sel->loc,
             padRegister_.droppedAt
                 ? fmt::format("data_select=True pads with the value of "
                               "T.ascend_set_copy_pad_value, but the one at line {} is inside a "
                               "loop, branch or VF body that ends before this copy; set it in "
                               "the same body as the copy, or around it",
                               padRegister_.droppedAt->line)
                 : std::string("data_select=True pads with the value of "
                               "T.ascend_set_copy_pad_value(v, dtype=...), which is not called "
                               "before this copy; call it first, or give pad_value=v"));
      if (padRegister_.dtype != dst.buffer->dtype)
        fail(sel->loc, fmt::format("the pad register holds a {} value (T.ascend_set_copy_pad_value "
                                   "at line {}) but '{}' is {}",
                                   dtypeName(padRegister_.dtype), padRegister_.loc.line,
                                   dst.buffer->name, dtypeName(dst.buffer->dtype)));
      padValue = padRegister_.value;
      padKw = sel;
    }
  }
  if (padKw && s != MemScope::Global)
    fail(padKw->loc, fmt::format("{}= is only supported for copies from global memory "
                                 "(global→shared, global→shared.l1), not from {}",
                                 padKw->name, memScopeName(s)));
  if (padKw && d == MemScope::UB) padRowsTo32Bytes(dst);
  if (!padKw && s == MemScope::Global && d == MemScope::L1 &&
      src.numElements() != dst.numElements())
    narrowToTopLeftCorner(src, dst, transposeRequested(call, env));
  if (src.numElements() != dst.numElements() && !(padKw && fitsInside(src, dst))) {
    std::string hint;
    if (padKw)
      hint =
          "; with pad_value= the source must fit inside the destination in every dimension "
          "(lined up from the right)";
    else if (s == MemScope::Global && fitsInside(src, dst))
      hint = "; give pad_value= to fill the rest of the destination";
    fail(call.loc,
         fmt::format("T.copy moves {} elements from '{}' {} but the destination '{}' {} holds {}{}",
                     src.numElements(), src.buffer->name, extentsText(extentsOf(src)),
                     dst.buffer->name, extentsText(extentsOf(dst)), dst.numElements(), hint));
  }
  auto pipe = copyPipe(s, d);
  if (!pipe)
    fail(call.loc,
         fmt::format("T.copy from {} to {} is not supported; legal paths: global→shared, "
                     "global→shared.l1, shared→global, shared→shared.l1, "
                     "shared.l1→shared.l0a/l0b, shared.l0c→shared/global, and vector moves "
                     "between shared and local buffers",
                     memScopeName(s), memScopeName(d)));
  if (ctx.inVF && *pipe != Pipe::V)
    fail(call.loc, fmt::format("T.copy from {} to {} runs on {} and is not allowed inside a VF "
                               "region; only vector (V) operations are",
                               memScopeName(s), memScopeName(d), pipeName(*pipe)));
  auto op = std::make_shared<CopyStmt>(src, dst, *pipe, call.loc);
  op->atomic = atomicStoreOp(call, src, dst);
  for (const auto& kw : call.keywords) {
    if (kw.name == "transpose") {
      // A real transpose of a 2-D box: dst[i, j] = src[j, i]; False is a plain copy.
      Value v = eval(*kw.value, env);
      if (!v.isConstant()) fail(kw.value->loc, "transpose= must be a compile-time True or False");
      if (!truthy(v, kw.value->loc)) continue;
      bool toL0 = s == MemScope::L1 && (d == MemScope::L0A || d == MemScope::L0B);
      if (!(s == MemScope::Global && d == MemScope::L1) && !toL0)
        fail(kw.loc,
             "transpose=True is only supported for global→shared.l1 and "
             "shared.l1→shared.l0a/l0b copies");
      std::vector<int64_t> raw = extentsOf(src);
      if (raw.size() >= 2) std::swap(raw[raw.size() - 2], raw[raw.size() - 1]);
      std::vector<int64_t> se = significant(raw), de = significant(extentsOf(dst));
      if (se.size() > 2 || de.size() > 2 || se != de)
        fail(kw.loc, fmt::format("transpose=True copies a 2-D box (a, b) into a (b, a) one, but "
                                 "the source is {} and the destination {}",
                                 extentsText(extentsOf(src)), extentsText(extentsOf(dst))));
      op->transpose = true;
      continue;
    }
    if (kw.name == "pad_value") {
      // A real operand: the value of every destination element outside the source.
      Value v = eval(*kw.value, env);
      op->padValue = cast(dst.buffer->dtype, toExpr(v, kw.value->loc, dst.buffer->dtype));
      // The dependence analyses see a copy's regions only, not its operands.
      if (containsLoad(op->padValue))
        fail(kw.value->loc,
             "pad_value= must not read a buffer; load the value into a scalar "
             "first (v = buf[i]) and pass the scalar");
      continue;
    }
    if (kw.name == "data_select") {
      op->padValue = padValue;
      continue;
    }
    Value v = eval(*kw.value, env);
    op->kwargs.push_back({kw.name, kwargText(v)});
  }
  ctx.out->push_back(op);
}

// A store to global memory while T.set_atomic is armed reduces into it: the
// armed op for a copy from on-chip memory to global memory, else None.
AtomicOp Elaborator::atomicStoreOp(const py::Expr& call, const Region& src, const Region& dst) {
  if (atomic_.op == AtomicOp::None || dst.buffer->storage->scope != MemScope::Global ||
      src.buffer->storage->scope == MemScope::Global)
    return AtomicOp::None;
  if (atomic_.dtype != dst.buffer->dtype)
    fail(call.loc,
         fmt::format("this store to '{}' ({}) is atomic under T.set_atomic(\"{}\", \"{}\") at "
                     "line {}, whose accumulate dtype must be the destination's; use "
                     "T.set_atomic(\"{}\", \"{}\")",
                     dst.buffer->name, dtypeName(dst.buffer->dtype), atomicOpName(atomic_.op),
                     dtypeName(atomic_.dtype), atomic_.loc.line, atomicOpName(atomic_.op),
                     dtypeName(dst.buffer->dtype)));
  return atomic_.op;
}

// T.copy between global memory and a buffer inside a T.SimtVF region is not a
// DMA: the region's threads move the elements themselves (upstream lowers it
// to per-thread accesses), converting the dtype as a store does. One
// T.Parallel pairs the k-th elements of the two regions in row-major order,
// as every T.copy does:
//   with T.SimtVF(threads=128):            with T.SimtVF(threads=128):
//       T.copy(A[0:256], temp)                 for k in T.Parallel(256): temp[k] = A[k]
void Elaborator::elabSimtCopy(const py::Expr& call, const Region& src, const Region& dst,
                              BlockCtx& ctx) {
  for (const auto& kw : call.keywords)
    if (kw.name != "l2_cache_ctrl")
      fail(kw.loc, fmt::format("T.copy(..., {}=) inside a T.SimtVF region is not supported yet "
                               "(the region's threads copy element by element)",
                               kw.name));
  int64_t n = src.numElements();
  if (n != dst.numElements())
    fail(call.loc, fmt::format("T.copy moves {} elements from '{}' {} but the destination '{}' {} "
                               "holds {}",
                               n, src.buffer->name, extentsText(extentsOf(src)), dst.buffer->name,
                               extentsText(extentsOf(dst)), dst.numElements()));
  if (n == 0) return;
  auto p = std::make_shared<ParallelStmt>(call.loc);
  Var k = makeVar("k", DType::Int32, VarKind::Loop);
  p->vars.push_back(k);
  p->extents.push_back(n);
  // The indices of element `k` of a region, row-major.
  auto indices = [&](const Region& r) {
    std::vector<Expr> idx(r.ranges.size());
    int64_t stride = 1;
    for (size_t d = r.ranges.size(); d-- > 0;) {
      Expr at = stride == 1 ? varRef(k) : floordiv(varRef(k), intImm(stride));
      if (d > 0) at = floormod(at, intImm(r.ranges[d].extent));
      idx[d] = add(r.ranges[d].min, at);
      stride *= r.ranges[d].extent;
    }
    return idx;
  };
  Expr value = cast(dst.buffer->dtype, load(src.buffer, indices(src)));
  // Under T.set_atomic each element is an atomic update, as T.atomic_* is.
  AtomicOp atomic = atomicStoreOp(call, src, dst);
  if (atomic != AtomicOp::None)
    value = atomicUpdateValue(atomic, load(dst.buffer, indices(dst)), value);
  auto store = std::make_shared<StoreStmt>(dst.buffer, indices(dst), value, call.loc);
  store->atomic = atomic;
  p->body = store;
  ctx.out->push_back(p);
}

// A padded global→UB copy (pad_value= or data_select=True) writes whole
// 32-byte blocks per row: TileLang-Ascend pads the tail of each destination row
// up to the next 32-byte boundary with the pad value (DataCopyPad), so
// `T.copy(A[:, 0:30], a_ub[:, :30], pad_value=-1)` on float32 also sets
// a_ub[:, 30:32]. The destination region is widened to say so, which the
// analyses and the simulator then see as written. Upstream asks for the UB
// buffer to be over-allocated to the padded row; where it is not, the padding
// stops at the end of the row (docs/simulator.md), and a region whose start
// is not a compile-time constant is left as written.
void Elaborator::padRowsTo32Bytes(Region& dst) {
  if (dst.ranges.empty()) return;
  int64_t bytes = dtypeBytes(dst.buffer->dtype);
  if (bytes <= 0 || 32 % bytes != 0) return;
  Range& row = dst.ranges.back();
  int64_t perBlock = 32 / bytes;
  int64_t padded = (row.extent + perBlock - 1) / perBlock * perBlock;
  auto size = asConstInt(dst.buffer->shape.back());
  auto start = asConstInt(row.min);
  if (padded == row.extent || !size || !start) return;
  row.extent = std::max(row.extent, std::min(padded, *size - *start));
}

// T.ascend_set_copy_pad_value(v, dtype="float32"): sets the pad register that
// later T.copy(..., data_select=True) copies fill with. No statement is left:
// the value is put on each such copy, as pad_value= would be.
void Elaborator::elabSetCopyPadValue(const py::Expr& call, Env& env, BlockCtx& ctx) {
  requireNotElementwise("T.ascend_set_copy_pad_value", call.loc, ctx);
  checkKeywords(call, "T.ascend_set_copy_pad_value", {"dtype", "value"});
  auto args = positional(call, env);
  Value v = !args.empty() ? args[0] : Value::none();
  Value dt = args.size() > 1 ? args[1] : Value::none();
  if (const py::Keyword* k = keyword(call, "value")) v = eval(*k->value, env);
  if (const py::Keyword* k = keyword(call, "dtype")) dt = eval(*k->value, env);
  if (args.size() > 2 || v.kind == K::None || dt.kind == K::None)
    fail(call.loc,
         "T.ascend_set_copy_pad_value takes a value and a dtype: "
         "T.ascend_set_copy_pad_value(-1.0, dtype=\"float32\")");
  DType t = toDType(dt, call.loc);
  Expr e = cast(t, toExpr(v, call.loc, t));
  if (containsLoad(e))
    fail(call.loc,
         "the pad value must not read a buffer; load the value into a scalar first "
         "(v = buf[i]) and pass the scalar");
  padRegister_ = PadRegister{e, t, call.loc, std::nullopt};
}

// TileLang-Ascend's store-mode atomics (AscendC SetAtomicAdd/Max/Min<T>):
// once armed, every DMA or fixpipe store to global memory (UB->GM, L0C->GM)
// reduces into the destination instead of overwriting it, until
// T.set_atomic_none(). Recorded on each such T.copy (CopyStmt::atomic); the
// calls themselves leave no statement.
void Elaborator::elabSetAtomic(const std::string& name, const py::Expr& call, Env& env,
                               BlockCtx& ctx) {
  requireNotElementwise("T." + name, call.loc, ctx);
  if (ctx.inVF) fail(call.loc, fmt::format("T.{} is not allowed inside a VF region", name));
  if (name == "set_atomic_none") {
    checkKeywords(call, "T.set_atomic_none", {});
    if (!call.elts.empty()) fail(call.loc, "T.set_atomic_none() takes no arguments");
    atomic_ = AtomicMode{AtomicOp::None, DType::Float32, call.loc};
    return;
  }
  checkKeywords(call, "T.set_atomic", {"op", "dtype"});
  auto args = positional(call, env);
  if (args.size() > 2)
    fail(call.loc, fmt::format("T.set_atomic takes an op and a dtype ({} given)", args.size()));
  auto argument = [&](size_t i, const char* kw) -> std::optional<std::pair<Value, SourceLoc>> {
    if (i < args.size()) return std::make_pair(args[i], argLoc(call, i));
    if (const py::Keyword* k = keyword(call, kw))
      return std::make_pair(eval(*k->value, env), k->loc);
    return std::nullopt;
  };
  AtomicOp op = AtomicOp::Add;  // TileLang's defaults: op="add", dtype="float32"
  if (auto a = argument(0, "op")) {
    static const std::map<std::string, AtomicOp> kOps = {
        {"add", AtomicOp::Add}, {"max", AtomicOp::Max}, {"min", AtomicOp::Min}};
    auto it = a->first.kind == K::Str ? kOps.find(a->first.s) : kOps.end();
    if (it == kOps.end())
      fail(a->second,
           fmt::format("T.set_atomic supports the ops \"add\", \"max\" and \"min\", "
                       "got {}",
                       a->first.kind == K::Str ? "\"" + a->first.s + "\"" : describe(a->first)));
    op = it->second;
  }
  DType dtype = DType::Float32;
  if (auto a = argument(1, "dtype")) {
    dtype = toDType(a->first, a->second);
    static const std::set<DType> kSupported = {DType::Float32, DType::Float16, DType::BFloat16,
                                               DType::Int8,    DType::Int16,   DType::Int32};
    if (!kSupported.count(dtype))
      fail(a->second, fmt::format("T.set_atomic does not support dtype {}; the store-mode atomics "
                                  "accumulate float32, float16, bfloat16, int8, int16 or int32",
                                  dtypeName(dtype)));
  }
  atomic_ = AtomicMode{op, dtype, call.loc};
}

void Elaborator::elabGemm(const py::Expr& call, Env& env, BlockCtx& ctx) {
  requireNotElementwise("T.gemm", call.loc, ctx);
  if (ctx.inVF) fail(call.loc, "T.gemm is not allowed inside a VF region");
  checkKeywords(call, "T.gemm", {"transpose_A", "transpose_B", "clear_accum", "unit_flag_ctrl"});
  if (const py::Keyword* k = keyword(call, "unit_flag_ctrl")) checkUnitFlag(*k, env);
  auto args = positional(call, env);
  if (args.size() != 3)
    fail(call.loc, fmt::format("T.gemm takes A, B and C ({} given)", args.size()));
  auto g = std::make_shared<GemmStmt>(call.loc);
  g->a = toRegion(args[0], argLoc(call, 0), "T.gemm operand A");
  g->b = toRegion(args[1], argLoc(call, 1), "T.gemm operand B");
  g->c = toRegion(args[2], argLoc(call, 2), "T.gemm accumulator C");
  auto flag = [&](const char* n) {
    const py::Keyword* k = keyword(call, n);
    if (!k) return false;
    Value v = eval(*k->value, env);
    if (v.kind != K::Bool) fail(k->value->loc, fmt::format("{} must be True or False", n));
    return v.b;
  };
  g->transA = flag("transpose_A");
  g->transB = flag("transpose_B");
  g->clearAccum = boolImm(false);
  if (const py::Keyword* k = keyword(call, "clear_accum")) {
    Value v = eval(*k->value, env);
    g->clearAccum = v.isConstant() ? boolImm(truthy(v, k->value->loc)) : toExpr(v, k->value->loc);
  }
  MemScope sa = g->a.buffer->storage->scope, sb = g->b.buffer->storage->scope,
           sc = g->c.buffer->storage->scope;
  bool l1 = sa == MemScope::L1 && sb == MemScope::L1;
  bool l0 = sa == MemScope::L0A && sb == MemScope::L0B;
  if (!l1 && !l0)
    fail(call.loc, fmt::format("T.gemm operands must both be in shared.l1, or A in shared.l0a and "
                               "B in shared.l0b; got {} and {}",
                               memScopeName(sa), memScopeName(sb)));
  if (sc != MemScope::L0C)
    fail(argLoc(call, 2), fmt::format("T.gemm accumulates into a shared.l0c buffer; '{}' is in {}",
                                      g->c.buffer->name, memScopeName(sc)));
  auto mat = [&](const Region& r, const char* which, SourceLoc loc) {
    auto e = significant(extentsOf(r));
    while (e.size() < 2) e.insert(e.begin(), 1);
    if (e.size() != 2)
      fail(loc, fmt::format("T.gemm operand {} must be a 2-D tile, got {}", which, extentsText(e)));
    return std::pair<int64_t, int64_t>{e[0], e[1]};
  };
  auto [a0, a1] = mat(g->a, "A", argLoc(call, 0));
  auto [b0, b1] = mat(g->b, "B", argLoc(call, 1));
  auto [c0, c1] = mat(g->c, "C", argLoc(call, 2));
  int64_t m = g->transA ? a1 : a0, ka = g->transA ? a0 : a1;
  int64_t kb = g->transB ? b1 : b0, n = g->transB ? b0 : b1;
  if (ka != kb || m != c0 || n != c1)
    fail(call.loc, fmt::format("T.gemm shapes do not match: A{} is {}x{}, B{} is {}x{}, C is "
                               "{}x{}; need A MxK, B KxN, C MxN",
                               g->transA ? "ᵀ" : "", m, ka, g->transB ? "ᵀ" : "", kb, n, c0, c1));
  DType ta = g->a.buffer->dtype, tb = g->b.buffer->dtype, tc = g->c.buffer->dtype;
  for (DType t : {ta, tb, tc})
    if (isFloat8(t))
      fail(call.loc, fmt::format("T.gemm on {} operands is not supported yet: float8 is a storage "
                                 "type (copies, casts, stores); T.copy the tiles to float16 first",
                                 dtypeName(t)));
  if (ta != tb)
    fail(call.loc, fmt::format("T.gemm operands have different dtypes ({} and {})", dtypeName(ta),
                               dtypeName(tb)));
  DType want = ta == DType::Int8 ? DType::Int32 : DType::Float32;
  if (tc != want)
    fail(argLoc(call, 2),
         fmt::format("T.gemm on {} operands accumulates in {}; '{}' is {}", dtypeName(ta),
                     dtypeName(want), g->c.buffer->name, dtypeName(tc)));
  ctx.out->push_back(g);
}

void Elaborator::elabFill(const py::Expr& call, Env& env, BlockCtx& ctx, bool clear) {
  std::string fn = clear ? "T.clear" : "T.fill";
  requireNotElementwise(fn, call.loc, ctx);
  checkKeywords(call, fn, {});
  auto args = positional(call, env);
  if (args.size() != (clear ? 1u : 2u))
    fail(call.loc, clear ? "T.clear takes one buffer" : "T.fill takes a buffer and a value");
  Region dst = toRegion(args[0], argLoc(call, 0), fn + " destination");
  MemScope s = dst.buffer->storage->scope;
  if (s == MemScope::Global)
    fail(argLoc(call, 0),
         fn + " on a global tensor is not supported; fill an on-chip buffer and copy it");
  Pipe pipe = s == MemScope::L1 ? Pipe::MTE2 : Pipe::V;
  if (ctx.inVF && pipe != Pipe::V)
    fail(call.loc, fn + " of an L1 buffer is not allowed inside a VF region");
  Expr value = clear ? (isFloat(dst.buffer->dtype) ? floatImm(0, dst.buffer->dtype)
                                                   : intImm(0, dst.buffer->dtype))
                     : cast(dst.buffer->dtype, toExpr(args[1], argLoc(call, 1), dst.buffer->dtype));
  ctx.out->push_back(std::make_shared<FillStmt>(dst, value, pipe, call.loc));
}

void Elaborator::elabReduce(ReduceKind kind, const std::string& fn, const py::Expr& call, Env& env,
                            BlockCtx& ctx) {
  std::string name = "T." + fn;
  requireNotElementwise(name, call.loc, ctx);
  checkKeywords(call, name, {"dim", "clear"});
  auto args = positional(call, env);
  if (args.size() < 2 || args.size() > 3)
    fail(call.loc, name + " takes (src, dst, dim=-1, clear=True)");
  auto r = std::make_shared<ReduceStmt>(call.loc);
  r->reduceKind = kind;
  r->src = toRegion(args[0], argLoc(call, 0), name + " source");
  r->dst = toRegion(args[1], argLoc(call, 1), name + " destination");
  for (const Region* reg : {&r->src, &r->dst})
    if (isFloat8(reg->buffer->dtype))
      fail(call.loc, fmt::format("{} on {} buffer '{}' is not supported: float8 is a storage type "
                                 "(copies, casts, stores); T.copy it to a float32 buffer first",
                                 name, dtypeName(reg->buffer->dtype), reg->buffer->name));
  for (const Region* reg : {&r->src, &r->dst}) {
    MemScope s = reg->buffer->storage->scope;
    if (s != MemScope::UB && s != MemScope::Fragment && s != MemScope::Local)
      fail(call.loc, fmt::format("{} works on shared or local buffers; '{}' is in {}", name,
                                 reg->buffer->name, memScopeName(s)));
  }
  Value dimV = args.size() == 3 ? args[2] : Value::integer(-1);
  SourceLoc dimLoc = args.size() == 3 ? argLoc(call, 2) : call.loc;
  if (const py::Keyword* k = keyword(call, "dim")) {
    if (args.size() == 3) fail(k->loc, name + " got dim twice (as the third argument and as dim=)");
    dimV = eval(*k->value, env);
    dimLoc = k->value->loc;
  }
  int64_t rank = static_cast<int64_t>(r->src.ranges.size());
  int64_t dim = toConstInt(dimV, dimLoc, "dim");
  if (dim < -rank || dim >= rank)
    fail(dimLoc, fmt::format("dim {} is out of range for the rank-{} source '{}'; use -{}..{}", dim,
                             rank, r->src.buffer->name, rank, rank - 1));
  r->dim = static_cast<int>(dim < 0 ? dim + rank : dim);
  r->clear = true;
  if (const py::Keyword* k = keyword(call, "clear")) {
    Value v = eval(*k->value, env);
    if (v.kind != K::Bool) fail(k->value->loc, "clear must be True or False");
    r->clear = v.b;
  }
  std::vector<int64_t> want = extentsOf(r->src);
  want.erase(want.begin() + r->dim);
  if (want.empty()) want.push_back(1);
  if (significant(want) != significant(extentsOf(r->dst)))
    fail(argLoc(call, 1),
         fmt::format("{} over dim {} of {} gives {}, but the destination '{}' is {}", name, r->dim,
                     extentsText(extentsOf(r->src)), extentsText(want), r->dst.buffer->name,
                     extentsText(extentsOf(r->dst))));
  if (r->src.buffer->dtype != r->dst.buffer->dtype && !isFloat(r->dst.buffer->dtype))
    fail(call.loc,
         fmt::format("{} destination '{}' must be a float buffer", name, r->dst.buffer->name));
  ctx.out->push_back(r);
}

void Elaborator::elabFlag(const std::string& name, const py::Expr& call, Env& env, BlockCtx& ctx) {
  requireNotElementwise("T." + name, call.loc, ctx);
  // A VF region is one V instruction: there is no pipe order inside it to
  // synchronise (and the simulator would not see the flags).
  if (ctx.inVF)
    fail(call.loc, fmt::format("T.{} is not allowed inside a VF region; synchronise around the "
                               "region (it runs as one V instruction)",
                               name));
  checkKeywords(call, "T." + name, {});
  auto args = positional(call, env);
  auto pipeArg = [&](size_t i) {
    if (i >= args.size() || (args[i].kind != K::Str))
      fail(call.loc, fmt::format("T.{} needs pipe names such as \"MTE2\"", name));
    std::string upper = upperCase(args[i].s);
    if (upper == "ALL" && name == "pipe_barrier") return std::optional<Pipe>{};
    auto p = parsePipe(upper);
    if (!p)
      fail(argLoc(call, i),
           fmt::format("unknown pipe '{}'; pipes are {}", args[i].s, allPipeNames()));
    return p;
  };
  if (name == "barrier_all") {
    ctx.out->push_back(std::make_shared<BarrierStmt>(true, Pipe::S, call.loc));
    return;
  }
  if (name == "pipe_barrier") {
    if (args.size() != 1) fail(call.loc, "T.pipe_barrier takes one pipe name (or \"ALL\")");
    auto p = pipeArg(0);
    ctx.out->push_back(std::make_shared<BarrierStmt>(!p, p.value_or(Pipe::S), call.loc));
    return;
  }
  if (args.size() != 3)
    fail(call.loc, fmt::format("T.{} takes (src_pipe, dst_pipe, event_id)", name));
  Pipe src = *pipeArg(0), dst = *pipeArg(1);
  if (src == dst)
    fail(call.loc,
         "set_flag/wait_flag need two different pipes; use T.pipe_barrier within one pipe");
  Expr id = toExpr(args[2], argLoc(call, 2));
  if (auto c = asConstInt(id); c && (*c < 0 || *c > 7))
    fail(argLoc(call, 2),
         fmt::format("event id {} is out of range; each hard event has ids 0-7", *c));
  if (name == "set_flag")
    ctx.out->push_back(std::make_shared<SetFlagStmt>(src, dst, id, call.loc));
  else
    ctx.out->push_back(std::make_shared<WaitFlagStmt>(src, dst, id, call.loc));
}

// The AscendC spellings: T.ascend_pipe_barrier("PIPE_V") is T.pipe_barrier("V"),
// T.ascend_set_flag("MTE2_V", id) is T.set_flag("MTE2", "V", id) (a hard event
// names its source and destination pipes), T.ascend_wait_flag likewise.
void Elaborator::elabAscendFlag(const std::string& name, const py::Expr& call, Env& env,
                                BlockCtx& ctx) {
  requireNotElementwise("T." + name, call.loc, ctx);
  checkKeywords(call, "T." + name, {});
  auto args = positional(call, env);
  bool barrier = name == "ascend_pipe_barrier";
  if (args.size() != (barrier ? 1u : 2u) || args[0].kind != K::Str)
    fail(call.loc, barrier ? "T.ascend_pipe_barrier takes one pipe such as \"PIPE_V\" or "
                             "\"PIPE_ALL\""
                           : fmt::format("T.{} takes (hard_event, event_id) with a hard event such "
                                         "as \"MTE2_V\"",
                                         name));
  std::string text = args[0].s;
  std::string upper = upperCase(text);
  // Rewritten as the T.set_flag / T.pipe_barrier call it means, so one path checks pipes.
  py::Expr plain(py::ExprKind::Call, call.loc);
  plain.lhs = std::make_unique<py::Expr>(py::ExprKind::Name, call.loc);
  auto strArg = [&](const std::string& v, SourceLoc loc) {
    auto e = std::make_unique<py::Expr>(py::ExprKind::Str, loc);
    e->strValue = v;
    return e;
  };
  SourceLoc loc0 = argLoc(call, 0);
  if (barrier) {
    if (upper.rfind("PIPE_", 0) == 0) upper = upper.substr(5);
    plain.elts.push_back(strArg(upper, loc0));
    Env scratch;
    scratch.parent = std::shared_ptr<Env>(std::shared_ptr<Env>{}, &env);
    return elabFlag("pipe_barrier", plain, scratch, ctx);
  }
  size_t us = upper.find('_');
  if (us == std::string::npos || us == 0 || us + 1 == upper.size())
    fail(loc0, fmt::format("hard event '{}' must name two pipes, as in \"MTE2_V\"", text));
  plain.elts.push_back(strArg(upper.substr(0, us), loc0));
  plain.elts.push_back(strArg(upper.substr(us + 1), loc0));
  // The event id is passed on as a value bound to a fresh name.
  auto idName = std::make_unique<py::Expr>(py::ExprKind::Name, argLoc(call, 1));
  idName->id = " event_id";
  plain.elts.push_back(std::move(idName));
  Env scratch;
  scratch.parent = std::shared_ptr<Env>(std::shared_ptr<Env>{}, &env);
  scratch.bind(" event_id", args[1]);
  elabFlag(name == "ascend_set_flag" ? "set_flag" : "wait_flag", plain, scratch, ctx);
}

// T.ascend_get_buf(pipe, buf_id, mode=False) / T.ascend_rls_buf(...): the
// AscendC buffer locks (asc_lock / asc_unlock) with which an author orders the
// pipes' accesses to a buffer slot. tilesched does not model the lock table: a
// T.ascend_get_buf is a barrier on every pipe, which orders whatever the lock
// orders (every access of a correctly locked program is preceded by its own
// get_buf, so everything before it has completed); T.ascend_rls_buf adds
// nothing. Like the author's flags, both are replaced by tilesched's own
// synchronisation under the scheduled lowerings.
void Elaborator::elabBufferLock(const std::string& name, const py::Expr& call, Env& env,
                                BlockCtx& ctx) {
  requireNotElementwise("T." + name, call.loc, ctx);
  if (ctx.inVF)
    fail(call.loc, fmt::format("T.{} is not allowed inside a VF region; lock around the region "
                               "(it runs as one V instruction)",
                               name));
  checkKeywords(call, "T." + name, {"mode"});
  auto args = positional(call, env);
  if (args.size() < 2 || args.size() > 3 || args[0].kind != K::Str)
    fail(call.loc, fmt::format("T.{} takes (pipe, buf_id, mode=False) with a pipe such as "
                               "\"PIPE_MTE2\"",
                               name));
  std::string upper = upperCase(args[0].s);
  if (upper.rfind("PIPE_", 0) == 0) upper = upper.substr(5);
  if (!parsePipe(upper))
    fail(argLoc(call, 0),
         fmt::format("unknown pipe '{}'; pipes are {}", args[0].s, allPipeNames()));
  Expr id = toExpr(args[1], argLoc(call, 1));
  if (isFloat(id->dtype))
    fail(argLoc(call, 1), fmt::format("the buf_id of T.{} must be an integer", name));
  if (auto c = asConstInt(id); c && *c < 0)
    fail(argLoc(call, 1), fmt::format("the buf_id of T.{} must not be negative, got {}", name, *c));
  if (name == "ascend_get_buf")
    ctx.out->push_back(std::make_shared<BarrierStmt>(true, Pipe::S, call.loc));
}

// ------------------------------------------------------------ annotations

void Elaborator::annotateBufferVersions(const py::Expr& call, Env& env) {
  checkKeywords(call, "T.annotate_buffer_versions", {});
  if (call.elts.size() != 1 || call.elts[0]->kind != py::ExprKind::Dict)
    fail(call.loc, "T.annotate_buffer_versions takes one dict: {buffer: versions, ...}");
  const py::Expr& dict = *call.elts[0];
  auto& annos = kernel_->annotations;
  if (!annos.bufferVersionsLoc.valid()) annos.bufferVersionsLoc = call.loc;
  // One entry `key: value`; an entry of `**other` (other a dict) has no
  // expression of its own and is located at `other`.
  auto annotate = [&](const Value& key, SourceLoc keyLoc, const Value& v, SourceLoc valueLoc,
                      const py::Expr* valueExpr) {
    if (key.kind != K::Buffer)
      fail(keyLoc, fmt::format("keys of T.annotate_buffer_versions must be buffers, got {}",
                               describe(key)));
    Buffer b = key.buffer;
    if (!isCapacityChecked(b->storage->scope))
      fail(keyLoc,
           fmt::format("buffer '{}' in scope '{}' cannot be multi-buffered; only shared, "
                       "shared.l1, shared.l0a, shared.l0b and shared.l0c buffers have versions",
                       b->name, memScopeName(b->storage->scope)));
    VersionSpec spec;
    spec.storage = b->storage;
    spec.buffer = b;
    spec.loc = keyLoc;
    auto parseMode = [&](const Value& m, SourceLoc loc) {
      if (m.kind != K::Str)
        fail(loc,
             fmt::format("mode for buffer '{}' must be 'auto', 'iteration' or 'counter', got {}",
                         b->name, describe(m)));
      if (m.s == "auto") return VersionMode::Auto;
      if (m.s == "iteration") return VersionMode::Iteration;
      if (m.s == "counter") return VersionMode::Counter;
      fail(loc, fmt::format(
                    "unknown mode '{}' for buffer '{}'; expected 'auto', 'iteration' or 'counter'",
                    m.s, b->name));
    };
    auto parseCount = [&](const Value& c, SourceLoc loc) {
      if (c.kind != K::Int || c.i < 1)
        fail(loc, fmt::format("num_versions for buffer '{}' must be a positive integer, got {}",
                              b->name, describe(c)));
      return c.i;
    };
    if (v.kind == K::Tuple) {
      if (v.elts.size() != 2)
        fail(valueLoc, fmt::format("version spec for buffer '{}' must be (num_versions, mode), "
                                   "got a tuple of {} element{}",
                                   b->name, v.elts.size(), v.elts.size() == 1 ? "" : "s"));
      bool literal =
          valueExpr && valueExpr->kind == py::ExprKind::Tuple && valueExpr->elts.size() == 2;
      spec.count = parseCount(v.elts[0], literal ? valueExpr->elts[0]->loc : valueLoc);
      spec.mode = parseMode(v.elts[1], literal ? valueExpr->elts[1]->loc : valueLoc);
    } else if (v.kind == K::Int || v.kind == K::Bool || v.kind == K::Float) {
      spec.count = parseCount(v, valueLoc);
    } else if (v.kind == K::Str) {
      spec.mode = parseMode(v, valueLoc);
    } else {
      fail(valueLoc, fmt::format("version spec for buffer '{}' must be a count, a mode or "
                                 "(num_versions, mode), got {}",
                                 b->name, describe(v)));
    }
    // Aliases of one storage must agree (SPEC §2.1); a count given through
    // one alias and a mode through another combine.
    bool duplicate = false;
    for (auto& other : annos.bufferVersions) {
      if (other.storage != spec.storage) continue;
      bool countConflict = other.count && spec.count && *other.count != *spec.count;
      bool modeConflict = other.mode && spec.mode && *other.mode != *spec.mode;
      if (other.buffer == spec.buffer && (countConflict || modeConflict))
        fail(keyLoc,
             fmt::format(
                 "buffer '{}' is already given {} versions; give each buffer one version spec",
                 b->name,
                 countConflict ? std::to_string(*other.count)
                               : "'" + std::string(versionModeName(*other.mode)) + "'"));
      if (countConflict)
        fail(keyLoc, fmt::format("buffers '{}' and '{}' share one storage but are given "
                                 "different version counts ({} and {})",
                                 other.buffer->name, b->name, *other.count, *spec.count));
      if (modeConflict)
        fail(keyLoc, fmt::format("buffers '{}' and '{}' share one storage but are given "
                                 "different modes ('{}' and '{}')",
                                 other.buffer->name, b->name, versionModeName(*other.mode),
                                 versionModeName(*spec.mode)));
      if (!other.count) other.count = spec.count;
      if (!other.mode) other.mode = spec.mode;
      duplicate = true;
    }
    for (const auto& m : annos.manual)
      if (m.storage == spec.storage)
        fail(keyLoc, fmt::format("buffer '{}' is already declared manually multi-buffered with "
                                 "T.annotate_manual_multi_buffer",
                                 b->name));
    if (!duplicate) annos.bufferVersions.push_back(std::move(spec));
  };
  // The entries as Python builds the dict: a later equal key replaces an
  // earlier one (`{a: 2, **overrides}`).
  struct Entry {
    Value key, value;
    SourceLoc keyLoc, valueLoc;
    const py::Expr* valueExpr;
  };
  std::vector<Entry> entries;
  auto put = [&](Entry e) {
    for (auto& other : entries)
      if (valuesEqual(other.key, e.key)) {
        other = std::move(e);
        return;
      }
    entries.push_back(std::move(e));
  };
  for (size_t i = 0; i < dict.keys.size(); ++i) {
    try {
      SourceLoc valueLoc = dict.values[i]->loc;
      if (dict.keys[i]) {
        put({eval(*dict.keys[i], env), eval(*dict.values[i], env), dict.keys[i]->loc, valueLoc,
             dict.values[i].get()});
        continue;
      }
      Value other = eval(*dict.values[i], env);  // `**other`
      if (other.kind != K::Dict)
        fail(valueLoc, fmt::format("'**' in T.annotate_buffer_versions needs a dict, got {}",
                                   describe(other)));
      for (const auto& [key, v] : other.items) put({key, v, valueLoc, valueLoc, nullptr});
    } catch (const EvalError& e) {
      error(e.loc, e.message);
    }
  }
  for (const auto& e : entries) {
    try {
      annotate(e.key, e.keyLoc, e.value, e.valueLoc, e.valueExpr);
    } catch (const EvalError& err) {
      error(err.loc, err.message);
    }
  }
}

void Elaborator::annotateManual(const py::Expr& call, Env& env) {
  checkKeywords(call, "T.annotate_manual_multi_buffer", {});
  if (call.elts.empty())
    fail(call.loc, "T.annotate_manual_multi_buffer needs at least one buffer or {buffer: N}");
  auto& annos = kernel_->annotations;
  auto checkManualScope = [&](const Buffer& b, SourceLoc loc) {
    if (!isCapacityChecked(b->storage->scope))
      fail(loc, fmt::format("buffer '{}' in scope '{}' cannot be a manual multi-buffer; use a "
                            "shared, shared.l1, shared.l0a, shared.l0b or shared.l0c buffer",
                            b->name, memScopeName(b->storage->scope)));
  };
  auto add = [&](const Buffer& b, int64_t ring, SourceLoc loc) {
    checkManualScope(b, loc);
    for (const auto& v : annos.bufferVersions)
      if (v.storage == b->storage)
        fail(loc,
             fmt::format("buffer '{}' is already given versions by T.annotate_buffer_versions; a "
                         "manual multi-buffer is never auto-versioned",
                         b->name));
    for (const auto& m : annos.manual)
      if (m.storage == b->storage) {
        if (m.ring != ring)
          fail(loc,
               fmt::format(
                   "buffer '{}' is declared manual twice with different ring sizes ({} and {})",
                   b->name, m.ring, ring));
        return;
      }
    annos.manual.push_back({b->storage, b, ring, loc});
  };
  for (const auto& item : call.elts) {
    try {
      if (item->kind == py::ExprKind::Dict) {
        for (size_t i = 0; i < item->keys.size(); ++i) {
          if (!item->keys[i]) fail(item->loc, "'**' is not supported here");
          Value key = eval(*item->keys[i], env);
          if (key.kind != K::Buffer)
            fail(
                item->keys[i]->loc,
                fmt::format("T.annotate_manual_multi_buffer takes buffers or {{buffer: N}}, got {}",
                            describe(key)));
          Value n = eval(*item->values[i], env);
          if (n.kind != K::Int || n.i < 1)
            fail(item->values[i]->loc,
                 fmt::format("ring size for buffer '{}' must be an integer >= 1, got {}",
                             key.buffer->name, describe(n)));
          add(key.buffer, n.i, item->keys[i]->loc);
        }
        continue;
      }
      Value v = eval(*item, env);
      if (v.kind != K::Buffer)
        fail(item->loc,
             fmt::format("T.annotate_manual_multi_buffer takes buffers or {{buffer: N}}, got {}",
                         describe(v)));
      checkManualScope(v.buffer, item->loc);
      auto lead = v.buffer->shape.empty() ? std::nullopt : asConstInt(v.buffer->shape[0]);
      if (!lead)
        fail(item->loc, fmt::format("the leading dimension of '{}' is not a compile-time constant; "
                                    "pass {{{}: N}} to give the ring size",
                                    v.buffer->name, v.buffer->name));
      add(v.buffer, *lead, item->loc);
    } catch (const EvalError& e) {
      error(e.loc, e.message);
    }
  }
}

void Elaborator::annotateUnlimit(const py::Expr& call, Env& env) {
  checkKeywords(call, "T.annotate_unlimit_memory", {});
  if (call.elts.empty())
    fail(call.loc, "T.annotate_unlimit_memory needs at least one scope, e.g. \"shared\"");
  for (const auto& item : call.elts) {
    Value v = eval(*item, env);
    if (v.isSequence())
      fail(item->loc,
           "pass the scopes as separate arguments: T.annotate_unlimit_memory(\"shared\", "
           "\"shared.l1\")");
    std::optional<MemScope> scope;
    if (v.kind == K::Str) scope = parseMemScope(v.s);
    if (!scope || !isCapacityChecked(*scope))
      fail(item->loc,
           fmt::format("invalid scope {} for T.annotate_unlimit_memory; valid scopes: \"shared\", "
                       "\"shared.l1\", \"shared.l0c\", \"shared.l0a\", \"shared.l0b\"",
                       describe(v)));
    auto& u = kernel_->annotations.unlimited;
    if (std::find(u.begin(), u.end(), *scope) == u.end()) u.push_back(*scope);
  }
}

}  // namespace tilesched::frontend
