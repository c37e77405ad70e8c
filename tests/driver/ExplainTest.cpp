// `tilesched explain` and the report's `buffers[].why` / `loops[].ii_bound_by`
// (issue 10 "Explanations"). Every example must answer; targeted kernels
// (tests/driver/explain/*.py and examples) make each reason the answer.
// Expected numbers are closed forms of the SPEC §3.4 cost model and §3.2
// capacities, and source positions are found by searching the kernel file.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "common/CliTestUtil.h"

namespace tilesched {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing_cli::cli;
using testing_cli::CliRun;
using testing_cli::example;

std::string kernel(const std::string& name) {
  return std::string(TILESCHED_TEST_DATA_DIR) + "/explain/" + name + ".py";
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// 1-based line and column of the first occurrence of `needle` in `path`.
std::pair<int, int> find(const std::string& path, const std::string& needle) {
  std::ifstream in(path);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (auto c = line.find(needle); c != std::string::npos) return {n, static_cast<int>(c) + 1};
  ADD_FAILURE() << needle << " not in " << path;
  return {0, 0};
}

json compileReport(std::vector<std::string> args) {
  args.insert(args.begin(), "compile");
  args.push_back("--emit");
  args.push_back("report-json");
  CliRun r = cli(args);
  EXPECT_EQ(r.code, 0) << r.err;
  return json::parse(r.out).at("kernels").at(0);
}

const json& buffer(const json& k, const std::string& name) {
  for (const auto& b : k.at("buffers"))
    if (b.at("name") == name) return b;
  ADD_FAILURE() << "no buffer " << name;
  static json none;
  return none;
}

const json& loop(const json& k, const std::string& var) {
  for (const auto& l : k.at("loops"))
    if (l.at("var") == var) return l;
  ADD_FAILURE() << "no loop " << var;
  static json none;
  return none;
}

// The facts every ii_bound_by must satisfy, checked by arithmetic on its own
// parts: the named term is the loop's lower bound and the largest term, a
// resource's busy cycles add up, a recurrence is a closed cycle whose
// latency over distance needs exactly the bound, an exclusion's two
// hand-offs add up.
void checkBoundConsistent(const json& l) {
  SCOPED_TRACE("loop " + l.at("var").get<std::string>());
  const json& b = l.at("ii_bound_by");
  ASSERT_TRUE(b.is_object());
  std::string kind = b.at("kind");
  EXPECT_TRUE(kind == "resource" || kind == "recurrence" || kind == "owner" || kind == "none");
  int64_t value = b.at("value");
  EXPECT_EQ(value, l.at("ii_lower_bound").get<int64_t>());
  EXPECT_EQ(b.at("reached").get<bool>(), l.at("ii").get<int64_t>() == value);
  const json& t = b.at("terms");
  EXPECT_EQ(value, std::max({t.at("resource").get<int64_t>(), t.at("recurrence").get<int64_t>(),
                             t.at("owner").get<int64_t>(), int64_t{1}}));
  std::string status = b.at("status");
  if (l.at("fallback").get<bool>()) {
    EXPECT_EQ(status, "fallback");
  } else if (l.at("proven_optimal").get<bool>()) {
    EXPECT_EQ(status, "proven-optimal");
  }
  if (kind == "resource") {
    int64_t busy = 0;
    for (const auto& task : b.at("tasks")) {
      busy += task.at("busy").get<int64_t>();
      EXPECT_NE(task.at("pipes").get<std::string>().find(b.at("pipe").get<std::string>()),
                std::string::npos);
    }
    EXPECT_EQ(busy, value);
    EXPECT_EQ(t.at("resource").get<int64_t>(), value);
  }
  if (kind == "recurrence") {
    const json& edges = b.at("edges");
    ASSERT_FALSE(edges.empty());
    int64_t latency = 0, distance = 0;
    for (size_t i = 0; i < edges.size(); ++i) {
      EXPECT_EQ(edges[i].at("to"), edges[(i + 1) % edges.size()].at("from"));
      latency += edges[i].at("latency").get<int64_t>();
      distance += edges[i].at("distance").get<int64_t>();
    }
    EXPECT_EQ(latency, b.at("latency").get<int64_t>());
    EXPECT_EQ(distance, b.at("distance").get<int64_t>());
    ASSERT_GT(distance, 0);
    EXPECT_EQ(ceilDiv(latency, distance), value);
  }
  if (kind == "owner") {
    EXPECT_EQ(b.at("forward").get<int64_t>() + b.at("reverse").get<int64_t>(), value);
  }
}

// "loop VAR (FILE:LINE:" as the explanation heads a loop's block.
std::string loopHead(const std::string& file, const json& l) {
  return "loop " + l.at("var").get<std::string>() + " (" + file + ":" +
         std::to_string(l.at("line").get<int>()) + ":";
}

const std::set<std::string> kWhyKinds = {"annotation", "opt-out",  "manual",        "ineligible",
                                         "num_stages", "capacity", "schedule-needs"};

TEST(Explain, EveryExampleAnswers) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(std::string(TILESCHED_SOURCE_DIR) + "/examples"))
    if (e.path().extension() == ".py") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 10u);
  for (const auto& f : files) {
    SCOPED_TRACE(f.string());
    CliRun r = cli({"explain", f.string()});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out.rfind("# explain ", 0), 0u) << r.out;
    json k = compileReport({f.string()});
    ASSERT_FALSE(k.at("loops").empty());
    for (const auto& l : k.at("loops")) {
      checkBoundConsistent(l);
      // One block per loop, located FILE:LINE:COL.
      EXPECT_NE(r.out.find(loopHead(f.string(), l)), std::string::npos) << r.out;
    }
    for (const auto& b : k.at("buffers")) {
      if (b.at("scope") == "global") continue;
      const json& why = b.at("why");
      ASSERT_TRUE(why.is_object()) << b.dump();
      EXPECT_TRUE(kWhyKinds.count(why.at("kind").get<std::string>())) << why.dump();
      EXPECT_EQ(why.at("versions"), b.at("versions"));
      // One line per buffer.
      EXPECT_NE(r.out.find("  " + b.at("name").get<std::string>() + " "), std::string::npos);
    }
  }
}

TEST(Explain, AnnotationFixedCountNamesItsAnnotation) {
  std::string file = example("annotate_versions");
  json k = compileReport({file});
  const json& why = buffer(k, "fixed").at("why");
  EXPECT_EQ(why.at("kind"), "annotation");
  EXPECT_EQ(why.at("versions"), 2);
  auto [line, col] = find(file, "fixed: (2, \"counter\")");
  EXPECT_EQ(why.at("annotation").at("line"), line);
  EXPECT_EQ(why.at("annotation").at("col"), col);
  CliRun r = cli({"explain", file});
  EXPECT_NE(r.out.find("fixed by T.annotate_buffer_versions at " + file + ":" +
                       std::to_string(line) + ":" + std::to_string(col)),
            std::string::npos)
      << r.out;
}

TEST(Explain, ManualRingNamesItsAnnotation) {
  std::string file = example("manual_flat_ring");
  json k = compileReport({file});
  const json& why = buffer(k, "flat").at("why");
  EXPECT_EQ(why.at("kind"), "manual");
  EXPECT_EQ(why.at("versions"), 3);
  EXPECT_EQ(why.at("annotation").at("line"),
            find(file, "            T.annotate_manual_multi_buffer").first);
}

TEST(Explain, NumStagesCapCostsII) {
  // num_stages=1: one version of c_ub, so the store's write-after-read hand-off
  // back to the compute (distance 1) needs II >= 252 + 32; with more versions
  // the bound falls to the busiest pipe, MTE2: ceil(2·4096 / 100) = 82.
  std::string file = kernel("num_stages_capped");
  json k = compileReport({file});
  auto [line, col] = find(file, "for s in T.Pipelined");
  for (const char* name : {"a_ub", "c_ub"}) {
    SCOPED_TRACE(name);
    const json& why = buffer(k, name).at("why");
    EXPECT_EQ(why.at("kind"), "num_stages");
    EXPECT_EQ(why.at("versions"), 1);
    EXPECT_EQ(why.at("bound"), 1);
    EXPECT_EQ(why.at("bound_loop").at("var"), "s");
    EXPECT_EQ(why.at("bound_loop").at("line"), line);
    EXPECT_EQ(why.at("bound_loop").at("col"), col);
    EXPECT_EQ(why.at("ii_bound_with_more_versions"), ceilDiv(2 * 4096, 100));
  }
  // The recurrence: V compute max(1024/51, 4096·2/256) = 32, UB→GM latency
  // 180 + ceil(2·4096/115) = 252.
  const json& l = loop(k, "s");
  checkBoundConsistent(l);
  const json& b = l.at("ii_bound_by");
  EXPECT_EQ(b.at("kind"), "recurrence");
  int64_t compute = std::max(ceilDiv(1024, 51), ceilDiv(2 * 4096, 256));
  int64_t store = 180 + ceilDiv(2 * 4096, 115);
  EXPECT_EQ(b.at("value"), compute + store);
  EXPECT_EQ(b.at("distance"), 1);
  for (const auto& e : b.at("edges")) EXPECT_EQ(e.at("on"), "c_ub");
  EXPECT_EQ(b.at("terms").at("resource"), ceilDiv(2 * 4096, 100));
  CliRun r = cli({"explain", file});
  EXPECT_NE(r.out.find("bound by recurrence"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("capped by num_stages: num_stages=1 of loop s allows 1"), std::string::npos)
      << r.out;
}

TEST(Explain, CapacityCapNamesTheBytes) {
  // Two 16384-float UB rows: 2 versions each need 4·65536 = 262144 bytes, over
  // ascend950's 253952-byte UB; x_ub (first) keeps 2, y_ub gets 1.
  std::string file = example("unlimit_memory");
  json k = compileReport({file, "-D", "unlimit=False"});
  const json& why = buffer(k, "y_ub").at("why");
  EXPECT_EQ(why.at("kind"), "capacity");
  EXPECT_EQ(why.at("versions"), 1);
  EXPECT_EQ(why.at("bound"), 2);
  EXPECT_EQ(why.at("memory").at("scope"), "shared");
  EXPECT_EQ(why.at("memory").at("capacity"), 253952);
  EXPECT_EQ(why.at("memory").at("bytes_per_version"), 16384 * 4);
  EXPECT_EQ(why.at("memory").at("bytes_with_one_more"), 2 * 65536 + 2 * 65536);
  EXPECT_GT(why.at("ii_bound_at_count").get<int64_t>(), why.at("ii_bound_at_bound").get<int64_t>());
  EXPECT_EQ(buffer(k, "x_ub").at("versions"), 2);
  CliRun r = cli({"explain", file, "-D", "unlimit=False"});
  EXPECT_NE(r.out.find("capped by the capacity of 'shared': 2 versions would need 262144 bytes, "
                       "capacity 253952 bytes"),
            std::string::npos)
      << r.out;
  // Unlimited, both get the two versions the schedule needs.
  json unlimited = compileReport({file});
  EXPECT_EQ(buffer(unlimited, "y_ub").at("why").at("kind"), "schedule-needs");
  EXPECT_TRUE(buffer(unlimited, "y_ub").at("why").at("memory").is_null());
}

TEST(Explain, ScheduleNeedsBelowAndAtTheBound) {
  // num_stages=4 allows 4; the schedule needs 3.
  json k = compileReport({example("annotate_versions")});
  const json& inferred = buffer(k, "inferred").at("why");
  EXPECT_EQ(inferred.at("kind"), "schedule-needs");
  EXPECT_EQ(inferred.at("versions"), 3);
  EXPECT_EQ(inferred.at("bound"), 4);
  // vec_add: MTE2 bounds the II, so 2 versions are what the schedule needs,
  // not a cap; softmax's row_max needs 1 of 2.
  json v = compileReport({example("vec_add")});
  for (const char* name : {"a_ub", "b_ub", "c_ub"}) {
    EXPECT_EQ(buffer(v, name).at("why").at("kind"), "schedule-needs") << name;
    EXPECT_EQ(buffer(v, name).at("why").at("cross_iteration"), true) << name;
  }
  json s = compileReport({example("softmax")});
  EXPECT_EQ(buffer(s, "row_max").at("why").at("kind"), "schedule-needs");
  EXPECT_EQ(buffer(s, "row_max").at("versions"), 1);
}

TEST(Explain, ResourceBoundNamesThePipe) {
  // vec_add: two GM→UB copies of 1024 floats, max(13, ceil(2·4096/100)) = 82 each.
  std::string file = example("vec_add");
  json k = compileReport({file});
  const json& b = loop(k, "s").at("ii_bound_by");
  EXPECT_EQ(b.at("kind"), "resource");
  EXPECT_EQ(b.at("pipe"), "MTE2");
  EXPECT_EQ(b.at("value"), 2 * ceilDiv(2 * 4096, 100));
  ASSERT_EQ(b.at("tasks").size(), 2u);
  EXPECT_EQ(b.at("tasks").at(0).at("line"), find(file, "T.copy(A[").first);
  EXPECT_EQ(b.at("tasks").at(1).at("line"), find(file, "T.copy(B[").first);
  EXPECT_EQ(b.at("status"), "proven-optimal");
  EXPECT_EQ(b.at("reached"), true);
}

TEST(Explain, OwnerExclusionBoundNamesTheStorage) {
  std::string file = kernel("owner_bound");
  json k = compileReport({file});
  const json& l = loop(k, "s");
  checkBoundConsistent(l);
  const json& b = l.at("ii_bound_by");
  EXPECT_EQ(b.at("kind"), "owner");
  EXPECT_EQ(b.at("storage"), "buf");
  EXPECT_GT(b.at("value").get<int64_t>(), b.at("terms").at("resource").get<int64_t>());
  EXPECT_GT(b.at("value").get<int64_t>(), b.at("terms").at("recurrence").get<int64_t>());
  ASSERT_EQ(b.at("tasks").size(), 2u);
  EXPECT_EQ(b.at("tasks").at(0).at("line"), find(file, "for a in").first);
  EXPECT_EQ(b.at("tasks").at(1).at("line"), find(file, "for b in").first);
  CliRun r = cli({"explain", file});
  EXPECT_NE(r.out.find("bound by owner exclusion on buf"), std::string::npos) << r.out;
}

TEST(Explain, RunReportCarriesTheExplanationsOfAnAutoSchedule) {
  fs::path dir = fs::temp_directory_path() / ("ts_explain_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string rep = (dir / "r.json").string();
  CliRun r = cli({"run", example("vec_add"), "--report", rep});
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream in(rep);
  json k = json::parse(in).at("kernels").at(0);
  EXPECT_EQ(buffer(k, "a_ub").at("why").at("kind"), "schedule-needs");
  EXPECT_EQ(loop(k, "s").at("ii_bound_by").at("kind"), "resource");
  // A baseline schedule has no solver reasons.
  r = cli({"run", example("vec_add"), "--schedule", "none", "--report", rep});
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream in2(rep);
  json none = json::parse(in2).at("kernels").at(0);
  EXPECT_FALSE(buffer(none, "a_ub").contains("why"));
  fs::remove_all(dir);
}

TEST(Explain, UsageAndCompileErrors) {
  EXPECT_EQ(cli({"explain", "/nonexistent/kernel.py"}).code, 2);
  EXPECT_EQ(cli({"explain", example("vec_add"), "-D", "oops"}).code, 2);
  EXPECT_EQ(cli({"explain", example("vec_add"), "--target", "nope"}).code, 2);
  CliRun bad = cli({"explain", example("vec_add"), "--func", "missing"});
  EXPECT_EQ(bad.code, 1) << bad.err;
}

TEST(Explain, GoldenVecAdd) {
  CliRun r = cli({"explain", example("vec_add")});
  ASSERT_EQ(r.code, 0) << r.err;
  std::string out = r.out, prefix = std::string(TILESCHED_SOURCE_DIR) + "/";
  for (size_t p; (p = out.find(prefix)) != std::string::npos;) out.erase(p, prefix.size());
  std::ifstream in(std::string(TILESCHED_SOURCE_DIR) + "/tests/golden/vec_add.explain");
  std::stringstream golden;
  golden << in.rdbuf();
  EXPECT_EQ(out, golden.str());
}

}  // namespace
}  // namespace tilesched

namespace tilesched {
namespace {

TEST(Explain, OptOutAndIneligibleSayWhy) {
  std::string file = kernel("opt_out");
  json k = compileReport({file});
  const json& why = buffer(k, "a_ub").at("why");
  EXPECT_EQ(why.at("kind"), "opt-out");
  EXPECT_EQ(why.at("versions"), 1);
  auto [line, col] = find(file, "({a_ub: 1})");
  EXPECT_EQ(why.at("annotation").at("line"), line);
  EXPECT_EQ(why.at("annotation").at("col"), col + 2);  // the entry's key
  // gemm_l1's accumulator is used after the loop: not eligible, with the reason.
  json g = compileReport({example("gemm_l1")});
  const json& c = buffer(g, "c_l0c").at("why");
  EXPECT_EQ(c.at("kind"), "ineligible");
  EXPECT_NE(c.at("reason").get<std::string>().find("outside every loop"), std::string::npos);
}

}  // namespace
}  // namespace tilesched

namespace tilesched {
namespace {

TEST(Explain, ExhaustedBudgetSaysFallback) {
  // No budget leaves no solver check: every loop keeps its list schedule.
  json k = compileReport({example("gemm_l0"), "--solver-timeout-ms", "0"});
  for (const auto& l : k.at("loops")) {
    checkBoundConsistent(l);
    EXPECT_EQ(l.at("ii_bound_by").at("status"), "fallback");
  }
  CliRun r = cli({"explain", example("gemm_l0"), "--solver-timeout-ms", "0"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("list-schedule fallback"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace tilesched

namespace tilesched {
namespace {

// Core assignment in `explain`, the report and `run` (analysis/CoreAssignment.h):
// gemm_l0 is a mixed kernel — the L1/L0 work and the fixpipe on the cube
// core, the UB -> GM store on the vector core, `bm` shared by both.
TEST(ExplainCores, MixedKernelSaysWhichCoreRunsEachTask) {
  std::string file = example("gemm_l0");
  CliRun r = cli({"explain", file});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("cores: a mixed kernel on the cube core and one vector core "
                       "(T.MixedKernel sids=1); the simulator runs it on one core with every "
                       "pipe (one scalar unit and one MTE2 for both)"),
            std::string::npos)
      << r.out;
  auto [storeLine, storeCol] = find(file, "T.copy(c_ub, C[");
  EXPECT_NE(
      r.out.find(fmt::format("  vector T.copy(c_ub, C[bm * 64:bm * 64 + 64, 0:64]) ({}:{}:{}): "
                             "pipe MTE3",
                             file, storeLine, storeCol)),
      std::string::npos)
      << r.out;
  auto [fixLine, fixCol] = find(file, "T.copy(c_l0c, c_ub)");
  EXPECT_NE(r.out.find(fmt::format("  cube   T.copy(c_l0c, c_ub) ({}:{}:{}): pipe FIX", file,
                                   fixLine, fixCol)),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("scalar work, read on both cores"), std::string::npos) << r.out;

  json k = compileReport({file});
  EXPECT_EQ(k.at("cores").at("kind"), "mixed");
  EXPECT_EQ(k.at("cores").at("group_simulated"), false);
  EXPECT_EQ(k.at("cores").at("vector_cores"), 1);
  int vector = 0, cube = 0;
  for (const auto& u : k.at("cores").at("units")) {
    vector += u.at("core") == "vector";
    cube += u.at("core") == "cube";
  }
  EXPECT_EQ(vector, 1);  // the UB -> GM store
  EXPECT_EQ(cube, 8);    // two loops, two GM->L1, two L1->L0, the gemm, the fixpipe

  CliRun run = cli({"run", file});
  EXPECT_NE(run.out.find("  cores: cube and vector tasks in one kernel, run here on one core "
                         "with every pipe (the AIC and AIV 0 share one scalar unit and one MTE2 "
                         "here;"),
            std::string::npos)
      << run.out;
  EXPECT_EQ(run.err.find("warning"), std::string::npos) << run.err;
}

// The same kernel under a plain T.Kernel: both AIVs would run the store while
// the fixpipe fills AIV 0's UB only, which the warning says at the copy.
TEST(ExplainCores, PlainKernelWithAFixpipeToUbWarns) {
  std::ifstream in(example("gemm_l0"));
  std::stringstream text;
  text << in.rdbuf();
  std::string src = text.str();
  std::string mixed = "with T.MixedKernel(m_tiles * n_tiles, sids=1, is_npu=True) as (bx, _sid):";
  size_t at = src.find(mixed);
  ASSERT_NE(at, std::string::npos);
  src.replace(at, mixed.size(), "with T.Kernel(m_tiles * n_tiles, is_npu=True) as bx:");
  std::string path = ::testing::TempDir() + "gemm_l0_plain.py";
  std::ofstream(path) << src;
  CliRun run = cli({"run", path});
  EXPECT_EQ(run.code, 0) << run.err;
  auto [line, col] = find(path, "T.copy(c_l0c, c_ub)");
  EXPECT_NE(run.err.find(fmt::format("{}:{}:{}: warning: in a mixed T.Kernel both vector cores "
                                     "(AIV 0 and AIV 1) run the vector tasks",
                                     path, line, col)),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.out.find("the AIC + 2 AIV core group is not simulated yet"), std::string::npos)
      << run.out;
  CliRun r = cli({"explain", path});
  EXPECT_NE(r.out.find("cores: a mixed kernel (the simulator runs it on one core with every "
                       "pipe: the core group is not simulated yet)"),
            std::string::npos)
      << r.out;
}

TEST(ExplainCores, PureKernelsPrintNoCoreSection) {
  CliRun r = cli({"explain", example("vec_add")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find("cores:"), std::string::npos) << r.out;
  EXPECT_EQ(compileReport({example("vec_add")}).at("cores").at("kind"), "vector");
  EXPECT_EQ(compileReport({example("gemm_l1")}).at("cores").at("kind"), "cube");
}

}  // namespace
}  // namespace tilesched
