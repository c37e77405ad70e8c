// The schedule parser (schedule/ScheduleParser.h): what `--emit schedule`
// prints reads back to the same schedule for every example, and each kind of
// malformed schedule is a message with its line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "Version.h"
#include "analysis/TaskGraph.h"
#include "frontend/Elaborator.h"
#include "schedule/Check.h"
#include "schedule/ScheduleParser.h"
#include "schedule/SchedulePrinter.h"
#include "schedule/Scheduler.h"
#include "target/Target.h"

namespace tilesched::schedule {
namespace {

namespace fs = std::filesystem;

const Target& target() {
  static const Target t = [] {
    std::string error;
    auto x = loadTarget("ascend950", error);
    if (!x) throw std::runtime_error(error);
    return *x;
  }();
  return t;
}

struct Compiled {
  std::unique_ptr<DiagnosticEngine> diags;
  std::optional<ir::Program> program;
  std::vector<analysis::KernelAnalysis> analyses;
};

Compiled compile(const std::string& path, const std::string& text) {
  Compiled c;
  auto file = std::make_shared<SourceFile>(path, text);
  c.diags = std::make_unique<DiagnosticEngine>(file);
  c.program = frontend::compileSource(file, {}, *c.diags);
  if (c.program) c.analyses = analysis::analyzeProgram(*c.program, target(), *c.diags);
  return c;
}

std::string readAll(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class RoundTrip : public ::testing::TestWithParam<std::string> {};

// The solver's schedule, printed and parsed back: the same IIs, starts,
// stages, enable_offset, makespans and version counts; the checker accepts it.
TEST_P(RoundTrip, PrintedScheduleReadsBackTheSame) {
  fs::path path = fs::path(TILESCHED_SOURCE_DIR) / "examples" / (GetParam() + ".py");
  Compiled c = compile(path.string(), readAll(path));
  ASSERT_TRUE(c.program) << c.diags->renderAll();
  for (size_t k = 0; k < c.program->kernels.size(); ++k) {
    const ir::Kernel& kernel = c.program->kernels[k];
    KernelSchedule solved = scheduleKernel(c.analyses[k], kernel, target(), {}, *c.diags);
    std::string printed = printSchedule(kernel, c.analyses[k], solved);
    std::string error;
    auto parsed = parseSchedule(printed, kernel, c.analyses[k], error);
    ASSERT_TRUE(parsed) << error << "\n" << printed;
    ASSERT_EQ(parsed->lists.size(), solved.lists.size());
    for (size_t i = 0; i < solved.lists.size(); ++i) {
      const ListSchedule& a = solved.lists[i];
      const ListSchedule& b = parsed->lists[i];
      EXPECT_EQ(a.loop, b.loop);
      EXPECT_EQ(a.ii, b.ii);
      EXPECT_EQ(a.start, b.start);
      EXPECT_EQ(a.stage, b.stage);
      EXPECT_EQ(a.maxStage, b.maxStage);
      EXPECT_EQ(a.enableOffset, b.enableOffset);
      if (a.loop) {
        EXPECT_EQ(a.makespan, b.makespan);
      }
    }
    for (const auto& st : kernel.storages)
      EXPECT_EQ(solved.versionsOf(st), parsed->versionsOf(st)) << st->name;
    EXPECT_EQ(formatScheduleErrors(checkSchedule(*parsed, c.analyses[k], kernel, target())), "");
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, RoundTrip,
                         ::testing::Values("vec_add", "softmax", "rms_norm", "gemm_l1", "gemm_l0",
                                           "annotate_versions", "persistent_tiles", "ring_buffer",
                                           "manual_flat_ring", "vf_region"));

const char* kStream = R"(import tilelang.language as T


@T.prim_func
def main(X: T.Tensor((320,), "float32"), Y: T.Tensor((320,), "float32")):
    with T.Kernel(1) as bx:
        x_ub = T.alloc_ub((64,), "float32")
        y_ub = T.alloc_ub((64,), "float32")
        for s in T.Pipelined(5, num_stages=2):
            T.copy(X[s * 64:s * 64 + 64], x_ub)
            for i in T.Parallel(64):
                y_ub[i] = x_ub[i] * 2.0
            T.copy(y_ub, Y[s * 64:s * 64 + 64])
)";

// A hand-written schedule: only the numbers matter, `iteration` may be left
// out (computed from the units' latencies), unnamed buffers keep 1 version.
TEST(ScheduleParser, ReadsAHandWrittenSchedule) {
  Compiled c = compile("k.py", kStream);
  ASSERT_TRUE(c.program) << c.diags->renderAll();
  const ir::Kernel& kernel = c.program->kernels[0];
  std::string error;
  auto s = parseSchedule(R"(# loop s (line 9): II 200
copy in     # unit 0  MTE2  stage 0  start 0
compute     # unit 1  V     stage 0  start 120
copy out    # unit 2  MTE3  stage 1  start 210
# kernel root: makespan 1500
the loop    # unit 0  MTE2+MTE3+V  stage 0  start 0
# versions: y_ub 2
)",
                         kernel, c.analyses[0], error);
  ASSERT_TRUE(s) << error;
  ASSERT_EQ(s->lists.size(), 2u);
  EXPECT_EQ(s->lists[0].ii, 200);
  EXPECT_EQ(s->lists[0].start, (std::vector<int64_t>{0, 120, 210}));
  EXPECT_EQ(s->lists[0].maxStage, 1);
  EXPECT_GT(s->lists[0].makespan, 210);
  EXPECT_EQ(s->lists[1].loop, nullptr);
  EXPECT_EQ(s->lists[1].ii, 1500);
  EXPECT_EQ(s->versionsOf(kernel.findBuffer("x_ub")->get()->storage), 1);
  EXPECT_EQ(s->versionsOf(kernel.findBuffer("y_ub")->get()->storage), 2);
  EXPECT_EQ(formatScheduleErrors(checkSchedule(*s, c.analyses[0], kernel, target())), "");
}

TEST(ScheduleParser, MalformedSchedulesNameTheLine) {
  Compiled c = compile("k.py", kStream);
  ASSERT_TRUE(c.program) << c.diags->renderAll();
  const ir::Kernel& kernel = c.program->kernels[0];
  const std::string units =
      "# unit 0  MTE2  stage 0  start 0\n# unit 1  V  stage 0  start 100\n"
      "# unit 2  MTE3  stage 0  start 150\n";
  const std::pair<std::string, std::string> cases[] = {
      {"# loop t (line 9): II 200\n", "line 1: the kernel has no loop 't' at line 9"},
      {"# loop s (line 8): II 200\n", "line 1: the kernel has no loop 's' at line 8"},
      {"# loop s: II 200\n", "line 1: a loop header names its loop as `# loop VAR (line N)`"},
      {"# loop s (line 9): II 0\n", "line 1: a loop header gives its II as `: II N`, N >= 1"},
      {"# loop s (line 9): II 200\n# unit 0  MTE2  stage 0  start 0\n",
       "line 1: unit 1 of this list has no `# unit 1` line"},
      {"# loop s (line 9): II 200\n" + units + "# unit 3  V  stage 0  start 0\n",
       "line 5: this list has 3 units; there is no unit 3"},
      {"# loop s (line 9): II 200\n# unit 0  MTE2  stage 0  start 0\n"
       "# unit 0  MTE2  stage 0  start 0\n",
       "line 3: unit 0 is given twice"},
      {"# loop s (line 9): II 200\n# unit 0  MTE2  stage zero  start 0\n",
       "line 2: a unit line ends in `# unit K  PIPE  stage S  start T`"},
      {"# unit 0  MTE2  stage 0  start 0\n",
       "line 1: a `# unit` line before any `# loop` or root header"},
      {"# kernel root\n", "line 1: the root header gives `# kernel root: makespan N`"},
      {"# versions: z_ub 2\n", "line 1: the kernel has no buffer 'z_ub'"},
      {"# versions: x_ub two\n", "line 1: 'x_ub two' needs a version count"},
      {"# schedule of other\n", "it has no '# schedule of main' section"},
  };
  for (const auto& [text, message] : cases) {
    std::string error;
    EXPECT_FALSE(parseSchedule(text, kernel, c.analyses[0], error)) << text;
    EXPECT_EQ(error, message) << text;
  }
}

}  // namespace
}  // namespace tilesched::schedule
