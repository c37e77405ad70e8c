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
// `vec_add_4M` and `gemm_1024` are the element-work rows (issue 10): the
// examples at real sizes (a 4 M-element fp32 add, a 1024 x 1024 x 1024 fp16
// GEMM with fp32 accumulation), simulated with the tile-at-a-time paths
// (`/fast`) and with the element-at-a-time ones (`/plain`, the code before
// them, which gives the same bits). Counters: `elem/s` (elements of C per
// second) and `MAC/s` (multiply-accumulates per second).
//
// The `/threads:N` suffix of those rows is SimOptions::threads (issue 10:
// independent blocks simulated on two threads, identical results).
//
// `many_blocks/N` simulates N blocks that each store 8 tiles of their own
// slice of a global tensor: the inter-block race check (issue 11, per-tensor
// interval sets per block) must keep the time linear in N (BigO row).
//
//   build/bench/sim_bench --benchmark_min_time=0.2
//   build/bench/sim_bench --benchmark_filter='vec_add_4M|gemm_1024'
//   build/bench/sim_bench --benchmark_filter='many_blocks'
#include <benchmark/benchmark.h>

#include <fstream>
#include <map>
#include <memory>
#include <optional>
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

const Loaded& load(const std::string& name,
                   const std::vector<std::pair<std::string, std::string>>& defines = {}) {
  static std::map<std::string, std::unique_ptr<Loaded>> cache;
  std::string key = name;
  for (const auto& [k, v] : defines) key += " " + k + "=" + v;
  auto& slot = cache[key];
  if (slot) return *slot;
  std::string path = std::string(TILESCHED_EXAMPLES_DIR) + "/" + name + ".py";
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  auto file = std::make_shared<SourceFile>(path, text.str());
  DiagnosticEngine diags(file);
  frontend::FrontendOptions options;
  options.defines = defines;
  auto p = frontend::compileSource(file, options, diags);
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
    sim::RunRefusal refusal;
    auto r = sim::runKernel(l.program.kernels.front(), l.lowered, target(), o, refusal);
    benchmark::DoNotOptimize(r->outputsMatch);
  }
}

// A whole simulation (serial lowering) of an example at a real size;
// `work` is the element count (vec add) or MAC count (gemm) of one run.
void BM_Work(benchmark::State& state, const std::string& name,
             std::vector<std::pair<std::string, std::string>> defines, const char* counter,
             double work, bool fast, int threads) {
  const Loaded& l = load(name, defines);
  sim::Memory inputs(l.lowered);  // generated once: the rows time the simulation
  for (const auto& p : l.lowered.params)
    if (p.buffer)
      sim::generateInput(inputs.raw(inputs.index(p.buffer->storage)), p.buffer->dtype, 0, p.name);
  std::unique_ptr<sim::Memory> mem;  // set up and freed outside the timed part
  for (auto _ : state) {
    state.PauseTiming();
    mem.reset();
    mem = std::make_unique<sim::Memory>(inputs);
    state.ResumeTiming();
    sim::SimOptions o;
    o.recordTrace = false;
    o.fastPaths = fast;
    o.threads = threads;
    auto r = sim::simulate(l.lowered, target(), *mem, o);
    benchmark::DoNotOptimize(r.cycles);
  }
  state.counters[counter] = benchmark::Counter(work * static_cast<double>(state.iterations()),
                                               benchmark::Counter::kIsRate);
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

// N blocks, each storing 8 tiles of 64 elements of its own slice.
std::string manyBlocksKernel(int64_t n) {
  std::string size = std::to_string(n * 512);
  return "import tilelang.language as T\n\n@T.prim_func\n"
         "def main(A: T.Tensor((" +
         size + ",), \"float32\"), O: T.Tensor((" + size +
         ",), \"float32\")):\n"
         "    with T.Kernel(" +
         std::to_string(n) +
         ") as bx:\n"
         "        a = T.alloc_shared((64,), \"float32\")\n"
         "        for k in T.serial(8):\n"
         "            T.copy(A[bx * 512 + k * 64 : bx * 512 + k * 64 + 64], a)\n"
         "            T.copy(a, O[bx * 512 + k * 64 : bx * 512 + k * 64 + 64])\n";
}

// A generated kernel text, compiled and lowered serially.
ir::Kernel serialKernel(const std::string& name, std::string text) {
  auto file = std::make_shared<SourceFile>(name, std::move(text));
  DiagnosticEngine diags(file);
  auto p = frontend::compileSource(file, {}, diags);
  if (!p) throw std::runtime_error(diags.renderAll());
  return transform::lowerSerial(p->kernels.front());
}

void BM_ManyBlocks(benchmark::State& state) {
  ir::Kernel lowered = serialKernel("many_blocks.py", manyBlocksKernel(state.range(0)));
  for (auto _ : state) {
    sim::Memory mem(lowered);
    sim::SimOptions o;
    o.recordTrace = false;
    o.threads = 1;
    auto r = sim::simulate(lowered, target(), mem, o);
    if (!r.races.empty()) state.SkipWithError("unexpected race");
    benchmark::DoNotOptimize(r.cycles);
  }
  state.SetComplexityN(state.range(0));
}

void BM_ScalarLoop(benchmark::State& state) {
  ir::Kernel lowered = serialKernel("scalar_loop.py", scalarLoopKernel(state.range(0)));
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
  for (auto [fast, threads] : {std::pair{true, 1}, std::pair{true, 2}, std::pair{false, 1}}) {
    std::string mode =
        (fast ? "/fast" : "/plain") + std::string("/threads:") + std::to_string(threads);
    benchmark::RegisterBenchmark(("vec_add_4M" + mode).c_str(), BM_Work, "vec_add",
                                 std::vector<std::pair<std::string, std::string>>{
                                     {"N", "4194304"}, {"block_N", "1048576"}, {"sub_N", "8192"}},
                                 "elem/s", 4194304.0, fast, threads)
        ->Unit(benchmark::kMillisecond)
        ->Iterations(fast ? 3 : 1);
    benchmark::RegisterBenchmark(
        ("gemm_1024" + mode).c_str(), BM_Work, "gemm_l1",
        std::vector<std::pair<std::string, std::string>>{{"M", "1024"},
                                                         {"N", "1024"},
                                                         {"K", "1024"},
                                                         {"block_M", "128"},
                                                         {"block_N", "128"},
                                                         {"block_K", "64"}},
        "MAC/s", 1024.0 * 1024.0 * 1024.0, fast, threads)
        ->Unit(benchmark::kMillisecond)
        ->Iterations(fast ? 3 : 1);
  }
  benchmark::RegisterBenchmark("many_blocks", BM_ManyBlocks)
      ->Arg(256)
      ->Arg(1024)
      ->Arg(4096)
      ->Complexity(benchmark::oN)
      ->Unit(benchmark::kMillisecond);
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
