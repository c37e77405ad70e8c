// The report's explanation fields (see ExplainReport.h).
#include "report/ExplainReport.h"

#include <fmt/format.h>

#include "ir/Printer.h"
#include "schedule/Explain.h"
#include "schedule/Problem.h"

namespace tilesched::report {

using nlohmann::json;
using namespace schedule;

namespace {

json locJson(SourceLoc loc) {
  return {{"line", loc.valid() ? json(loc.line) : json(nullptr)},
          {"col", loc.valid() ? json(loc.col) : json(nullptr)}};
}

json loopJson(const ir::ForStmt* loop) {
  if (!loop) return nullptr;
  json j = locJson(loop->loc);
  j["var"] = loop->var->name;
  j["num_stages"] = loop->numStages;
  return j;
}

json unitJson(const LoopExplanation& e, int index) {
  const analysis::Unit* u = explanationUnit(e, index);
  json j = u ? locJson(u->loc) : locJson({});
  j["unit"] = index;
  j["op"] = u ? json(ir::printStmtFirstLine(u->stmt)) : json(nullptr);
  j["pipes"] = u ? json(analysis::pipeMaskName(u->pipeMask)) : json(nullptr);
  return j;
}

bool hasProblems(const KernelSchedule& s) {
  for (const auto& ls : s.lists)
    if (ls.loop && !ls.problem) return false;
  return !s.lists.empty();
}

}  // namespace

namespace {

json iiBoundJson(const LoopExplanation& e) {
  json j;
  j["kind"] = std::string(iiBoundKindName(e.kind));
  j["value"] = e.value;
  j["ii"] = e.ii;
  j["reached"] = e.ii == e.value;
  j["status"] = std::string(searchStatusName(e.status));
  j["terms"] = {{"resource", e.terms.resource},
                {"recurrence", e.terms.recurrence},
                {"owner", e.terms.exclusion}};
  switch (e.kind) {
    case IIBoundKind::Resource: {
      j["pipe"] = std::string(pipeName(*e.terms.resourcePipe));
      j["busy"] = e.value;
      json tasks = json::array();
      for (size_t k = 0; k < e.resourceUnits.size(); ++k) {
        json t = unitJson(e, e.resourceUnits[k]);
        t["busy"] = e.resourceBusy[k];
        tasks.push_back(t);
      }
      j["tasks"] = tasks;
      break;
    }
    case IIBoundKind::Recurrence: {
      json tasks = json::array(), edges = json::array();
      for (const auto& edge : e.terms.criticalCycle) {
        tasks.push_back(unitJson(e, edge.from));
        const analysis::Dependency* d = depOf(e, edge);
        std::string on = depOn(d);
        edges.push_back({{"from", edge.from},
                         {"to", edge.to},
                         {"kind", depWhat(d)},
                         {"on", on.empty() ? json(nullptr) : json(on)},
                         {"latency", edge.latency},
                         {"distance", edge.distance}});
      }
      j["tasks"] = tasks;
      j["edges"] = edges;
      j["latency"] = e.cycleLatency;
      j["distance"] = e.cycleDistance;
      break;
    }
    case IIBoundKind::Owner: {
      json tasks = json::array();
      if (e.exclusion) {
        tasks.push_back(unitJson(e, e.exclusion->a));
        tasks.push_back(unitJson(e, e.exclusion->b));
        j["storage"] = e.exclusion->storage ? json(e.exclusion->storage->name) : json(nullptr);
        j["forward"] = e.exclusionForward;
        j["reverse"] = e.exclusionReverse;
      }
      j["tasks"] = tasks;
      break;
    }
    case IIBoundKind::None:
      break;
  }
  j["note"] = e.note.empty() ? json(nullptr) : json(e.note);
  return j;
}

json whyJson(const StorageExplanation& e) {
  json j;
  j["kind"] = std::string(versionReasonName(e.reason));
  j["versions"] = e.versions;
  switch (e.reason) {
    case VersionReason::Annotation:
    case VersionReason::OptOut:
    case VersionReason::Manual:
      j["annotation"] = locJson(e.annotationLoc);
      return j;
    case VersionReason::Ineligible:
      j["reason"] = e.ineligibleReason;
      return j;
    case VersionReason::NumStages:
    case VersionReason::Capacity:
    case VersionReason::ScheduleNeeds:
      break;
    case VersionReason::Fill:
      j["schedule_needs"] = e.scheduleNeeds;
      break;
  }
  j["loop"] = loopJson(e.loop);
  j["bound"] = e.bound;
  j["bound_loop"] = loopJson(e.boundLoop);
  j["cross_iteration"] = e.crossIteration;
  j["ii_above_bound"] = e.iiAboveBound;
  j["ii_lower_bound"] = e.loopLowerBound;
  if (e.capacity)
    j["memory"] = {{"scope", std::string(memScopeName(e.storage->scope))},
                   {"capacity", *e.capacity},
                   {"bytes_per_version", e.bytesPerVersion},
                   {"bytes_with_one_more", e.bytesWithOneMore}};
  else
    j["memory"] = nullptr;
  if (e.reason == VersionReason::NumStages)
    j["ii_bound_with_more_versions"] =
        e.iiBoundWithMoreVersions ? json(*e.iiBoundWithMoreVersions) : json(nullptr);
  if (e.reason == VersionReason::Capacity) {
    j["ii_bound_at_count"] = *e.iiBoundAtCount;
    j["ii_bound_at_bound"] = *e.iiBoundAtBound;
  }
  return j;
}

}  // namespace

void annotateExplanations(json& entry, const ir::Kernel& kernel,
                          const analysis::KernelAnalysis& analysis, const KernelSchedule& schedule,
                          const Target& target) {
  if (!hasProblems(schedule)) return;
  KernelExplanation e = explainSchedule(analysis, kernel, schedule, target);
  if (entry.contains("buffers") && entry["buffers"].is_array())
    for (auto& b : entry["buffers"]) {
      const ir::Buffer* buf = kernel.findBuffer(b.value("name", ""));
      const StorageExplanation* se = buf ? e.find((*buf)->storage) : nullptr;
      b["why"] = se ? whyJson(*se) : json(nullptr);
    }
  if (entry.contains("loops") && entry["loops"].is_array())
    for (auto& l : entry["loops"])
      for (const auto& le : e.loops)
        if (l.value("var", "") == le.loop->var->name && l.value("line", 0u) == le.loop->loc.line)
          l["ii_bound_by"] = iiBoundJson(le);
}

// ------------------------------------------------------------ text

}  // namespace tilesched::report
