// Entry point of the scheduling analyses and their text / JSON output (see
// TaskGraph.h).
#include "analysis/TaskGraph.h"

#include <fmt/format.h>

#include "ir/IROperator.h"
#include "ir/Printer.h"

namespace tilesched::analysis {

using namespace ir;
using nlohmann::json;

namespace {

UnitList* findIn(UnitList& list, const ForStmt* loop) {
  if (list.loop() == loop) return &list;
  for (auto& u : list.units)
    if (u.body)
      if (UnitList* found = findIn(*u.body, loop)) return found;
  return nullptr;
}

std::string forKindName(ForKind k) {
  switch (k) {
    case ForKind::Serial:
      return "T.serial";
    case ForKind::Unroll:
      return "T.unroll";
    case ForKind::Pipelined:
      return "T.Pipelined";
    case ForKind::Persistent:
      return "T.Persistent";
  }
  return "?";
}

}  // namespace

std::string opName(const Unit& u) {
  const Stmt& s = u.stmt;
  switch (s->kind) {
    case StmtKind::Copy: {
      const auto& c = *as<CopyStmt>(s);
      return u.cost.copyPath ? fmt::format("copy {}", copyPathName(*u.cost.copyPath)) : "copy";
      (void)c;
    }
    case StmtKind::Gemm:
      return "gemm";
    case StmtKind::Fill:
      return "fill";
    case StmtKind::Reduce:
      return fmt::format("reduce_{}", reduceKindName(as<ReduceStmt>(s)->reduceKind));
    case StmtKind::Parallel:
      return "parallel";
    case StmtKind::VFRegion:
      return as<VFRegionStmt>(s)->simt ? "simt_vf" : "simd_vf";
    case StmtKind::Store:
      return "store";
    case StmtKind::Assign:
      return "assign " + as<AssignStmt>(s)->var->name;
    case StmtKind::SetFlag:
      return "set_flag";
    case StmtKind::WaitFlag:
      return "wait_flag";
    case StmtKind::Barrier:
      return "pipe_barrier";
    case StmtKind::For:
      return "for " + as<ForStmt>(s)->var->name;
    default:
      return "?";
  }
}

namespace {

std::string targetName(const Dependency& d) {
  if (d.storage) return d.storage->name;
  return d.var ? d.var->name : "?";
}

std::string distanceText(const Dependency& d) {
  switch (d.distanceKind) {
    case DistanceKind::Same:
      return "0";
    case DistanceKind::Versioned:
      return "versions";
    case DistanceKind::Carried:
      return "1 (carried)";
    case DistanceKind::Exact:
      return fmt::format("{} (ring)", d.distance);
  }
  return "?";
}

void printList(std::string& out, const UnitList& list, int indent) {
  std::string pad(indent, ' ');
  const auto& t = list.timing;
  out += fmt::format("{}tasks:\n", pad);
  for (const auto& u : list.units) {
    std::string accesses;
    for (const auto& a : u.accesses) accesses += "  " + printAccess(a);
    std::string extra;
    if (u.cost.secondPipe && !u.isLoop())
      extra = fmt::format(" (MTE1 part: lat {}, ii {})", u.cost.secondLatency, u.cost.secondIi);
    out += fmt::format("{}  #{:<2} {:<12} {:<16} lat {:>5}  ii {:>5}  line {:>3}{}{}{}\n", pad,
                       u.index, pipeMaskName(u.pipeMask), opName(u), u.latency, u.ii, u.loc.line,
                       u.guard.empty() ? "" : "  if " + printGuard(u.guard), extra, accesses);
  }
  if (list.deps.empty() && list.exclusions.empty()) {
    out += fmt::format("{}deps: none\n", pad);
  } else {
    out += fmt::format("{}deps:\n", pad);
    for (const auto& d : list.deps)
      out +=
          fmt::format("{}  {}  #{} -> #{}  distance {:<12} lat {:>5}  {}\n", pad,
                      depKindName(d.kind), d.from, d.to, distanceText(d), d.latency, targetName(d));
    for (const auto& e : list.exclusions)
      out += fmt::format("{}  owner-exclusion  #{} <-> #{}  lat {} / {}  {}\n", pad, e.a, e.b,
                         e.forwardLatency, e.reverseLatency, e.storage->name);
  }
  (void)t;
  for (const auto& u : list.units) {
    if (!u.isLoop()) continue;
    const ForStmt& f = *u.loop();
    const LoopTiming& bt = u.body->timing;
    out += fmt::format(
        "\n{}loop {} (line {}): {}, {} trips, num_stages {}{}, {} II {}, iteration {} cycles\n",
        pad, f.var->name, f.loc.line, forKindName(f.forKind),
        bt.tripsKnown ? std::to_string(bt.trips) : "? (symbolic)", f.numStages,
        f.enableOffset ? ", enable_offset" : "", bt.estimated ? "estimated" : "solved", bt.ii,
        bt.makespan);
    printList(out, *u.body, indent + 2);
  }
}

json regionListJson(const Unit& u, AccessKind kind) {
  json out = json::array();
  for (const auto& a : u.accesses)
    if (a.kind == kind) out.push_back(printAccess(a).substr(2));
  return out;
}

json pipesJson(uint32_t mask) {
  json out = json::array();
  for (Pipe p : kAllPipes)
    if (mask & pipeMask(p)) out.push_back(std::string(pipeName(p)));
  return out;
}

}  // namespace

const UnitList* KernelAnalysis::findLoop(const ForStmt* loop) const {
  return findIn(const_cast<UnitList&>(root), loop);
}
UnitList* KernelAnalysis::findLoop(const ForStmt* loop) { return findIn(root, loop); }

KernelAnalysis analyzeKernel(const Kernel& kernel, const Target& target, DiagnosticEngine& diags,
                             const AnalysisOptions& options) {
  KernelAnalysis out;
  out.kernel = &kernel;
  out.root = extractUnits(kernel, target, options.cost);
  out.ownership = analyzeOwnership(kernel, out.root, diags);
  OverlapOracle oracle(options.overlapTimeoutMs);
  computeDependencies(out.root, out.ownership, oracle);
  out.overlapStats = oracle.stats();
  return out;
}

std::vector<KernelAnalysis> analyzeProgram(const Program& program, const Target& target,
                                           DiagnosticEngine& diags,
                                           const AnalysisOptions& options) {
  std::vector<KernelAnalysis> out;
  for (const auto& k : program.kernels) out.push_back(analyzeKernel(k, target, diags, options));
  return out;
}

std::string printTaskGraph(const KernelAnalysis& analysis) {
  const Kernel& k = *analysis.kernel;
  std::string out =
      fmt::format("kernel {} (line {}), grid {}\n", k.displayName(), k.loc.line, k.grid);
  out += "  buffers:\n";
  for (const auto& so : analysis.ownership.storages) {
    if (so.storage->scope == MemScope::Global) continue;
    std::string owners;
    for (const auto& o : so.owners) {
      const auto* f = as<ForStmt>(o);
      owners +=
          fmt::format("{}{} (line {})", owners.empty() ? "" : ", ", f->var->name, f->loc.line);
    }
    std::string status;
    if (so.manual)
      status = fmt::format("manual ring {}", so.ring);
    else if (so.eligible) {
      std::string fills;
      for (const auto& f : so.broadcastFills)
        fills +=
            fmt::format("{}{}", fills.empty() ? ", broadcast fills: line " : ", ", f->loc.line);
      status = fmt::format("eligible{}, owners: {}, bound {}{}{}{}",
                           so.explicitClaim ? " (claimed)" : "", owners, so.versionBound,
                           so.guardedEpoch ? ", guarded epoch" : "",
                           so.nonAffineNest ? ", non-affine nest" : "", fills);
    } else
      status = "not eligible: " + so.reason;
    out += fmt::format("    {:<10} {:<14} {}\n", so.storage->name, memScopeName(so.storage->scope),
                       status);
  }
  out += "  kernel root:\n";
  printList(out, analysis.root, 4);
  return out;
}

std::string printTaskGraph(const std::vector<KernelAnalysis>& analyses) {
  std::string out;
  for (size_t i = 0; i < analyses.size(); ++i) {
    if (i) out += "\n";
    out += printTaskGraph(analyses[i]);
  }
  return out;
}

json tasksJson(const UnitList& list) {
  json out = json::array();
  for (const auto& u : list.units) {
    json t;
    t["id"] = u.index;
    t["kind"] = u.isLoop() ? "loop" : "task";
    t["op"] = opName(u);
    t["pipes"] = pipesJson(u.pipeMask);
    t["pipe_mask"] = u.pipeMask;
    t["latency"] = u.latency;
    t["ii"] = u.ii;
    t["line"] = u.loc.line;
    t["guard"] = u.guard.empty() ? json(nullptr) : json(printGuard(u.guard));
    t["reads"] = regionListJson(u, AccessKind::Read);
    t["writes"] = regionListJson(u, AccessKind::Write);
    if (u.cost.copyPath && !u.isLoop())
      t["copy_path"] = std::string(copyPathName(*u.cost.copyPath));
    if (u.cost.secondPipe && !u.isLoop())
      t["mte1"] = {{"latency", u.cost.secondLatency}, {"ii", u.cost.secondIi}};
    if (u.isLoop()) {
      t["loop_line"] = u.loop()->loc.line;
      t["estimated"] = u.body->timing.estimated;
    }
    out.push_back(t);
  }
  return out;
}

json depsJson(const UnitList& list) {
  json out = json::array();
  for (const auto& d : list.deps) {
    json j;
    j["kind"] = std::string(depKindName(d.kind));
    j["from"] = d.from;
    j["to"] = d.to;
    j["distance_kind"] = std::string(distanceKindName(d.distanceKind));
    j["distance"] = d.distance;
    j["latency"] = d.latency;
    if (d.storage)
      j["storage"] = d.storage->name;
    else
      j["var"] = d.var ? json(d.var->name) : json(nullptr);
    out.push_back(j);
  }
  for (const auto& e : list.exclusions)
    out.push_back({{"kind", "owner_exclusion"},
                   {"from", e.a},
                   {"to", e.b},
                   {"storage", e.storage->name},
                   {"forward_latency", e.forwardLatency},
                   {"reverse_latency", e.reverseLatency}});
  return out;
}

json timingJson(const ForStmt& loop, const LoopTiming& t) {
  return {{"for_kind", forKindName(loop.forKind)},
          {"trips", t.tripsKnown ? json(t.trips) : json(nullptr)},
          {"estimated", t.estimated},
          {"ii", t.ii},
          {"iteration", t.makespan},
          {"total", t.totalTime()},
          {"starts", t.start}};
}

json loopAnalysisJson(const KernelAnalysis& analysis, const ForStmt& loop) {
  const UnitList* list = analysis.findLoop(&loop);
  if (!list) return {{"tasks", nullptr}, {"deps", nullptr}, {"timing", nullptr}};
  return {{"tasks", tasksJson(*list)},
          {"deps", depsJson(*list)},
          {"timing", timingJson(loop, list->timing)}};
}

json bufferAnalysisJson(const KernelAnalysis& analysis, const Buffer& buffer) {
  const StorageOwnership* so = analysis.ownership.find(buffer->storage);
  json j;
  if (!so) {
    j["eligible"] = false;
    j["manual"] = false;
    j["ring"] = nullptr;
    j["owner_loops"] = json::array();
    j["guarded_epoch"] = false;
    j["non_affine_nest"] = false;
    j["version_bound"] = 1;
    j["broadcast_fill_lines"] = json::array();
    j["ineligible_reason"] = nullptr;
    return j;
  }
  j["eligible"] = so->eligible;
  j["manual"] = so->manual;
  j["ring"] = so->manual ? json(so->ring) : json(nullptr);
  json owners = json::array();
  for (const auto& o : so->owners) {
    const auto* f = as<ForStmt>(o);
    owners.push_back({{"var", f->var->name}, {"line", f->loc.line}});
  }
  j["owner_loops"] = owners;
  j["guarded_epoch"] = so->guardedEpoch;
  j["non_affine_nest"] = so->nonAffineNest;
  j["version_bound"] = so->versionBound;
  json fills = json::array();
  for (const auto& f : so->broadcastFills) fills.push_back(f->loc.line);
  j["broadcast_fill_lines"] = fills;
  j["ineligible_reason"] = so->eligible ? json(nullptr) : json(so->reason);
  return j;
}

void annotateKernelReport(json& kernelEntry, const KernelAnalysis& analysis) {
  const Kernel& k = *analysis.kernel;
  if (analysis.cores) kernelEntry["cores"] = coreAssignmentJson(*analysis.cores);
  if (kernelEntry.contains("buffers") && kernelEntry["buffers"].is_array()) {
    for (auto& b : kernelEntry["buffers"]) {
      if (!b.contains("name")) continue;
      const Buffer* buf = k.findBuffer(b["name"].get<std::string>());
      if (!buf) continue;
      json fields = bufferAnalysisJson(analysis, *buf);
      for (auto it = fields.begin(); it != fields.end(); ++it) b[it.key()] = it.value();
    }
  }
  if (kernelEntry.contains("loops") && kernelEntry["loops"].is_array()) {
    for (auto& l : kernelEntry["loops"]) {
      const ForStmt* match = nullptr;
      forEachList(analysis.root, [&](const UnitList& list) {
        const ForStmt* f = list.loop();
        if (!f || match) return;
        if (l.value("line", 0u) == f->loc.line && l.value("var", std::string()) == f->var->name)
          match = f;
      });
      if (!match) continue;
      json fields = loopAnalysisJson(analysis, *match);
      for (auto it = fields.begin(); it != fields.end(); ++it) l[it.key()] = it.value();
    }
  }
  kernelEntry["root"] = {{"tasks", tasksJson(analysis.root)}, {"deps", depsJson(analysis.root)}};
}

}  // namespace tilesched::analysis
