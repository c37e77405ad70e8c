// Task and unit extraction (see Tasks.h). Steps: flatten a statement list into
// units (ifs become guards, loops become loop units), collect each leaf's
// accesses as boxes, hull loop units' accesses over their loop variable, and
// estimate each list's timing.
#include "analysis/Tasks.h"

#include <fmt/format.h>
#include <algorithm>
#include <map>
#include <set>

#include "analysis/ExprUtil.h"
#include "ir/Functor.h"
#include "ir/IROperator.h"
#include "ir/Printer.h"

namespace tilesched::analysis {

using namespace ir;

// ---------------------------------------------------------------- printing

bool guardImplies(const Guard& inner, const Guard& outer) {
  for (const auto& o : outer) {
    bool found = false;
    for (const auto& i : inner) found |= i.negated == o.negated && exprEqual(i.cond, o.cond);
    if (!found) return false;
  }
  return true;
}

std::string printGuard(const Guard& g) {
  std::string out;
  for (const auto& l : g) {
    if (!out.empty()) out += " and ";
    out += l.negated ? "not (" + printExpr(l.cond) + ")" : "(" + printExpr(l.cond) + ")";
  }
  return out;
}

std::string printAccess(const Access& a) {
  std::string out = a.isWrite() ? "W " : "R ";
  if (a.isScalarVar()) return out + a.var->name;
  out += a.buffer->name;
  if (a.buffer->storage->name != a.buffer->name) out += "(" + a.buffer->storage->name + ")";
  if (!a.box.empty()) {
    out += "[";
    for (size_t i = 0; i < a.box.size(); ++i) {
      if (i) out += ", ";
      const BoxDim& d = a.box[i];
      if (d.whole) {
        out += ":";
        continue;
      }
      std::string start = printExpr(d.start);
      if (auto c = asConstInt(d.start))
        out += fmt::format("{}:{}", *c, *c + d.extent);
      else if (d.extent == 1)
        out += start;
      else
        out += fmt::format("{}:{} + {}", start, start, d.extent);  // the IR printer's spacing
    }
    out += "]";
  }
  if (a.scalarOperand) out += " (S)";
  return out;
}

std::string pipeMaskName(uint32_t mask) {
  std::string out;
  for (Pipe p : kAllPipes) {
    if (!(mask & tilesched::pipeMask(p))) continue;
    if (!out.empty()) out += "+";
    out += pipeName(p);
  }
  return out.empty() ? "-" : out;
}

std::string_view depKindName(DepKind k) {
  switch (k) {
    case DepKind::RAW:
      return "RAW";
    case DepKind::WAR:
      return "WAR";
    case DepKind::WAW:
      return "WAW";
  }
  return "?";
}

std::string_view distanceKindName(DistanceKind k) {
  switch (k) {
    case DistanceKind::Same:
      return "same";
    case DistanceKind::Versioned:
      return "versioned";
    case DistanceKind::Carried:
      return "carried";
    case DistanceKind::Exact:
      return "exact";
  }
  return "?";
}

void forEachListPostOrder(UnitList& list, const std::function<void(UnitList&)>& fn) {
  for (auto& u : list.units)
    if (u.body) forEachListPostOrder(*u.body, fn);
  fn(list);
}

void forEachList(const UnitList& list, const std::function<void(const UnitList&)>& fn) {
  fn(list);
  for (const auto& u : list.units)
    if (u.body) forEachList(*u.body, fn);
}

namespace {

// A variable swept inside the unit (T.Parallel, nested loop): boxes are hulled
// over its range [min, min + extent).
struct SweptVar {
  Var var;
  Expr min;
  std::optional<int64_t> extent;
};

BoxDim wholeDim(const Buffer& b, size_t d) {
  BoxDim out;
  out.start = intImm(0);
  out.whole = true;
  if (auto shape = constShape(b); shape && d < shape->size()) out.extent = (*shape)[d];
  return out;
}

BoxDim hullDim(const Buffer& b, size_t d, BoxDim dim, const SweptVar& v) {
  if (dim.whole || !mentionsVar(dim.start, v.var)) return dim;
  if (!v.extent || *v.extent < 1) return wholeDim(b, d);
  Expr next = substitute(dim.start, v.var, add(varRef(v.var), 1));
  auto step = constDifference(next, dim.start);
  if (!step) return wholeDim(b, d);
  int64_t span = *step * (*v.extent - 1);
  Expr first = substitute(dim.start, v.var, v.min);
  if (mentionsVar(first, v.var)) return wholeDim(b, d);
  if (span >= 0) return BoxDim{first, dim.extent + span, false};
  return BoxDim{add(first, span), dim.extent - span, false};
}

bool mentionsAny(const Expr& e, const std::vector<SweptVar>& vars) {
  for (const auto& v : vars)
    if (mentionsVar(e, v.var)) return true;
  return false;
}

// Collects the accesses of one leaf instruction (and of everything nested in a
// VF region or T.Parallel body).
class AccessCollector {
 public:
  AccessCollector(const ScalarDefs& defs, Guard guard, std::vector<Access>& out)
      : defs_(defs), guard_(std::move(guard)), out_(out) {}

  bool markScalarOperands = true;

  void stmt(const Stmt& s) {
    if (!s) return;
    switch (s->kind) {
      case StmtKind::Seq:
        for (const auto& c : as<SeqStmt>(s)->stmts) stmt(c);
        return;
      case StmtKind::If: {
        // Inside an atomic task a condition is data-dependent control flow:
        // both branches may run.
        const auto* i = as<IfStmt>(s);
        reads(i->cond, s->loc);
        stmt(i->thenBody);
        stmt(i->elseBody);
        return;
      }
      case StmtKind::For: {
        const auto* f = as<ForStmt>(s);
        reads(f->min, s->loc);
        reads(f->extent, s->loc);
        swept_.push_back({f->var, defs_.resolve(f->min), asConstInt(f->extent)});
        stmt(f->body);
        swept_.pop_back();
        return;
      }
      case StmtKind::Parallel: {
        const auto* p = as<ParallelStmt>(s);
        if (vectorDepth_ == 0) captured_ = issueCapturedScalars(s);
        for (size_t i = 0; i < p->vars.size(); ++i)
          swept_.push_back({p->vars[i], intImm(0), p->extents[i]});
        ++vectorDepth_;
        stmt(p->body);
        --vectorDepth_;
        swept_.resize(swept_.size() - p->vars.size());
        return;
      }
      case StmtKind::VFRegion:
        if (vectorDepth_ == 0) captured_ = issueCapturedScalars(s);
        ++vectorDepth_;
        stmt(as<VFRegionStmt>(s)->body);
        --vectorDepth_;
        return;
      case StmtKind::Copy: {
        const auto* c = as<CopyStmt>(s);
        region(c->src, AccessKind::Read, s->loc);
        region(c->dst, AccessKind::Write, s->loc);
        reads(c->padValue, s->loc);
        return;
      }
      case StmtKind::Gemm: {
        const auto* g = as<GemmStmt>(s);
        region(g->a, AccessKind::Read, s->loc);
        region(g->b, AccessKind::Read, s->loc);
        reads(g->clearAccum, s->loc);
        // C is read unless the accumulator is cleared: a read guarded by
        // `not clear_accum`, none when it is the constant True.
        auto clear = g->clearAccum ? asConstInt(g->clearAccum) : std::optional<int64_t>(0);
        if (!clear || *clear == 0) {
          Guard saved = guard_;
          if (!clear && !mentionsAny(g->clearAccum, swept_))
            guard_.push_back({defs_.resolve(g->clearAccum), true, g->clearAccum});
          region(g->c, AccessKind::Read, s->loc);
          guard_ = saved;
        }
        region(g->c, AccessKind::Write, s->loc);
        return;
      }
      case StmtKind::Fill: {
        const auto* f = as<FillStmt>(s);
        reads(f->value, s->loc);
        region(f->dst, AccessKind::Write, s->loc);
        return;
      }
      case StmtKind::Reduce: {
        const auto* r = as<ReduceStmt>(s);
        region(r->src, AccessKind::Read, s->loc);
        if (!r->clear) region(r->dst, AccessKind::Read, s->loc);
        region(r->dst, AccessKind::Write, s->loc);
        return;
      }
      case StmtKind::Store: {
        const auto* st = as<StoreStmt>(s);
        reads(st->value, s->loc);
        for (const auto& i : st->indices) reads(i, s->loc);
        element(st->buffer, st->indices, AccessKind::Write, s->loc);
        return;
      }
      case StmtKind::Assign: {
        const auto* a = as<AssignStmt>(s);
        reads(a->value, s->loc);
        Access acc;
        acc.kind = AccessKind::Write;
        acc.var = a->var;
        acc.guard = guard_;
        acc.loc = s->loc;
        add(std::move(acc));
        return;
      }
      case StmtKind::SetFlag:
      case StmtKind::WaitFlag:
      case StmtKind::Barrier:
        return;
    }
  }

  // Loads and scalar-variable reads of an expression. Outside T.Parallel and
  // VF bodies the scalar unit evaluates it when the instruction issues.
  void reads(const Expr& e, SourceLoc loc) {
    if (!e) return;
    if (e->kind == ExprKind::VarRef && e->var->kind == VarKind::Local) {
      Access acc;
      acc.kind = AccessKind::Read;
      acc.var = e->var;
      acc.guard = guard_;
      acc.loc = loc;
      add(std::move(acc));
      return;
    }
    if (e->kind == ExprKind::Load)
      element(e->buffer, e->operands, AccessKind::Read, loc,
              markScalarOperands && (vectorDepth_ == 0 || isCaptured(e->buffer->storage)));
    for (const auto& o : e->operands) reads(o, loc);
  }

 private:
  void add(Access acc) {
    // One access per (kind, storage/var, box, guard) is enough.
    for (const auto& a : out_) {
      if (a.kind != acc.kind || a.storage != acc.storage || a.var != acc.var ||
          a.buffer != acc.buffer || a.scalarOperand != acc.scalarOperand)
        continue;
      if (a.box.size() != acc.box.size() || a.guard.size() != acc.guard.size()) continue;
      bool same = guardImplies(a.guard, acc.guard) && guardImplies(acc.guard, a.guard);
      for (size_t i = 0; same && i < a.box.size(); ++i)
        same = a.box[i].whole == acc.box[i].whole && a.box[i].extent == acc.box[i].extent &&
               exprEqual(a.box[i].start, acc.box[i].start);
      if (same) return;
    }
    out_.push_back(std::move(acc));
  }

  void finishBox(Access& acc) {
    for (size_t d = 0; d < acc.box.size(); ++d) {
      acc.box[d].start = defs_.resolve(acc.box[d].start);
      for (auto it = swept_.rbegin(); it != swept_.rend(); ++it)
        acc.box[d] = hullDim(acc.buffer, d, acc.box[d], *it);
    }
  }

  void region(const Region& r, AccessKind kind, SourceLoc loc) {
    for (const auto& range : r.ranges) reads(range.min, loc);
    Access acc;
    acc.kind = kind;
    acc.storage = r.buffer->storage;
    acc.buffer = r.buffer;
    for (const auto& range : r.ranges) acc.box.push_back(BoxDim{range.min, range.extent, false});
    acc.guard = guard_;
    acc.loc = loc;
    finishBox(acc);
    add(std::move(acc));
  }

  void element(const Buffer& b, const std::vector<Expr>& indices, AccessKind kind, SourceLoc loc,
               bool scalarOperand = false) {
    Access acc;
    acc.kind = kind;
    acc.scalarOperand = scalarOperand;
    acc.storage = b->storage;
    acc.buffer = b;
    for (const auto& i : indices) acc.box.push_back(BoxDim{i, 1, false});
    acc.guard = guard_;
    acc.loc = loc;
    finishBox(acc);
    add(std::move(acc));
  }

  const ScalarDefs& defs_;
  Guard guard_;
  std::vector<Access>& out_;
  std::vector<SweptVar> swept_;
  int vectorDepth_ = 0;  // inside a T.Parallel or VF body: loads are the vector unit's
  // ... except the T.alloc_var scalars the scalar unit hands over at issue
  // (ir::issueCapturedScalars).
  std::vector<Storage> captured_;
  bool isCaptured(const Storage& st) const {
    return std::find(captured_.begin(), captured_.end(), st) != captured_.end();
  }
};

class Extractor {
 public:
  Extractor(const Kernel& k, const Target& t, const cost::CostOptions& o)
      : defs_(k), target_(t), options_(o) {}

  void list(const Stmt& body, const Guard& guard, UnitList& out) {
    if (!body) return;
    if (const auto* seq = as<SeqStmt>(body)) {
      for (const auto& s : seq->stmts) list(s, guard, out);
      return;
    }
    if (const auto* i = as<IfStmt>(body)) {
      Expr cond = defs_.resolve(i->cond);
      if (auto c = asConstInt(cond)) {
        list(*c ? i->thenBody : i->elseBody, guard, out);
        return;
      }
      Guard thenGuard = guard;
      thenGuard.push_back({cond, false, i->cond});
      list(i->thenBody, thenGuard, out);
      if (i->elseBody) {
        Guard elseGuard = guard;
        elseGuard.push_back({cond, true, i->cond});
        list(i->elseBody, elseGuard, out);
      }
      return;
    }
    Unit u;
    u.index = static_cast<int>(out.units.size());
    u.stmt = body;
    u.guard = guard;
    u.loc = body->loc;
    if (const auto* f = as<ForStmt>(body))
      loopUnit(*f, u);
    else
      taskUnit(u);
    // The condition of an enclosing if is read by the unit.
    // (Not marked as scalar operands: the predicated lowering evaluates the
    // condition in its own slot, fenced by pipe_barrier("ALL").)
    AccessCollector guardReads(defs_, guard, u.accesses);
    guardReads.markScalarOperands = false;
    for (const auto& l : guard) guardReads.reads(l.source ? l.source : l.cond, u.loc);
    out.units.push_back(std::move(u));
  }

  UnitList root(const Kernel& k) {
    UnitList out;
    list(k.body, {}, out);
    out.timing = estimateTiming(out);
    return out;
  }

 private:
  void taskUnit(Unit& u) {
    u.kind = UnitKind::Task;
    u.cost = cost::instructionCost(u.stmt, target_, options_);
    u.pipeMask = u.cost.registerOnly ? 0 : pipeMask(u.cost.pipe);
    if (u.cost.secondPipe) u.pipeMask |= pipeMask(*u.cost.secondPipe);
    u.latency = cost::totalLatency(u.cost);
    u.ii = std::max(u.cost.ii, u.cost.secondPipe ? u.cost.secondIi : 0);
    AccessCollector collect(defs_, u.guard, u.accesses);
    collect.stmt(u.stmt);
  }

  void loopUnit(const ForStmt& f, Unit& u) {
    u.kind = UnitKind::Loop;
    auto body = std::make_shared<UnitList>();
    body->loopStmt = u.stmt;
    list(f.body, {}, *body);
    body->timing = estimateTiming(*body);
    u.body = body;
    for (const auto& inner : body->units) u.pipeMask |= inner.pipeMask;
    u.cost = cost::InstructionCost{};
    u.cost.pipe = body->units.empty() ? Pipe::S : body->units.front().cost.pipe;
    u.latency = u.ii = std::max<int64_t>(1, body->timing.totalTime());

    // The loop's own bounds are read once per entry.
    AccessCollector bounds(defs_, u.guard, u.accesses);
    bounds.reads(f.min, u.loc);
    bounds.reads(f.extent, u.loc);

    SweptVar swept{f.var, defs_.resolve(f.min), asConstInt(defs_.resolve(f.extent))};
    std::set<int> assignedInside;
    for (const auto& inner : body->units)
      for (const auto& a : inner.accesses)
        if (a.isScalarVar() && a.isWrite()) assignedInside.insert(a.var->id);
    auto local = [&](const Expr& e) {
      if (mentionsVar(e, f.var)) return true;
      std::set<int> ids;
      collectVars(e, ids);
      for (int id : ids)
        if (assignedInside.count(id)) return true;
      return false;
    };
    for (const auto& inner : body->units) {
      for (Access a : inner.accesses) {
        a.path.insert(a.path.begin(), inner.index);
        // A variable assigned inside the loop is private to it.
        if (a.isScalarVar() && assignedInside.count(a.var->id) && !a.isWrite()) continue;
        for (size_t d = 0; d < a.box.size(); ++d) a.box[d] = hullDim(a.buffer, d, a.box[d], swept);
        Guard g = u.guard;
        for (const auto& l : a.guard)
          if (!local(l.cond)) g.push_back(l);
        a.guard = std::move(g);
        bool dup = false;
        for (const auto& b : u.accesses) {
          if (b.kind != a.kind || b.storage != a.storage || b.var != a.var ||
              b.buffer != a.buffer || b.scalarOperand != a.scalarOperand)
            continue;
          if (b.path != a.path) continue;
          if (b.box.size() != a.box.size() || !guardImplies(a.guard, b.guard) ||
              !guardImplies(b.guard, a.guard))
            continue;
          bool same = true;
          for (size_t d = 0; same && d < a.box.size(); ++d)
            same = a.box[d].whole == b.box[d].whole && a.box[d].extent == b.box[d].extent &&
                   exprEqual(a.box[d].start, b.box[d].start);
          dup |= same;
        }
        if (!dup) u.accesses.push_back(std::move(a));
      }
    }
  }

  ScalarDefs defs_;
  const Target& target_;
  const cost::CostOptions& options_;
};

}  // namespace

LoopTiming estimateTiming(const UnitList& list) {
  LoopTiming t;
  const ForStmt* loop = list.loop();
  if (loop) {
    auto trips = asConstInt(loop->extent);
    t.tripsKnown = trips.has_value();
    t.trips = trips ? std::max<int64_t>(*trips, 0) : 1;
  }
  std::array<int64_t, kNumPipes> pipeFree{};
  int64_t end = 0;
  t.start.assign(list.units.size(), 0);
  for (size_t i = 0; i < list.units.size(); ++i) {
    const Unit& u = list.units[i];
    int64_t s = 0;
    for (Pipe p : kAllPipes)
      if (u.pipeMask & pipeMask(p)) s = std::max(s, pipeFree[pipeIndex(p)]);
    for (const auto& d : list.deps)
      if (d.to == static_cast<int>(i) && d.distanceKind == DistanceKind::Same &&
          d.from < static_cast<int>(i))
        s = std::max(s, t.start[d.from] + d.latency);
    t.start[i] = s;
    for (Pipe p : kAllPipes)
      if (u.pipeMask & pipeMask(p)) pipeFree[pipeIndex(p)] = s + (u.isLoop() ? u.latency : u.ii);
    end = std::max(end, s + u.latency);
  }
  t.makespan = std::max<int64_t>(end, 1);
  t.ii = t.makespan;  // no overlap between iterations in the estimate
  t.estimated = true;
  return t;
}

namespace {

void countTaskUsers(const UnitList& list, std::map<int, int>& users) {
  for (const auto& u : list.units) {
    if (u.isLoop()) {
      countTaskUsers(*u.body, users);
      continue;
    }
    std::set<int> seen;
    for (const auto& a : u.accesses)
      if (a.storage && seen.insert(a.storage->id).second) ++users[a.storage->id];
  }
}

void dropPrivate(UnitList& list, const std::set<int>& priv) {
  for (auto& u : list.units) {
    if (u.body) dropPrivate(*u.body, priv);
    std::erase_if(u.accesses,
                  [&](const Access& a) { return a.storage && priv.count(a.storage->id); });
  }
}

}  // namespace

UnitList extractUnits(const Kernel& kernel, const Target& target,
                      const cost::CostOptions& options) {
  Extractor ex(kernel, target, options);
  UnitList root = ex.root(kernel);
  // Registers and scalar arrays used by a single task (a fragment inside a VF
  // region) are private to it: no other unit can observe them.
  std::map<int, int> users;
  countTaskUsers(root, users);
  std::set<int> priv;
  for (const auto& st : kernel.storages)
    if (isLocalScope(st->scope) && users[st->id] == 1) priv.insert(st->id);
  if (!priv.empty()) dropPrivate(root, priv);
  return root;
}

}  // namespace tilesched::analysis
