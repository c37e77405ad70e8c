// libFuzzer target: fuzzer bytes -> a small valid kernel -> front end,
// analyses, Z3 modulo scheduler -> the independent checker (Check.h).
//
// The bytes are decoded into a kernel file (so every failure is a kernel a
// person can read and rerun with `tilesched compile`): 2-5 UB buffers of one
// tile size, one or two T.Pipelined loops with random trip counts (0 and 1
// included), num_stages and enable_offset, a random body of loads (MTE2),
// element-wise adds (V), stores (MTE3) and nested serial loops, random
// T.annotate_buffer_versions entries. A schedule must be produced or a clear
// diagnostic given; whatever schedule comes back must pass checkSchedule. An
// exception, an internal error or a sanitizer report aborts and prints the
// kernel.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "analysis/TaskGraph.h"
#include "frontend/Elaborator.h"
#include "schedule/Check.h"
#include "schedule/Scheduler.h"
#include "schedule/WriteBack.h"
#include "target/Target.h"

using namespace tilesched;

namespace {

std::string g_source;  // the kernel of the current input, printed on failure

[[noreturn]] void fail(const std::string& why) {
  std::fprintf(stderr, "fuzz_schedule: %s\n--- kernel ---\n%s--- end ---\n", why.c_str(),
               g_source.c_str());
  std::abort();
}

const Target& target() {
  static Target t = [] {
    std::string error;
    auto loaded = loadTarget(defaultTargetName(), error);
    if (!loaded) fail("cannot load the default target: " + error);
    return *loaded;
  }();
  return t;
}

struct KernelWriter {
  FuzzedDataProvider& in;
  int buffers = 2;
  int tile = 64;
  std::string out;

  std::string buf(int i) { return "u" + std::to_string(i); }
  std::string pick() { return buf(in.ConsumeIntegralInRange(0, buffers - 1)); }
  std::string slice(const std::string& var) {
    return "[" + var + " * " + std::to_string(tile) + " : (" + var + " + 1) * " +
           std::to_string(tile) + "]";
  }

  // One statement of a loop body over iteration variable `var`.
  void statement(const std::string& indent, const std::string& var, int depth) {
    switch (in.ConsumeIntegralInRange(0, depth < 1 ? 4 : 3)) {
      case 0:
      case 1:
        out += indent + "T.copy(A" + slice(var) + ", " + pick() + ")\n";
        break;
      case 2:
        out += indent + "for i in T.Parallel(" + std::to_string(tile) + "):\n";
        out += indent + "    " + pick() + "[i] = " + pick() + "[i] + " + pick() + "[i]\n";
        break;
      case 3:
        out += indent + "T.copy(" + pick() + ", C" + slice(var) + ")\n";
        break;
      default: {
        int trips = in.ConsumeIntegralInRange(0, 3);
        std::string inner = "t" + std::to_string(depth);
        out += indent + "for " + inner + " in T.serial(" + std::to_string(trips) + "):\n";
        int n = in.ConsumeIntegralInRange(1, 3);
        for (int k = 0; k < n; ++k) statement(indent + "    ", var, depth + 1);
      }
    }
  }

  void loop(const std::string& var, int trips) {
    int stages = in.ConsumeIntegralInRange(1, 4);
    bool offset = in.ConsumeBool();
    out += "            for " + var + " in T.Pipelined(" + std::to_string(trips) +
           ", num_stages=" + std::to_string(stages) +
           (offset ? ", annotations={\"enable_offset\": True}" : "") + "):\n";
    int n = in.ConsumeIntegralInRange(1, 8);
    for (int k = 0; k < n; ++k) statement("                ", var, 0);
  }

  std::string write() {
    static const int kTiles[] = {16, 64, 256, 1024, 4096, 16384};
    tile = kTiles[in.ConsumeIntegralInRange(0, 5)];
    buffers = in.ConsumeIntegralInRange(2, 5);
    int trips = in.ConsumeIntegralInRange(0, 6);
    int loops = in.ConsumeIntegralInRange(1, 2);
    std::string global = std::to_string((trips > 0 ? trips : 1) * tile);
    out = "import tilelang.language as T\n\n\ndef fuzz():\n    @T.prim_func\n";
    out += "    def main(A: T.Tensor((" + global + ",), \"float32\"), C: T.Tensor((" + global +
           ",), \"float32\")):\n";
    out += "        with T.Kernel(1, is_npu=True) as bx:\n";
    for (int i = 0; i < buffers; ++i)
      out +=
          "            " + buf(i) + " = T.alloc_ub((" + std::to_string(tile) + ",), \"float32\")\n";
    std::string annotations;
    for (int i = 0; i < buffers; ++i) {
      static const char* kForms[] = {
          "1", "2", "3", "(2, \"counter\")", "\"iteration\"", "(1, \"auto\")"};
      if (in.ConsumeIntegralInRange(0, 3) != 0) continue;
      annotations += (annotations.empty() ? "" : ", ") + buf(i) + ": " +
                     kForms[in.ConsumeIntegralInRange(0, 5)];
    }
    if (!annotations.empty())
      out += "            T.annotate_buffer_versions({" + annotations + "})\n";
    for (int l = 0; l < loops; ++l) loop("s" + std::to_string(l), trips);
    out += "\n    return main\n";
    return out;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  KernelWriter writer{in, 2, 64, {}};
  g_source = writer.write();
  auto file = std::make_shared<SourceFile>("fuzz_schedule.py", g_source);
  DiagnosticEngine diags(file);
  try {
    auto program = frontend::compileSource(file, {}, diags);
    if (program) {
      auto analyses = analysis::analyzeProgram(*program, target(), diags);
      schedule::ScheduleOptions options;
      options.solverTimeoutMs = 200;
      for (size_t i = 0; i < program->kernels.size() && i < analyses.size(); ++i) {
        if (diags.hasErrors()) break;
        auto sched =
            schedule::scheduleKernel(analyses[i], program->kernels[i], target(), options, diags);
        if (sched.lists.empty()) {
          if (!diags.hasErrors()) fail("an empty schedule without an error");
          continue;
        }
        auto errors = schedule::checkSchedule(sched, analyses[i], program->kernels[i], target());
        if (!errors.empty()) fail("checker rejects:\n" + schedule::formatScheduleErrors(errors));
        schedule::writeBackVersions(program->kernels[i], sched, diags);
      }
    }
    for (const auto& d : diags.all())
      if (d.message.rfind("internal error", 0) == 0) fail(d.message);  // not echoed user text
    (void)diags.renderAll();
  } catch (const std::exception& e) {
    fail(std::string("exception: ") + e.what());
  }
  return 0;
}
