// `tilesched opt` (see OptCommand.h).
#include "driver/OptCommand.h"

#include <ostream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "driver/Driver.h"
#include "ir/Printer.h"
#include "support/Diagnostics.h"

namespace tilesched::driver {

namespace {

std::string registeredNames() {
  std::vector<std::string_view> names;
  for (const pass::Pass& p : pass::registry()) names.push_back(p.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

size_t registryIndex(const pass::Pass* p) {
  return static_cast<size_t>(p - pass::registry().data());
}

}  // namespace

std::vector<std::string_view> parsePassList(const std::string& list, std::string& error) {
  std::vector<const pass::Pass*> passes{pass::findPass("elaborate")};
  size_t at = 0;
  while (at <= list.size()) {
    size_t comma = std::min(list.find(',', at), list.size());
    std::string name = list.substr(at, comma - at);
    at = comma + 1;
    name.erase(0, name.find_first_not_of(' '));
    name.erase(name.find_last_not_of(' ') + 1);
    if (name.empty()) {
      error = "--passes expects a comma-separated list of passes (" + registeredNames() + ")";
      return {};
    }
    const pass::Pass* p = pass::findPass(name);
    if (!p) {
      std::vector<std::string> names;
      for (const pass::Pass& r : pass::registry()) names.emplace_back(r.name);
      std::string near = nearestName(name, names);
      error = fmt::format("unknown pass '{}' for --passes{}; registered: {}", name,
                          near.empty() ? "" : " (did you mean '" + near + "'?)", registeredNames());
      return {};
    }
    if (p->name == "simulate") {
      error = "opt prints the IR the passes leave; to simulate it, use `tilesched run`";
      return {};
    }
    if (p->name == "elaborate" && passes.size() == 1) continue;  // named or not, it runs first
    if (registryIndex(p) <= registryIndex(passes.back())) {
      error = fmt::format(
          "--passes: '{}' cannot come after '{}'; passes run in the order of the "
          "registry (tilesched --help)",
          p->name, passes.back()->name);
      return {};
    }
    passes.push_back(p);
  }
  std::vector<std::string_view> names;
  for (const pass::Pass* p : passes) {
    bool found = p->needs.empty();
    for (std::string_view n : names) found |= n == p->needs;
    if (!found) {
      error = fmt::format("--passes: '{}' needs '{}' before it", p->name, p->needs);
      return {};
    }
    names.push_back(p->name);
  }
  return names;
}

int runOptCommand(const OptOptions& o, std::ostream& out, std::ostream& err) {
  auto usage = [&](const std::string& msg) {
    err << "tilesched: error: " << msg << "\n";
    return kExitUsage;
  };
  std::string error;
  auto pipeline = parsePassList(o.passes, error);
  if (pipeline.empty()) return usage(error);
  if (o.schedule != "auto" && o.schedule != "none" && o.schedule != "double")
    return usage(
        fmt::format("unknown --schedule '{}' for opt; use auto, none or double", o.schedule));
  if (std::string msg = pass::checkPrintAfter(o.instrumentation.printAfter, pipeline); !msg.empty())
    return usage(msg);
  if (!o.scheduleFile.empty() && o.schedule != "auto")
    return usage(fmt::format("--schedule-file gives the schedule; drop --schedule {}", o.schedule));
  OpenedKernel kernel;
  if (std::string msg = openKernel(o.file, o.defines, o.func, o.target, kernel); !msg.empty())
    return usage(msg);
  pass::PassOptions po;
  po.frontend = kernel.frontend;
  po.rule = pass::scheduleRuleOf(o.schedule);
  if (!o.scheduleFile.empty()) {
    po.rule = pass::ScheduleRule::File;
    po.scheduleFile = o.scheduleFile;
    if (std::string error; !readKernelFile(o.scheduleFile, po.scheduleText, error))
      return usage(error);
  }
  po.solver.solverTimeoutMs = o.solverTimeoutMs;
  // As `compile`: the IR after `schedule` states the versions it chose.
  po.writeBackVersions = true;
  pass::PipelineState state(kernel.file, *kernel.target, po);
  pass::PassManager passes(pipeline, o.instrumentation, out, o.file);
  bool ok = passes.run(state);
  err << state.diags.renderAll();
  if (!ok) {
    err << errorsGenerated(state.diags);
    return kExitCompileError;
  }
  err << passes.statsText(state);
  out << "import tilelang.language as T\n\n";
  for (size_t k = 0; k < state.numKernels(); ++k)
    out << (k ? "\n" : "") << ir::printKernel(state.kernelIR(k), o.file);
  out << passes.timesText();
  return kExitOk;
}

}  // namespace tilesched::driver
