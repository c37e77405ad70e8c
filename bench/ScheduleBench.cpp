// Scheduler solve times (issue 8): per loop of every example and for
// generated loops of 5-60 tasks (chains, diamonds, several pipes,
// memory-bound), one line each with tasks, II, lower bound, proven-optimal,
// fallback and milliseconds, then the median and the maximum. Not a test:
// nothing asserts a time.
//
//   build/bench/schedule_bench [--timeout-ms N] [--examples-only]
//   build/bench/schedule_bench --wide [N...]   (issue 11: one loop of 3·N tasks,
//       tests/common/WideLoopKernel.h; analyse / schedule / total ms per N,
//       default N = 100 300 1000 3000)
//   build/bench/schedule_bench --emit-wide N   (prints that kernel)
#include <fmt/format.h>
#include <z3++.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "analysis/TaskGraph.h"
#include "common/WideLoopKernel.h"
#include "frontend/Elaborator.h"
#include "schedule/ListFallback.h"
#include "schedule/LowerBound.h"
#include "schedule/ModuloSolver.h"
#include "schedule/Scheduler.h"

namespace {

using namespace tilesched;
using namespace tilesched::schedule;

struct Row {
  std::string name;
  int tasks = 0;
  int64_t ii = 0, lb = 0;
  bool proven = false, fallback = false;
  double ms = 0;
  SolveStats stats;
};

bool verbose = false;

void print(const Row& r) {
  fmt::print("{:<44} {:>5} {:>8} {:>8} {:>7} {:>9} {:>9.2f} {:>9.2f}\n", r.name, r.tasks, r.ii,
             r.lb, r.proven ? "yes" : "no", r.fallback ? "yes" : "no", r.ms, r.stats.cpuMs);
  if (verbose)
    fmt::print(
        "    checks {} (sat {}, unsat {}, unknown {}), II search {:.2f} ms, refine {:.2f} ms\n",
        r.stats.checks, r.stats.sat, r.stats.unsat, r.stats.unknown, r.stats.iiSearchMs,
        r.stats.refineMs);
}

double processCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// The example suite's compile front half (parse, elaborate, analyse,
// schedule every kernel) in this process: wall and CPU milliseconds.
double suiteWallMs = 0, suiteCpuMs = 0;

std::vector<Row> examples(unsigned timeoutMs) {
  auto wallBegin = std::chrono::steady_clock::now();
  double cpuBegin = processCpuMs();
  struct SuiteTimer {
    std::chrono::steady_clock::time_point wall;
    double cpu;
    ~SuiteTimer() {
      suiteWallMs =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall)
              .count();
      suiteCpuMs = processCpuMs() - cpu;
    }
  } timer{wallBegin, cpuBegin};
  std::vector<Row> rows;
  std::string error;
  auto target = loadTarget("ascend950", error);
  if (!target) {
    fmt::print(stderr, "{}\n", error);
    return rows;
  }
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(TILESCHED_EXAMPLES_DIR))
    if (e.path().extension() == ".py") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f);
    std::stringstream ss;
    ss << in.rdbuf();
    auto file = std::make_shared<SourceFile>(f.string(), ss.str());
    DiagnosticEngine diags(file);
    auto program = frontend::compileSource(file, {}, diags);
    if (!program) continue;
    auto analyses = analysis::analyzeProgram(*program, *target, diags);
    for (size_t i = 0; i < analyses.size(); ++i) {
      ScheduleOptions options;
      options.solverTimeoutMs = timeoutMs;
      auto s = scheduleKernel(analyses[i], program->kernels[i], *target, options, diags);
      for (const auto& l : s.lists) {
        if (!l.loop) continue;
        Row r;
        r.name = fmt::format("{} loop {} (line {})", f.stem().string(), l.loop->var->name,
                             l.loop->loc.line);
        r.tasks = static_cast<int>(l.start.size());
        r.ii = l.ii;
        r.lb = l.iiLowerBound;
        r.proven = l.provenOptimal;
        r.fallback = l.fallback;
        r.ms = l.solveMs;
        r.stats = l.stats;
        rows.push_back(r);
      }
    }
  }
  return rows;
}

// A generated loop body. Every produced storage gets a version variable
// (bound 2) on its WAR/WAW back edges, as the analyses would emit.
SchedulingProblem generate(const std::string& kind, int n, std::mt19937& rng) {
  const uint32_t kMte2 = 2, kMte3 = 4, kV = 16, kM = 8, kMte1 = 1;
  SchedulingProblem p;
  p.isLoop = true;
  p.numStages = 2;
  std::uniform_int_distribution<int> lat(20, 300), occ(10, 120);
  auto addTask = [&](uint32_t pipe) {
    int64_t ii = occ(rng);
    p.ii.push_back(ii);
    p.latency.push_back(std::max<int64_t>(ii, lat(rng)));
    p.pipeMask.push_back(pipe);
    return p.numUnits() - 1;
  };
  auto addStorage = [&](int producer, const std::vector<int>& consumers, int64_t bytes) {
    ProblemVersion v;
    v.bytes = bytes;
    v.maxVersions = 2;
    p.versions.push_back(v);
    int var = static_cast<int>(p.versions.size()) - 1;
    p.deps.push_back({producer, producer, p.latency[producer], 0, var});
    for (int c : consumers) {
      p.deps.push_back({producer, c, p.latency[producer], 0, -1});
      p.deps.push_back({c, producer, p.latency[c], 0, var});
    }
  };
  if (kind == "chain" || kind == "memory-bound") {
    const uint32_t pipes[] = {kMte2, kV, kV, kMte3};
    for (int i = 0; i < n; ++i) addTask(pipes[i % 4]);
    for (int i = 0; i + 1 < n; ++i) addStorage(i, {i + 1}, 8192);
  } else if (kind == "diamond") {
    int head = addTask(kMte2);
    std::vector<int> mids;
    for (int i = 1; i + 1 < n; ++i) mids.push_back(addTask(i % 3 == 0 ? kMte2 : kV));
    int tail = addTask(kMte3);
    addStorage(head, mids, 4096);
    for (int m : mids) addStorage(m, {tail}, 4096);
  } else {  // several pipes, random forward dependencies
    const uint32_t pipes[] = {kMte2, kMte1, kM, kV, kMte3};
    std::uniform_int_distribution<int> pick(0, 4);
    for (int i = 0; i < n; ++i) addTask(pipes[pick(rng)]);
    std::bernoulli_distribution edge(std::min(1.0, 2.5 / n));
    for (int i = 0; i < n; ++i) {
      std::vector<int> consumers;
      for (int j = i + 1; j < n; ++j)
        if (edge(rng)) consumers.push_back(j);
      if (!consumers.empty()) addStorage(i, consumers, 2048);
    }
  }
  if (kind == "memory-bound") {
    MemoryGroup g;
    g.capacity = static_cast<int64_t>(p.versions.size() + p.versions.size() / 3) * 8192;
    for (size_t k = 0; k < p.versions.size(); ++k) g.versions.push_back(static_cast<int>(k));
    p.memoryGroups.push_back(g);
  }
  return p;
}

std::vector<Row> generated(unsigned timeoutMs) {
  std::vector<Row> rows;
  std::mt19937 rng(12345);
  z3::context context;
  for (const char* kind : {"chain", "diamond", "several-pipes", "memory-bound"}) {
    for (int n : {5, 10, 20, 30, 45, 60}) {
      SchedulingProblem p = generate(kind, n, rng);
      ProblemSolution fallback = listSchedule(p);
      SolverLimits limits;
      limits.timeoutMs = timeoutMs;
      ProblemSolution s = solveProblem(p, fallback, context, limits);
      Row r;
      r.name = fmt::format("generated {} {}", kind, n);
      r.tasks = n;
      r.ii = s.ii;
      r.lb = s.iiLowerBound;
      r.proven = s.provenOptimal;
      r.fallback = s.fallback;
      r.ms = s.solveMs;
      r.stats = s.stats;
      rows.push_back(r);
    }
  }
  return rows;
}

double wallMsSince(std::chrono::steady_clock::time_point begin) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin)
      .count();
}

// One row per size: front end, analyses (dependencies: the overlap oracle),
// schedule pass, and the three together, wall and CPU milliseconds.
int wide(const std::vector<int>& sizes, unsigned timeoutMs) {
  std::string error;
  auto target = loadTarget("ascend950", error);
  if (!target) {
    fmt::print(stderr, "{}\n", error);
    return 1;
  }
  fmt::print("{:<12} {:>6} {:>10} {:>10} {:>10} {:>10} {:>9} {:>9} {:>8} {:>8}\n", "wide loop",
             "tasks", "front ms", "analyse ms", "sched ms", "total ms", "total cpu", "overlap z3",
             "II", "bound");
  for (int groups : sizes) {
    auto file = std::make_shared<SourceFile>(fmt::format("wide_{}.py", groups),
                                             tilesched::testing::wideLoopKernel(groups));
    DiagnosticEngine diags(file);
    auto begin = std::chrono::steady_clock::now();
    double cpuBegin = processCpuMs();
    auto program = frontend::compileSource(file, {}, diags);
    if (!program) {
      fmt::print(stderr, "{}", diags.renderAll());
      return 1;
    }
    double frontMs = wallMsSince(begin);
    auto analyseBegin = std::chrono::steady_clock::now();
    auto analyses = analysis::analyzeProgram(*program, *target, diags);
    double analyseMs = wallMsSince(analyseBegin);
    auto scheduleBegin = std::chrono::steady_clock::now();
    ScheduleOptions options;
    options.solverTimeoutMs = timeoutMs;
    auto s = scheduleKernel(analyses[0], program->kernels[0], *target, options, diags);
    double scheduleMs = wallMsSince(scheduleBegin);
    double totalMs = wallMsSince(begin), totalCpu = processCpuMs() - cpuBegin;
    int tasks = 0;
    int64_t ii = 0, bound = 0;
    for (const auto& l : s.lists)
      if (l.loop) tasks = static_cast<int>(l.start.size()), ii = l.ii, bound = l.iiLowerBound;
    fmt::print("{:<12} {:>6} {:>10.1f} {:>10.1f} {:>10.1f} {:>10.1f} {:>9.1f} {:>9} {:>8} {:>8}\n",
               fmt::format("{} groups", groups), tasks, frontMs, analyseMs, scheduleMs, totalMs,
               totalCpu, analyses[0].overlapStats.solverCalls, ii, bound);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 3 && !std::strcmp(argv[1], "--emit-wide")) {
    fmt::print("{}", tilesched::testing::wideLoopKernel(std::stoi(argv[2])));
    return 0;
  }
  if (argc >= 2 && !std::strcmp(argv[1], "--wide")) {
    std::vector<int> sizes;
    for (int i = 2; i < argc; ++i) sizes.push_back(std::stoi(argv[i]));
    if (sizes.empty()) sizes = {100, 300, 1000, 3000};
    return wide(sizes, 2000);
  }
  unsigned timeoutMs = 2000;
  bool examplesOnly = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--timeout-ms") && i + 1 < argc) timeoutMs = std::stoul(argv[++i]);
    if (!std::strcmp(argv[i], "--examples-only")) examplesOnly = true;
    if (!std::strcmp(argv[i], "--verbose")) verbose = true;
  }
  fmt::print("{:<44} {:>5} {:>8} {:>8} {:>7} {:>9} {:>9} {:>9}\n", "loop", "tasks", "II", "bound",
             "proven", "fallback", "ms", "cpu ms");
  std::vector<Row> all = examples(timeoutMs);
  for (const auto& r : all) print(r);
  fmt::print(
      "example suite (parse, analyse, schedule every kernel): {:.1f} ms wall, {:.1f} ms CPU\n",
      suiteWallMs, suiteCpuMs);
  if (!examplesOnly) {
    auto gen = generated(timeoutMs);
    for (const auto& r : gen) print(r);
    all.insert(all.end(), gen.begin(), gen.end());
  }
  std::vector<double> ms, cpu;
  int proven = 0;
  for (const auto& r : all) {
    ms.push_back(r.ms);
    cpu.push_back(r.stats.cpuMs);
    proven += r.proven;
  }
  std::sort(ms.begin(), ms.end());
  std::sort(cpu.begin(), cpu.end());
  auto p90 = [](const std::vector<double>& v) { return v[(v.size() * 9) / 10]; };
  if (!ms.empty()) {
    fmt::print("\n{} loops: median {:.2f} ms, p90 {:.2f} ms, max {:.2f} ms, proven optimal {}/{}\n",
               ms.size(), ms[ms.size() / 2], p90(ms), ms.back(), proven, ms.size());
    fmt::print("CPU time: median {:.2f} ms, p90 {:.2f} ms, max {:.2f} ms\n", cpu[cpu.size() / 2],
               p90(cpu), cpu.back());
  }
  return 0;
}
