// Simulator throughput on the bundled examples under `--schedule serial`:
// `sim_bench` prints, per example, the cycle simulation's rate in simulated
// instructions per second (counter `instr/s`) and the full `run` (reference +
// simulation + comparison) time. Not a test: nothing here asserts a time.
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
  return 0;
}();

}  // namespace

BENCHMARK_MAIN();
