// The pass manager as the commands use it (pass/PassManager.h): the pass
// flags every command takes, `tilesched opt`, and the manager's own rules
// (a failing kernel, --verify-each naming the pass that broke the IR).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/CliTestUtil.h"
#include "ir/IROperator.h"
#include "pass/PassManager.h"
#include "pipeline/Pipelines.h"

namespace tilesched {
namespace {

using testing_cli::cli;
using testing_cli::CliRun;
using testing_cli::example;
namespace fs = std::filesystem;

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::string writeTemp(const std::string& name, const std::string& text) {
  fs::path p = fs::temp_directory_path() / ("tilesched_passflags_" + name);
  std::ofstream(p) << text;
  return p.string();
}

// ------------------------------------------------------------ opt

TEST(Opt, PrintsTheIRThePassesLeave) {
  CliRun versions = cli({"opt", example("vec_add"), "--passes",
                         "analyze,schedule,version-modes,materialize-versions"});
  ASSERT_EQ(versions.code, 0) << versions.err;
  EXPECT_EQ(versions.out.rfind("import tilelang.language as T\n\n", 0), 0u) << versions.out;
  EXPECT_NE(versions.out.find("a_ub = T.alloc_ub((2, 1024), \"float32\")"), std::string::npos)
      << versions.out;
  EXPECT_EQ(versions.out.find("T.set_flag("), std::string::npos) << versions.out;

  CliRun synced = cli({"opt", example("vec_add"), "--passes",
                       "elaborate,analyze,schedule,version-modes,materialize-versions,"
                       "insert-synchronization"});
  ASSERT_EQ(synced.code, 0) << synced.err;
  EXPECT_NE(synced.out.find("T.set_flag("), std::string::npos) << synced.out;
  EXPECT_NE(synced.out.find("T.wait_flag("), std::string::npos) << synced.out;

  // The schedule pass alone: compile's write-back, so the IR states the versions.
  CliRun scheduled = cli({"opt", example("vec_add"), "--passes", "analyze, schedule"});
  ASSERT_EQ(scheduled.code, 0) << scheduled.err;
  EXPECT_NE(scheduled.out.find("T.annotate_buffer_versions({a_ub: 2"), std::string::npos)
      << scheduled.out;
}

// What opt prints is a kernel file: the whole lowering read back and run as
// written passes, as `run --emit lowered` output does.
TEST(Opt, TheLoweredFileReadsBackAndRunsAsWritten) {
  CliRun lowered = cli({"opt", example("vec_add"), "--schedule", "none", "--passes",
                        "analyze,schedule,version-modes,materialize-versions,"
                        "insert-synchronization,verify-lowered-sync"});
  ASSERT_EQ(lowered.code, 0) << lowered.err;
  EXPECT_NE(lowered.out.find("a_ub = T.alloc_ub((1024,), \"float32\")"), std::string::npos)
      << lowered.out;
  std::string path = writeTemp("vec_add_lowered.py", lowered.out);
  CliRun run = cli({"run", path, "--schedule", "as-written"});
  EXPECT_EQ(run.code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("races 0, flag errors 0, capacity errors 0, run-time errors 0 -> PASS"),
            std::string::npos)
      << run.out;
}

TEST(Opt, UsageErrorsNameThePassAndWhatItNeeds) {
  const std::pair<const char*, const char*> cases[] = {
      {"schedule", "error: --passes: 'schedule' needs 'analyze' before it"},
      {"analyze,version-modes", "error: --passes: 'version-modes' needs 'schedule' before it"},
      {"analyze,schedule,analyze",
       "error: --passes: 'analyze' cannot come after 'schedule'; passes run in the order of the "
       "registry (tilesched --help)"},
      {"analyze,simulate",
       "error: opt prints the IR the passes leave; to simulate it, use `tilesched run`"},
      {"analyze,,schedule", "error: --passes expects a comma-separated list of passes"},
      {"analyz",
       "error: unknown pass 'analyz' for --passes (did you mean 'analyze'?); registered: "
       "elaborate, analyze, assign-cores, schedule"},
  };
  for (const auto& [passes, message] : cases) {
    CliRun r = cli({"opt", example("vec_add"), "--passes", passes});
    EXPECT_EQ(r.code, 2) << passes;
    EXPECT_NE(r.err.find(message), std::string::npos) << passes << ": " << r.err;
  }
  CliRun rule = cli({"opt", example("vec_add"), "--passes", "analyze", "--schedule", "serial"});
  EXPECT_EQ(rule.code, 2);
  EXPECT_NE(rule.err.find("unknown --schedule 'serial' for opt; use auto, none or double"),
            std::string::npos)
      << rule.err;
  CliRun printAfter =
      cli({"opt", example("vec_add"), "--passes", "analyze", "--print-after", "schedule"});
  EXPECT_EQ(printAfter.code, 2);
  EXPECT_NE(printAfter.err.find("unknown pass 'schedule' for --print-after; use all or one of: "
                                "elaborate, analyze"),
            std::string::npos)
      << printAfter.err;
}

TEST(Opt, CompileErrorsExitWith1) {
  std::string path = writeTemp("bad.py", R"(import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((1024,), "float32")):
    with T.Kernel(1) as bx:
        b = T.alloc_shared((4 // 0,), "float32")
)");
  CliRun r = cli({"opt", path, "--passes", "analyze"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("bad.py:7:29: error: integer division by zero"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("1 error generated."), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

// `--schedule-file`: what compile --emit schedule prints, run as the schedule,
// gives auto's run; a schedule that does not exist or a conflicting option
// is a usage error.
TEST(ScheduleFile, TheEmittedScheduleRunsAsAutoDoes) {
  CliRun emitted = cli({"compile", example("gemm_l0"), "--emit", "schedule"});
  ASSERT_EQ(emitted.code, 0) << emitted.err;
  std::string path = writeTemp("gemm_l0.schedule", emitted.out);
  CliRun fromFile = cli({"run", example("gemm_l0"), "--schedule-file", path});
  CliRun solved = cli({"run", example("gemm_l0")});
  ASSERT_EQ(fromFile.code, 0) << fromFile.err;
  ASSERT_EQ(solved.code, 0) << solved.err;
  auto cycles = [](const std::string& out) { return out.substr(out.find(" cycles, lower bound")); };
  EXPECT_EQ(cycles(fromFile.out).substr(0, 60), cycles(solved.out).substr(0, 60));
  EXPECT_NE(fromFile.out.find("loop k (line 54): II 198"), std::string::npos) << fromFile.out;

  CliRun missing = cli({"run", example("gemm_l0"), "--schedule-file", "/nonexistent.schedule"});
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("cannot read '/nonexistent.schedule'"), std::string::npos)
      << missing.err;
  CliRun compare = cli({"run", example("gemm_l0"), "--schedule-file", path, "--compare"});
  EXPECT_EQ(compare.code, 2);
  EXPECT_NE(compare.err.find("--schedule-file gives the schedule to run; drop --compare"),
            std::string::npos)
      << compare.err;
  CliRun none = cli({"opt", example("gemm_l0"), "--passes", "analyze,schedule", "--schedule-file",
                     path, "--schedule", "none"});
  EXPECT_EQ(none.code, 2);
  EXPECT_NE(none.err.find("--schedule-file gives the schedule; drop --schedule none"),
            std::string::npos)
      << none.err;
  // Another kernel's schedule: the kernel's loops are not in it.
  CliRun other = cli({"run", example("vec_add"), "--schedule-file", path});
  EXPECT_EQ(other.code, 1);
  EXPECT_NE(other.err.find("error: schedule file '" + path +
                           "': it has no '# schedule of vec_add' "
                           "section"),
            std::string::npos)
      << other.err;
}

// ------------------------------------------------------------ the pass flags

// Only the passes that changed the printed IR: analyze, version-modes,
// verify-lowered-sync and simulate change none of vec_add's.
TEST(PassFlags, PrintAfterChangeShowsOnlyThePassesThatChangedTheIR) {
  CliRun r = cli({"run", example("vec_add"), "--print-after-change"});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* changed : {"elaborate", "materialize-versions", "insert-synchronization"})
    EXPECT_EQ(count(r.out, std::string("# ---- IR after ") + changed + " ----"), 1u) << changed;
  for (const char* same :
       {"analyze", "schedule", "version-modes", "verify-lowered-sync", "simulate"})
    EXPECT_EQ(r.out.find(std::string("IR after ") + same), std::string::npos) << same;
  EXPECT_EQ(r.out.find("(unchanged)"), std::string::npos) << r.out;

  // With --print-after PASS: that pass, only if it changed something.
  CliRun analyze =
      cli({"run", example("vec_add"), "--print-after", "analyze", "--print-after-change"});
  ASSERT_EQ(analyze.code, 0) << analyze.err;
  EXPECT_EQ(analyze.out.find("IR after"), std::string::npos) << analyze.out;
  // compile writes the versions back: there `schedule` changes the IR.
  CliRun compile = cli({"compile", example("vec_add"), "--print-after-change", "--emit", "tasks"});
  ASSERT_EQ(compile.code, 0) << compile.err;
  EXPECT_EQ(count(compile.out, "# ---- IR after schedule ----"), 1u) << compile.out;
  EXPECT_EQ(compile.out.find("IR after analyze"), std::string::npos) << compile.out;
}

// compile, run, explain, pin and opt all take --time-passes, --verify-each
// and --stats, and each prints the passes it ran.
TEST(PassFlags, EveryCommandTakesThem) {
  std::string pinned = (fs::temp_directory_path() / "tilesched_passflags_pinned.py").string();
  const std::vector<std::vector<std::string>> commands = {
      {"compile", example("vec_add")},
      {"run", example("vec_add")},
      {"explain", example("vec_add")},
      {"pin", example("vec_add"), "-o", pinned},
      {"opt", example("vec_add"), "--passes", "analyze,schedule"},
  };
  for (auto args : commands) {
    for (const char* flag : {"--time-passes", "--verify-each", "--stats"}) args.push_back(flag);
    CliRun r = cli(args);
    ASSERT_EQ(r.code, 0) << args[0] << ": " << r.err;
    EXPECT_NE(r.out.find("  pass timings (ms):\n    elaborate"), std::string::npos)
        << args[0] << ": " << r.out;
    EXPECT_NE(r.out.find("    schedule"), std::string::npos) << args[0];
    EXPECT_NE(r.err.find("# scheduler stats of vec_add"), std::string::npos)
        << args[0] << ": " << r.err;
  }
  // run's stats: what the lowering emitted and what the simulation counted.
  CliRun run = cli({"run", example("vec_add"), "--stats"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.err.find("# materialize-versions of vec_add: a_ub 2, b_ub 2, c_ub 2\n"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("# insert-synchronization of vec_add: "), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("# simulate of vec_add: "), std::string::npos) << run.err;
  CliRun explain = cli({"explain", example("vec_add"), "--print-after", "schedule"});
  ASSERT_EQ(explain.code, 0) << explain.err;
  EXPECT_NE(explain.out.find("# ---- IR after schedule ----\n# (unchanged)\n"), std::string::npos)
      << explain.out;
}

TEST(PassFlags, CommandsWhoseStdoutIsAFileRefuseThePrintingFlags) {
  CliRun pin = cli({"pin", example("vec_add"), "--print-after", "all"});
  EXPECT_EQ(pin.code, 2);
  EXPECT_NE(pin.err.find("error: --print-after prints on stdout, where pin writes the pinned "
                         "file; give -o FILE or --in-place"),
            std::string::npos)
      << pin.err;
  CliRun compare = cli({"run", example("vec_add"), "--compare", "--stats"});
  EXPECT_EQ(compare.code, 2);
  EXPECT_NE(compare.err.find("--stats takes one schedule; it cannot be combined with --compare"),
            std::string::npos)
      << compare.err;
  CliRun json =
      cli({"compile", example("vec_add"), "--print-after-change", "--emit", "report-json"});
  EXPECT_EQ(json.code, 2);
  EXPECT_NE(json.err.find("--print-after-change prints on stdout, which --emit report-json keeps"),
            std::string::npos)
      << json.err;
}

// A kernel that fails a per-kernel pass does not stop the others from
// running it (their errors are reported too); the pipeline stops after the
// group, so nothing is simulated.
TEST(PassManager, AFailingKernelLetsTheOthersRunThenStopsThePipeline) {
  std::string path = writeTemp("two_kernels.py", R"(import tilelang.language as T


@T.prim_func
def big(A: T.Tensor((163840,), "float32"), C: T.Tensor((163840,), "float32")):
    with T.Kernel(1, is_npu=True) as bx:
        a_ub = T.alloc_ub((40960,), "float32")
        for s in T.Pipelined(4, num_stages=2):
            T.copy(A[s * 40960:s * 40960 + 40960], a_ub)
            T.copy(a_ub, C[s * 40960:s * 40960 + 40960])


@T.prim_func
def small(A: T.Tensor((4096,), "float32"), C: T.Tensor((4096,), "float32")):
    with T.Kernel(1, is_npu=True) as bx:
        a_ub = T.alloc_ub((1024,), "float32")
        for s in T.Pipelined(4, num_stages=2):
            T.copy(A[s * 1024:s * 1024 + 1024], a_ub)
            T.copy(a_ub, C[s * 1024:s * 1024 + 1024])
)");
  CliRun r = cli({"run", path, "--schedule", "double", "--print-after", "all"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find(":6:5: error: 2 versions of every eligible buffer need 327680 bytes of "
                       "shared, more than the 253952 bytes of ascend950"),
            std::string::npos)
      << r.err;
  // big stops at schedule; small runs the whole lowering; nothing is simulated.
  EXPECT_EQ(count(r.out, "# ---- IR after schedule ----"), 2u) << r.out;
  EXPECT_EQ(count(r.out, "# ---- IR after insert-synchronization ----"), 1u) << r.out;
  EXPECT_EQ(r.out.find("IR after simulate"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("cycles"), std::string::npos) << r.out;
}

// `--schedule double` counts memory as the scheduler does: every version
// aligned to the scope's 32 bytes. Three int8 buffers of 42,320 bytes fit
// twice unaligned (253,920 bytes of 253,952) but not aligned (6 x 42,336).
TEST(UniformSchedule, CountsAlignedVersionsAsTheSchedulerDoes) {
  std::string path = writeTemp("aligned_double.py", R"(import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((169280,), "int8"), C: T.Tensor((169280,), "int8")):
    with T.Kernel(1, is_npu=True) as bx:
        a_ub = T.alloc_ub((42320,), "int8")
        b_ub = T.alloc_ub((42320,), "int8")
        c_ub = T.alloc_ub((42320,), "int8")
        for s in T.Pipelined(4, num_stages=2):
            T.copy(A[s * 42320:s * 42320 + 42320], a_ub)
            T.copy(a_ub, b_ub)
            T.copy(b_ub, c_ub)
            T.copy(c_ub, C[s * 42320:s * 42320 + 42320])
)");
  CliRun r = cli({"run", path, "--schedule", "double"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find(":6:5: error: 2 versions of every eligible buffer need 254016 bytes of "
                       "shared, more than the 253952 bytes of ascend950; use --schedule none or "
                       "fewer versions"),
            std::string::npos)
      << r.err;
  CliRun none = cli({"run", path, "--schedule", "none"});
  EXPECT_EQ(none.code, 0) << none.err;
}

std::unique_ptr<pass::PipelineState> elaborated(const std::string& path, const Target& target) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  auto state = std::make_unique<pass::PipelineState>(std::make_shared<SourceFile>(path, text.str()),
                                                     target, pass::PassOptions{});
  std::ostringstream prints;
  EXPECT_TRUE(
      pass::PassManager(std::vector<std::string_view>{"elaborate"}, {}, prints, path).run(*state));
  return state;
}

// --verify-each runs the IR verifier after every pass and names the pass
// after which the IR broke; without it only `simulate` checks (always).
TEST(PassManager, VerifyEachNamesThePassAfterWhichTheIRBroke) {
  std::string error;
  auto target = loadTarget("ascend950", error);
  ASSERT_TRUE(target) << error;
  auto state = elaborated(example("vec_add"), *target);
  ASSERT_EQ(state->numKernels(), 1u);
  // A broken kernel: a statement reading a variable no scope declares.
  ir::Kernel& k = state->program->kernels[0];
  auto var = [](int id, const char* name) {
    return std::make_shared<const ir::VarNode>(
        ir::VarNode{id, name, ir::DType::Int32, ir::VarKind::Local});
  };
  k.body = std::make_shared<ir::SeqStmt>(
      std::vector<ir::Stmt>{std::make_shared<ir::AssignStmt>(
                                var(999998, "x"), ir::varRef(var(999999, "stray")), k.loc),
                            k.body},
      k.loc);
  std::ostringstream prints;
  pass::Instrumentation verify;
  verify.verifyEach = true;
  try {
    pass::PassManager(std::vector<std::string_view>{"analyze"}, verify, prints, "vec_add.py")
        .run(*state);
    ADD_FAILURE() << "--verify-each let broken IR through";
  } catch (const InternalError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("the IR of 'vec_add' after pass 'analyze' does not verify: "),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("variable 'stray' used outside its scope"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace tilesched
