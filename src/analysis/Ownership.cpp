// Owners and eligibility (see Ownership.h). Index the loops (their enclosing
// loops and guards), then per storage: describeStorage (annotations),
// applyClaims (explicit claims, their warnings and the nested-claims error),
// inferOwners (bottom-up over the loop tree, `cover`), describeEpochs
// (version bound, epoch flags, broadcast fills), and the warning for a fixed
// count that never applies (SPEC §2.1).
#include "analysis/Ownership.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "analysis/ExprUtil.h"
#include "ir/Functor.h"
#include "ir/IROperator.h"

namespace tilesched::analysis {

using namespace ir;

const StorageOwnership* Ownership::find(const Storage& s) const {
  for (const auto& o : storages)
    if (o.storage == s) return &o;
  return nullptr;
}

bool Ownership::isOwner(const ForStmt* loop, const Storage& s) const {
  const StorageOwnership* o = find(s);
  if (!o || !o->eligible) return false;
  for (const auto& owner : o->owners)
    if (owner.get() == loop) return true;
  return false;
}

std::vector<Storage> Ownership::ownedBy(const ForStmt* loop) const {
  std::vector<Storage> out;
  for (const auto& o : storages)
    if (isOwner(loop, o.storage)) out.push_back(o.storage);
  return out;
}

bool isTransparentLoop(const ForStmt& loop) {
  auto trips = asConstInt(loop.extent);
  return trips && *trips == 1;
}

bool hasNumStages(const ForStmt& loop) {
  return loop.forKind == ForKind::Pipelined ||
         (loop.forKind == ForKind::Persistent && loop.numStages > 0);
}

namespace {

std::string loopName(const ForStmt& f) {
  return fmt::format("'{}' (line {})", f.var->name, f.loc.line);
}

bool touches(const Unit& u, const Storage& s) {
  for (const auto& a : u.accesses)
    if (a.storage == s) return true;
  return false;
}

// Accesses of the unit itself: all of a task's; a loop unit's reads of its
// bounds and of its condition (not those of its body).
bool touchesDirectly(const Unit& u, const Storage& s) {
  for (const auto& a : u.accesses)
    if (a.storage == s && a.path.empty()) return true;
  return false;
}

bool bodyTouches(const Unit& u, const Storage& s) {
  for (const auto& a : u.accesses)
    if (a.storage == s && !a.path.empty()) return true;
  return false;
}

bool loadsStorage(const Expr& e, const Storage& s) {
  if (!e) return false;
  if (e->kind == ExprKind::Load && e->buffer && e->buffer->storage == s) return true;
  for (const auto& o : e->operands)
    if (loadsStorage(o, s)) return true;
  return false;
}

// A T.fill / T.clear of `s` that reads nothing of it.
bool isPureFill(const Unit& u, const Storage& s) {
  const auto* f = as<FillStmt>(u.stmt);
  if (!f || f->dst.buffer->storage != s) return false;
  for (const auto& a : u.accesses)
    if (a.storage == s && !a.isWrite()) return false;
  return true;
}

// ... of every byte of the storage.
bool isWholeFill(const Unit& u, const Storage& s) {
  if (!isPureFill(u, s)) return false;
  const auto* f = as<FillStmt>(u.stmt);
  int64_t bytes = f->dst.numElements() * dtypeBytes(f->dst.buffer->dtype);
  return s->bytes > 0 && bytes >= s->bytes;
}

// A loop nest whose every access of `s` is a pure fill (no bound or condition
// reads `s`).
bool onlyFills(const Unit& u, const Storage& s) {
  if (!u.isLoop() || touchesDirectly(u, s)) return false;
  bool any = false;
  for (const auto& inner : u.body->units) {
    if (!touches(inner, s)) continue;
    if (inner.isLoop() ? !onlyFills(inner, s) : !isPureFill(inner, s)) return false;
    any = true;
  }
  return any;
}

// A loop of fills that together cover every byte of `s` (a loop of row
// fills): the loop's write box, hulled over its variables, is the whole
// buffer. Like the write-first rule the hull is optimistic (`ub[2 * r, :]`
// over r < 2 hulls to rows 0..2); that costs no correctness, the fills are
// broadcast to every version as written.
bool isWholeFillLoop(const Unit& u, const Storage& s) {
  if (!onlyFills(u, s)) return false;
  for (const auto& a : u.accesses) {
    if (a.storage != s || !a.isWrite() || a.buffer->shape.size() != a.box.size()) continue;
    int64_t elements = 1;
    bool whole = true;
    for (size_t d = 0; whole && d < a.box.size(); ++d) {
      auto dim = asConstInt(a.buffer->shape[d]);
      auto start = asConstInt(a.box[d].start);
      whole = dim && (a.box[d].whole || (start && *start == 0 && a.box[d].extent >= *dim));
      if (dim) elements *= *dim;
    }
    if (whole && s->bytes > 0 && elements * dtypeBytes(a.buffer->dtype) >= s->bytes) return true;
  }
  return false;
}

// ------------------------------------------------------------ guards

// Guards in a normal form for the write-first test: `not x` is x negated,
// `a >= b`, `a > b`, `a != b` on integers are `a < b`, `a <= b`, `a == b`
// negated, and a conjunction is its literals. Literals are syntactic
// otherwise (`s < 2` does not imply `s < 3`).
using Literals = std::vector<GuardLiteral>;

bool sameLiteral(const GuardLiteral& a, const GuardLiteral& b) {
  return a.negated == b.negated && exprEqual(a.cond, b.cond);
}
bool complementary(const GuardLiteral& a, const GuardLiteral& b) {
  return a.negated != b.negated && exprEqual(a.cond, b.cond);
}
bool holds(const Literals& g, const GuardLiteral& l) {
  for (const auto& x : g)
    if (sameLiteral(x, l)) return true;
  return false;
}
// Every literal of `weaker` is in `stronger`: `stronger` implies `weaker`.
bool implies(const Literals& stronger, const Literals& weaker) {
  for (const auto& l : weaker)
    if (!holds(stronger, l)) return false;
  return true;
}
bool contradictory(const Literals& g) {
  for (size_t i = 0; i < g.size(); ++i)
    for (size_t j = i + 1; j < g.size(); ++j)
      if (complementary(g[i], g[j])) return true;
  return false;
}

void addCanonical(GuardLiteral l, Literals& out) {
  for (;;) {
    const Expr& c = l.cond;
    if (!c) break;
    if (c->kind == ExprKind::Unary && c->unOp == UnOp::Not && c->operands.size() == 1) {
      l.cond = c->operands[0];
      l.negated = !l.negated;
      continue;
    }
    if (c->kind == ExprKind::Binary && c->binOp == BinOp::And && !l.negated) {
      addCanonical({c->operands[0], false, c->operands[0]}, out);
      addCanonical({c->operands[1], false, c->operands[1]}, out);
      return;
    }
    if (c->kind == ExprKind::Binary && c->operands.size() == 2 && !isFloat(c->operands[0]->dtype) &&
        !isFloat(c->operands[1]->dtype)) {
      std::optional<BinOp> flipped;
      if (c->binOp == BinOp::GE) flipped = BinOp::LT;
      if (c->binOp == BinOp::GT) flipped = BinOp::LE;
      if (c->binOp == BinOp::NE) flipped = BinOp::EQ;
      if (flipped) {
        l.cond = binary(*flipped, c->operands[0], c->operands[1]);
        l.negated = !l.negated;
      }
    }
    break;
  }
  if (!holds(out, l)) out.push_back(std::move(l));
}

Literals canonical(const Literals& prefix, const Guard& g) {
  Literals out = prefix;
  for (const auto& l : g) addCanonical(l, out);
  return out;
}

// The guards of the writes seen so far in one iteration, closed under
// resolution: writes under `P and c` and `P and not c` together are a write
// under `P` (SPEC §2.4 complementary guards).
class WriteSet {
 public:
  // Does some earlier write happen whenever a read under `g` does?
  bool covers(const Literals& g) const {
    for (const auto& w : writes_)
      if (implies(g, w)) return true;
    return false;
  }

  void add(const Literals& g) {
    std::vector<Literals> work{g};
    for (size_t next = 0; next < work.size() && next < kMaxWork; ++next) {
      Literals cur = work[next];
      if (contradictory(cur) || covers(cur)) continue;
      for (const auto& w : writes_)
        for (const auto& l : cur)
          for (const auto& m : w) {
            if (!complementary(l, m)) continue;
            Literals resolvent;
            for (const auto& x : cur)
              if (!sameLiteral(x, l)) resolvent.push_back(x);
            for (const auto& x : w)
              if (!sameLiteral(x, m) && !holds(resolvent, x)) resolvent.push_back(x);
            work.push_back(std::move(resolvent));
          }
      std::erase_if(writes_, [&](const Literals& w) { return implies(w, cur); });
      if (writes_.size() < kMaxWrites) writes_.push_back(std::move(cur));
    }
  }

 private:
  static constexpr size_t kMaxWork = 256;
  static constexpr size_t kMaxWrites = 64;
  std::vector<Literals> writes_;
};

// Walks one iteration of `list` in program order (nested loops walked once):
// false at the first read of `s` that no earlier write covers (`bad` = where).
bool writeFirstWalk(const UnitList& list, const Storage& s, const Literals& prefix,
                    WriteSet& writes, SourceLoc& bad) {
  for (const auto& u : list.units) {
    if (!touches(u, s)) continue;
    // A condition that loads the storage reads it before the unit runs.
    for (const auto& l : u.guard)
      if (loadsStorage(l.source ? l.source : l.cond, s) && !writes.covers(prefix)) {
        bad = u.loc;
        return false;
      }
    if (u.isLoop()) {
      for (const auto& a : u.accesses)
        if (a.storage == s && a.path.empty() && !a.isWrite() &&
            !writes.covers(canonical(prefix, a.guard))) {
          bad = a.loc;
          return false;
        }
      // Writes inside a loop that may run zero times initialise nothing for
      // what follows it: only a constant trip count of at least 1 lets them
      // count (the reads inside are still checked against them).
      auto trips = asConstInt(u.loop()->extent);
      bool certainlyRuns = trips && *trips >= 1;
      WriteSet inner = writes;
      if (!writeFirstWalk(*u.body, s, canonical(prefix, u.guard), certainlyRuns ? writes : inner,
                          bad))
        return false;
      continue;
    }
    for (const auto& a : u.accesses) {
      if (a.storage != s) continue;
      Literals g = canonical(prefix, a.guard);
      if (a.isWrite()) {
        writes.add(g);
      } else if (!writes.covers(g)) {
        bad = a.loc;
        return false;
      }
    }
  }
  return true;
}

// Does every iteration of `list` access `s`? True when some access happens
// under no condition, directly or in a nested loop that certainly runs (a
// constant trip count of at least 1).
bool alwaysAccessed(const UnitList& list, const Storage& s) {
  for (const auto& u : list.units) {
    if (!touches(u, s) || !u.guard.empty()) continue;
    for (const auto& a : u.accesses)
      if (a.storage == s && a.path.empty() && a.guard.empty()) return true;
    if (!u.isLoop()) continue;
    auto trips = asConstInt(u.loop()->extent);
    if (trips && *trips >= 1 && alwaysAccessed(*u.body, s)) return true;
  }
  return false;
}

// ------------------------------------------------------------ inference

struct Cover {
  bool ok = false;
  std::vector<Stmt> owners;
  std::string reason;
};

// What one list does with a storage, transparent loops flattened into it.
struct Scan {
  bool direct = false;  // an access that is not inside a child loop (nor a root fill)
  SourceLoc directLoc;
  std::vector<const Unit*> children;  // non-transparent loops whose bodies touch it
  bool fills = false;                 // initialisation fills outside every owner
};

void scan(const UnitList& list, const Storage& s, bool atRoot, Scan& out) {
  auto direct = [&](SourceLoc loc) {
    if (!out.direct) out.directLoc = loc;
    out.direct = true;
  };
  for (const auto& u : list.units) {
    if (!touches(u, s)) continue;
    // At the kernel root, a loop of fills covering the whole buffer
    // initialises it like one whole fill: it is no owner, its fills are
    // broadcast to every version (SPEC §2.4, docs/analyses.md).
    if (atRoot && isWholeFillLoop(u, s)) {
      out.fills = true;
      continue;
    }
    if (u.isLoop()) {
      if (touchesDirectly(u, s)) direct(u.loc);
      if (isTransparentLoop(*u.loop()))
        scan(*u.body, s, atRoot, out);
      else if (bodyTouches(u, s))
        out.children.push_back(&u);
      continue;
    }
    if (atRoot && isWholeFill(u, s)) {
      out.fills = true;
      continue;
    }
    direct(u.loc);
  }
}

// Owners of `s` inside `list` (a loop body or the kernel root), or why there
// are none: the children's owners when every access lies in child loops that
// found owners, else the list's own loop when it is write-first.
Cover cover(const UnitList& list, const Storage& s) {
  Scan sc;
  scan(list, s, list.isRoot(), sc);
  Cover out;
  if (!sc.direct && !sc.children.empty()) {
    bool all = true;
    for (const Unit* c : sc.children) {
      Cover sub = cover(*c->body, s);
      if (!sub.ok) {
        all = false;
        if (out.reason.empty()) out.reason = sub.reason;
        continue;
      }
      out.owners.insert(out.owners.end(), sub.owners.begin(), sub.owners.end());
    }
    if (all) {
      out.ok = true;
      return out;
    }
    out.owners.clear();
  }
  if (!list.isRoot()) {
    WriteSet writes;
    SourceLoc bad;
    if (writeFirstWalk(list, s, {}, writes, bad)) return Cover{true, {list.loopStmt}, ""};
    out.reason =
        fmt::format("it is read before it is written in an iteration of loop {} (read at line {})",
                    loopName(*list.loop()), bad.line);
    return out;
  }
  if (sc.children.empty())
    out.reason = "";  // no loop: inferOwners says which (a one-trip loop, or none)
  else if (sc.direct)
    out.reason = fmt::format(
        "it is accessed outside every loop (line {}), where only a T.fill or T.clear of the whole "
        "buffer may be",
        sc.directLoc.line);
  return out;
}

// ------------------------------------------------------------ loop index

struct LoopInfo {
  std::vector<const ForStmt*> enclosing;  // outermost first
  bool guardedPath = false;               // it or a loop around it runs under a condition
  const UnitList* body = nullptr;         // null for loops inside a task (VF region)
};

void indexIR(const Stmt& s, std::vector<const ForStmt*>& stack,
             std::map<const StmtNode*, LoopInfo>& loops) {
  if (!s) return;
  switch (s->kind) {
    case StmtKind::Seq:
      for (const auto& c : as<SeqStmt>(s)->stmts) indexIR(c, stack, loops);
      return;
    case StmtKind::If:
      indexIR(as<IfStmt>(s)->thenBody, stack, loops);
      indexIR(as<IfStmt>(s)->elseBody, stack, loops);
      return;
    case StmtKind::Parallel:
      indexIR(as<ParallelStmt>(s)->body, stack, loops);
      return;
    case StmtKind::VFRegion:
      indexIR(as<VFRegionStmt>(s)->body, stack, loops);
      return;
    case StmtKind::For: {
      const auto* f = as<ForStmt>(s);
      loops[s.get()].enclosing = stack;
      stack.push_back(f);
      indexIR(f->body, stack, loops);
      stack.pop_back();
      return;
    }
    default:
      return;
  }
}

void indexUnits(const UnitList& list, bool guardedAbove,
                std::map<const StmtNode*, LoopInfo>& loops) {
  for (const auto& u : list.units) {
    if (!u.isLoop()) continue;
    LoopInfo& info = loops[u.stmt.get()];
    info.body = u.body.get();
    info.guardedPath = guardedAbove || !u.guard.empty();
    indexUnits(*u.body, info.guardedPath, loops);
  }
}

// Bounds that change with an enclosing loop, a scalar variable or memory.
bool variesInNest(const Expr& e, const std::vector<const ForStmt*>& enclosing) {
  if (!e) return false;
  if (e->kind == ExprKind::Load) return true;
  if (e->kind == ExprKind::VarRef && e->var) {
    if (e->var->kind == VarKind::Local) return true;
    for (const ForStmt* f : enclosing)
      if (f->var == e->var) return true;
  }
  for (const auto& o : e->operands)
    if (variesInNest(o, enclosing)) return true;
  return false;
}

void collectBroadcastFills(const UnitList& list, const StorageOwnership& o, bool insideOwner,
                           std::vector<Stmt>& out) {
  for (const auto& u : list.units) {
    if (!touches(u, o.storage)) continue;
    if (u.isLoop()) {
      bool owner = insideOwner;
      for (const auto& ow : o.owners) owner |= ow == u.stmt;
      collectBroadcastFills(*u.body, o, owner, out);
      continue;
    }
    if (!insideOwner && isPureFill(u, o.storage)) out.push_back(u.stmt);
  }
}

using LoopIndex = std::map<const StmtNode*, LoopInfo>;

// One explicit multi_buffer_eligible claim.
struct Claim {
  Stmt loop;
  Buffer buffer;  // as named in the claim
  SourceLoc loc;
};

// Step 1: the storage's allocating buffer and what the annotations say of it.
StorageOwnership describeStorage(const Kernel& kernel, const Storage& st) {
  StorageOwnership o;
  o.storage = st;
  for (const auto& b : kernel.buffers)
    if (b->storage == st && !b->isAlias) {
      o.buffer = b;
      break;
    }
  if (!o.buffer)
    for (const auto& b : kernel.buffers)
      if (b->storage == st) {
        o.buffer = b;
        break;
      }
  o.candidate = isCapacityChecked(st->scope);
  for (const auto& m : kernel.annotations.manual)
    if (m.storage == st) {
      o.manual = true;
      o.ring = m.ring;
    }
  for (const auto& v : kernel.annotations.bufferVersions)
    if (v.storage == st) o.optOut = v.isOptOut();
  return o;
}

// Step 2: explicit claims (program order). Claims on manual, opted-out or
// non-candidate storages are dropped with a warning; claims on nested loops
// are an error. Returns false after that error.
bool applyClaims(StorageOwnership& o, const std::vector<Claim>& claims, LoopIndex& loops,
                 DiagnosticEngine& diags) {
  const Claim& first = claims.front();
  const std::string& claimed = first.buffer->name;
  std::string id = std::to_string(o.storage->id);
  if (o.manual) {
    diags.warningOnce(
        "manual-claim:" + id, first.loc,
        fmt::format("'{}' is a manual multi-buffer (T.annotate_manual_multi_buffer), so its "
                    "multi_buffer_eligible claim is dropped; its versions are the ones written "
                    "in its indices",
                    claimed));
    return true;
  }
  if (o.optOut) {
    diags.warningOnce("opt-out-claim:" + id, first.loc,
                      fmt::format("{{{0}: 1}} opts '{0}' out of multi-buffering and overrides its "
                                  "multi_buffer_eligible claim; use {{{0}: (1, \"auto\")}} to "
                                  "keep it eligible with one version",
                                  claimed));
    return true;
  }
  if (!o.candidate) {
    diags.warningOnce(
        "claim-scope:" + id, first.loc,
        fmt::format("'{}' is in {}, which is never multi-buffered; its multi_buffer_eligible "
                    "claim is dropped",
                    claimed, memScopeName(o.storage->scope)));
    return true;
  }
  o.explicitClaim = true;
  auto encloses = [&](const Stmt& outer, const Stmt& inner) {
    for (const ForStmt* f : loops[inner.get()].enclosing)
      if (f == outer.get()) return true;
    return false;
  };
  // Owners never nest: two claims on nested loops are an error.
  for (const auto& outer : claims)
    for (const auto& inner : claims) {
      if (!encloses(outer.loop, inner.loop)) continue;
      diags.error(inner.loc,
                  fmt::format("'{}' is claimed by nested loops {} and {}; owners cannot nest, so "
                              "name it in the multi_buffer_eligible claim of only one of them",
                              inner.buffer->name, loopName(*as<ForStmt>(outer.loop)),
                              loopName(*as<ForStmt>(inner.loop))));
      o.reason = "it is claimed by nested loops";
      return false;
    }
  o.eligible = true;
  for (const auto& c : claims)
    if (std::find(o.owners.begin(), o.owners.end(), c.loop) == o.owners.end())
      o.owners.push_back(c.loop);
  return true;
}

// The outermost one-trip loop whose body names `st`, if any (such a loop is
// transparent: it never owns).
const ForStmt* oneTripLoopAround(const Stmt& body, const Storage& st) {
  const ForStmt* found = nullptr;
  forEachStmt(body, [&](const Stmt& s) {
    const auto* f = as<ForStmt>(s);
    if (found || !f || !isTransparentLoop(*f)) return;
    bool names = false;
    forEachStmt(f->body, [&](const Stmt& x) {
      if (const auto* c = as<CopyStmt>(x))
        names |= c->src.buffer->storage == st || c->dst.buffer->storage == st;
      if (const auto* fl = as<FillStmt>(x)) names |= fl->dst.buffer->storage == st;
      if (const auto* r = as<ReduceStmt>(x))
        names |= r->src.buffer->storage == st || r->dst.buffer->storage == st;
      if (const auto* g = as<GemmStmt>(x))
        names |=
            g->a.buffer->storage == st || g->b.buffer->storage == st || g->c.buffer->storage == st;
      if (const auto* w = as<StoreStmt>(x)) names |= w->buffer->storage == st;
    });
    if (names) found = f;
  });
  return found;
}

// Step 3: inferred owners of a storage nobody claimed.
void inferOwners(StorageOwnership& o, const UnitList& root, const Stmt& body) {
  const Storage& st = o.storage;
  if (!o.candidate) {
    o.reason = fmt::format("{} is never multi-buffered", memScopeName(st->scope));
    return;
  }
  if (o.manual) {
    o.reason = "it is a manual multi-buffer";
    return;
  }
  if (o.optOut) {
    o.reason = fmt::format("it is opted out by {{{}: 1}}", o.buffer ? o.buffer->name : st->name);
    return;
  }
  bool accessed = false;
  for (const auto& u : root.units) accessed |= touches(u, st);
  if (!accessed) {
    o.reason = "it is never accessed";
    return;
  }
  Cover c = cover(root, st);
  if (c.ok && !c.owners.empty()) {
    o.eligible = true;
    o.owners = c.owners;
  } else if (!c.reason.empty()) {
    o.reason = c.reason;
  } else if (const ForStmt* once = oneTripLoopAround(body, st)) {
    o.reason = fmt::format(
        "its only loop '{}' (line {}) has one trip, so no iteration follows to "
        "overlap with",
        once->var->name, once->loc.line);
  } else {
    o.reason = "it is not accessed inside a loop";
  }
}

// The first access of `s` outside every owner that materialisation cannot give
// to every version (SPEC §6.2): anything but a pure fill — a read (a fill
// value, a loop bound, a condition included) or another write. Null when
// there is none.
const Access* unbroadcastable(const UnitList& list, const StorageOwnership& o) {
  for (const auto& u : list.units) {
    if (!touches(u, o.storage)) continue;
    if (u.isLoop()) {
      if (std::find(o.owners.begin(), o.owners.end(), u.stmt) != o.owners.end()) continue;
      for (const auto& a : u.accesses)
        if (a.storage == o.storage && a.path.empty()) return &a;
      if (const Access* a = unbroadcastable(*u.body, o)) return a;
      continue;
    }
    if (isPureFill(u, o.storage)) continue;
    for (const auto& a : u.accesses)
      if (a.storage == o.storage && (!a.isWrite() || !as<FillStmt>(u.stmt))) return &a;
    for (const auto& a : u.accesses)
      if (a.storage == o.storage) return &a;
  }
  return nullptr;
}

// Step 4, for an eligible storage: version bound, epoch flags, broadcast fills.
void describeEpochs(StorageOwnership& o, LoopIndex& loops, const ScalarDefs& defs,
                    const UnitList& root) {
  for (const auto& ow : o.owners) {
    const auto* f = as<ForStmt>(ow);
    const LoopInfo& info = loops[ow.get()];
    // This owner's num_stages, else the nearest enclosing loop's.
    int64_t bound = 1;
    const ForStmt* boundLoop = nullptr;
    if (hasNumStages(*f)) {
      bound = std::max<int64_t>(1, f->numStages);
      boundLoop = f;
    } else {
      for (auto it = info.enclosing.rbegin(); it != info.enclosing.rend(); ++it)
        if (hasNumStages(**it)) {
          bound = std::max<int64_t>(1, (*it)->numStages);
          boundLoop = *it;
          break;
        }
    }
    if (boundLoop && (!o.versionBoundLoop || bound > o.versionBound))
      o.versionBoundLoop = boundLoop;
    o.versionBound = std::max(o.versionBound, bound);
    if (info.guardedPath || (info.body && !alwaysAccessed(*info.body, o.storage)))
      o.guardedEpoch = true;
    std::vector<const ForStmt*> nest = info.enclosing;
    nest.push_back(f);
    for (size_t i = 0; i < nest.size(); ++i) {
      std::vector<const ForStmt*> outer(nest.begin(), nest.begin() + static_cast<long>(i));
      o.nonAffineNest |= variesInNest(defs.resolve(nest[i]->min), outer) ||
                         variesInNest(defs.resolve(nest[i]->extent), outer);
    }
  }
  collectBroadcastFills(root, o, false, o.broadcastFills);
}

}  // namespace

Ownership analyzeOwnership(const Kernel& kernel, const UnitList& root, DiagnosticEngine& diags) {
  LoopIndex loops;
  std::vector<const ForStmt*> stack;
  indexIR(kernel.body, stack, loops);
  indexUnits(root, false, loops);
  ScalarDefs defs(kernel);

  std::map<int, std::vector<Claim>> claims;  // by storage id, in program order
  forEachStmt(kernel.body, [&](const Stmt& s) {
    if (const auto* f = as<ForStmt>(s))
      for (const auto& b : f->eligible)
        claims[b->storage->id].push_back({s, b, f->eligibleLoc.valid() ? f->eligibleLoc : f->loc});
  });

  Ownership out;
  for (const auto& st : kernel.storages) {
    StorageOwnership o = describeStorage(kernel, st);
    bool claimsValid = true;
    if (auto it = claims.find(st->id); it != claims.end())
      claimsValid = applyClaims(o, it->second, loops, diags);
    if (!o.explicitClaim) inferOwners(o, root, kernel.body);
    // Accesses outside the owners must be broadcast fills; an explicit claim
    // is trusted for the owners, but not for what it cannot lower.
    if (o.eligible)
      if (const Access* bad = unbroadcastable(root, o)) {
        o.reason = fmt::format(
            "it is {} outside its owner loops (line {}), where only a T.fill or T.clear that "
            "reads nothing of it can be given to every version",
            bad->isWrite() ? "written" : "read", bad->loc.line);
        o.eligible = false;
        o.owners.clear();
        if (o.explicitClaim)
          diags.warningOnce("claim-outside:" + std::to_string(st->id),
                            claims.at(st->id).front().loc,
                            fmt::format("the multi_buffer_eligible claim of '{}' is dropped: {}; "
                                        "it keeps one version",
                                        claims.at(st->id).front().buffer->name, o.reason));
      }
    // A claimed owner that reads the storage before writing it in an
    // iteration: trusted (SPEC §2.4), but that read sees whichever version the
    // rotation reaches, not what was written before the loop; say so, since
    // the run then differs from the reference without any race.
    if (o.eligible && o.explicitClaim)
      for (const auto& c : claims.at(st->id)) {
        const LoopInfo& info = loops[c.loop.get()];
        WriteSet writes;
        SourceLoc bad;
        if (!info.body || writeFirstWalk(*info.body, st, {}, writes, bad)) continue;
        diags.warningOnce(
            "claim-read-first:" + std::to_string(st->id) + ":" + std::to_string(c.loc.line), c.loc,
            fmt::format("the multi_buffer_eligible claim of '{}' is trusted, but the loop reads it "
                        "before writing it in an iteration (line {}): with several versions that "
                        "read sees another version than the one written before the loop; "
                        "{{{}: 1}} opts it out",
                        c.buffer->name, bad.line, c.buffer->name));
      }
    if (o.eligible) {
      describeEpochs(o, loops, defs, root);
      o.partialWrite = findPartialWrite(kernel, o);
    }
    // A fixed count that never applies (SPEC §2.1); not after a claims error.
    const VersionSpec* spec = nullptr;
    for (const auto& v : kernel.annotations.bufferVersions)
      if (v.storage == st) spec = &v;
    if (spec && spec->count && *spec->count >= 2 && !o.eligible && claimsValid)
      diags.warningOnce(
          "fixed-ineligible:" + std::to_string(st->id), spec->loc,
          fmt::format(
              "'{}' asks for {} versions but is not multi-buffer eligible ({}); it keeps one "
              "version",
              spec->buffer->name, *spec->count, o.reason));
    out.storages.push_back(std::move(o));
  }
  return out;
}

const Unit* ownerUnitOnPath(const UnitList& list, const std::vector<int>& path,
                            const StorageOwnership& own, size_t* depth) {
  const UnitList* l = &list;
  for (size_t k = 0; k < path.size(); ++k) {
    int index = path[k];
    if (!l || index < 0 || index >= static_cast<int>(l->units.size())) return nullptr;
    const Unit& u = l->units[static_cast<size_t>(index)];
    if (!u.isLoop()) return nullptr;
    if (std::find(own.owners.begin(), own.owners.end(), u.stmt) != own.owners.end()) {
      if (depth) *depth = k;
      return &u;
    }
    l = u.body.get();
  }
  return nullptr;
}

}  // namespace tilesched::analysis
