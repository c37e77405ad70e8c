// Core assignment: see CoreAssignment.h for the rules.
#include "analysis/CoreAssignment.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "analysis/ExprUtil.h"
#include "analysis/TaskGraph.h"
#include "ir/Printer.h"

namespace tilesched::analysis {

using namespace ir;

std::string_view coreMaskName(CoreMask m) {
  switch (m) {
    case kCubeCore:
      return "cube";
    case kVectorCore:
      return "vector";
    case kBothCores:
      return "both";
    default:
      return "none";
  }
}

std::string_view kernelCoresName(KernelCores k) {
  switch (k) {
    case KernelCores::Vector:
      return "vector";
    case KernelCores::Cube:
      return "cube";
    case KernelCores::Mixed:
      return "mixed";
  }
  return "?";
}

namespace {

// A scalar value: a variable (its id) or a register storage (-1 - its id).
using ValueKey = int64_t;

bool isRegister(const Storage& s) {
  return s && (s->scope == MemScope::LocalVar || s->scope == MemScope::Local);
}

// Pipes both core kinds have: they place no task by themselves.
constexpr uint32_t kSharedPipes = pipeMask(Pipe::S) | pipeMask(Pipe::MTE2);

// "'f_ub' (shared)": the buffer as written (else its storage) and its scope.
std::string storageText(const Storage& s, const Buffer& b) {
  return fmt::format("'{}' ({})", b ? b->name : s->name, memScopeName(s->scope));
}

std::string coreWords(CoreMask m) {
  switch (m) {
    case kCubeCore:
      return "the cube core";
    case kVectorCore:
      return "the vector core";
    case kBothCores:
      return "both cores";
    default:
      return "no core";
  }
}

// One unit in pre-order with what the rules read of it.
struct Node {
  const Unit* unit = nullptr;
  int depth = 0;
  int parent = -1;  // the enclosing loop's node
  bool leaf = true;
  CoreMask cand = kBothCores;
  CoreMask final = kNoCore;
  bool sync = false;  // a set_flag, wait_flag or pipe_barrier
  std::string reason;
  // What the scalar unit reads for the unit: its own operands (a loop: its
  // bounds), and the conditions of the `if`s around it in its list.
  struct Reads {
    std::vector<ValueKey> values;
    // The cores that can read the on-chip memory read, and the first buffer
    // of each kind that limits it ("'f_ub' (shared)").
    CoreMask readable = kBothCores;
    std::string vectorWhy, cubeWhy;
    std::set<const StorageNode*> onChip;  // every on-chip storage read
    std::string why() const { return !vectorWhy.empty() ? vectorWhy : cubeWhy; }
  };
  Reads own, guard;
  std::vector<ValueKey> outputs;
};

class Assigner {
 public:
  Assigner(const CoreGroup& group, DiagnosticEngine& diags) : group_(group), diags_(diags) {}

  std::optional<CoreAssignment> run(const UnitList& root) {
    collect(root, 0, -1);
    collectWriters();
    for (auto& n : nodes_)
      if (n.leaf) byPipeOrMemory(n);
    if (failed_) return std::nullopt;
    narrowByInputs();
    if (failed_) return std::nullopt;
    resolveDemand();
    if (failed_) return std::nullopt;
    return result();
  }

 private:
  void collect(const UnitList& list, int depth, int parent) {
    for (const Unit& u : list.units) {
      Node n;
      n.unit = &u;
      n.depth = depth;
      n.parent = parent;
      n.leaf = !u.isLoop();
      for (const Access& a : u.accesses) {
        if (!a.path.empty()) continue;  // a loop's body: its own nodes
        std::optional<ValueKey> key;
        if (a.isScalarVar()) key = a.var->id;
        if (isRegister(a.storage)) key = -1 - a.storage->id;
        if (!key) continue;
        (a.isWrite() ? n.outputs : n.own.values).push_back(*key);
        if (a.isScalarVar()) names_[*key] = a.var->name;
        if (a.storage) names_[*key] = a.storage->name;
      }
      for (const Access& a : u.accesses)
        if (a.path.empty() && !a.isWrite() && a.storage && (a.scalarOperand || u.isLoop()))
          limitReadable(n.own, a.storage, a.buffer);
      for (const auto& lit : u.guard) {
        const Expr& cond = lit.source ? lit.source : lit.cond;
        std::set<int> ids;
        collectVars(cond, ids);
        n.guard.values.insert(n.guard.values.end(), ids.begin(), ids.end());
        guardLoads(n.guard, cond);
      }
      int self = static_cast<int>(nodes_.size());
      nodes_.push_back(std::move(n));
      if (u.isLoop()) collect(*u.body, depth + 1, self);
    }
  }

  void collectWriters() {
    for (size_t i = 0; i < nodes_.size(); ++i)
      for (ValueKey k : nodes_[i].outputs)
        if (nodes_[i].leaf) writers_[k].push_back(static_cast<int>(i));
  }

  void limitReadable(Node::Reads& r, const Storage& s, const Buffer& b) {
    bool cube = group_.cubeHas(s->scope), vector = group_.vectorHas(s->scope);
    if (!cube && !vector) return;
    r.onChip.insert(s.get());
    std::string& why = cube ? r.cubeWhy : r.vectorWhy;
    if (why.empty()) why = storageText(s, b);
    r.readable &= cube ? kCubeCore : kVectorCore;
  }

  void guardLoads(Node::Reads& r, const Expr& e) {
    if (!e) return;
    if (e->kind == ExprKind::Load && e->buffer) limitReadable(r, e->buffer->storage, e->buffer);
    for (const auto& o : e->operands) guardLoads(r, o);
  }

  void error(const Node& n, std::string message) {
    diags_.error(n.unit->loc, std::move(message));
    failed_ = true;
  }

  // A set_flag / wait_flag / pipe_barrier: on the core kind of the pipes it
  // names; both when they are shared (S, MTE2) or of both kinds (FIX -> MTE3,
  // a cross-core event on the hardware), never an error: the kernel's own
  // synchronisation (and a lowered kernel read back) is simulated as written.
  bool bySyncPipes(Node& n) {
    const Stmt& s = n.unit->stmt;
    uint32_t pipes = 0;
    if (const auto* f = as<SetFlagStmt>(s))
      pipes = pipeMask(f->src) | pipeMask(f->dst);
    else if (const auto* w = as<WaitFlagStmt>(s))
      pipes = pipeMask(w->src) | pipeMask(w->dst);
    else if (const auto* b = as<BarrierStmt>(s))
      pipes = b->all ? 0 : pipeMask(b->pipe);
    else
      return false;
    n.sync = true;
    uint32_t cube = pipes & group_.cubePipes & ~kSharedPipes;
    uint32_t vector = pipes & group_.vectorPipes & ~kSharedPipes;
    if (cube && vector) {
      n.reason = fmt::format(
          "synchronisation between pipes of both core kinds ({} and {}), a "
          "cross-core event on the core group",
          pipeMaskName(cube), pipeMaskName(vector));
    } else if (cube || vector) {
      n.cand = cube ? kCubeCore : kVectorCore;
      n.reason = "synchronisation of pipe " + pipeMaskName(cube | vector);
    } else {
      n.reason = "synchronisation of pipes both core kinds have";
    }
    return true;
  }

  // A T.fill / T.clear: on the core whose memory it fills (the cost model
  // charges a fill of L0C to V, but only the cube core reaches L0C).
  bool byFilledMemory(Node& n) {
    const auto* f = as<FillStmt>(n.unit->stmt);
    if (!f || !f->dst.buffer) return false;
    MemScope scope = f->dst.buffer->storage->scope;
    bool cube = group_.cubeHas(scope), vector = group_.vectorHas(scope);
    if (!cube && !vector) return false;
    n.cand = cube ? kCubeCore : kVectorCore;
    n.reason = fmt::format("fill of '{}' ({})", f->dst.buffer->name, memScopeName(scope));
    return true;
  }

  // A task its pipes put on one kind must not touch the other kind's memory,
  // except along the paths between them (copies: L0C -> UB, UB -> L1).
  void checkOwnMemory(Node& n) {
    if (n.unit->stmt->kind == StmtKind::Copy) return;
    for (const Access& a : n.unit->accesses) {
      if (!a.storage || a.scalarOperand) continue;  // the scalar unit's reads: rule 2
      // So are the conditions of the `if`s around it (recorded as plain reads).
      if (!a.isWrite() && n.guard.onChip.count(a.storage.get())) continue;
      bool other = n.cand == kCubeCore ? group_.vectorHas(a.storage->scope)
                                       : group_.cubeHas(a.storage->scope);
      if (!other) continue;
      return error(n, fmt::format("this task runs on {} ({}) but touches {}, the memory of {}",
                                  coreWords(n.cand), n.reason, storageText(a.storage, a.buffer),
                                  coreWords(static_cast<CoreMask>(kBothCores & ~n.cand))));
    }
  }

  // Rule 1.
  void byPipeOrMemory(Node& n) {
    if (bySyncPipes(n) || byFilledMemory(n)) return;
    const Unit& u = *n.unit;
    uint32_t cubePipes = u.pipeMask & group_.cubePipes & ~kSharedPipes;
    uint32_t vectorPipes = u.pipeMask & group_.vectorPipes & ~kSharedPipes;
    std::string cubeWhy = cubePipes ? "pipe " + pipeMaskName(cubePipes) : "";
    std::string vectorWhy = vectorPipes ? "pipe " + pipeMaskName(vectorPipes) : "";
    if (u.pipeMask & pipeMask(Pipe::MTE2)) {
      const Access* dst = nullptr;
      for (const Access& a : u.accesses)
        if (a.isWrite() && a.storage && !dst) dst = &a;
      MemScope scope = dst ? dst->storage->scope : MemScope::Global;
      std::string why = fmt::format("MTE2 into {}", memScopeName(scope));
      if (group_.cubeHas(scope)) {
        cubePipes |= pipeMask(Pipe::MTE2);
        cubeWhy = cubeWhy.empty() ? why : cubeWhy + ", " + why;
      } else {
        vectorPipes |= pipeMask(Pipe::MTE2);
        vectorWhy = vectorWhy.empty() ? why : vectorWhy + ", " + why;
      }
    }
    if (cubePipes && vectorPipes)
      return error(n, fmt::format("this task needs both core kinds: {} runs on the cube core, {} "
                                  "on the vector core; split it into one task per core",
                                  cubeWhy, vectorWhy));
    if (cubePipes || vectorPipes) {
      n.cand = cubePipes ? kCubeCore : kVectorCore;
      n.reason = cubePipes ? cubeWhy : vectorWhy;
      checkOwnMemory(n);
      return;
    }
    const Access* cube = nullptr;
    const Access* vector = nullptr;
    for (const Access& a : u.accesses) {
      if (!a.storage) continue;
      if (group_.cubeHas(a.storage->scope) && !cube) cube = &a;
      if (group_.vectorHas(a.storage->scope) && !vector) vector = &a;
    }
    auto named = [](const Access* a) { return storageText(a->storage, a->buffer); };
    if (cube && vector)
      return error(
          n,
          fmt::format(
              "this scalar statement touches the memories of both core kinds: "
              "{} is the vector core's, {} the cube core's; move the value through global memory",
              named(vector), named(cube)));
    if (cube || vector) {
      n.cand = cube ? kCubeCore : kVectorCore;
      n.reason = fmt::format("scalar work on {}", named(cube ? cube : vector));
      return;
    }
    n.cand = kBothCores;
    n.reason = "scalar work";
  }

  // Where a value is computed: on the cores all its writers may run on.
  CoreMask available(ValueKey k) const {
    auto it = writers_.find(k);
    if (it == writers_.end()) return kBothCores;
    CoreMask m = kBothCores;
    for (int w : it->second) m &= nodes_[static_cast<size_t>(w)].cand;
    return m;
  }

  // The first writer of k that rules out a core of `missing`.
  const Node* limitingWriter(ValueKey k, CoreMask missing) const {
    auto it = writers_.find(k);
    if (it == writers_.end()) return nullptr;
    for (int w : it->second)
      if ((nodes_[static_cast<size_t>(w)].cand & missing) != missing)
        return &nodes_[static_cast<size_t>(w)];
    return nullptr;
  }

  std::string valueName(ValueKey k) const {
    auto it = names_.find(k);
    return it == names_.end() ? "a value" : "'" + it->second + "'";
  }

  // What `reads` of `src` (leaf n itself, or a loop around it) says, as a
  // phrase: "reads", "runs under an `if` that reads", ...
  static std::string readsPhrase(const Node& n, const Node& src, const Node::Reads& reads) {
    bool own = &reads == &src.own;
    if (&src == &n) return own ? "reads" : "runs under an `if` that reads";
    return own ? fmt::format("is inside the loop at line {}, whose bounds read", src.unit->loc.line)
               : fmt::format("is inside the loop at line {}, under an `if` that reads",
                             src.unit->loc.line);
  }

  // Narrows leaf n by what `src` reads; false after an error.
  bool narrowBy(Node& n, const Node& src, const Node::Reads& reads, bool& changed) {
    std::string phrase = readsPhrase(n, src, reads);
    if (reads.readable == kNoCore) {
      error(src, fmt::format("the scalar unit reads {} and {} here, the memories of both core "
                             "kinds: no core can read both",
                             reads.vectorWhy, reads.cubeWhy));
      return false;
    }
    if ((n.cand & reads.readable) != n.cand) {
      if ((n.cand & reads.readable) == kNoCore) {
        error(n, fmt::format("this task runs on {} ({}) but {} {}, which only {} can read",
                             coreWords(n.cand), n.reason, phrase, reads.why(),
                             coreWords(reads.readable)));
        return false;
      }
      n.cand &= reads.readable;
      n.reason = fmt::format("{} {}", phrase, reads.why());
      changed = true;
    }
    for (ValueKey k : reads.values) {
      CoreMask m = n.cand & available(k);
      if (m == n.cand) continue;
      const Node* w = limitingWriter(k, static_cast<CoreMask>(n.cand & ~m));
      std::string where = w ? fmt::format("computed on {} (line {}: {})", coreWords(w->cand),
                                          w->unit->loc.line, w->reason)
                            : "computed on no core";
      if (m == kNoCore) {
        error(n, fmt::format("this task runs on {} ({}) but {} {}, {}; read the value from "
                             "global memory, which both cores can",
                             coreWords(n.cand), n.reason, phrase, valueName(k), where));
        return false;
      }
      n.cand = m;
      n.reason = fmt::format("{} {}, {}", phrase, valueName(k), where);
      changed = true;
    }
    return true;
  }

  // Rule 2: each leaf by what it and the loops around it read, to a fixpoint
  // (values flow forwards, so a pass in program order settles straight-line
  // chains at once).
  void narrowByInputs() {
    for (bool changed = true; changed;) {
      changed = false;
      for (auto& n : nodes_) {
        if (!n.leaf) continue;
        if (!narrowBy(n, n, n.own, changed) || !narrowBy(n, n, n.guard, changed)) return;
        for (int p = n.parent; p >= 0; p = nodes_[static_cast<size_t>(p)].parent) {
          const Node& loop = nodes_[static_cast<size_t>(p)];
          if (!narrowBy(n, loop, loop.own, changed) || !narrowBy(n, loop, loop.guard, changed))
            return;
        }
      }
    }
  }

  // Per node, the cores the leaves under it (or the leaf itself) run on: one
  // pass from the last node, each adding to its loop's.
  std::vector<CoreMask> subtreeCores() const {
    std::vector<CoreMask> cores(nodes_.size(), kNoCore);
    for (size_t i = nodes_.size(); i-- > 0;) {
      if (nodes_[i].leaf) cores[i] = nodes_[i].final;
      if (nodes_[i].parent >= 0) cores[static_cast<size_t>(nodes_[i].parent)] |= cores[i];
    }
    return cores;
  }

  // Writers of what node n reads run where n needs them; false after an error
  // (rule 2 has ruled out most: a loop's bounds against the tasks inside it).
  bool demand(const Node& n, CoreMask cores, bool& changed) {
    for (const Node::Reads* r : {&n.own, &n.guard}) {
      bool own = r == &n.own;
      const char* who =
          n.leaf ? (own ? "this task reads" : "this task runs under an `if` that reads")
                 : (own ? "the bounds of this loop read" : "the `if` around this loop reads");
      if ((r->readable & cores) != cores) {
        error(n, fmt::format("{} {} on {}, which only {} can read", who, r->why(), coreWords(cores),
                             coreWords(r->readable)));
        return false;
      }
      for (ValueKey k : r->values) {
        auto it = writers_.find(k);
        if (it == writers_.end()) continue;
        for (int w : it->second) {
          Node& wn = nodes_[static_cast<size_t>(w)];
          if ((wn.cand & cores) != cores) {
            error(n, fmt::format("{} {} on {}, but it is computed on {} only (line {}: {})", who,
                                 valueName(k), coreWords(cores), coreWords(wn.cand),
                                 wn.unit->loc.line, wn.reason));
            return false;
          }
          if ((wn.final & cores) == cores) continue;
          wn.final |= cores;
          changed = true;
        }
      }
    }
    return true;
  }

  // Demand flows from readers back to the writers before them: a pass in
  // reverse program order settles straight-line chains at once (a loop's
  // cores are its leaves', gathered as the pass goes).
  void propagateDemand() {
    for (bool changed = true; changed;) {
      changed = false;
      std::vector<CoreMask> gathered(nodes_.size(), kNoCore);
      for (size_t i = nodes_.size(); i-- > 0;) {
        const Node& n = nodes_[i];
        CoreMask cores = n.leaf ? n.final : gathered[i];
        if (n.parent >= 0) gathered[static_cast<size_t>(n.parent)] |= cores;
        if (cores == kNoCore) continue;
        if (!demand(n, cores, changed)) return;
      }
    }
  }

  // Rule 3.
  void resolveDemand() {
    bool anyCube = false;
    for (auto& n : nodes_) {
      if (!n.leaf) continue;
      if (n.cand != kBothCores) n.final = n.cand;
      anyCube |= n.cand == kCubeCore;
    }
    propagateDemand();
    if (failed_) return;
    for (auto& n : nodes_) {
      if (!n.leaf || n.cand != kBothCores) continue;
      bool demanded = n.final != kNoCore;
      if (!demanded) n.final = anyCube ? kCubeCore : kVectorCore;
      if (n.sync)
        n.reason += fmt::format("; on {}", coreWords(n.final));
      else if (demanded)
        n.reason = fmt::format("scalar work, read on {}", coreWords(n.final));
      else
        n.reason = fmt::format("scalar work nothing reads; on {}", coreWords(n.final));
    }
    propagateDemand();
  }

  CoreAssignment result() const {
    CoreAssignment out;
    bool cube = false, vector = false;
    std::vector<CoreMask> cores = subtreeCores();
    for (size_t i = 0; i < nodes_.size(); ++i) {
      const Node& n = nodes_[i];
      CoreChoice c;
      c.unit = n.unit;
      c.depth = n.depth;
      c.core = cores[i];
      c.reason = n.leaf ? n.reason : fmt::format("a loop whose tasks run on {}", coreWords(c.core));
      if (n.leaf) {
        cube |= c.core & kCubeCore && n.cand == kCubeCore;
        vector |= c.core & kVectorCore && n.cand == kVectorCore;
      }
      out.units.push_back(std::move(c));
    }
    out.kind = cube && vector ? KernelCores::Mixed : cube ? KernelCores::Cube : KernelCores::Vector;
    return out;
  }

  const CoreGroup& group_;
  DiagnosticEngine& diags_;
  std::vector<Node> nodes_;
  std::map<ValueKey, std::vector<int>> writers_;
  std::map<ValueKey, std::string> names_;
  bool failed_ = false;
};

}  // namespace

std::optional<CoreAssignment> assignCores(const UnitList& root, const Target& target,
                                          DiagnosticEngine& diags, int vectorCores,
                                          bool manualForm) {
  auto out = Assigner(target.coreGroup, diags).run(root);
  if (out) {
    out->vectorCores = vectorCores;
    out->manualForm = manualForm;
  }
  if (!out || out->kind != KernelCores::Mixed || vectorCores < 2 || manualForm) return out;
  for (const auto& c : out->units) {
    const Unit& u = *c.unit;
    if (u.isLoop() || u.cost.copyPath != CopyPath::L0cToUb) continue;
    diags.warning(u.loc,
                  "in a mixed T.Kernel both vector cores (AIV 0 and AIV 1) run the vector tasks, "
                  "each on its own UB, but this L0C -> UB copy writes AIV 0's UB only "
                  "(sub_blockid 0): on the hardware AIV 1 computes with UB bytes nothing wrote. "
                  "Write 'with T.MixedKernel(n, sids=1) as (bx, sid):' to run the vector tasks "
                  "on AIV 0 alone (what tilesched simulates), or split the tile with "
                  "T.dual_copy in the manual form ('with T.Cube():' / 'with T.Vector() as sid:')");
  }
  return out;
}

std::string printCoreAssignment(const CoreAssignment& a, const std::string& file) {
  std::string out = fmt::format("cores: a {} kernel", kernelCoresName(a.kind));
  if (a.kind == KernelCores::Mixed && a.vectorCores == 1)
    out +=
        " on the cube core and one vector core (T.MixedKernel sids=1); the simulator runs it on "
        "one core with every pipe (one scalar unit and one MTE2 for both)";
  else if (a.kind == KernelCores::Mixed)
    out +=
        " (the simulator runs it on one core with every pipe: the core group is not simulated "
        "yet)";
  out += "\n";
  for (const auto& c : a.units) {
    const SourceLoc& loc = c.unit->loc;
    std::string path = loc.file ? loc.file->path() : file;
    out += fmt::format("  {:{}}{:<7}{} ({}:{}:{}): {}\n", "", 2 * c.depth, coreMaskName(c.core),
                       printStmtFirstLine(c.unit->stmt, 60), path, loc.line, loc.col, c.reason);
  }
  return out;
}

nlohmann::json coreAssignmentJson(const CoreAssignment& a) {
  nlohmann::json units = nlohmann::json::array();
  for (const auto& c : a.units)
    units.push_back({{"line", c.unit->loc.line},
                     {"col", c.unit->loc.col},
                     {"op", opName(*c.unit)},
                     {"core", coreMaskName(c.core)},
                     {"reason", c.reason}});
  return {{"kind", kernelCoresName(a.kind)},
          {"vector_cores", a.vectorCores},
          {"group_simulated", a.manualForm},
          {"units", units}};
}

}  // namespace tilesched::analysis
