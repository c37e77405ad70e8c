// Partial writes (see PartialWrites.h).
#include "analysis/PartialWrites.h"

#include <map>

#include <fmt/format.h>

#include "analysis/ExprUtil.h"
#include "analysis/Ownership.h"
#include "ir/Functor.h"
#include "ir/IROperator.h"

namespace tilesched::analysis {

using namespace ir;

namespace {

struct Interval {
  int64_t lo = 0, hi = 0;
};

// Interval bounds of integer expressions over the kernel's loop variables and
// block index (lets resolved to their definitions); nullopt when unbounded.
class Bounds {
 public:
  Bounds(const Kernel& kernel, const ScalarDefs& defs) : defs_(defs) {
    if (kernel.blockIdx) vars_[kernel.blockIdx->id] = {0, std::max<int64_t>(0, kernel.grid - 1)};
    walk(kernel.body);
  }

  std::optional<Interval> of(const Expr& raw) const { return eval(defs_.resolve(raw)); }

 private:
  void walk(const Stmt& s) {
    if (!s) return;
    if (const auto* seq = as<SeqStmt>(s)) {
      for (const auto& c : seq->stmts) walk(c);
    } else if (const auto* f = as<ForStmt>(s)) {
      auto min = of(f->min), extent = of(f->extent);
      if (min && extent && extent->hi >= 1) vars_[f->var->id] = {min->lo, min->hi + extent->hi - 1};
      walk(f->body);
    } else if (const auto* i = as<IfStmt>(s)) {
      walk(i->thenBody);
      walk(i->elseBody);
    }
  }

  static std::optional<Interval> checked(__int128 lo, __int128 hi) {
    if (lo < INT64_MIN || hi > INT64_MAX) return std::nullopt;
    return Interval{static_cast<int64_t>(lo), static_cast<int64_t>(hi)};
  }

  std::optional<Interval> eval(const Expr& e) const {
    if (!e || isFloat(e->dtype)) return std::nullopt;
    switch (e->kind) {
      case ExprKind::IntImm:
        return Interval{e->intValue, e->intValue};
      case ExprKind::VarRef: {
        auto it = vars_.find(e->var->id);
        if (it == vars_.end()) return std::nullopt;
        return it->second;
      }
      case ExprKind::Cast:
        return eval(e->operands[0]);
      case ExprKind::Select: {
        auto a = eval(e->operands[1]), b = eval(e->operands[2]);
        if (!a || !b) return std::nullopt;
        return Interval{std::min(a->lo, b->lo), std::max(a->hi, b->hi)};
      }
      case ExprKind::Binary:
        break;
      default:
        return std::nullopt;
    }
    auto a = eval(e->operands[0]), b = eval(e->operands[1]);
    if (!a || !b) return std::nullopt;
    using I = __int128;
    switch (e->binOp) {
      case BinOp::Add:
        return checked(I(a->lo) + b->lo, I(a->hi) + b->hi);
      case BinOp::Sub:
        return checked(I(a->lo) - b->hi, I(a->hi) - b->lo);
      case BinOp::Mul: {
        I c[4] = {I(a->lo) * b->lo, I(a->lo) * b->hi, I(a->hi) * b->lo, I(a->hi) * b->hi};
        return checked(*std::min_element(c, c + 4), *std::max_element(c, c + 4));
      }
      case BinOp::FloorDiv:
        if (b->lo != b->hi || b->lo <= 0) return std::nullopt;
        return Interval{floorDiv(a->lo, b->lo), floorDiv(a->hi, b->lo)};
      case BinOp::FloorMod:
        if (b->lo != b->hi || b->lo <= 0) return std::nullopt;
        if (floorDiv(a->lo, b->lo) == floorDiv(a->hi, b->lo))
          return Interval{floorMod(a->lo, b->lo), floorMod(a->hi, b->lo)};
        return Interval{0, b->lo - 1};
      case BinOp::Min:
        return Interval{std::min(a->lo, b->lo), std::min(a->hi, b->hi)};
      case BinOp::Max:
        return Interval{std::max(a->lo, b->lo), std::max(a->hi, b->hi)};
      default:
        return std::nullopt;
    }
  }

  const ScalarDefs& defs_;
  std::map<int, Interval> vars_;
};

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) out += fmt::format("{}{}", i ? ", " : "", shape[i]);
  return out + (shape.size() == 1 ? ",)" : ")");
}

bool coversStorage(const Region& r) {
  return r.numElements() * dtypeBytes(r.buffer->dtype) >= r.buffer->storage->bytes;
}

// Walks one owner iteration in program order until the storage is covered.
class Walker {
 public:
  Walker(const Storage& st, const Bounds& bounds, const ScalarDefs& defs)
      : st_(st), bounds_(bounds), defs_(defs) {}

  std::optional<PartialWrite> found;
  bool covered = false;

  void walk(const Stmt& s) {
    if (!s || found || covered) return;
    if (const auto* seq = as<SeqStmt>(s)) {
      for (const auto& c : seq->stmts) walk(c);
      return;
    }
    if (const auto* f = as<ForStmt>(s)) {
      const ForStmt* saved = runtimeLoop_;
      if (!runtimeLoop_ && !asConstInt(defs_.resolve(f->extent))) runtimeLoop_ = f;
      walk(f->body);
      runtimeLoop_ = saved;
      return;
    }
    if (const auto* i = as<IfStmt>(s)) {
      ++guards_;
      walk(i->thenBody);
      walk(i->elseBody);
      --guards_;
      return;
    }
    if (!writes(s)) return;
    // Under a guard the bounds of the loop variables say nothing about the
    // iterations that run the copy (`if row < M:`, T.Persistent's tile
    // guard): the run-time check covers those.
    if (const auto* c = as<CopyStmt>(s); c && guards_ == 0) {
      if (auto clipped = clippedSource(*c)) {
        found = PartialWrite{c->loc, *clipped, true};
        return;
      }
    }
    if (runtimeLoop_) {
      found = PartialWrite{
          s->loc,
          fmt::format("it is written in loop '{}' (line {}), whose trip count is only known at run "
                      "time, so an iteration may write only part of it",
                      runtimeLoop_->var->name, runtimeLoop_->loc.line),
          false};
      return;
    }
    if (guards_ == 0 && coversWhole(s)) covered = true;
  }

 private:
  // Does `s` write the storage (anywhere in its body, for T.Parallel and VF regions)?
  bool writes(const Stmt& s) const {
    bool w = false;
    forEachStmt(s, [&](const Stmt& x) {
      if (const auto* c = as<CopyStmt>(x)) w |= c->dst.buffer->storage == st_;
      if (const auto* f = as<FillStmt>(x)) w |= f->dst.buffer->storage == st_;
      if (const auto* r = as<ReduceStmt>(x)) w |= r->dst.buffer->storage == st_;
      if (const auto* g = as<GemmStmt>(x)) w |= g->c.buffer->storage == st_;
      if (const auto* st = as<StoreStmt>(x)) w |= st->buffer->storage == st_;
    });
    return w;
  }

  bool coversWhole(const Stmt& s) const {
    if (const auto* c = as<CopyStmt>(s))
      return c->dst.buffer->storage == st_ && coversStorage(c->dst);
    if (const auto* f = as<FillStmt>(s)) return coversStorage(f->dst);
    return false;
  }

  // The reason a copy into the storage is clipped at the end of its global
  // source in some iteration, if the bounds show it.
  std::optional<std::string> clippedSource(const CopyStmt& c) const {
    if (c.dst.buffer->storage != st_ || c.padValue) return std::nullopt;
    if (c.src.buffer->storage->scope != MemScope::Global) return std::nullopt;
    if (st_->scope == MemScope::L1) return std::nullopt;  // the tail is zero-filled
    auto shape = constShape(c.src.buffer);
    if (!shape || shape->size() != c.src.ranges.size()) return std::nullopt;
    for (size_t d = 0; d < shape->size(); ++d) {
      auto start = bounds_.of(c.src.ranges[d].min);
      if (!start) continue;
      int64_t end = start->hi + c.src.ranges[d].extent;
      if (end <= (*shape)[d]) continue;
      return fmt::format(
          "this copy of '{}' (shape {}) runs past the end of the tensor in some iteration "
          "(dimension {} up to {}) and is clipped there, so it writes only part of '{}'",
          c.src.buffer->name, shapeText(*shape), d, end, c.dst.buffer->name);
    }
    return std::nullopt;
  }

  const Storage& st_;
  const Bounds& bounds_;
  const ScalarDefs& defs_;
  const ForStmt* runtimeLoop_ = nullptr;
  int guards_ = 0;
};

}  // namespace

std::optional<PartialWrite> findPartialWrite(const Kernel& kernel, const StorageOwnership& o) {
  if (!o.eligible || o.manual || o.owners.empty()) return std::nullopt;
  ScalarDefs defs(kernel);
  Bounds bounds(kernel, defs);
  for (const auto& owner : o.owners) {
    const auto* f = as<ForStmt>(owner);
    if (!f) continue;
    Walker w(o.storage, bounds, defs);
    w.walk(f->body);
    if (w.found) return w.found;
  }
  return std::nullopt;
}

void warnPartialWrite(const StorageOwnership& o, int64_t versions, DiagnosticEngine& diags) {
  if (versions <= 1 || !o.partialWrite) return;
  const std::string& name = o.buffer ? o.buffer->name : o.storage->name;
  const PartialWrite& p = *o.partialWrite;
  diags.warningOnce(
      "partial-write:" + std::to_string(o.storage->id), p.loc,
      fmt::format("'{}' gets {} versions, but {}: the rest of the version keeps the data of "
                  "another iteration than the sequential program reads there; {}keep one version "
                  "with {{{}: 1}}",
                  name, versions, p.reason,
                  p.clipped ? "pass pad_value= to fill the rest, or " : "write all of it, or ",
                  name));
}

}  // namespace tilesched::analysis
