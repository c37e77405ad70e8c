// The scheduler through the CLI: report fields of SPEC §7.3 (loops[],
// buffers[].versions/source, annotations.buffer_versions, memory),
// `--emit schedule`, `--dump-schedule-problems`, `--solver-timeout-ms`.
// Expected numbers come from the report's own analysis fields (task IIs,
// buffer bytes) by closed forms.
#include <gtest/gtest.h>

#include <unistd.h>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "Version.h"
#include "common/CliTestUtil.h"
#include "driver/Driver.h"

namespace tilesched {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using testing_cli::cli;
using testing_cli::CliRun;

using testing_cli::example;

TEST(ScheduleCli, ReportCarriesLoopsVersionsWriteBackAndMemory) {
  CliRun r = cli({"compile", example("vec_add"), "--emit", "report-json"});
  ASSERT_EQ(r.code, 0) << r.err;
  json k = json::parse(r.out).at("kernels").at(0);
  ASSERT_EQ(k.at("loops").size(), 1u);
  const json& loop = k.at("loops").at(0);
  for (const char* key : {"var", "line", "num_stages", "enable_offset", "ii", "ii_lower_bound",
                          "proven_optimal", "max_stage", "solve_ms", "fallback"})
    EXPECT_TRUE(loop.contains(key)) << key;
  // Busiest pipe: Σ II of the tasks per pipe, from the report's task list.
  std::map<int, int64_t> perPipe;
  for (const auto& t : loop.at("tasks"))
    perPipe[t.at("pipe_mask").get<int>()] += t.at("ii").get<int64_t>();
  int64_t busiest = 0;
  for (const auto& [mask, sum] : perPipe) busiest = std::max(busiest, sum);
  EXPECT_EQ(loop.at("ii"), busiest);
  EXPECT_EQ(loop.at("ii_lower_bound"), busiest);
  EXPECT_EQ(loop.at("proven_optimal"), true);
  EXPECT_EQ(loop.at("fallback"), false);
  EXPECT_EQ(loop.at("num_stages"), 2);
  EXPECT_EQ(loop.at("enable_offset"), false);
  int64_t used = 0;
  for (const auto& b : k.at("buffers")) {
    if (b.at("scope") != "shared") continue;
    EXPECT_EQ(b.at("versions"), 2) << b.at("name");
    EXPECT_EQ(b.at("source"), "solver");
    used += 2 * ((b.at("bytes").get<int64_t>() + 31) / 32 * 32);
  }
  EXPECT_EQ(k.at("annotations").at("buffer_versions"),
            json({{"a_ub", 2}, {"b_ub", 2}, {"c_ub", 2}}));
  EXPECT_EQ(k.at("memory").at("shared").at("used"), used);
  EXPECT_EQ(k.at("memory").at("shared").at("capacity"), 253952);
  EXPECT_EQ(k.at("memory").at("shared").at("unlimited"), false);
}

TEST(ScheduleCli, SourcesOfVersions) {
  CliRun r = cli({"compile", example("ring_buffer"), "--emit", "report-json"});
  ASSERT_EQ(r.code, 0) << r.err;
  json k = json::parse(r.out).at("kernels").at(0);
  for (const auto& b : k.at("buffers"))
    if (b.at("name") == "buf") {
      EXPECT_EQ(b.at("source"), "manual");
      EXPECT_EQ(b.at("versions"), 2);
    }
  r = cli({"compile", example("unlimit_memory"), "--emit", "report-json"});
  ASSERT_EQ(r.code, 0) << r.err;
  k = json::parse(r.out).at("kernels").at(0);
  EXPECT_EQ(k.at("memory").at("shared").at("unlimited"), true);
}

TEST(ScheduleCli, EmitSchedulePrintsStagesStartsAndTheWrittenBackMap) {
  CliRun r = cli({"compile", example("vec_add"), "--emit", "schedule"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("T.annotate_buffer_versions({a_ub: 2, b_ub: 2, c_ub: 2})"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("# loop s (line 40): II "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("proven optimal"), std::string::npos);
  EXPECT_NE(r.out.find("# unit 0  MTE2  stage 0  start 0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("# kernel root: makespan"), std::string::npos);
}

TEST(ScheduleCli, DumpsEveryProblemInTheSpecFormat) {
  fs::path dir = fs::temp_directory_path() / (std::to_string(::getpid()) + "_dump");
  fs::remove_all(dir);
  CliRun r = cli(
      {"compile", example("vec_add"), "--emit", "ir", "--dump-schedule-problems", dir.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_EQ(files.size(), 2u);  // loop s, then the kernel root
  std::ifstream in(files[0]);
  json j = json::parse(in);
  for (const char* key :
       {"num_stages", "latencies", "iis", "resource_flags", "data_deps", "resource_deps",
        "owner_exclusion_deps", "storage_sizes", "memory_groups", "enable_offset", "start_times",
        "versions", "ii", "ii_lower_bound", "proven_optimal", "solve_ms"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j.at("resource_flags"), json({2, 2, 16, 4}));  // MTE2 MTE2 V MTE3
  bool versionVariable = false;
  for (const auto& d : j.at("data_deps")) versionVariable |= d.at(2).get<int>() < 0;
  EXPECT_TRUE(versionVariable);
  EXPECT_EQ(j.at("storage_sizes"), json({4096, 4096, 4096}));
  EXPECT_EQ(j.at("versions"), json({2, 2, 2}));
  EXPECT_EQ(j.at("memory_groups").at(0).at(0), 253952);
  fs::remove_all(dir);
}

// Each launch of a prim_func is scheduled on its own: one file set per launch.
TEST(ScheduleCli, DumpsEveryLaunchSeparately) {
  fs::path dir = fs::temp_directory_path() / (std::to_string(::getpid()) + "_dump_launches");
  fs::remove_all(dir);
  std::string kernel =
      std::string(TILESCHED_SOURCE_DIR) + "/tests/oracle/kernels/launch_sequence.py";
  CliRun r =
      cli({"compile", kernel, "--emit", "schedule", "--dump-schedule-problems", dir.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files,
            (std::vector<std::string>{
                "launch_sequence.launch0.0.s_line20.json", "launch_sequence.launch0.1.root.json",
                "launch_sequence.launch1.0.s_line28.json", "launch_sequence.launch1.1.root.json",
                "launch_sequence.launch2.0.s_line37.json", "launch_sequence.launch2.1.root.json"}));
  for (int i = 0; i < 3; ++i)
    EXPECT_NE(r.out.find("# schedule of launch_sequence launch " + std::to_string(i) + "/3"),
              std::string::npos)
        << r.out;
  fs::remove_all(dir);
}

TEST(ScheduleCli, SolverTimeoutOption) {
  CliRun r =
      cli({"compile", example("gemm_l0"), "--emit", "report-json", "--solver-timeout-ms", "1"});
  ASSERT_EQ(r.code, 0) << r.err;
  // The parsed report must outlive the loop: a range-for over `.at()` of the
  // temporary that json::parse returns reads freed memory (ASan found it).
  json report = json::parse(r.out);
  for (const auto& l : report.at("kernels").at(0).at("loops"))
    EXPECT_GE(l.at("ii").get<int64_t>(), l.at("ii_lower_bound").get<int64_t>());
  r = cli({"compile", example("vec_add"), "--solver-timeout-ms", "soon"});
  EXPECT_EQ(r.code, 2);
}

}  // namespace
}  // namespace tilesched

namespace tilesched {
namespace {

// Every dumped problem's result satisfies the dumped inputs, read only from
// the JSON (what another solver would see): dependencies with version
// variables, modulo pipe occupancy, owner exclusions, memory groups, windows.
TEST(ScheduleCli, DumpedResultsSatisfyTheDumpedProblems) {
  fs::path dir = fs::temp_directory_path() / (std::to_string(::getpid()) + "_dump_all");
  fs::remove_all(dir);
  for (const auto& e : fs::directory_iterator(fs::path(TILESCHED_SOURCE_DIR) / "examples")) {
    if (e.path().extension() != ".py") continue;
    CliRun r = cli(
        {"compile", e.path().string(), "--emit", "ir", "--dump-schedule-problems", dir.string()});
    ASSERT_EQ(r.code, 0) << r.err;
  }
  int files = 0;
  for (const auto& f : fs::directory_iterator(dir)) {
    SCOPED_TRACE(f.path().filename().string());
    ++files;
    std::ifstream in(f.path());
    json j = json::parse(in);
    bool loop = j.at("is_loop");
    int64_t ii = j.at("ii");
    auto s = j.at("start_times").get<std::vector<int64_t>>();
    auto lat = j.at("latencies").get<std::vector<int64_t>>();
    auto iis = j.at("iis").get<std::vector<int64_t>>();
    auto versions = j.at("versions").get<std::vector<int64_t>>();
    auto sizes = j.at("storage_sizes").get<std::vector<int64_t>>();
    ASSERT_EQ(versions.size(), sizes.size());
    for (const auto& d : j.at("data_deps")) {
      int a = d.at(0), b = d.at(1);
      int64_t dist = d.at(2), l = d.at(3);
      if (dist < 0) dist = versions.at(-dist - 1);
      if (!loop && dist > 0) continue;
      EXPECT_GE(s[b] - s[a], l - ii * dist) << d.dump();
    }
    for (const auto& p : j.at("resource_deps")) {
      int a = p.at(0), b = p.at(1);
      if (loop) {
        int64_t gap = ((s[b] - s[a]) % ii + ii) % ii;
        EXPECT_TRUE(gap >= iis[a] && ii - gap >= iis[b]) << p.dump();
        if (!j.at("enable_offset").get<bool>()) {
          EXPECT_LT(std::abs(s[b] - s[a]), ii) << p.dump();
        }
      } else {
        EXPECT_TRUE(s[b] >= s[a] + iis[a] || s[a] >= s[b] + iis[b]) << p.dump();
      }
    }
    for (const auto& x : j.at("owner_exclusion_deps")) {
      int a = x.at(0), b = x.at(1);
      int64_t fwd = x.at(2), rev = x.at(3);
      bool aFirst = s[b] - s[a] >= fwd && (!loop || s[a] + ii - s[b] >= rev);
      bool bFirst = s[a] - s[b] >= rev && (!loop || s[b] + ii - s[a] >= fwd);
      EXPECT_TRUE(aFirst || bFirst) << x.dump();
    }
    for (const auto& g : j.at("memory_groups")) {
      int64_t used = 0;
      for (size_t k = 1; k < g.size(); ++k)
        used += versions.at(g[k].get<int>()) * sizes.at(g[k].get<int>());
      EXPECT_LE(used, g.at(0).get<int64_t>()) << g.dump();
    }
    EXPECT_GE(ii, j.at("ii_lower_bound").get<int64_t>());
    if (!loop) {
      for (size_t i = 0; i < s.size(); ++i) EXPECT_LE(s[i] + std::max(lat[i], iis[i]), ii);
    }
  }
  EXPECT_GE(files, 20);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tilesched

namespace tilesched {
namespace {

// SPEC §6.1 end to end: with enable_offset, a storage in "counter" mode is
// scheduled at one stage, so lowering accepts the annotation and the staged
// loop runs and matches the reference (it used to be the error "cannot use
// counter mode: with enable_offset it is accessed at several stages").
TEST(ScheduleCli, CounterModeUnderEnableOffsetLowersAndRuns) {
  fs::path file = fs::temp_directory_path() / (std::to_string(::getpid()) + "_staged_counter.py");
  {
    std::ofstream out(file);
    out << "import tilelang.language as T\n\n@T.prim_func\n"
           "def main(X: T.Tensor((65536,), \"float32\"), Y: T.Tensor((65536,), \"float32\")):\n"
           "    with T.Kernel(1) as bx:\n"
           "        x_ub = T.alloc_ub((8192,), \"float32\")\n"
           "        y_ub = T.alloc_ub((8192,), \"float32\")\n"
           "        T.annotate_buffer_versions({x_ub: (2, \"counter\")})\n"
           "        for s in T.Pipelined(8, num_stages=3, annotations={\"enable_offset\": True}):\n"
           "            T.copy(X[s * 8192:s * 8192 + 8192], x_ub)\n"
           "            for i in T.Parallel(8192):\n"
           "                y_ub[i] = x_ub[i] * 2.0 + 1.0\n"
           "            T.copy(y_ub, Y[s * 8192:s * 8192 + 8192])\n";
  }
  CliRun r = cli({"run", file.string(), "--report", (file.string() + ".json")});
  EXPECT_EQ(r.code, 0) << r.err << r.out;
  EXPECT_EQ(r.err.find("error:"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("without stages"), std::string::npos) << r.err;
  std::ifstream in(file.string() + ".json");
  json report = json::parse(in);
  CliRun compiled = cli({"compile", file.string(), "--emit", "report-json"});
  ASSERT_EQ(compiled.code, 0) << compiled.err;
  json compiledReport = json::parse(compiled.out);
  const json& loop = compiledReport.at("kernels").at(0).at("loops").at(0);
  const json& stages = loop.at("stages");
  EXPECT_EQ(stages.at(0), stages.at(1)) << loop.dump();
  for (const auto& b : report.at("kernels").at(0).at("buffers"))
    if (b.at("name") == "x_ub") {
      EXPECT_EQ(b.at("versions"), 2);
      EXPECT_EQ(b.at("mode"), "counter");
    }
  fs::remove(file);
  fs::remove(file.string() + ".json");
}

}  // namespace
}  // namespace tilesched

namespace tilesched {
namespace {

// `compile --stats`: one line per scheduled list (inner loops first, the root
// last) and a total, on stderr, only when asked. With a 1 ms budget the loop falls
// back to the list schedule and the counters say so.
TEST(ScheduleCli, StatsPrintSolverCountersPerList) {
  CliRun plain = cli({"compile", example("vec_add"), "--emit", "schedule"});
  CliRun r = cli({"compile", example("vec_add"), "--emit", "schedule", "--stats"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(plain.err.find("# scheduler stats"), std::string::npos);
  EXPECT_NE(r.err.find("# scheduler stats of "), std::string::npos) << r.err;
  size_t loop = r.err.find("loop s (line 40): "), root = r.err.find("kernel root: ");
  ASSERT_NE(loop, std::string::npos) << r.err;
  ASSERT_NE(root, std::string::npos) << r.err;
  EXPECT_LT(loop, root);
  EXPECT_NE(r.err.find("total: 2 lists, "), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(", fallback,"), std::string::npos) << r.err;
  // No budget: the list schedule (the budget is Z3 work, so a small one may
  // still be enough for vec_add's few constraints).
  CliRun cut = cli({"compile", example("vec_add"), "--solver-timeout-ms", "0", "--stats"});
  ASSERT_EQ(cut.code, 0) << cut.err;
  size_t line = cut.err.find("loop s (line 40): ");
  ASSERT_NE(line, std::string::npos) << cut.err;
  EXPECT_NE(cut.err.substr(line, cut.err.find('\n', line) - line).find(", fallback,"),
            std::string::npos)
      << cut.err;
}

}  // namespace
}  // namespace tilesched
