// The run's JSON (see RunReport.h).
#include "report/RunReport.h"

#include <algorithm>

#include "report/Report.h"
#include "sim/CrossCoreFlags.h"

namespace tilesched::report {

using nlohmann::json;

namespace {

json pipesJson(const sim::SimResult& r) {
  json pipes = json::object();
  for (Pipe p : kAllPipes) {
    int64_t busy = r.busy[pipeIndex(p)];
    int64_t instrs = 0, stall = 0, barrierStall = 0;
    for (const auto& b : r.blocks) {
      instrs += b.pipes[pipeIndex(p)].instructions;
      stall += b.pipes[pipeIndex(p)].flagStall;
      barrierStall += b.pipes[pipeIndex(p)].barrierStall;
    }
    pipes[std::string(pipeName(p))] = {
        {"busy", busy},
        {"utilization", r.cycles ? static_cast<double>(busy) / static_cast<double>(r.cycles) : 0.0},
        {"instructions", instrs},
        {"flag_stall", stall},
        {"barrier_stall", barrierStall}};
  }
  return pipes;
}

json locJson(const std::string& file, SourceLoc loc) {
  return {{"file", file},
          {"line", loc.valid() ? json(loc.line) : json(nullptr)},
          {"col", loc.valid() ? json(loc.col) : json(nullptr)}};
}

const char* issueKindName(sim::SimIssue::Kind k) {
  switch (k) {
    case sim::SimIssue::Flag:
      return "flag";
    case sim::SimIssue::Deadlock:
      return "deadlock";
    case sim::SimIssue::Capacity:
      return "capacity";
    case sim::SimIssue::Runtime:
      return "runtime";
  }
  return "?";
}

}  // namespace

// The pipe the lower bound comes from: the busiest one (S on an empty kernel).
Pipe bottleneckPipe(const sim::SimResult& r) {
  int64_t busiest = 0;
  Pipe bottleneck = Pipe::S;
  for (Pipe p : kAllPipes)
    if (r.busy[pipeIndex(p)] > busiest) busiest = r.busy[pipeIndex(p)], bottleneck = p;
  return bottleneck;
}

int64_t barrierStall(const sim::SimResult& r) {
  int64_t total = 0;
  for (const auto& b : r.blocks)
    for (const auto& p : b.pipes) total += p.barrierStall;
  return total;
}

int64_t fillDrainLowerBound(const sim::SimResult& r, const analysis::FillDrain& fd) {
  int64_t total = 0;
  size_t cores = static_cast<size_t>(std::max<int64_t>(1, r.cores));
  for (size_t w = 0; w < r.blocks.size(); w += cores) {
    int64_t wave = 0;
    for (size_t b = w; b < std::min(r.blocks.size(), w + cores); ++b) {
      std::array<int64_t, kNumPipes> busy{};
      for (size_t p = 0; p < kNumPipes; ++p) busy[p] = r.blocks[b].pipes[p].busy;
      wave = std::max(wave, analysis::boundWithFillDrain(fd, busy));
    }
    total += wave;
  }
  return total;
}

json simulationJson(const KernelOutcome& k, const std::string& schedule, const std::string& file,
                    const std::function<std::string(const sim::AccessOwner&)>& describe) {
  const sim::SimResult& r = k.run.sim;
  json j;
  j["schedule"] = schedule;
  j["cycles"] = r.cycles;
  j["lower_bound"] = r.lowerBound;
  j["bottleneck"] = std::string(pipeName(bottleneckPipe(r)));
  j["efficiency"] = r.efficiency;
  // The bound plus the shortest fill and drain (docs/performance.md "Bounds").
  int64_t fillDrainBound = fillDrainLowerBound(r, k.fillDrain);
  j["fill_drain_bound"] = fillDrainBound;
  j["fill_drain_efficiency"] =
      r.cycles ? static_cast<double>(fillDrainBound) / static_cast<double>(r.cycles) : 0.0;
  json fd = json::object();
  for (Pipe p : kAllPipes)
    if (k.fillDrain.hasTasks[pipeIndex(p)])
      fd[std::string(pipeName(p))] = {{"fill", k.fillDrain.fill[pipeIndex(p)]},
                                      {"drain", k.fillDrain.drain[pipeIndex(p)]}};
  j["fill_drain"] = fd;
  j["pipes"] = pipesJson(r);
  j["outputs_match"] = k.run.outputsMatch;
  j["pass"] = k.run.ok();
  j["races"] = static_cast<int64_t>(r.races.size());
  j["flag_errors"] = r.flagErrors();
  j["capacity_errors"] = r.count(sim::SimIssue::Capacity);
  j["runtime_errors"] = r.count(sim::SimIssue::Runtime) + (k.run.referenceError ? 1 : 0);
  j["grid"] = k.kernel->grid;
  // A sampled run (global tensors beyond the simulator's memory): the blocks
  // simulated; null when every block ran.
  j["sampled_blocks"] = k.run.sampledBlocks.empty() ? json(nullptr) : json(k.run.sampledBlocks);
  j["launch"] = k.kernel->launch;
  j["start_cycle"] = k.run.startCycle;
  j["cores"] = r.cores;
  j["waves"] = r.waves;
  j["flag_stall"] = r.flagStall;
  j["barrier_stall"] = barrierStall(r);
  j["instructions"] = r.instructions;
  j["trace_truncated"] = r.traceTruncated;
  json blocks = json::array();
  for (const auto& b : r.blocks) {
    json pipes = json::object();
    int64_t blockBarrierStall = 0;
    for (Pipe p : kAllPipes) {
      const auto& ps = b.pipes[pipeIndex(p)];
      blockBarrierStall += ps.barrierStall;
      pipes[std::string(pipeName(p))] = {{"busy", ps.busy},
                                         {"instructions", ps.instructions},
                                         {"flag_stall", ps.flagStall},
                                         {"barrier_stall", ps.barrierStall}};
    }
    std::array<int64_t, kNumPipes> busy{};
    for (size_t p = 0; p < kNumPipes; ++p) busy[p] = b.pipes[p].busy;
    blocks.push_back(
        {{"block", b.block},
         {"fill_drain_bound", analysis::boundWithFillDrain(k.fillDrain, busy)},
         {"cycles", b.cycles},
         {"lower_bound", b.lowerBound},
         {"bottleneck", std::string(pipeName(b.bottleneck))},
         {"efficiency",
          b.cycles ? static_cast<double>(b.lowerBound) / static_cast<double>(b.cycles) : 0.0},
         {"flag_stall", b.flagStall},
         {"barrier_stall", blockBarrierStall},
         {"pipes", pipes}});
  }
  j["blocks"] = blocks;
  json outputs = json::array();
  for (const auto& t : k.run.tensors)
    outputs.push_back({{"name", t.name},
                       {"output", t.written},
                       {"elements", t.elements},
                       {"compared", t.compared},
                       {"mismatches", t.mismatches},
                       {"first_mismatches", t.firstMismatches}});
  j["tensors"] = outputs;
  json races = json::array();
  // The core of a core group that made an access (manual-form kernels); null
  // on the one-core model.
  auto coreOf = [&](const sim::AccessOwner& who) {
    return k.kernel->manualCores ? json(sim::coreName(who.core)) : json(nullptr);
  };
  for (const auto& race : r.races) {
    races.push_back({{"storage", nullptr},  // filled by the caller, which knows the names
                     {"bytes", {race.lo, race.hi}},
                     {"first",
                      {{"instruction", describe(race.first)},
                       {"pipe", std::string(pipeName(race.first.pipe))},
                       {"access", race.firstAtomic   ? "atomic"
                                  : race.firstWrites ? "write"
                                                     : "read"},
                       {"block", race.first.block},
                       {"core", coreOf(race.first)},
                       {"line", race.first.stmt ? race.first.stmt->loc.line : 0}}},
                     {"second",
                      {{"instruction", describe(race.second)},
                       {"pipe", std::string(pipeName(race.second.pipe))},
                       {"access", race.secondAtomic   ? "atomic"
                                  : race.secondWrites ? "write"
                                                      : "read"},
                       {"block", race.second.block},
                       {"core", coreOf(race.second)},
                       {"line", race.second.stmt ? race.second.stmt->loc.line : 0}}},
                     {"between_blocks", race.betweenBlocks},
                     {"element", race.element},
                     {"occurrences", race.occurrences}});
  }
  j["race_reports"] = races;
  json errors = json::array();
  for (const auto& i : r.issues) {
    json e = locJson(file, i.loc);
    e["kind"] = issueKindName(i.kind);
    e["message"] = i.message;
    e["block"] = i.block;
    json notes = json::array();
    for (const auto& [loc, msg] : i.notes) notes.push_back({{"line", loc.line}, {"message", msg}});
    e["notes"] = notes;
    errors.push_back(e);
  }
  if (k.run.referenceError) {
    json e = locJson(file, k.run.referenceError->loc);
    e["kind"] = "runtime";
    e["message"] = "reference run: " + k.run.referenceError->message;
    errors.push_back(e);
  }
  j["errors"] = errors;
  json alloc = json::array();
  for (const auto& a : r.allocations)
    alloc.push_back({{"name", a.name},
                     {"scope", std::string(memScopeName(a.scope))},
                     {"offset", a.offset},
                     {"bytes", a.bytes}});
  j["allocations"] = alloc;
  return j;
}

// Fills a kernel entry of the report with the lowering's decisions
// (`buffers[].versions|source|mode`, `annotations.buffer_versions`, `sync`).
void annotateLowering(json& kernel, const ir::Kernel& source, const transform::LoweredKernel& lk,
                      const Target& target) {
  json written = json::object();
  for (auto& b : kernel["buffers"]) {
    // Aliases share their storage's decision.
    const ir::Buffer* buf = source.findBuffer(b.value("name", ""));
    const transform::StorageLowering* sl = buf ? lk.plan.find((*buf)->storage) : nullptr;
    if (!sl) continue;
    b["versions"] = sl->versions;
    b["source"] = std::string(schedule::versionSourceName(sl->source));
    b["mode"] = sl->mode ? json(std::string(ir::versionModeName(*sl->mode))) : json(nullptr);
  }
  for (const auto& sl : lk.plan.storages)
    if (sl.buffer && sl.source != schedule::VersionSource::Ineligible &&
        sl.source != schedule::VersionSource::Manual)
      written[sl.buffer->name] = sl.versions;
  kernel["annotations"]["buffer_versions"] = written;
  for (const auto& ls : lk.schedule.lists) {
    if (!ls.loop) continue;
    for (auto& l : kernel["loops"]) {
      if (l.value("var", "") != ls.loop->var->name || l.value("line", 0u) != ls.loop->loc.line)
        continue;
      setLoopSchedule(l, ls);
    }
  }
  // Memory as lowered: every version of every storage, after alignment.
  setMemoryUsed(kernel, source, target, [&](const ir::Storage& st) -> std::optional<VersionCount> {
    const transform::StorageLowering* sl = lk.plan.find(st);
    if (!sl) return std::nullopt;
    return VersionCount{sl->versions, sl->source};
  });
  json ids = json::object();
  for (const auto& [ev, n] : lk.sync.eventIds) ids[ev] = n;
  kernel["sync"] = {{"set_flag", lk.sync.setFlag},
                    {"wait_flag", lk.sync.waitFlag},
                    {"pipe_barrier", lk.sync.pipeBarrier},
                    {"event_ids", ids}};
}

// The report's top-level `simulation`: the run as a whole, summed over the
// kernels (they run one after the other). Everything said of one kernel (its
// blocks, tensors, allocations, race and error lists) is in that kernel's
// `kernels[].simulation` only.
json combinedSimulation(const std::vector<json>& sims) {
  json top = sims.front();
  for (size_t i = 1; i < sims.size(); ++i) {
    for (const char* key :
         {"cycles", "lower_bound", "fill_drain_bound", "races", "flag_errors", "capacity_errors",
          "runtime_errors", "flag_stall", "barrier_stall", "instructions"})
      top[key] = top[key].get<int64_t>() + sims[i][key].get<int64_t>();
    top["outputs_match"] = top["outputs_match"].get<bool>() && sims[i]["outputs_match"].get<bool>();
    top["pass"] = top["pass"].get<bool>() && sims[i]["pass"].get<bool>();
    top["trace_truncated"] =
        top["trace_truncated"].get<bool>() || sims[i]["trace_truncated"].get<bool>();
    for (auto& [pipe, v] : top["pipes"].items())
      for (const char* key : {"busy", "instructions", "flag_stall", "barrier_stall"})
        v[key] = v[key].get<int64_t>() + sims[i]["pipes"][pipe][key].get<int64_t>();
  }
  int64_t cycles = top["cycles"].get<int64_t>();
  top["efficiency"] = cycles ? top["lower_bound"].get<double>() / static_cast<double>(cycles) : 0.0;
  top["fill_drain_efficiency"] =
      cycles ? top["fill_drain_bound"].get<double>() / static_cast<double>(cycles) : 0.0;
  for (const char* perKernel :
       {"fill_drain", "race_reports", "errors", "blocks", "tensors", "allocations", "grid", "cores",
        "waves", "sampled_blocks", "start_cycle", "launch"})
    top.erase(perKernel);
  top["kernels"] = sims.size();
  int64_t busiest = 0;
  for (auto& [pipe, v] : top["pipes"].items()) {
    v["utilization"] = cycles ? v["busy"].get<double>() / static_cast<double>(cycles) : 0.0;
    if (v["busy"].get<int64_t>() > busiest)
      busiest = v["busy"].get<int64_t>(), top["bottleneck"] = pipe;
  }
  return top;
}

}  // namespace tilesched::report
