// Version modes (see VersionModes.h).
#include "transform/VersionModes.h"

#include <set>

#include <fmt/format.h>

#include "ir/Functor.h"
#include "ir/IROperator.h"

namespace tilesched::transform {

using namespace ir;

Var LoweringPlan::freshVar(const std::string& name, DType t) {
  return std::make_shared<VarNode>(VarNode{nextVarId++, name, t, VarKind::Local, true});
}

// Every loop's chain of enclosing loops (outermost first, itself last).
std::map<const ForStmt*, std::vector<const ForStmt*>> loopChains(const Stmt& body) {
  std::map<const ForStmt*, std::vector<const ForStmt*>> out;
  std::vector<const ForStmt*> stack;
  std::function<void(const Stmt&)> walk = [&](const Stmt& s) {
    if (!s) return;
    if (const auto* seq = as<SeqStmt>(s)) {
      for (const auto& c : seq->stmts) walk(c);
    } else if (const auto* f = as<ForStmt>(s)) {
      stack.push_back(f);
      out[f] = stack;
      walk(f->body);
      stack.pop_back();
    } else if (const auto* i = as<IfStmt>(s)) {
      walk(i->thenBody);
      walk(i->elseBody);
    }
  };
  walk(body);
  return out;
}

bool mentionsAny(const Expr& e, const std::vector<const ForStmt*>& loops) {
  if (!e) return false;
  if (e->kind == ExprKind::VarRef)
    for (const auto* l : loops)
      if (l->var == e->var) return true;
  for (const auto& o : e->operands)
    if (mentionsAny(o, loops)) return true;
  return false;
}

namespace {

// The flattened iteration number of `chain` (outermost first).
Expr flattenedIteration(const std::vector<const ForStmt*>& chain) {
  Expr clock;
  for (const auto* l : chain) {
    Expr local = sub(varRef(l->var), l->min);
    clock = clock ? add(mul(clock, l->extent), local) : local;
  }
  return clock;
}

// A loop bound the flattened clock repeats in every access: a bound that
// reads memory (`T.serial(n0 % 2)` on a T.alloc_var the body updates) or a
// scalar variable may have another value by the time an instruction of the
// body re-evaluates it, and a vector instruction would read it on its own
// pipe, racing with the scalar unit's update.
bool readsRunTimeState(const Expr& e) {
  if (!e) return false;
  if (e->kind == ExprKind::Load) return true;
  if (e->kind == ExprKind::VarRef && e->var->kind == VarKind::Local) return true;
  for (const auto& o : e->operands)
    if (readsRunTimeState(o)) return true;
  return false;
}

// The first loop of the chain whose bounds (as the clock uses them: every
// start, every extent but the outermost's) read run-time state.
const ForStmt* stateDependentBound(const std::vector<const ForStmt*>& chain) {
  for (size_t i = 0; i < chain.size(); ++i)
    if (readsRunTimeState(chain[i]->min) || (i > 0 && readsRunTimeState(chain[i]->extent)))
      return chain[i];
  return nullptr;
}

// Bounds of some loop in the chain depend on an enclosing loop's variable or
// on run-time state.
bool nonAffine(const std::vector<const ForStmt*>& chain) {
  if (stateDependentBound(chain)) return true;
  for (size_t i = 1; i < chain.size(); ++i) {
    std::vector<const ForStmt*> outer(chain.begin(), chain.begin() + static_cast<long>(i));
    if (mentionsAny(chain[i]->min, outer) || mentionsAny(chain[i]->extent, outer)) return true;
  }
  return false;
}

}  // namespace

Expr continuousLoopClock(const std::vector<const ForStmt*>& chain) {
  if (chain.empty() || nonAffine(chain)) return nullptr;
  return flattenedIteration(chain);
}

LoweringPlan chooseVersionModes(const Kernel& kernel, const analysis::KernelAnalysis& analysis,
                                const schedule::KernelSchedule& schedule, DiagnosticEngine& diags) {
  LoweringPlan plan;
  plan.nextVarId = maxVarId(kernel) + 1;
  auto chains = loopChains(kernel.body);
  for (const auto& st : kernel.storages) {
    StorageLowering sl;
    sl.storage = st;
    const auto* own = analysis.ownership.find(st);
    const auto* decision = schedule.find(st);
    if (own) sl.buffer = own->buffer;
    if (!sl.buffer)
      for (const auto& b : kernel.buffers)
        if (b->storage == st && !b->isAlias) sl.buffer = b;
    sl.versions = decision ? decision->versions : 1;
    sl.source = decision ? decision->source : schedule::VersionSource::Ineligible;
    bool automatic = own && own->eligible && !own->manual;
    if (!automatic) {
      // Manual storages keep their ring size in reports; nothing is materialised.
      if (!(own && own->manual)) sl.versions = 1;
      plan.storages.push_back(std::move(sl));
      continue;
    }
    for (const auto& o : own->owners) sl.owners.push_back(as<ForStmt>(o));
    // A leading version dimension on an alias smaller than its storage would
    // place the alias's versions at other offsets than the storage's.
    for (const auto& b : kernel.buffers) {
      if (b->storage != st || sl.versions <= 1) continue;
      auto shape = constShape(b);
      if (shape && product(*shape) * dtypeBytes(b->dtype) == st->bytes) continue;
      diags.warning(b->loc, fmt::format("'{}' views only part of '{}', so '{}' keeps one version",
                                        b->name, sl.buffer->name, sl.buffer->name));
      sl.versions = 1;
    }
    if (sl.versions <= 1) {
      sl.versions = 1;
      plan.storages.push_back(std::move(sl));
      continue;
    }
    analysis::warnPartialWrite(*own, sl.versions, diags);
    // The mode the author asked for (any alias may carry it).
    VersionMode requested = VersionMode::Auto;
    SourceLoc requestLoc = kernel.annotations.bufferVersionsLoc;
    for (const auto& spec : kernel.annotations.bufferVersions)
      if (spec.storage == st && spec.mode) requested = *spec.mode, requestLoc = spec.loc;
    bool guarded = own->guardedEpoch;
    bool oneOwner = sl.owners.size() == 1;
    bool affine = oneOwner && !nonAffine(chains[sl.owners.front()]);
    // Under enable_offset, accesses at several stages read the clock at
    // different iterations: a counter would advance at one and be read at another.
    bool multiStage = false;
    for (const auto* o : sl.owners) {
      const auto* ls = schedule.find(o);
      const auto* list = analysis.findLoop(o);
      if (!o->enableOffset || !ls || !ls->enableOffset || !list ||
          ls->stage.size() != list->units.size())
        continue;
      std::set<int64_t> stages;
      for (const auto& u : list->units)
        for (const auto& acc : u.accesses)
          if (acc.storage == st) stages.insert(ls->stage[static_cast<size_t>(u.index)]);
      multiStage |= stages.size() > 1;
    }
    VersionMode mode = requested;
    if (mode == VersionMode::Counter && multiStage) {
      diags.error(requestLoc,
                  fmt::format("'{}' cannot use counter mode: with enable_offset it is accessed at "
                              "several stages, which read the counter at different iterations; "
                              "use \"iteration\" or \"auto\"",
                              sl.buffer->name));
      mode = VersionMode::Iteration;
    }
    if (mode == VersionMode::Auto)
      mode = (multiStage && oneOwner) || (!guarded && oneOwner && affine) ? VersionMode::Iteration
                                                                          : VersionMode::Counter;
    if (mode == VersionMode::Iteration && !oneOwner) {
      std::string lines;
      for (const auto* o : sl.owners)
        lines += fmt::format("{}{}", lines.empty() ? "" : ", ", o->loc.line);
      diags.error(requestLoc,
                  fmt::format("iteration mode for '{}' needs exactly one owner loop, but it has {} "
                              "(lines {}); use \"counter\" or \"auto\"",
                              sl.buffer->name, sl.owners.size(), lines));
      mode = VersionMode::Counter;
    } else if (const ForStmt* loop = mode == VersionMode::Iteration
                                         ? stateDependentBound(chains[sl.owners.front()])
                                         : nullptr) {
      // The clock would re-read the bound in every access; a counter is
      // advanced by the scalar unit and read as an issue-time operand.
      if (multiStage) {
        diags.error(requestLoc,
                    fmt::format("'{}' needs iteration mode (with enable_offset it is accessed at "
                                "several stages), but the bounds of loop '{}' (line {}) are "
                                "run-time values; give it one version ({{{}: 1}}) or drop "
                                "enable_offset",
                                sl.buffer->name, loop->var->name, loop->loc.line, sl.buffer->name));
      } else {
        diags.warning(requestLoc,
                      fmt::format("'{}' uses counter mode instead of iteration mode: the bounds of "
                                  "loop '{}' (line {}) are run-time values, so its iterations "
                                  "cannot be numbered before it runs",
                                  sl.buffer->name, loop->var->name, loop->loc.line));
      }
      mode = VersionMode::Counter;
    } else if (requested == VersionMode::Iteration && (guarded || !affine)) {
      // Only advice for an author who asked: the automatic choice takes
      // iteration mode for a guarded epoch only when counter mode cannot be
      // (accesses at several stages).
      diags.warning(
          requestLoc,
          fmt::format("'{}' uses iteration mode but its epoch is {}; consider counter mode",
                      sl.buffer->name,
                      guarded ? "guarded (not every iteration accesses it)"
                              : "in a non-affine loop nest (bounds depend on outer loops)"));
    }
    sl.mode = mode;
    if (mode == VersionMode::Counter) {
      sl.counter = plan.freshVar(sl.buffer->name + "_epoch", DType::Int32);
      for (const auto* o : sl.owners) sl.clock[o] = varRef(sl.counter);
    } else {
      sl.clock[sl.owners.front()] = flattenedIteration(chains[sl.owners.front()]);
    }
    plan.storages.push_back(std::move(sl));
  }
  return plan;
}

}  // namespace tilesched::transform
