// The command line, in-process through driver::runCli: exit codes (SPEC §7.3),
// --help/--version, usage errors, diagnostics and the JSON report fields.
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "Version.h"
#include "common/CliTestUtil.h"
#include "driver/Driver.h"
#include "pass/Pass.h"
#include "pipeline/Pipelines.h"

namespace tilesched {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using testing_cli::cli;
using testing_cli::CliRun;

using testing_cli::example;

// A scratch kernel file that removes itself.
struct TempFile {
  fs::path path;
  explicit TempFile(const std::string& text, const std::string& name = "cli_test.py") {
    path = fs::temp_directory_path() / (std::to_string(::getpid()) + "_" + name);
    std::ofstream(path, std::ios::binary) << text;
  }
  ~TempFile() { fs::remove(path); }
  std::string str() const { return path.string(); }
};

TEST(Cli, CompilesAnExampleToIRAndBufferTable) {
  CliRun r = cli({"compile", example("vec_add")});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("@T.prim_func"), std::string::npos);
  EXPECT_NE(r.out.find("# buffers of vec_add"), std::string::npos);
  EXPECT_EQ(r.err, "");
}

TEST(Cli, EveryExampleCompilesWithEmitIR) {
  for (const auto& e : fs::directory_iterator(fs::path(TILESCHED_SOURCE_DIR) / "examples")) {
    if (e.path().extension() != ".py") continue;
    CliRun r = cli({"compile", e.path().string(), "--emit", "ir"});
    EXPECT_EQ(r.code, 0) << e.path() << "\n" << r.err;
    EXPECT_EQ(r.out.rfind("import tilelang.language as T\n", 0), 0u);
  }
}

// A hand-synchronised kernel under a scheduled lowering: its own flags are
// replaced by the derived ones (they once double-set event id 0 and ended in
// an internal error), with a warning at the first; as-written keeps them.
TEST(Cli, ScheduledRunsReplaceTheKernelsOwnFlags) {
  std::string file =
      (fs::path(TILESCHED_SOURCE_DIR) / "tests/oracle/kernels/gemm_padded_l1.py").string();
  for (const char* mode : {"auto", "none", "double"}) {
    CliRun r = cli({"run", file, "--schedule", mode});
    EXPECT_EQ(r.code, 0) << mode << "\n" << r.out << r.err;
    EXPECT_NE(
        r.err.find(file + ":30:13: warning: the scheduled lowering replaces the kernel's own "
                          "set_flag / wait_flag / pipe_barrier / buffer-lock statements with the "
                          "synchronisation it derives (first one here); --schedule "
                          "as-written simulates the kernel's own"),
        std::string::npos)
        << mode << "\n"
        << r.err;
  }
  // --compare shows the warning once (from its auto mode).
  CliRun cmp = cli({"run", file, "--compare"});
  EXPECT_EQ(cmp.code, 0) << cmp.out << cmp.err;
  size_t first = cmp.err.find("warning: the scheduled lowering replaces");
  EXPECT_NE(first, std::string::npos) << cmp.err;
  EXPECT_EQ(cmp.err.find("warning: the scheduled lowering replaces", first + 1), std::string::npos)
      << cmp.err;
  CliRun own = cli({"run", file, "--schedule", "as-written"});
  EXPECT_EQ(own.code, 0) << own.out << own.err;
  EXPECT_EQ(own.err.find("warning"), std::string::npos) << own.err;
}

TEST(Cli, HelpAndVersion) {
  CliRun h = cli({"--help"});
  EXPECT_EQ(h.code, 0);
  EXPECT_NE(h.out.find("compile"), std::string::npos);
  CliRun hc = cli({"compile", "--help"});
  EXPECT_EQ(hc.code, 0);
  EXPECT_NE(hc.out.find("--emit"), std::string::npos);
  CliRun v = cli({"--version"});
  EXPECT_EQ(v.code, 0);
  EXPECT_EQ(v.out, std::string("tilesched ") + TILESCHED_VERSION + "\n");
}

TEST(Cli, UsageErrorsExitWith2) {
  EXPECT_EQ(cli({}).code, 2);
  CliRun bogus = cli({"frobnicate"});
  EXPECT_EQ(bogus.code, 2);
  EXPECT_NE(bogus.err.find("unknown command 'frobnicate'; commands are 'compile', 'run', "
                           "'explain', 'pin', 'opt' and 'solve'"),
            std::string::npos)
      << bogus.err;
  CliRun unknown = cli({"compile", example("vec_add"), "--fast"});
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("--fast"), std::string::npos) << unknown.err;
  EXPECT_EQ(cli({"compile"}).code, 2);
  CliRun missing = cli({"compile", "/nonexistent/kernel.py"});
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("cannot read '/nonexistent/kernel.py'"), std::string::npos)
      << missing.err;
  // A folder is a usage error in every command, not "no kernel found" (issue 22).
  std::string folder = std::string(TILESCHED_SOURCE_DIR) + "/examples";
  for (const char* command : {"compile", "run", "explain", "pin"}) {
    CliRun dir = cli({command, folder});
    EXPECT_EQ(dir.code, 2) << command;
    EXPECT_NE(dir.err.find("'" + folder + "' is a directory, not a kernel file"), std::string::npos)
        << command << ": " << dir.err;
  }
  CliRun badD = cli({"compile", example("vec_add"), "-D", "N"});
  EXPECT_EQ(badD.code, 2);
  EXPECT_NE(badD.err.find("-D expects NAME=VALUE, got 'N'"), std::string::npos) << badD.err;
  EXPECT_EQ(cli({"compile", example("vec_add"), "-D", "=3"}).code, 2);
  CliRun emit = cli({"compile", example("vec_add"), "--emit", "pictures"});
  EXPECT_EQ(emit.code, 2);
  EXPECT_NE(emit.err.find("unknown --emit 'pictures'"), std::string::npos) << emit.err;
  // The lowered kernel is `run`'s to print; compile says where it is.
  CliRun lowered = cli({"compile", example("vec_add"), "--emit", "lowered"});
  EXPECT_EQ(lowered.code, 2);
  EXPECT_NE(lowered.err.find("--emit lowered is a `run` option: `tilesched run FILE --emit "
                             "lowered`"),
            std::string::npos)
      << lowered.err;
  CliRun target = cli({"compile", example("vec_add"), "--target", "ascend9000"});
  EXPECT_EQ(target.code, 2);
  EXPECT_NE(target.err.find("ascend9000"), std::string::npos) << target.err;
}

TEST(Cli, ADefineThatIsNotAPythonLiteralIsAnError) {
  // Issue 22: a bare word other than a dtype name, or an integer too large
  // for 64 bits, is an error with one message (no cascade from the values
  // derived from it), not silently a string.
  CliRun r = cli({"compile", example("vec_add"), "-D", "N=abc"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("error: -D N=abc is not a Python literal; a string is written -D "
                       "'N=\"abc\"'\n1 error generated."),
            std::string::npos)
      << r.err;
  CliRun big = cli({"compile", example("vec_add"), "-D", "N=99999999999999999999999"});
  EXPECT_EQ(big.code, 1);
  EXPECT_NE(big.err.find("error: -D N=99999999999999999999999: integer literal does not fit in 64 "
                         "bits\n1 error generated."),
            std::string::npos)
      << big.err;
  CliRun dtype = cli({"compile", example("vec_add"), "-D", "dtype=float16"});
  EXPECT_EQ(dtype.code, 0) << dtype.err;
  EXPECT_EQ(dtype.err.find("warning"), std::string::npos) << dtype.err;
}

TEST(Cli, EmitTasksPrintsTheTaskGraph) {
  CliRun r = cli({"compile", example("vec_add"), "--emit", "tasks"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("loop s (line 40)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("RAW  #0 -> #2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("a_ub"), std::string::npos) << r.out;
}

// The registry is the one list of passes: every command's list is in its
// order, `--help` lists every pass with its summary, and docs/passes.md has
// the same table.
TEST(Passes, DocsListEveryRegisteredPass) {
  auto registry = pass::registry();
  std::vector<pipeline::PassList> lists = {pipeline::compile()};
  for (const char* schedule : {"auto", "none", "double", "serial", "as-written"}) {
    lists.push_back(pipeline::run(schedule));
    lists.push_back(pipeline::afterFrontEnd(schedule));
  }
  for (const auto& list : lists) {
    size_t at = 0;
    for (std::string_view name : list) {
      while (at < registry.size() && registry[at].name != name) ++at;
      EXPECT_LT(at, registry.size()) << name << " is not registered, or out of order";
      // Its prerequisite comes before it (in the list or in the front end the fork shares).
      const pass::Pass* p = pass::findPass(name);
      ASSERT_TRUE(p) << name;
      bool before = p->needs.empty();
      for (std::string_view n : pipeline::frontEnd()) before |= n == p->needs;
      for (std::string_view n : list) {
        if (n == name) break;
        before |= n == p->needs;
      }
      EXPECT_TRUE(before) << name << " runs before '" << p->needs << "'";
    }
  }
  std::ifstream in(std::string(TILESCHED_SOURCE_DIR) + "/docs/passes.md");
  std::stringstream doc;
  doc << in.rdbuf();
  CliRun help = cli({"--help"});
  ASSERT_EQ(help.code, 0);
  for (const auto& p : registry) {
    std::string row = "| `" + std::string(p.name) + "` | " + std::string(p.summary) + " |";
    EXPECT_NE(doc.str().find(row), std::string::npos) << "docs/passes.md lacks: " << row;
    EXPECT_NE(help.out.find(std::string(p.name) + " "), std::string::npos) << p.name;
    EXPECT_NE(help.out.find(std::string(p.summary)), std::string::npos) << p.summary;
  }
}

// `compile --print-after PASS|all`, as `run` has it: the IR after each named
// pass of compile (elaborate, analyze, schedule), "(unchanged)" for a pass
// that changes no IR, then compile's usual output. vec_add is not annotated:
// the T.annotate_buffer_versions map appears only after `schedule` writes it
// back.
TEST(Cli, CompilePrintAfterShowsTheIRAfterEachPass) {
  CliRun all = cli({"compile", example("vec_add"), "--print-after", "all"});
  ASSERT_EQ(all.code, 0) << all.err;
  size_t elaborate = all.out.find("# ---- IR after elaborate ----\n");
  size_t analyze = all.out.find("# ---- IR after analyze ----\n# (unchanged)\n");
  size_t schedule = all.out.find("# ---- IR after schedule ----\n");
  size_t buffers = all.out.find("# buffers of vec_add");
  ASSERT_NE(elaborate, std::string::npos) << all.out;
  ASSERT_NE(analyze, std::string::npos) << all.out;
  ASSERT_NE(schedule, std::string::npos) << all.out;
  ASSERT_NE(buffers, std::string::npos) << all.out;
  EXPECT_LT(elaborate, analyze);
  EXPECT_LT(analyze, schedule);
  EXPECT_LT(schedule, buffers);
  std::string elaborated = all.out.substr(elaborate, analyze - elaborate);
  EXPECT_NE(elaborated.find("def main("), std::string::npos) << elaborated;
  EXPECT_EQ(elaborated.find("T.annotate_buffer_versions"), std::string::npos) << elaborated;
  std::string scheduled = all.out.substr(schedule, buffers - schedule);
  EXPECT_NE(scheduled.find("def main("), std::string::npos) << scheduled;
  EXPECT_NE(scheduled.find("T.annotate_buffer_versions({a_ub: "), std::string::npos) << scheduled;

  CliRun one = cli({"compile", example("vec_add"), "--print-after", "schedule"});
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_NE(one.out.find("# ---- IR after schedule ----"), std::string::npos) << one.out;
  EXPECT_EQ(one.out.find("IR after elaborate"), std::string::npos) << one.out;
  EXPECT_EQ(one.out.find("IR after analyze"), std::string::npos) << one.out;

  // The passes of `run` alone are not passes of compile.
  CliRun bad = cli({"compile", example("vec_add"), "--print-after", "simulate"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("unknown pass 'simulate' for --print-after; use all or one of: "
                         "elaborate, analyze, assign-cores, schedule"),
            std::string::npos)
      << bad.err;
  // stdout holds the JSON report with --emit report-json.
  CliRun json =
      cli({"compile", example("vec_add"), "--print-after", "all", "--emit", "report-json"});
  EXPECT_EQ(json.code, 2);
  EXPECT_NE(json.err.find("--print-after"), std::string::npos) << json.err;
  EXPECT_TRUE(json.out.empty()) << json.out;
}

TEST(Cli, BadTargetFileNamesTheField) {
  std::string text;
  {
    std::ifstream in(std::string(TILESCHED_SOURCE_DIR) + "/targets/ascend950.json");
    std::ostringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }
  json j = json::parse(text);
  j["capacity"] = "lots";
  for (auto& [k, v] : j.items())
    if (v.is_object() && v.contains("shared")) v["shared"] = -1;
  TempFile bad(j.dump(2), "bad_target.json");
  CliRun r = cli({"compile", example("vec_add"), "--target", bad.str()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("shared"), std::string::npos)
      << "the message names the bad field: " << r.err;
}

TEST(Cli, DefinesAndFunc) {
  CliRun r = cli({"compile", example("vec_add"), "-D", "N=32768", "--emit", "ir"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("T.Tensor((32768,), \"float32\")"), std::string::npos) << r.out;
  CliRun d = cli({"compile", example("rms_norm"), "-D", "dtype=float32", "--emit", "ir"});
  EXPECT_EQ(d.code, 0) << d.err;
  EXPECT_NE(d.out.find("X: T.Tensor((64, 256), \"float32\")"), std::string::npos) << d.out;
  CliRun q = cli({"compile", example("rms_norm"), "-D", "dtype=\"float32\"", "--emit", "ir"});
  EXPECT_EQ(q.out, d.out);
  CliRun f = cli({"compile", example("vec_add"), "--func", "nope"});
  EXPECT_EQ(f.code, 1);
  EXPECT_NE(f.err.find("error: no kernel named 'nope' in this file"), std::string::npos) << f.err;
  CliRun w = cli({"compile", example("vec_add"), "-D", "bogus=1", "--emit", "ir"});
  EXPECT_EQ(w.code, 0);
  EXPECT_NE(w.err.find("warning: -D bogus does not name a parameter of any kernel factory"),
            std::string::npos);
}

TEST(Cli, CompileErrorsExitWith1AndRenderWithCaret) {
  TempFile f(
      "import tilelang.language as T\n\n@T.prim_func\ndef main(A: T.Tensor((8,), \"float32\")):\n"
      "    with T.Kernel(1) as bx:\n        a = T.alloc_shared((8,), \"float32\")\n"
      "        T.annotate_buffer_versions({a: (2, \"fast\")})\n        T.copy(A, a, mode=1)\n");
  CliRun r = cli({"compile", f.str()});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "");
  std::string want = f.str() +
                     ":7:44: error: unknown mode 'fast' for buffer 'a'; expected 'auto', "
                     "'iteration' or 'counter'\n"
                     "        T.annotate_buffer_versions({a: (2, \"fast\")})\n"
                     "                                           ^\n";
  EXPECT_EQ(r.err.substr(0, want.size()), want) << r.err;
  EXPECT_NE(r.err.find("2 errors generated."), std::string::npos) << r.err;
}

// T.assume (issue 7 §3): the simulator checks the fact for every block; a
// run whose values break it fails (exit 3) with an error at the T.assume line.
TEST(Cli, FalseAssumptionIsARunErrorAtItsLine) {
  TempFile f(
      "import tilelang.language as T\n\n@T.prim_func\n"
      "def main(A: T.Tensor((64,), \"float32\"), n: T.int32):\n"
      "    T.assume(n % 4 == 0)\n"
      "    with T.Kernel(2) as bx:\n        a = T.alloc_shared((32,), \"float32\")\n"
      "        T.copy(A[bx * 32 : bx * 32 + 32], a)\n"
      "        T.copy(a, A[bx * 32 : bx * 32 + 32])\n",
      "assume_cli.py");
  CliRun ok = cli({"run", f.str(), "--schedule", "serial", "--input", "n=8"});
  EXPECT_EQ(ok.code, 0) << ok.err;
  CliRun bad = cli({"run", f.str(), "--schedule", "serial", "--input", "n=6"});
  EXPECT_EQ(bad.code, 3) << bad.err;
  std::string want =
      f.str() + ":5:5: error: run-time error: T.assume(n % 4 == 0) is false in this run (block 0)";
  EXPECT_NE(bad.err.find(want), std::string::npos) << bad.err;
}

// The buffer table's columns widen to their longest entry: a fragment's scope
// and a long buffer name once pushed the version counts out of line.
TEST(Cli, BufferTableColumnsLineUp) {
  TempFile f(
      "import tilelang.language as T\n\n@T.prim_func\n"
      "def main(A: T.Tensor((64,), \"float32\"), B: T.Tensor((64,), \"float32\")):\n"
      "    with T.Kernel(1) as bx:\n"
      "        a_rather_long_name = T.alloc_shared((64,), \"float32\")\n"
      "        frag = T.alloc_fragment((64,), \"float32\")\n"
      "        T.copy(A, a_rather_long_name)\n"
      "        for i in T.Parallel(64):\n"
      "            frag[i] = a_rather_long_name[i] * 2.0\n"
      "        T.copy(frag, B)\n",
      "table_cli.py");
  CliRun r = cli({"run", f.str(), "--schedule", "none"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string line;
  size_t versionsEnd = std::string::npos;
  int rows = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("  buffer ", 0) == 0) {
      versionsEnd = line.find("versions") + std::string("versions").size();
      continue;
    }
    if (versionsEnd == std::string::npos || line.find("sync:") != std::string::npos) continue;
    if (line.find("a_rather_long_name") == std::string::npos &&
        line.find("frag ") == std::string::npos)
      continue;
    ++rows;
    // The count is right-aligned under "versions": its last digit ends that column.
    ASSERT_GT(line.size(), versionsEnd) << line;
    EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(line[versionsEnd - 1]))) << r.out;
    EXPECT_EQ(line[versionsEnd], ' ') << r.out;
  }
  EXPECT_EQ(rows, 2) << r.out;
}

// Views of global tensors print as `T.view(X, shape, dtype)` in the kernel and
// read back to the same IR.
TEST(Cli, GlobalViewsPrintAndReadBack) {
  std::string file =
      (fs::path(TILESCHED_SOURCE_DIR) / "tests/oracle/kernels/global_views.py").string();
  CliRun first = cli({"compile", file, "--emit", "ir"});
  ASSERT_EQ(first.code, 0) << first.err;
  EXPECT_NE(first.out.find("x_groups = T.view(X, (32, 16), \"float32\")"), std::string::npos)
      << first.out;
  TempFile printed(first.out, "global_views_printed.py");
  CliRun second = cli({"compile", printed.str(), "--emit", "ir"});
  ASSERT_EQ(second.code, 0) << second.err;
  auto body = [](const std::string& text) { return text.substr(text.find("@T.prim_func")); };
  EXPECT_EQ(body(first.out), body(second.out));
}

TEST(Cli, ReportJson) {
  CliRun r = cli({"compile", example("annotate_versions"), "--emit", "report-json"});
  ASSERT_EQ(r.code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["schema_version"], 2);
  EXPECT_EQ(j["tool"], "tilesched");
  EXPECT_EQ(j["version"], TILESCHED_VERSION);
  EXPECT_EQ(j["target"], "ascend950");
  ASSERT_EQ(j["kernels"].size(), 1u);
  const json& k = j["kernels"][0];
  EXPECT_EQ(k["name"], "silu_rows");
  EXPECT_EQ(k["file"], example("annotate_versions"));
  EXPECT_EQ(k["line"], 34);
  EXPECT_EQ(k["grid"], 4);
  ASSERT_TRUE(k["buffers"].is_array());
  bool sawFixed = false;
  for (const auto& b : k["buffers"]) {
    for (const char* field : {"name", "scope", "dtype", "shape", "bytes"})
      EXPECT_TRUE(b.contains(field)) << field;
    if (b["name"] == "fixed") {
      sawFixed = true;
      EXPECT_EQ(b["scope"], "shared");
      EXPECT_EQ(b["dtype"], "float32");
      EXPECT_EQ(b["shape"], json::array({8, 64}));
      EXPECT_EQ(b["bytes"], 8 * 64 * 4);
    }
    EXPECT_NE(b["scope"], "global") << b["name"];
  }
  EXPECT_TRUE(sawFixed);
  // Global tensors have their own list, without the on-chip decisions.
  ASSERT_TRUE(k["tensors"].is_array());
  ASSERT_FALSE(k["tensors"].empty());
  EXPECT_EQ(k["tensors"][0]["name"], "X");
  for (const char* field : {"name", "dtype", "shape", "bytes", "alias_of"})
    EXPECT_TRUE(k["tensors"][0].contains(field)) << field;
  EXPECT_FALSE(k["tensors"][0].contains("versions"));
  EXPECT_TRUE(k.contains("annotations"));
  EXPECT_TRUE(j["diagnostics"].is_array());
  EXPECT_TRUE(j["diagnostics"].empty());
}

TEST(Cli, ReportJsonCarriesDiagnosticsWithLineAndCol) {
  TempFile f(
      "import tilelang.language as T\n\n@T.prim_func\ndef main(A: T.Tensor((8,), \"float32\")):\n"
      "    with T.Kernel(1) as bx:\n        with T.Scope(\"V\"):\n            pass\n");
  CliRun r = cli({"compile", f.str(), "--emit", "report-json"});
  EXPECT_EQ(r.code, 1);
  json j = json::parse(r.out);
  EXPECT_TRUE(j["kernels"].empty());
  ASSERT_EQ(j["diagnostics"].size(), 1u);
  const json& d = j["diagnostics"][0];
  EXPECT_EQ(d["severity"], "error");
  EXPECT_EQ(d["file"], f.str());
  EXPECT_EQ(d["line"], 6);
  EXPECT_EQ(d["col"], 14);
  EXPECT_EQ(d["message"], "'with T.Scope' is not supported yet");
}

TEST(Cli, ReportFile) {
  TempFile out("", "report.json");
  CliRun r = cli({"compile", example("vec_add"), "--emit", "ir", "--report", out.str()});
  EXPECT_EQ(r.code, 0) << r.err;
  std::ifstream in(out.path);
  json j = json::parse(in);
  EXPECT_EQ(j["kernels"][0]["name"], "vec_add");
  CliRun bad = cli({"compile", example("vec_add"), "--report", "/nonexistent/dir/r.json"});
  EXPECT_EQ(bad.code, 2);
}

TEST(Cli, EmptyAndBinaryFilesEndInDiagnostics) {
  TempFile empty("", "empty.py");
  CliRun e = cli({"compile", empty.str()});
  EXPECT_EQ(e.code, 1);
  EXPECT_NE(e.err.find("error: no @T.prim_func kernel found in this file"), std::string::npos)
      << e.err;
  std::string garbage;
  for (int i = 0; i < 4096; ++i) garbage += static_cast<char>((i * 7919 + 13) % 256);
  TempFile bin(garbage, "garbage.py");
  CliRun b = cli({"compile", bin.str()});
  EXPECT_EQ(b.code, 1);
  EXPECT_EQ(b.err.find("internal error"), std::string::npos) << b.err;
}

TEST(Cli, ARunStoppedByARunTimeErrorReportsNoCycles) {
  // Issue 22: "0 waves: 0 cycles" after a run that an out-of-bounds index
  // stopped read like figures.
  std::string path =
      (std::filesystem::temp_directory_path() / (std::to_string(::getpid()) + "_oob_kernel.py"))
          .string();
  {
    std::ofstream f(path);
    f << "import tilelang.language as T\n\n@T.prim_func\n"
         "def main(A: T.Tensor((1024,), \"float32\"), I: T.Tensor((4,), \"int32\"), "
         "B: T.Tensor((1024,), \"float32\")):\n"
         "    with T.Kernel(1) as bx:\n        a = T.alloc_ub((1024,), \"float32\")\n"
         "        T.copy(A, a)\n        for i in T.serial(4):\n            B[i] = a[I[i] + 2000]\n";
  }
  CliRun r = cli({"run", path});
  std::filesystem::remove(path);
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.out.find("1 block on 1 core: the run stopped at a run-time error (above); no cycles "
                       "to report"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("0 waves"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("-> FAIL"), std::string::npos) << r.out;
}

// A run-time out-of-bounds index into a buffer the schedule gave two versions
// is reported with the index and shape the author wrote, not the lowered
// (2, 1024), and the version it was in.
TEST(Cli, ARunTimeOutOfBoundsIndexIsInSourceTerms) {
  TempFile f(
      "import tilelang.language as T\n\n@T.prim_func\n"
      "def main(A: T.Tensor((4096,), \"float32\"), C: T.Tensor((4096,), \"float32\")):\n"
      "    with T.Kernel(1) as bx:\n"
      "        a_ub = T.alloc_ub((1024,), \"float32\")\n"
      "        c_ub = T.alloc_ub((1024,), \"float32\")\n"
      "        for s in T.Pipelined(4, num_stages=2):\n"
      "            T.copy(A[s * 1024:s * 1024 + 1024], a_ub)\n"
      "            for i in T.Parallel(1024):\n"
      "                c_ub[i] = a_ub[min(i + 1, 1024)]\n"
      "            T.copy(c_ub, C[s * 1024:s * 1024 + 1024])\n",
      "oob_versioned.py");
  for (const char* mode : {"auto", "double"}) {
    CliRun r = cli({"run", f.str(), "--schedule", mode});
    EXPECT_EQ(r.code, 3) << mode << r.err;
    EXPECT_NE(r.err.find("oob_versioned.py:11:"), std::string::npos) << mode << r.err;
    EXPECT_NE(r.err.find("out-of-bounds access to 'a_ub': index [1024] is outside its shape "
                         "(1024,) (version 0 of its 2 versions)"),
              std::string::npos)
        << mode << r.err;
    EXPECT_EQ(r.err.find("(2, 1024)"), std::string::npos) << mode << r.err;
  }
  // The sequential run has one version and says nothing of versions.
  CliRun serial = cli({"run", f.str(), "--schedule", "none"});
  EXPECT_NE(serial.err.find("index [1024] is outside its shape (1024,)\n"), std::string::npos)
      << serial.err;
}

// The versions line of --emit schedule lists the buffers whose count the
// scheduler chose; a global tensor always has one copy.
TEST(Cli, ScheduleVersionsLineLeavesOutGlobalTensors) {
  CliRun r = cli({"compile", example("vec_add"), "--emit", "schedule"});
  ASSERT_EQ(r.code, 0) << r.err;
  size_t at = r.out.find("# versions: ");
  ASSERT_NE(at, std::string::npos) << r.out;
  std::string line = r.out.substr(at, r.out.find('\n', at) - at);
  EXPECT_EQ(line,
            "# versions: a_ub 2 (solver, bound 2), b_ub 2 (solver, bound 2), c_ub 2 (solver, "
            "bound 2)");
}

// A buffer nothing writes: compile warns at its first read, and the run-time
// poison error at the store the poison reached names that buffer and line.
TEST(Cli, PoisonNamesTheBufferThatIsNeverWritten) {
  std::string file =
      (fs::path(TILESCHED_SOURCE_DIR) / "tests/diagnostics/never_written.py").string();
  CliRun c = cli({"compile", file, "--func", "forgot_the_load"});
  EXPECT_EQ(c.code, 0) << c.err;
  EXPECT_NE(c.err.find("never_written.py:15:27: warning: 'b_ub' is read but never written"),
            std::string::npos)
      << c.err;
  CliRun r = cli({"run", file, "--func", "forgot_the_load"});
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("never_written.py:18:13: error: run-time error: use of uninitialised "
                       "memory: T.copy c_ub -> C writes poison to global memory 'C'"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("the poison comes from 'b_ub', which nothing writes in this block before "
                       "its first read at line 15"),
            std::string::npos)
      << r.err;
}

// A race between two cores of a manual-form kernel names them in the report:
// the AIC's FixPipe store to C and AIV 0's load of C have no flag between.
TEST(Cli, ACrossCoreRaceNamesBothCoresInTheReport) {
  fs::path file = fs::temp_directory_path() / (std::to_string(::getpid()) + "_core_race.py");
  {
    std::ofstream out(file);
    out << "import tilelang.language as T\n\n@T.prim_func\n"
           "def main(X: T.Tensor((16, 16), \"float16\"), C: T.Tensor((16, 16), \"float32\"),\n"
           "         D: T.Tensor((16, 16), \"float32\")):\n"
           "    with T.Kernel(1) as bx:\n"
           "        x_l1 = T.alloc_l1((16, 16), \"float16\")\n"
           "        acc = T.alloc_l0c((16, 16), \"float32\")\n"
           "        ub = T.alloc_ub((16, 16), \"float32\")\n"
           "        with T.Cube():\n"
           "            T.copy(X, x_l1)\n"
           "            T.ascend_set_flag(\"MTE2_MTE1\", 0)\n"
           "            T.ascend_wait_flag(\"MTE2_MTE1\", 0)\n"
           "            T.gemm(x_l1, x_l1, acc, clear_accum=True)\n"
           "            T.ascend_set_flag(\"M_FIX\", 0)\n"
           "            T.ascend_wait_flag(\"M_FIX\", 0)\n"
           "            T.copy(acc, C)\n"
           "        with T.Vector(vector=1):\n"
           "            T.copy(C, ub)\n"
           "            T.ascend_set_flag(\"MTE2_MTE3\", 0)\n"
           "            T.ascend_wait_flag(\"MTE2_MTE3\", 0)\n"
           "            T.copy(ub, D)\n";
  }
  fs::path report = file.string() + ".json";
  CliRun r = cli({"run", file.string(), "--report", report.string()});
  EXPECT_NE(r.code, 0) << r.out;
  std::ifstream in(report);
  json j = json::parse(in);
  const json& races = j.at("kernels").at(0).at("simulation").at("race_reports");
  ASSERT_FALSE(races.empty()) << j.dump(1);
  bool found = false;
  for (const json& race : races)
    if (race.at("first").at("line") == 17 && race.at("second").at("line") == 19) {
      found = true;
      EXPECT_EQ(race.at("first").at("core"), "AIC");
      EXPECT_EQ(race.at("first").at("pipe"), "FIX");
      EXPECT_EQ(race.at("second").at("core"), "AIV 0");
      EXPECT_EQ(race.at("second").at("pipe"), "MTE2");
    }
  EXPECT_TRUE(found) << races.dump(1);
  fs::remove(file);
  fs::remove(report);
}

}  // namespace
}  // namespace tilesched
