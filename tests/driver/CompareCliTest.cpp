// `tilesched run --compare` / `--schedule all` (issue 10): the rows' structure,
// the relations between the modes and the bounds, the JSON report, the exit
// status, and the fill/drain bound of a plain `run`. No wall times.
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/CliTestUtil.h"
#include "driver/Compare.h"

namespace tilesched {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing_cli::cli;
using testing_cli::CliRun;
using testing_cli::example;

std::string tempPath(const std::string& name) {
  return (fs::temp_directory_path() / (std::to_string(::getpid()) + "_" + name)).string();
}

json readJson(const std::string& path) {
  std::ifstream f(path);
  return json::parse(f);
}

// The table rows of `run --compare`: "  MODE RESULT CYCLES BOUND ..." per mode.
struct Row {
  std::string mode, result;
  long long cycles = -1, bound = -1, fillDrainBound = -1;
};
std::vector<Row> rows(const std::string& out) {
  std::vector<Row> result;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    Row r;
    ls >> r.mode >> r.result;
    if (r.mode != "auto" && r.mode != "none" && r.mode != "double" && r.mode != "serial") continue;
    std::string cycles, bound, eff, fd;
    ls >> cycles >> bound >> eff >> fd;
    if (r.result == "PASS") {
      r.cycles = std::stoll(cycles);
      r.bound = std::stoll(bound);
      r.fillDrainBound = std::stoll(fd);
    }
    result.push_back(r);
  }
  return result;
}

TEST(CompareCli, VecAddRowsInModeOrderWithOrderedBounds) {
  CliRun r = cli({"run", example("vec_add"), "--compare"});
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  auto rs = rows(r.out);
  ASSERT_EQ(rs.size(), 4u) << r.out;
  const char* modes[] = {"auto", "none", "double", "serial"};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(rs[i].mode, modes[i]);
    EXPECT_EQ(rs[i].result, "PASS");
    EXPECT_GT(rs[i].bound, 0);
    EXPECT_LE(rs[i].bound, rs[i].fillDrainBound) << rs[i].mode;
    EXPECT_LE(rs[i].fillDrainBound, rs[i].cycles) << rs[i].mode;
  }
  // The scheduler overlaps what `none` serialises; serial is slowest.
  EXPECT_LT(rs[0].cycles, rs[1].cycles);
  EXPECT_LE(rs[0].cycles, rs[2].cycles);
  EXPECT_GE(rs[3].cycles, rs[1].cycles);
  // Every mode runs the same instructions on the same pipes: one bound.
  EXPECT_EQ(rs[0].bound, rs[1].bound);
  EXPECT_EQ(rs[0].fillDrainBound, rs[1].fillDrainBound);
  EXPECT_NE(r.out.find("II/bound"), std::string::npos);
  EXPECT_NE(r.out.find("s "), std::string::npos);  // auto's loop s and its II
}

TEST(CompareCli, ScheduleAllWritesTheComparisonReport) {
  std::string path = tempPath("compare_softmax.json");
  CliRun r = cli({"run", example("softmax"), "--schedule", "all", "--report", path});
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  json c = readJson(path).at("comparison");
  fs::remove(path);
  EXPECT_TRUE(c.at("pass").get<bool>());
  ASSERT_EQ(c.at("modes").size(), 4u);
  const json& a = c.at("modes").at(0);
  EXPECT_EQ(a.at("schedule"), "auto");
  ASSERT_GE(a.at("loops").size(), 1u);
  for (const auto& l : a.at("loops"))
    EXPECT_LE(l.at("ii_lower_bound").get<int64_t>(), l.at("ii").get<int64_t>());
  for (const auto& m : c.at("modes")) {
    EXPECT_TRUE(m.at("pass").get<bool>()) << m.dump();
    int64_t cycles = m.at("cycles").get<int64_t>();
    int64_t bound = m.at("lower_bound").get<int64_t>();
    int64_t fd = m.at("fill_drain_bound").get<int64_t>();
    EXPECT_LE(bound, fd);
    EXPECT_LE(fd, cycles);
    EXPECT_DOUBLE_EQ(m.at("efficiency").get<double>(), double(bound) / double(cycles));
    EXPECT_DOUBLE_EQ(m.at("fill_drain_efficiency").get<double>(), double(fd) / double(cycles));
    EXPECT_DOUBLE_EQ(m.at("auto_speedup").get<double>(),
                     double(cycles) / double(a.at("cycles").get<int64_t>()));
    EXPECT_GE(m.at("compile_ms").get<double>(), 0.0);
  }
  EXPECT_EQ(c.at("modes").at(1).at("solve_ms").get<double>(), 0.0);  // none solves nothing
  for (const auto& [name, n] : c.at("modes").at(1).at("versions").items()) EXPECT_EQ(n, 1) << name;
  for (const auto& [name, n] : c.at("modes").at(2).at("versions").items()) EXPECT_EQ(n, 2) << name;
}

TEST(CompareCli, AModeThatDoesNotCompileFailsTheRun) {
  // Three 64 KiB UB tiles fit once (UB is 248 KiB) but not twice: `double`
  // does not compile, the others run.
  CliRun r = cli({"run", example("vec_add"), "-D", "N=131072", "-D", "block_N=32768", "-D",
                  "sub_N=16384", "--compare"});
  EXPECT_EQ(r.code, 3) << r.err << r.out;
  auto rs = rows(r.out);
  ASSERT_EQ(rs.size(), 4u) << r.out;
  EXPECT_EQ(rs[0].result, "PASS");
  EXPECT_EQ(rs[1].result, "PASS");
  EXPECT_EQ(rs[2].result, "FAIL");
  EXPECT_NE(r.out.find("does not compile"), std::string::npos);
  EXPECT_EQ(rs[3].result, "PASS");
  EXPECT_LE(rs[0].cycles, rs[1].cycles);
}

TEST(CompareCli, AutoBeatsNoneWhenOnlyOneL1TileFitsTwice) {
  // 160 KiB A and B tiles: one of them fits twice in L1 (512 KiB), not both.
  // A flat body issues copy A before copy B on MTE2, so only a second version
  // of A lets the next load overlap the gemm; doubling B (the tile loaded
  // second) buys nothing and runs exactly as `none`.
  CliRun r = cli({"run", example("gemm_l1"), "-D", "M=256", "-D", "N=256", "-D", "K=2560", "-D",
                  "block_M=128", "-D", "block_N=128", "-D", "block_K=640", "--compare"});
  EXPECT_EQ(r.code, 3) << r.err << r.out;  // `double` does not fit L1
  auto rs = rows(r.out);
  ASSERT_EQ(rs.size(), 4u) << r.out;
  ASSERT_EQ(rs[0].result, "PASS") << r.out;
  ASSERT_EQ(rs[1].result, "PASS") << r.out;
  EXPECT_LT(rs[0].cycles, rs[1].cycles) << r.out;
  EXPECT_NE(r.out.find("a_l1 2, b_l1 1"), std::string::npos) << r.out;
}

TEST(CompareCli, OptionsOfOneScheduleAreUsageErrors) {
  EXPECT_EQ(cli({"run", example("vec_add"), "--compare", "--schedule", "none"}).code, 2);
  EXPECT_EQ(cli({"run", example("vec_add"), "--compare", "--trace", tempPath("t.json")}).code, 2);
  EXPECT_EQ(cli({"run", example("vec_add"), "--schedule", "all", "--emit", "lowered"}).code, 2);
  EXPECT_EQ(cli({"run", example("vec_add"), "--schedule", "everything"}).code, 2);
}

TEST(CompareCli, PlainRunReportsTheFillDrainBound) {
  std::string path = tempPath("run_gemm.json");
  CliRun r = cli({"run", example("gemm_l1"), "--report", path});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("with the shortest fill and drain: bound "), std::string::npos);
  json report = readJson(path);
  fs::remove(path);
  const json& s = report.at("simulation");
  int64_t cycles = s.at("cycles").get<int64_t>(), fd = s.at("fill_drain_bound").get<int64_t>();
  EXPECT_LT(s.at("lower_bound").get<int64_t>(), fd);  // a gemm must load before and store after
  EXPECT_LE(fd, cycles);
  EXPECT_DOUBLE_EQ(s.at("fill_drain_efficiency").get<double>(), double(fd) / double(cycles));
  // Per pipe: the busiest pipe's fill + drain is what was added.
  std::string bottleneck = s.at("bottleneck");
  const json& fdp = report.at("kernels").at(0).at("simulation").at("fill_drain").at(bottleneck);
  int64_t busy = s.at("pipes").at(bottleneck).at("busy").get<int64_t>();
  EXPECT_GE(fd, busy + fdp.at("fill").get<int64_t>() + fdp.at("drain").get<int64_t>());
  for (const auto& b : report.at("kernels").at(0).at("simulation").at("blocks"))
    EXPECT_LE(b.at("fill_drain_bound").get<int64_t>(), b.at("cycles").get<int64_t>());
}

// Launches run in order in --compare too: launch 1 reads what launch 0 wrote
// to B, and takes its branch (8 halvings) only then, so --compare's auto row
// must report the cycles of `run --schedule auto`, launches chained.
TEST(CompareCli, LaunchesAreChainedAsInRun) {
  std::string kernel = tempPath("chain.py");
  {
    std::ofstream f(kernel);
    f << "import tilelang.language as T\n\n\n"
         "@T.prim_func\n"
         "def main(A: T.Tensor((256,), \"float32\"), B: T.Tensor((256,), \"float32\")):\n"
         "    with T.Kernel(1):\n"
         "        u = T.alloc_shared((256,), \"float32\")\n"
         "        for i in T.Parallel(256):\n"
         "            u[i] = 7.0\n"
         "        T.copy(u, B)\n"
         "    with T.Kernel(1):\n"
         "        v = T.alloc_shared((256,), \"float32\")\n"
         "        T.copy(B, v)\n"
         "        if v[0] == 7.0:\n"
         "            for r in T.serial(8):\n"
         "                for i in T.Parallel(256):\n"
         "                    v[i] = v[i] * 0.5\n"
         "        T.copy(v, A)\n";
  }
  std::string runReport = tempPath("chain_run.json"), cmpReport = tempPath("chain_cmp.json");
  CliRun run = cli({"run", kernel, "--schedule", "auto", "--report", runReport});
  ASSERT_EQ(run.code, 0) << run.out << run.err;
  CliRun cmp = cli({"run", kernel, "--compare", "--report", cmpReport});
  ASSERT_EQ(cmp.code, 0) << cmp.out << cmp.err;
  int64_t runCycles = readJson(runReport).at("simulation").at("cycles").get<int64_t>();
  json cmpJson = readJson(cmpReport);
  const json& modes = cmpJson.at("comparison").at("modes");
  fs::remove(kernel), fs::remove(runReport), fs::remove(cmpReport);
  ASSERT_EQ(modes.at(0).at("schedule"), "auto");
  EXPECT_EQ(modes.at(0).at("cycles").get<int64_t>(), runCycles);
}

// A prim_func of several launches is one kernel of the comparison: its name
// once in the title and the report, not once per launch
// ("launch_sequence, launch_sequence, launch_sequence").
TEST(CompareCli, AKernelOfSeveralLaunchesIsNamedOnce) {
  std::string file = std::string(TILESCHED_SOURCE_DIR) + "/tests/oracle/kernels/launch_sequence.py";
  std::string report = tempPath("launch_sequence_cmp.json");
  CliRun r = cli({"run", file, "--compare", "--report", report});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')),
            "compare launch_sequence (" + file + ") — auto, none, double, serial");
  json j = readJson(report);
  fs::remove(report);
  EXPECT_EQ(j.at("comparison").at("kernel"), "launch_sequence");
}

// The bound must hold for every schedule of every example: no run beats it.
TEST(CompareCli, FillDrainBoundHoldsForEveryExampleAndMode) {
  std::string error;
  auto target = loadTarget("ascend950", error);
  ASSERT_TRUE(target) << error;
  for (const char* e :
       {"vec_add", "softmax", "rms_norm", "gemm_l1", "gemm_l0", "ring_buffer", "annotate_versions",
        "manual_flat_ring", "persistent_tiles", "vf_region", "unlimit_memory"}) {
    driver::CompareOptions o;
    o.file = example(e);
    driver::Comparison c = driver::compareSchedules(o, *target);
    ASSERT_TRUE(c.compiled) << e << c.diagnostics;
    ASSERT_EQ(c.rows.size(), 4u);
    for (const auto& row : c.rows) {
      if (!row.compiled) continue;
      // unlimit_memory's auto schedule exceeds UB on purpose (docs/examples.md).
      if (std::string(e) == "unlimit_memory" && row.mode == "auto")
        EXPECT_NE(row.error.find("capacity exceeded"), std::string::npos) << row.error;
      else
        EXPECT_TRUE(row.pass) << e << " " << row.mode << ": " << row.error;
      EXPECT_LE(row.lowerBound, row.fillDrainBound) << e << " " << row.mode;
      EXPECT_LE(row.fillDrainBound, row.cycles) << e << " " << row.mode;
    }
  }
}

}  // namespace
}  // namespace tilesched
