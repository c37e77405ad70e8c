// The problem dump (see ProblemDump.h).
#include "schedule/ProblemDump.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

namespace tilesched::schedule {

using nlohmann::json;

json problemJson(const SchedulingProblem& p, const ProblemSolution& s) {
  json j;
  j["is_loop"] = p.isLoop;
  j["num_stages"] = p.numStages;
  j["latencies"] = p.latency;
  j["iis"] = p.ii;
  j["resource_flags"] = p.pipeMask;
  json deps = json::array();
  for (const auto& d : p.deps)
    deps.push_back({d.from, d.to, d.versionVar >= 0 ? -(d.versionVar + 1) : d.distance, d.latency});
  j["data_deps"] = deps;
  json resource = json::array();
  for (int a = 0; a < p.numUnits(); ++a)
    for (int b = a + 1; b < p.numUnits(); ++b)
      if (p.sharePipe(a, b)) resource.push_back({a, b});
  j["resource_deps"] = resource;
  json exclusions = json::array();
  for (const auto& e : p.exclusions)
    exclusions.push_back({e.a, e.b, e.forwardLatency, e.reverseLatency});
  j["owner_exclusion_deps"] = exclusions;
  json sizes = json::array(), bounds = json::array();
  for (const auto& v : p.versions) {
    sizes.push_back(v.bytes);
    bounds.push_back({v.minVersions, v.maxVersions});
  }
  j["storage_sizes"] = sizes;
  j["version_bounds"] = bounds;
  // SPEC §6.1 under enable_offset: [version variable or -1 (always), units...]
  // share one stage.
  json sameStage = json::array();
  for (const auto& g : p.sameStage) {
    json group = json::array({g.versionVar});
    for (int u : g.units) group.push_back(u);
    sameStage.push_back(group);
  }
  j["same_stage"] = sameStage;
  json groups = json::array();
  for (const auto& g : p.memoryGroups) {
    json group = json::array({g.capacity});
    for (int k : g.versions) group.push_back(k);
    groups.push_back(group);
  }
  j["memory_groups"] = groups;
  j["enable_offset"] = p.enableOffset;
  j["start_times"] = s.start;
  j["versions"] = s.versions;
  j["ii"] = s.ii;
  j["ii_lower_bound"] = s.iiLowerBound;
  j["proven_optimal"] = s.provenOptimal;
  j["solve_ms"] = s.solveMs;
  return j;
}

bool dumpProblem(const std::string& directory, const ir::Kernel& kernel, const ir::ForStmt* loop,
                 int index, const SchedulingProblem& problem, const ProblemSolution& solution,
                 const std::vector<int64_t>& moduloVersions) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(directory, ec);
  std::string name = kernel.factory.empty() ? kernel.primFuncName() : kernel.factory;
  // Launches of one prim_func are scheduled separately: one file set each.
  if (kernel.numLaunches > 1) name += fmt::format(".launch{}", kernel.launch);
  std::string file =
      loop ? fmt::format("{}.{}.{}_line{}.json", name, index, loop->var->name, loop->loc.line)
           : fmt::format("{}.{}.root.json", name, index);
  json j = problemJson(problem, solution);
  j["modulo_versions"] = moduloVersions;
  j["list"] = loop ? fmt::format("loop {} (line {})", loop->var->name, loop->loc.line)
                   : std::string("kernel root");
  std::ofstream out(fs::path(directory) / file);
  if (!out) return false;
  out << j.dump(2) << "\n";
  return static_cast<bool>(out);
}

}  // namespace tilesched::schedule
