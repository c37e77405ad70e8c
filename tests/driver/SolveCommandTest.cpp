// `tilesched solve` in-process: a problem the compiler dumped answers as the
// compiler did; the text form; every error a user can cause, with its exit
// code and its text.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/CliTestUtil.h"

namespace tilesched {
namespace {

using nlohmann::json;
using testing_cli::cli;
using testing_cli::example;
namespace fs = std::filesystem;

std::string writeProblem(const std::string& name, const std::string& text) {
  fs::path p = fs::temp_directory_path() / ("tilesched_solve_" + name + ".json");
  std::ofstream(p) << text;
  return p.string();
}

// The loop of vec_add as `compile --dump-schedule-problems` writes it.
std::string dumpedVecAddLoop() {
  fs::path dir = fs::temp_directory_path() / "tilesched_solve_dump";
  fs::remove_all(dir);
  auto run = cli({"compile", example("vec_add"), "--dump-schedule-problems", dir.string(), "--emit",
                  "schedule"});
  EXPECT_EQ(run.code, 0) << run.err;
  return (dir / "vec_add.0.s_line40.json").string();
}

const char* kLoop = R"({"num_stages": 2, "latencies": [10, 10], "iis": [4, 6],
  "resource_flags": [2, 16], "data_deps": [[0, 1, 0, 10], [1, 0, -1, 10]],
  "resource_deps": [], "buffer_sizes": [100], "memory_groups": [[200, 0]]})";

}  // namespace

TEST(SolveCommand, ADumpedLoopAnswersAsTheCompilerDid) {
  std::string path = dumpedVecAddLoop();
  json dumped = json::parse(std::ifstream(path));
  auto run = cli({"solve", path});
  ASSERT_EQ(run.code, 0) << run.err;
  json out = json::parse(run.out);
  EXPECT_EQ(out["ii"], dumped["ii"]);
  EXPECT_EQ(out["ii"], 164);
  EXPECT_EQ(out["buffer_versions"], dumped["modulo_versions"]);
  EXPECT_EQ(out["tilesched"]["checker"], "accepted");
  EXPECT_EQ(out["tilesched"]["proven_optimal"], true);
  EXPECT_EQ(out["start_times"].size(), 4u);
}

TEST(SolveCommand, TextAndStraightLine) {
  auto text = cli({"solve", writeProblem("text", kLoop), "--emit", "text"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_EQ(text.out.substr(0, text.out.find('\n')),
            "loop of 2 tasks: II 10 (lower bound 10, proven optimal)");
  EXPECT_NE(text.out.find("  buffer 0: 2 versions of 100 bytes\n"), std::string::npos) << text.out;
  auto line =
      cli({"solve", "--straight-line", writeProblem("line", R"({"latencies": [8, 3], "iis": [5, 3],
                     "resource_flags": [2, 16], "data_deps": [[0, 1, 8]], "resource_deps": []})")});
  ASSERT_EQ(line.code, 0) << line.err;
  json out = json::parse(line.out);
  EXPECT_EQ(out["makespan"], 11);
  EXPECT_EQ(out["start_times"], json::array({0, 8}));
  EXPECT_EQ(out["sorted_indices"], json::array({0, 1}));
}

TEST(SolveCommand, ErrorsNameTheFileAndTheField) {
  std::string missing = writeProblem("missing", R"({"latencies": [1], "resource_flags": [2]})");
  auto run = cli({"solve", missing});
  EXPECT_EQ(run.code, 1);
  EXPECT_EQ(run.err, missing + ": error: field 'iis': missing\n");
  std::string notJson = writeProblem("notjson", "{latencies: [1]");
  run = cli({"solve", notJson});
  EXPECT_EQ(run.code, 1);
  EXPECT_EQ(run.err, notJson + ": error: not a JSON document\n");
  std::string tight = writeProblem(
      "tight", std::string(kLoop).replace(std::string(kLoop).find("[[200, 0]]"), 10, "[[50, 0]]"));
  run = cli({"solve", tight});
  EXPECT_EQ(run.code, 1);
  EXPECT_EQ(run.err, tight +
                         ": error: no schedule exists: memory_groups[0] has capacity 50 "
                         "bytes, below the 100 bytes of the fewest versions its buffers may "
                         "have\n");
  run = cli({"solve", "/nonexistent/problem.json"});
  EXPECT_EQ(run.code, 2);
  EXPECT_NE(run.err.find("tilesched: error: cannot read '/nonexistent/problem.json'"),
            std::string::npos)
      << run.err;
  run = cli({"solve", writeProblem("emit", kLoop), "--emit", "yaml"});
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err, "tilesched: error: unknown --emit 'yaml'; expected json or text\n");
}

}  // namespace tilesched
