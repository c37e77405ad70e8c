// Thousands of tasks in one loop (issue 11): the generated wide loop of
// tests/common/WideLoopKernel.h compiles and runs through the CLI in-process
// with the solver's size limit and the pass budget (docs/scheduler.md,
// "Deadlines"): PASS, zero races, and the list-schedule note in the report.
// Timing is never asserted here (bench/ScheduleBench.cpp --wide measures it).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/CliTestUtil.h"
#include "common/WideLoopKernel.h"
#include "driver/Driver.h"

namespace tilesched {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using testing_cli::cli;
using testing_cli::CliRun;

struct WideFile {
  fs::path path;
  explicit WideFile(int groups) {
    path = fs::temp_directory_path() /
           (std::to_string(::getpid()) + "_wide_" + std::to_string(groups) + ".py");
    std::ofstream(path) << testing::wideLoopKernel(groups);
  }
  ~WideFile() { fs::remove(path); }
  std::string str() const { return path.string(); }
};

void expectPass(const CliRun& r) {
  EXPECT_EQ(r.code, driver::kExitOk) << r.err;
  EXPECT_NE(r.out.find("races 0, flag errors 0, capacity errors 0, run-time errors 0 -> PASS"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
}

json onlyLoop(const CliRun& r) {
  EXPECT_EQ(r.code, driver::kExitOk) << r.err;
  json report = json::parse(r.out);
  json loops = report.at("kernels").at(0).at("loops");
  EXPECT_EQ(loops.size(), 1u);
  return loops.at(0);
}

TEST(WideLoop, ThreeHundredGroupsRunAndPass) {
  WideFile f(300);  // 900 tasks in one loop body
  expectPass(cli({"run", f.str()}));
  json loop = onlyLoop(cli({"compile", f.str(), "--emit", "report-json"}));
  EXPECT_EQ(loop.at("fallback"), true);
  EXPECT_NE(loop.at("note").get<std::string>().find(
                "900 units, above the solver's limit of 128 per list: list schedule"),
            std::string::npos)
      << loop.dump();
  // Every group needs its MTE2 slot: the II is at least the MTE2 total.
  EXPECT_GE(loop.at("ii").get<int64_t>(), loop.at("ii_lower_bound").get<int64_t>());
}

TEST(WideLoop, ForcedBudgetsKeepTheListScheduleAndPass) {
  // 30 groups (90 tasks) are under the size limit: the solver is asked
  // unless the budget is gone. 0 ms: no solver at all, deterministically.
  WideFile f(30);
  json loop =
      onlyLoop(cli({"compile", f.str(), "--emit", "report-json", "--solver-timeout-ms", "0"}));
  EXPECT_EQ(loop.at("fallback"), true);
  EXPECT_NE(loop.at("note").get<std::string>().find("no work budget left for the solver"),
            std::string::npos)
      << loop.dump();
  expectPass(cli({"run", f.str(), "--solver-timeout-ms", "0"}));
  expectPass(cli({"run", f.str(), "--solver-timeout-ms", "1"}));
  WideFile big(300);
  expectPass(cli({"run", big.str(), "--solver-timeout-ms", "1"}));
}

TEST(WideLoop, UnprovenListScheduleWarns) {
  // gemm_l0's K loop keeps a list schedule above its lower bound when the
  // solver gets no budget: the user is told, at the loop.
  CliRun r = cli({"compile", testing_cli::example("gemm_l0"), "--solver-timeout-ms", "0"});
  EXPECT_EQ(r.code, driver::kExitOk) << r.err;
  EXPECT_NE(r.err.find("warning: loop 'k' was not given to the solver (--solver-timeout-ms 0): it "
                       "keeps the list schedule (II "),
            std::string::npos)
      << r.err;
  // With the default budget the same loop is solved: no warning.
  CliRun solved = cli({"compile", testing_cli::example("gemm_l0")});
  EXPECT_EQ(solved.err.find("keeps the list schedule"), std::string::npos) << solved.err;
}

}  // namespace
}  // namespace tilesched
