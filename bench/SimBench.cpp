// Simulator throughput on the bundled examples under `--schedule serial`:
// `sim_bench` prints, per example, the cycle simulation's rate in simulated
// instructions per second (counter `instr/s`) and the full `run` (reference +
// simulation + comparison) time. Not a test: nothing here asserts a time.
//
// `scalar_loop/N` simulates one block whose pipelined loop runs N iterations
// of scalar work (a UB element read and a UB element store per iteration).
// Its time must grow linearly with N (issue 7: the race detector's history
// made it quadratic, 8192 iterations took 8 s); the BigO row fits the curve.
//
//   build-sim/bench/sim_bench --benchmark_min_time=0.2
#include <benchmark/benchmark.h>

#include <fstream>
#include <memory>
#include <sstream>

#include "frontend/Elaborator.h"
#include "sim/Run.h"
#include "sim/Simulator.h"
#include "transform/SerialLowering.h"

namespace {

using namespace tilesched;

struct Loaded {
  ir::Program program;
  ir::Kernel lowered;
};

const Target& target() {
  static const Target t = [] {
    std::string error;
    return *loadTarget("ascend950", error);
  }();
  return t;
}

const Loaded& load(const std::string& name) {
  static std::map<std::string, std::unique_ptr<Loaded>> cache;
  auto& slot = cache[name];
  if (slot) return *slot;
  std::string path = std::string(TILESCHED_EXAMPLES_DIR) + "/" + name + ".py";
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  auto file = std::make_shared<SourceFile>(path, text.str());
  DiagnosticEngine diags(file);
  auto p = frontend::compileSource(file, {}, diags);
  if (!p) throw std::runtime_error(diags.renderAll());
  slot = std::make_unique<Loaded>(Loaded{std::move(*p), {}});
  slot->lowered = transform::lowerSerial(slot->program.kernels.front());
  return *slot;
}

void BM_Simulate(benchmark::State& state, const std::string& name) {
  const Loaded& l = load(name);
  int64_t instructions = 0;
  for (auto _ : state) {
    sim::Memory mem(l.lowered);
    for (const auto& p : l.lowered.params)
      if (p.buffer)
        sim::generateInput(mem.raw(mem.index(p.buffer->storage)), p.buffer->dtype, 0, p.name);
    sim::SimOptions o;
    o.recordTrace = false;
    auto r = sim::simulate(l.lowered, target(), mem, o);
    instructions += r.instructions;
    benchmark::DoNotOptimize(r.cycles);
  }
  state.counters["instr/s"] =
      benchmark::Counter(static_cast<double>(instructions), benchmark::Counter::kIsRate);
}

void BM_Run(benchmark::State& state, const std::string& name) {
  const Loaded& l = load(name);
  for (auto _ : state) {
    sim::RunOptions o;
    o.recordTrace = false;
    std::string error;
    auto r = sim::runKernel(l.program.kernels.front(), l.lowered, target(), o, error);
    benchmark::DoNotOptimize(r->outputsMatch);
  }
}

// One block, N pipelined iterations of scalar work on distinct UB elements.
std::string scalarLoopKernel(int64_t n) {
  std::string N = std::to_string(n);
  return "import tilelang.language as T\n\n@T.prim_func\n"
         "def main(A: T.Tensor((" +
         N + ",), \"float32\"), O: T.Tensor((" + N +
         ",), \"float32\")):\n"
         "    with T.Kernel(1) as bx:\n"
         "        a = T.alloc_shared((" +
         N +
         ",), \"float32\")\n"
         "        s = T.alloc_shared((" +
         N +
         ",), \"float32\")\n"
         "        T.copy(A, a)\n"
         "        for k in T.Pipelined(" +
         N +
         ", num_stages=2):\n"
         "            s[k] = a[k] * 2.0\n"
         "        T.copy(s, O)\n";
}

void BM_ScalarLoop(benchmark::State& state) {
  auto file = std::make_shared<SourceFile>("scalar_loop.py", scalarLoopKernel(state.range(0)));
  DiagnosticEngine diags(file);
  auto p = frontend::compileSource(file, {}, diags);
  if (!p) throw std::runtime_error(diags.renderAll());
  ir::Kernel lowered = transform::lowerSerial(p->kernels.front());
  for (auto _ : state) {
    sim::Memory mem(lowered);
    sim::SimOptions o;
    o.recordTrace = false;
    auto r = sim::simulate(lowered, target(), mem, o);
    benchmark::DoNotOptimize(r.cycles);
  }
  state.SetComplexityN(state.range(0));
}

const char* kExamples[] = {"vec_add",           "rms_norm",         "softmax",
                           "gemm_l1",           "gemm_l0",          "ring_buffer",
                           "annotate_versions", "manual_flat_ring", "persistent_tiles",
                           "vf_region",         "unlimit_memory"};

int registerAll = [] {
  for (const char* e : kExamples) {
    benchmark::RegisterBenchmark((std::string("simulate/") + e).c_str(), BM_Simulate,
                                 std::string(e))
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark((std::string("run/") + e).c_str(), BM_Run, std::string(e))
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::RegisterBenchmark("scalar_loop", BM_ScalarLoop)
      ->Arg(1024)
      ->Arg(4096)
      ->Arg(8192)
      ->Complexity(benchmark::oN)
      ->Unit(benchmark::kMillisecond);
  return 0;
}();

}  // namespace

BENCHMARK_MAIN();
