// Region overlap (see Overlap.h): the syntactic test, a constant-difference
// fast path for the rest, then Z3.
#include "analysis/Overlap.h"

#include <z3++.h>

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>

#include "analysis/ExprUtil.h"
#include "ir/IROperator.h"

namespace tilesched::analysis {

using namespace ir;

struct OverlapOracle::Solver {
  z3::context ctx;
  z3::solver solver;
  int fresh = 0;
  // The budget of a query is Z3 work (1000 resource units per ms, as the
  // scheduler's: schedule/ModuloSolver.h), so whether a pair is decided does
  // not depend on the machine's load; wall time ten times that is a backstop.
  explicit Solver(unsigned timeoutMs) : solver(ctx) {
    z3::params p(ctx);
    p.set("rlimit",
          static_cast<unsigned>(std::min<uint64_t>(uint64_t(timeoutMs) * 1000, 1u << 30)));
    p.set("timeout", timeoutMs * 10 + 100);
    solver.set(p);
  }
};

namespace {

// One dimension of the comparison: a's and b's starts and extents.
struct DimPair {
  Expr aStart, bStart;
  int64_t aExtent = 1, bExtent = 1;
  bool whole = false;  // either side covers the whole dimension
};

bool hasPrivateParts(const Expr& e) {
  if (!e) return false;
  if (e->kind == ExprKind::Load) return true;
  if (e->kind == ExprKind::VarRef && e->var->kind == VarKind::Local) return true;
  for (const auto& o : e->operands)
    if (hasPrivateParts(o)) return true;
  return false;
}

bool sameLayout(const Buffer& a, const Buffer& b) {
  if (a == b) return true;
  if (a->dtype != b->dtype) return false;
  auto sa = constShape(a), sb = constShape(b);
  return sa && sb && *sa == *sb;
}

// Flattened byte hull of a box: [lo, lo + span).
bool flatten(const Access& acc, Expr& lo, int64_t& span) {
  auto shape = constShape(acc.buffer);
  if (!shape || shape->size() != acc.box.size()) return false;
  int64_t elem = dtypeBytes(acc.buffer->dtype);
  int64_t stride = 1;
  lo = intImm(0);
  int64_t last = 0;
  for (size_t d = acc.box.size(); d-- > 0;) {
    const BoxDim& dim = acc.box[d];
    Expr start = dim.whole ? intImm(0) : dim.start;
    int64_t extent = dim.whole ? (*shape)[d] : dim.extent;
    lo = add(lo, mul(start, stride * elem));
    last += (extent - 1) * stride;
    stride *= (*shape)[d];
  }
  span = (last + 1) * elem;
  return true;
}

// True when the Encoder below turns `e` into a term that is a function of the
// shared variables only (no fresh unknown): then two occurrences of `e` in a
// query have one value, and structural cancellation agrees with Z3.
bool exactlyEncodable(const Expr& e) {
  if (!e || isFloat(e->dtype)) return false;
  switch (e->kind) {
    case ExprKind::IntImm:
      return true;
    case ExprKind::VarRef:
      return e->var->kind != VarKind::Local && !isFloat(e->var->dtype);
    case ExprKind::Cast:
      return exactlyEncodable(e->operands[0]);
    case ExprKind::Unary:
      return (e->unOp == UnOp::Neg || e->unOp == UnOp::Abs) && exactlyEncodable(e->operands[0]);
    case ExprKind::Binary:
      switch (e->binOp) {
        case BinOp::Add:
        case BinOp::Sub:
        case BinOp::Mul:
        case BinOp::Min:
        case BinOp::Max:
          return exactlyEncodable(e->operands[0]) && exactlyEncodable(e->operands[1]);
        case BinOp::FloorDiv:
        case BinOp::FloorMod: {
          auto c = asConstInt(e->operands[1]);
          return c && *c != 0 && exactlyEncodable(e->operands[0]);
        }
        default:
          return false;
      }
    default:
      return false;
  }
}

// `e` as coef·var + rest with `rest` free of `var`; nullopt when `var`
// appears other than linearly (under `//`, `%`, min, a product of variables...).
struct LoopAffine {
  int64_t coef = 0;
  Expr rest;
};

std::optional<LoopAffine> splitLoopVar(const Expr& e, const Var& var, int depth = 0) {
  if (!e || depth > 64) return std::nullopt;
  if (!var || !mentionsVar(e, var)) return LoopAffine{0, e};
  if (e->kind == ExprKind::VarRef) return LoopAffine{1, intImm(0)};
  if (e->kind == ExprKind::Cast && !isFloat(e->operands[0]->dtype))
    return splitLoopVar(e->operands[0], var, depth + 1);
  if (e->kind == ExprKind::Unary && e->unOp == UnOp::Neg) {
    auto x = splitLoopVar(e->operands[0], var, depth + 1);
    if (!x || x->coef == INT64_MIN) return std::nullopt;
    return LoopAffine{-x->coef, sub(intImm(0), x->rest)};
  }
  if (e->kind != ExprKind::Binary || isFloat(e->dtype)) return std::nullopt;
  const Expr& a = e->operands[0];
  const Expr& b = e->operands[1];
  int64_t c = 0;
  switch (e->binOp) {
    case BinOp::Add:
    case BinOp::Sub: {
      auto x = splitLoopVar(a, var, depth + 1), y = splitLoopVar(b, var, depth + 1);
      if (!x || !y) return std::nullopt;
      bool plus = e->binOp == BinOp::Add;
      if (plus ? __builtin_add_overflow(x->coef, y->coef, &c)
               : __builtin_sub_overflow(x->coef, y->coef, &c))
        return std::nullopt;
      return LoopAffine{c, plus ? add(x->rest, y->rest) : sub(x->rest, y->rest)};
    }
    case BinOp::Mul: {
      auto k = asConstInt(b);
      const Expr* other = &a;
      if (!k) {
        k = asConstInt(a);
        other = &b;
      }
      if (!k) return std::nullopt;
      auto x = splitLoopVar(*other, var, depth + 1);
      if (!x || __builtin_mul_overflow(x->coef, *k, &c)) return std::nullopt;
      return LoopAffine{c, mul(x->rest, *k)};
    }
    default:
      return std::nullopt;
  }
}

// floor(x / y) and ceil(x / y) for y > 0.
int64_t floorDiv(int64_t x, int64_t y) { return x / y - ((x % y != 0) && (x < 0)); }
int64_t ceilDiv(int64_t x, int64_t y) { return -floorDiv(-x, y); }

// Intersects [lo, hi] with the integers d where lowerOpen < c·d + e < upperOpen;
// false (nothing changed) when the bounds leave the range where this
// arithmetic is exact.
bool clampShifts(int64_t c, int64_t e, int64_t lowerOpen, int64_t upperOpen, int64_t& lo,
                 int64_t& hi) {
  const __int128 kLimit = INT64_MAX / 4;
  __int128 low = static_cast<__int128>(lowerOpen) - e;   // c·d > low
  __int128 high = static_cast<__int128>(upperOpen) - e;  // c·d < high
  if (low < -kLimit || low > kLimit || high < -kLimit || high > kLimit) return false;
  if (c == 0) {
    if (!(0 > low && 0 < high)) hi = lo - 1;
    return true;
  }
  if (c < 0) {  // -c·d < -low and -c·d > -high
    std::swap(low, high);
    low = -low;
    high = -high;
    c = -c;
  }
  // d > low / c ⇔ d >= floor(low / c) + 1;  d < high / c ⇔ d <= ceil(high / c) - 1.
  lo = std::max(lo, floorDiv(static_cast<int64_t>(low), c) + 1);
  hi = std::min(hi, ceilDiv(static_cast<int64_t>(high), c) - 1);
  return true;
}

// Translates IR expressions of one side of a query into Z3 terms.
class Encoder {
 public:
  Encoder(z3::context& ctx, z3::solver& solver, int& fresh, std::map<int, z3::expr>& shared,
          const Var& loopVar, std::optional<z3::expr> loopValue)
      : ctx_(ctx),
        solver_(solver),
        fresh_(fresh),
        shared_(shared),
        loopVar_(loopVar),
        loopValue_(loopValue) {}

  z3::expr freshInt() { return ctx_.int_const(("u" + std::to_string(fresh_++)).c_str()); }

  z3::expr intExpr(const Expr& e) {
    if (!e || isFloat(e->dtype)) return freshInt();
    switch (e->kind) {
      case ExprKind::IntImm:
        return ctx_.int_val(e->intValue);
      case ExprKind::VarRef:
        return var(e->var);
      case ExprKind::Cast:
        return intExpr(e->operands[0]);
      case ExprKind::Select: {
        auto c = boolExpr(e->operands[0]);
        if (!c) return freshInt();
        return z3::ite(*c, intExpr(e->operands[1]), intExpr(e->operands[2]));
      }
      case ExprKind::Unary: {
        if (e->unOp == UnOp::Neg) return -intExpr(e->operands[0]);
        if (e->unOp == UnOp::Abs) {
          z3::expr x = intExpr(e->operands[0]);
          return z3::ite(x >= 0, x, -x);
        }
        return freshInt();
      }
      case ExprKind::Binary:
        return binary(*e);
      default:
        return freshInt();
    }
  }

  std::optional<z3::expr> boolExpr(const Expr& e) {
    if (!e) return std::nullopt;
    if (e->kind == ExprKind::IntImm) return ctx_.bool_val(e->intValue != 0);
    if (e->kind == ExprKind::Unary && e->unOp == UnOp::Not) {
      auto x = boolExpr(e->operands[0]);
      if (!x) return std::nullopt;
      return !*x;
    }
    if (e->kind != ExprKind::Binary) return std::nullopt;
    const Expr& a = e->operands[0];
    const Expr& b = e->operands[1];
    if (e->binOp == BinOp::And || e->binOp == BinOp::Or) {
      auto x = boolExpr(a), y = boolExpr(b);
      if (!x || !y) return std::nullopt;
      return e->binOp == BinOp::And ? (*x && *y) : (*x || *y);
    }
    if (!isComparison(e->binOp) || isFloat(a->dtype) || isFloat(b->dtype)) return std::nullopt;
    z3::expr x = intExpr(a), y = intExpr(b);
    switch (e->binOp) {
      case BinOp::EQ:
        return x == y;
      case BinOp::NE:
        return x != y;
      case BinOp::LT:
        return x < y;
      case BinOp::LE:
        return x <= y;
      case BinOp::GT:
        return x > y;
      case BinOp::GE:
        return x >= y;
      default:
        return std::nullopt;
    }
  }

 private:
  z3::expr var(const Var& v) {
    if (v == loopVar_ && loopValue_) return *loopValue_;
    // A scalar assigned more than once may differ between the two accesses.
    if (v->kind == VarKind::Local || isFloat(v->dtype)) return freshInt();
    auto it = shared_.find(v->id);
    if (it != shared_.end()) return it->second;
    z3::expr x = ctx_.int_const(("v" + std::to_string(v->id) + "_" + v->name).c_str());
    shared_.emplace(v->id, x);
    return x;
  }

  z3::expr binary(const ExprNode& e) {
    const Expr& a = e.operands[0];
    const Expr& b = e.operands[1];
    switch (e.binOp) {
      case BinOp::Add:
        return intExpr(a) + intExpr(b);
      case BinOp::Sub:
        return intExpr(a) - intExpr(b);
      case BinOp::Mul:
        return intExpr(a) * intExpr(b);
      case BinOp::Min: {
        z3::expr x = intExpr(a), y = intExpr(b);
        return z3::ite(x <= y, x, y);
      }
      case BinOp::Max: {
        z3::expr x = intExpr(a), y = intExpr(b);
        return z3::ite(x >= y, x, y);
      }
      case BinOp::FloorDiv:
      case BinOp::FloorMod: {
        auto c = asConstInt(b);
        if (!c || *c == 0) return freshInt();
        // a = c·q + r with r in [0, c) (c > 0) or (c, 0] (c < 0): Python's floor semantics.
        z3::expr x = intExpr(a);
        z3::expr q = freshInt();
        z3::expr r = freshInt();
        z3::expr cv = ctx_.int_val(*c);
        solver_.add(x == cv * q + r);
        if (*c > 0)
          solver_.add(r >= 0 && r < cv);
        else
          solver_.add(r <= 0 && r > cv);
        return e.binOp == BinOp::FloorDiv ? q : r;
      }
      default:
        return freshInt();
    }
  }

  z3::context& ctx_;
  z3::solver& solver_;
  int& fresh_;
  std::map<int, z3::expr>& shared_;
  Var loopVar_;
  std::optional<z3::expr> loopValue_;
};

// The boxes lined up dimension by dimension (same layout), or their flattened
// byte hulls; false when an alias cannot be flattened.
bool lineUp(const Access& a, const Access& b, std::vector<DimPair>& dims) {
  if (sameLayout(a.buffer, b.buffer) && a.box.size() == b.box.size()) {
    for (size_t d = 0; d < a.box.size(); ++d)
      dims.push_back({a.box[d].start, b.box[d].start, a.box[d].extent, b.box[d].extent,
                      a.box[d].whole || b.box[d].whole});
    return true;
  }
  DimPair flat;
  if (!flatten(a, flat.aStart, flat.aExtent) || !flatten(b, flat.bStart, flat.bExtent))
    return false;
  dims.push_back(flat);
  return true;
}

// A box start as the syntactic test sees it: coef·loopVar + symbolic +
// constant, or unknown (not exactly encodable, or not affine in the loop
// variable).
struct StartForm {
  bool known = false;
  int64_t coef = 0;
  Expr rest;      // start - coef·loopVar
  Expr symbolic;  // rest without its top-level constant (null: none)
  int64_t constant = 0;
};

StartForm startForm(const Expr& e, const Var& loopVar) {
  StartForm f;
  if (!exactlyEncodable(e)) return f;
  auto split = splitLoopVar(e, loopVar);
  if (!split) return f;
  f.known = true;
  f.coef = split->coef;
  f.rest = split->rest;
  if (auto c = asConstInt(f.rest)) {
    f.constant = *c;
  } else if (f.rest->kind == ExprKind::Binary && f.rest->binOp == BinOp::Add &&
             asConstInt(f.rest->operands[1])) {
    f.symbolic = f.rest->operands[0];
    f.constant = *asConstInt(f.rest->operands[1]);
  } else {
    f.symbolic = f.rest;
  }
  return f;
}

// rest(b) - rest(a) when it is a constant.
std::optional<int64_t> restDifference(const StartForm& a, const StartForm& b) {
  bool sameSymbolic =
      a.symbolic == b.symbolic || (a.symbolic && b.symbolic && exprEqual(a.symbolic, b.symbolic));
  int64_t e = 0;
  if (sameSymbolic && !__builtin_sub_overflow(b.constant, a.constant, &e)) return e;
  return constDifference(b.rest, a.rest);
}

}  // namespace

// Start forms by expression node and loop variable. The key's expression is
// kept alive by the entry, so a node address is never reused while cached.
struct OverlapOracle::FormCache {
  struct Entry {
    Expr expr;
    Var loopVar;
    StartForm form;
  };
  struct KeyHash {
    size_t operator()(const std::pair<const ExprNode*, const VarNode*>& k) const {
      return std::hash<const void*>()(k.first) * 31 + std::hash<const void*>()(k.second);
    }
  };
  std::unordered_map<std::pair<const ExprNode*, const VarNode*>, Entry, KeyHash> entries;

  const StartForm& get(const Expr& e, const Var& loopVar) {
    auto key = std::make_pair(e.get(), loopVar.get());
    auto it = entries.find(key);
    if (it == entries.end())
      it = entries.emplace(key, Entry{e, loopVar, startForm(e, loopVar)}).first;
    return it->second.form;
  }
};

namespace {

std::optional<bool> decide(const Access& a, const Access& b, const ForStmt* loop,
                           std::optional<int64_t> shift, OverlapOracle::FormCache* cache) {
  if (a.isScalarVar() || b.isScalarVar())
    return a.isScalarVar() && b.isScalarVar() && a.var == b.var;
  if (a.storage != b.storage) return false;
  if (!loop) shift = 0;
  std::optional<int64_t> trips = loop ? asConstInt(loop->extent) : std::nullopt;
  // The shifts d the query ranges over: both iterations p and p + d inside the loop.
  int64_t lo = shift ? *shift : 1;
  int64_t hi = shift ? *shift : (trips ? *trips - 1 : INT64_MAX / 4);
  if (loop && trips) hi = std::min(hi, *trips - 1);
  if (lo > hi) return false;
  std::vector<DimPair> dims;
  if (!lineUp(a, b, dims)) return std::nullopt;
  // Only the starts as written are cached: flattened hulls are built per query.
  bool cacheable = cache && a.buffer == b.buffer;
  Var loopVar = loop ? loop->var : nullptr;
  bool decided = true;
  for (const auto& d : dims) {
    if (d.whole) continue;
    StartForm ownA, ownB;
    const StartForm& fa =
        cacheable ? cache->get(d.aStart, loopVar) : (ownA = startForm(d.aStart, loopVar));
    const StartForm& fb =
        cacheable ? cache->get(d.bStart, loopVar) : (ownB = startForm(d.bStart, loopVar));
    std::optional<int64_t> e;
    if (fa.known && fb.known && fa.coef == fb.coef) e = restDifference(fa, fb);
    // b's start at p + d minus a's at p: coef·d + e.
    if (!e || !clampShifts(fa.coef, *e, -d.bExtent, d.aExtent, lo, hi)) {
      decided = false;
      continue;
    }
    if (lo > hi) return false;
  }
  if (!decided || !a.guard.empty() || !b.guard.empty()) return std::nullopt;
  if (loop && !trips) return std::nullopt;  // Z3 may bound a symbolic trip count
  return true;
}

}  // namespace

std::optional<bool> decideSyntactically(const Access& a, const Access& b, const ForStmt* loop,
                                        std::optional<int64_t> shift) {
  return decide(a, b, loop, shift, nullptr);
}

OverlapOracle::OverlapOracle(unsigned timeoutMs, bool syntacticFirst)
    : solver_(std::make_unique<Solver>(timeoutMs)),
      forms_(std::make_unique<FormCache>()),
      syntacticFirst_(syntacticFirst) {}
OverlapOracle::~OverlapOracle() = default;

bool OverlapOracle::mayOverlap(const Access& a, const Access& b, const ForStmt* loop,
                               std::optional<int64_t> shift) {
  ++stats_.queries;
  if (a.isScalarVar() || b.isScalarVar())
    return a.isScalarVar() && b.isScalarVar() && a.var == b.var;
  if (a.storage != b.storage) return false;
  if (!loop) shift = 0;

  // No pair of iterations that far apart.
  std::optional<int64_t> trips = loop ? asConstInt(loop->extent) : std::nullopt;
  if (trips && shift && *shift >= *trips) return false;
  if (trips && !shift && *trips <= 1) return false;

  if (syntacticFirst_)
    if (auto known = decide(a, b, loop, shift, forms_.get())) {
      ++stats_.decidedWithoutSolver;
      return *known;
    }

  // Line the boxes up.
  std::vector<DimPair> dims;
  if (!lineUp(a, b, dims)) return true;
  if (loop && shift && *shift != 0)
    for (auto& d : dims) d.bStart = substitute(d.bStart, loop->var, add(varRef(loop->var), *shift));

  // Fast path: constant differences of the starts.
  bool guardsMatter = false;
  for (const Guard* g : {&a.guard, &b.guard})
    for (const auto& l : *g) guardsMatter |= !loop || mentionsVar(l.cond, loop->var);
  if (shift) {
    bool allOverlap = true;
    for (const auto& d : dims) {
      if (d.whole) continue;
      if (hasPrivateParts(d.aStart) || hasPrivateParts(d.bStart)) {
        allOverlap = false;
        continue;
      }
      auto diff = constDifference(d.bStart, d.aStart);
      if (!diff) {
        allOverlap = false;
        continue;
      }
      if (!(*diff > -d.bExtent && *diff < d.aExtent)) {
        ++stats_.decidedWithoutSolver;
        return false;
      }
    }
    if (allOverlap && !guardsMatter) {
      ++stats_.decidedWithoutSolver;
      return true;
    }
  }

  // Z3. Any solver error counts as "may overlap".
  ++stats_.solverCalls;
  try {
    return solve(a, b, loop, shift);
  } catch (const z3::exception&) {
    solver_->solver.reset();
    ++stats_.solverUnknown;
    return true;
  }
}

bool OverlapOracle::solve(const Access& a, const Access& b, const ForStmt* loop,
                          std::optional<int64_t> shift) {
  z3::context& ctx = solver_->ctx;
  z3::solver& s = solver_->solver;
  s.push();
  std::map<int, z3::expr> shared;
  std::optional<z3::expr> pA, pB;
  if (loop) {
    Encoder bounds(ctx, s, solver_->fresh, shared, nullptr, std::nullopt);
    z3::expr p = ctx.int_const("p_iter");
    z3::expr lo = bounds.intExpr(loop->min);
    z3::expr ext = bounds.intExpr(loop->extent);
    z3::expr q = p;
    if (shift) {
      q = p + ctx.int_val(*shift);
    } else {
      z3::expr d = ctx.int_const("d_shift");
      s.add(d >= 1);
      q = p + d;
    }
    s.add(p >= lo && q >= lo && p < lo + ext && q < lo + ext);
    pA = p;
    pB = q;
  }
  Encoder encA(ctx, s, solver_->fresh, shared, loop ? loop->var : nullptr, pA);
  Encoder encB(ctx, s, solver_->fresh, shared, loop ? loop->var : nullptr, pB);
  // b's starts were shifted for the fast path; re-encode them unshifted with p + shift.
  std::vector<DimPair> raw;
  lineUp(a, b, raw);
  for (const auto& d : raw) {
    if (d.whole) continue;
    z3::expr sa = encA.intExpr(d.aStart);
    z3::expr sb = encB.intExpr(d.bStart);
    s.add(sa < sb + ctx.int_val(d.bExtent) && sb < sa + ctx.int_val(d.aExtent));
  }
  for (const auto& l : a.guard)
    if (auto c = encA.boolExpr(l.cond)) s.add(l.negated ? !*c : *c);
  for (const auto& l : b.guard)
    if (auto c = encB.boolExpr(l.cond)) s.add(l.negated ? !*c : *c);
  z3::check_result r = s.check();
  s.pop();
  if (r == z3::unknown) ++stats_.solverUnknown;
  return r != z3::unsat;
}

std::optional<int64_t> OverlapOracle::smallestShift(const Access& a, const Access& b,
                                                    const ForStmt* loop, int64_t lo, int64_t hi) {
  for (int64_t d = lo; d <= hi; ++d)
    if (mayOverlap(a, b, loop, d)) return d;
  return std::nullopt;
}

}  // namespace tilesched::analysis
