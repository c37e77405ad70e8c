// Several `with T.Kernel` blocks in one prim_func are launches that run in
// order on one global memory (docs/simulator.md, "Launches"): end to end
// through `tilesched run` in every schedule mode, with values checked against
// closed forms computed here, the launch fields of the report, the cycle
// accounting (launch i starts where launch i - 1 ends) and the output files.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/CliTestUtil.h"
#include "sim/Npy.h"
#include "sim/SimTestUtil.h"

namespace tilesched {
namespace {

namespace fs = std::filesystem;

using testing_cli::cli;

std::string readAll(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path tempDir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("tilesched_launch_test_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

fs::path kernelFile(const std::string& name) {
  return fs::path(TILESCHED_EXAMPLES_DIR).parent_path() / "tests" / "oracle" / "kernels" /
         (name + ".py");
}

void writeFloats(const fs::path& p, const std::vector<float>& v) {
  sim::NpyArray a;
  a.descr = "<f4";
  a.shape = {static_cast<int64_t>(v.size())};
  a.data.resize(v.size() * 4);
  std::memcpy(a.data.data(), v.data(), a.data.size());
  std::string error;
  ASSERT_TRUE(sim::writeNpy(p.string(), a, error)) << error;
}

std::vector<float> readFloats(const fs::path& p) {
  std::string error;
  auto a = sim::readNpy(p.string(), error);
  EXPECT_TRUE(a) << p << ": " << error;
  if (!a) return {};
  std::vector<float> v(a->data.size() / 4);
  std::memcpy(v.data(), a->data.data(), a->data.size());
  return v;
}

int64_t launch2StartFromReport(const nlohmann::json& kernels) {
  return kernels[2].at("simulation").at("start_cycle").get<int64_t>();
}

// launch_sequence.py: B = A + 1 (grid 4); C = B * 2 (grid 2); B = C - A (grid 1).
// With small integer inputs every step is exact: C = 2A + 2, B = A + 2.
class LaunchSequence : public ::testing::TestWithParam<std::string> {};

TEST_P(LaunchSequence, LaterLaunchesSeeEarlierWritesInEveryMode) {
  const std::string mode = GetParam();
  fs::path dir = tempDir("seq_" + mode);
  const int n = 2048;
  std::vector<float> a(n), poison(n, -1000.0f);
  for (int i = 0; i < n; ++i) a[static_cast<size_t>(i)] = static_cast<float>(i % 17 - 8);
  writeFloats(dir / "A.npy", a);
  writeFloats(dir / "B0.npy", poison);
  writeFloats(dir / "C0.npy", poison);
  auto r = cli({"run", kernelFile("launch_sequence").string(), "--schedule", mode, "--input",
                "A=" + (dir / "A.npy").string(), "--input", "B=" + (dir / "B0.npy").string(),
                "--input", "C=" + (dir / "C0.npy").string(), "--output-dir", (dir / "out").string(),
                "--report", (dir / "report.json").string(), "--timeline", (dir / "t.svg").string(),
                "--trace", (dir / "trace.json").string()});
  ASSERT_EQ(r.code, 0) << r.out << r.err;

  // Values: closed forms, element by element.
  auto b = readFloats(dir / "out" / "B.npy");
  auto c = readFloats(dir / "out" / "C.npy");
  ASSERT_EQ(b.size(), static_cast<size_t>(n));
  ASSERT_EQ(c.size(), static_cast<size_t>(n));
  for (size_t i = 0; i < static_cast<size_t>(n); ++i) {
    ASSERT_EQ(c[i], 2 * a[i] + 2) << "C[" << i << "]";
    ASSERT_EQ(b[i], a[i] + 2) << "B[" << i << "]";
  }
  // One file per written tensor (after the last launch), nothing per launch.
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir / "out")) files += e.is_regular_file();
  EXPECT_EQ(files, 2u);

  // Report: one entry per launch, in order, each with its own grid and loops.
  auto report = nlohmann::json::parse(readAll(dir / "report.json"));
  const auto& kernels = report.at("kernels");
  ASSERT_EQ(kernels.size(), 3u);
  const int64_t grids[] = {4, 2, 1};
  int64_t start = 0, total = 0;
  for (size_t i = 0; i < 3; ++i) {
    const auto& k = kernels[i];
    EXPECT_EQ(k.at("launch"), i);
    EXPECT_EQ(k.at("launches"), 3);
    EXPECT_EQ(k.at("prim_func"), "main");
    EXPECT_EQ(k.at("func"), i == 0 ? "main" : "main_" + std::to_string(i));
    EXPECT_EQ(k.at("grid"), grids[i]);
    EXPECT_TRUE(k.at("buffers").is_array());
    const auto& sim = k.at("simulation");
    EXPECT_EQ(sim.at("launch"), i);
    EXPECT_EQ(sim.at("grid"), grids[i]);
    EXPECT_EQ(sim.at("start_cycle"), start) << "launch " << i;
    EXPECT_EQ(sim.at("races"), 0);
    EXPECT_TRUE(sim.at("pass").get<bool>());
    EXPECT_GT(sim.at("cycles").get<int64_t>(), 0);
    start += sim.at("cycles").get<int64_t>();
    total += sim.at("cycles").get<int64_t>();
  }
  // Launches 0 and 1 have a pipelined loop each; launch 2 a serial loop.
  EXPECT_EQ(kernels[0].at("loops").size(), 1u);
  EXPECT_EQ(kernels[1].at("loops").size(), 1u);
  EXPECT_EQ(report.at("simulation").at("cycles"), total);

  // Human output and pictures name the launches.
  EXPECT_NE(r.out.find("run launch_sequence launch 1/3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("launch 2 of 3 of 'main': starts at cycle"), std::string::npos) << r.out;
  EXPECT_NE(
      r.out.find("'main': 3 launches in order, " + std::to_string(total) + " cycles in total"),
      std::string::npos)
      << r.out;
  std::string svg = readAll(dir / "t.svg");
  EXPECT_NE(svg.find("launch_sequence launch 2/3 block 0"), std::string::npos);
  EXPECT_NE(svg.find("cycles " + std::to_string(launch2StartFromReport(kernels)) + " to " +
                     std::to_string(total)),
            std::string::npos);
  // The trace places the last launch after the others: its events start at
  // or after the cycle where launch 1 ended.
  auto trace = nlohmann::json::parse(readAll(dir / "trace.json"));
  int lastPid = -1;
  for (const auto& e : trace.at("traceEvents"))
    if (e.value("name", "") == "process_name" &&
        e.at("args").value("name", "") == "launch_sequence launch 2/3 block 0 (1 us = 1 cycle)")
      lastPid = e.at("pid").get<int>();
  ASSERT_GE(lastPid, 0);
  int64_t launch2Start = kernels[2].at("simulation").at("start_cycle").get<int64_t>();
  size_t events = 0;
  for (const auto& e : trace.at("traceEvents")) {
    if (e.value("ph", "") != "X" || e.at("pid").get<int>() != lastPid) continue;
    ++events;
    EXPECT_GE(e.at("ts").get<int64_t>(), launch2Start);
  }
  EXPECT_GT(events, 0u);
}

INSTANTIATE_TEST_SUITE_P(Modes, LaunchSequence,
                         ::testing::Values("serial", "auto", "none", "double"));

// as-written simulates each launch's own (here: missing) flags: every launch
// races within itself, none across launches, and the top-level report lists
// the race reports of all launches.
TEST(LaunchSequenceAsWritten, RacesAreReportedPerLaunchAndSummed) {
  fs::path dir = tempDir("as_written");
  auto r = cli({"run", kernelFile("launch_sequence").string(), "--schedule", "as-written",
                "--report", (dir / "report.json").string()});
  EXPECT_EQ(r.code, 3) << r.out << r.err;
  auto report = nlohmann::json::parse(readAll(dir / "report.json"));
  const auto& kernels = report.at("kernels");
  ASSERT_EQ(kernels.size(), 3u);
  int64_t races = 0;
  size_t reports = 0;
  for (const auto& k : kernels) {
    const auto& sim = k.at("simulation");
    EXPECT_GT(sim.at("races").get<int64_t>(), 0) << "launch " << k.at("launch");
    races += sim.at("races").get<int64_t>();
    reports += sim.at("race_reports").size();
  }
  EXPECT_EQ(report.at("simulation").at("races"), races);
  // The race lists are the launches' own; the run's summary only counts.
  EXPECT_GT(reports, 0u);
  EXPECT_FALSE(report.at("simulation").contains("race_reports"));
  EXPECT_EQ(report.at("simulation").at("kernels"), 3);
  EXPECT_FALSE(report.at("simulation").at("pass").get<bool>());
}

// `with T.Kernel(n) as bx, T.SimtVF(...)` then `with T.Kernel(1), T.SimdVF()`:
// both launches are single VF regions on the V pipe, so even the unsynchronised
// as-written kernel is race-free; Y = 3X and Z = Y + X = 4X exactly for small
// integers.
class KernelSimtVF : public ::testing::TestWithParam<std::string> {};

TEST_P(KernelSimtVF, CombinedWithOpensAVFRegionInEveryMode) {
  const std::string mode = GetParam();
  fs::path dir = tempDir("vf_" + mode);
  const int n = 1024;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) x[static_cast<size_t>(i)] = static_cast<float>(i % 23 - 11);
  writeFloats(dir / "X.npy", x);
  auto r = cli({"run", kernelFile("kernel_simt_vf").string(), "--schedule", mode, "--input",
                "X=" + (dir / "X.npy").string(), "--output-dir", (dir / "out").string()});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  auto y = readFloats(dir / "out" / "Y.npy");
  auto z = readFloats(dir / "out" / "Z.npy");
  ASSERT_EQ(y.size(), static_cast<size_t>(n));
  ASSERT_EQ(z.size(), static_cast<size_t>(n));
  for (size_t i = 0; i < static_cast<size_t>(n); ++i) {
    ASSERT_EQ(y[i], 3 * x[i]) << "Y[" << i << "]";
    ASSERT_EQ(z[i], 4 * x[i]) << "Z[" << i << "]";
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, KernelSimtVF,
                         ::testing::Values("serial", "auto", "none", "double", "as-written"));

// sim::runLaunches checks every launch against the simulator's limits before
// any runs and returns each one beyond them as an error located at its grid
// (line 9 col 19, line 13 col 19 below); problems of the options are usage
// errors without a location.
TEST(RunLaunches, EveryLaunchBeyondTheLimitsIsALocatedErrorBeforeAnyRuns) {
  std::string errors;
  auto program = sim::test::compileText(
      "import tilelang.language as T\n\n@T.prim_func\n"
      "def main(A: T.Tensor((64,), \"float32\"), B: T.Tensor((64,), \"float32\")):\n"
      "    with T.Kernel(1) as bx:\n"
      "        a = T.alloc_ub((64,), \"float32\")\n"
      "        T.copy(A, a)\n"
      "        T.copy(a, B)\n"
      "    with T.Kernel(70000) as by:\n"
      "        b = T.alloc_ub((64,), \"float32\")\n"
      "        T.copy(B, b)\n"
      "        T.copy(b, A)\n"
      "    with T.Kernel(65537) as bz:\n"
      "        c = T.alloc_ub((64,), \"float32\")\n"
      "        T.copy(A, c)\n"
      "        T.copy(c, B)\n",
      &errors);
  ASSERT_TRUE(program) << errors;
  ASSERT_EQ(program->kernels.size(), 3u);
  std::vector<ir::Kernel> serial;
  for (const auto& k : program->kernels) serial.push_back(transform::lowerSerial(k));
  std::vector<sim::Launch> launches;
  for (size_t i = 0; i < serial.size(); ++i) launches.push_back({&program->kernels[i], &serial[i]});
  sim::RunRefusal refusal;
  EXPECT_FALSE(sim::runLaunches(launches, sim::test::testTarget(), {}, refusal));
  EXPECT_TRUE(refusal.beyondLimits);
  ASSERT_EQ(refusal.errors.size(), 2u);
  EXPECT_EQ(refusal.errors[0].loc.line, 9u);
  EXPECT_EQ(refusal.errors[0].loc.col, 19u);
  EXPECT_NE(refusal.errors[0].message.find("a grid of 70000 blocks"), std::string::npos)
      << refusal.errors[0].message;
  EXPECT_EQ(refusal.errors[1].loc.line, 13u);
  EXPECT_EQ(refusal.errors[1].loc.col, 19u);
  EXPECT_NE(refusal.errors[1].message.find("a grid of 65537 blocks"), std::string::npos)
      << refusal.errors[1].message;

  // The first launch alone fits and runs; an --input naming no parameter is
  // a usage error, not located in the kernel.
  auto first = sim::runLaunches({launches.front()}, sim::test::testTarget(), {}, refusal);
  ASSERT_TRUE(first) << refusal.message();
  EXPECT_TRUE(first->launches.front().ok());
  sim::RunOptions bad;
  bad.inputs["Z"] = "1";
  EXPECT_FALSE(sim::runKernel(program->kernels[0], program->kernels[0], sim::test::testTarget(),
                              bad, refusal));
  EXPECT_FALSE(refusal.beyondLimits);
  ASSERT_EQ(refusal.errors.size(), 1u);
  EXPECT_FALSE(refusal.errors[0].loc.valid());
  EXPECT_NE(refusal.message().find("no parameter 'Z'"), std::string::npos) << refusal.message();
}

}  // namespace
}  // namespace tilesched

namespace tilesched {
namespace {

// --time-passes (compile and run): one line per pass however many launches the
// file has; a per-kernel pass adds up over them.
TEST(LaunchTimePasses, EveryPassIsOneLineForThreeLaunches) {
  std::string file = kernelFile("launch_sequence").string();
  for (const char* command : {"compile", "run"}) {
    auto r = cli({command, file, "--time-passes"});
    ASSERT_EQ(r.code, 0) << command << ": " << r.err;
    std::vector<std::string> passes = {"elaborate", "analyze", "schedule", "total"};
    if (std::string(command) == "run")
      passes.insert(passes.end() - 1, {"version-modes", "insert-synchronization", "simulate"});
    for (const auto& pass : passes) {
      std::string line = "    " + pass + " ";
      size_t at = r.out.find(line);
      ASSERT_NE(at, std::string::npos) << command << " " << pass << ": " << r.out;
      EXPECT_EQ(r.out.find(line, at + 1), std::string::npos) << command << " " << pass << " twice";
    }
  }
  auto json = cli({"compile", file, "--time-passes", "--emit", "report-json"});
  EXPECT_EQ(json.code, 2);
  EXPECT_NE(json.err.find("--time-passes prints on stdout, which --emit report-json keeps"),
            std::string::npos)
      << json.err;
  EXPECT_TRUE(json.out.empty()) << json.out;
}

}  // namespace
}  // namespace tilesched
