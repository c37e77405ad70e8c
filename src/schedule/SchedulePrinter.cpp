// The schedule listing (see SchedulePrinter.h).
#include "schedule/SchedulePrinter.h"

#include <fmt/format.h>

#include "ir/Printer.h"

namespace tilesched::schedule {

namespace {

std::string firstLine(const std::string& text) {
  auto nl = text.find('\n');
  std::string line = nl == std::string::npos ? text : text.substr(0, nl);
  while (!line.empty() && line.front() == ' ') line.erase(line.begin());
  auto comment = line.find("  # ");
  if (comment != std::string::npos) line.erase(comment);
  return line;
}

std::string header(const ListSchedule& s) {
  if (!s.loop)
    return fmt::format("# kernel root: makespan {} (lower bound {}{}){}, {:.1f} ms", s.ii,
                       s.iiLowerBound, s.provenOptimal ? ", proven optimal" : "",
                       s.fallback ? ", list-schedule fallback" : "", s.solveMs);
  return fmt::format(
      "# loop {} (line {}): II {}, lower bound {}, {}, max stage {}, iteration {} cycles, "
      "enable_offset {}{}, {:.1f} ms",
      s.loop->var->name, s.loop->loc.line, s.ii, s.iiLowerBound,
      s.provenOptimal ? "proven optimal" : "not proven optimal", s.maxStage, s.makespan,
      s.enableOffset ? "true" : "false", s.fallback ? ", list-schedule fallback" : "", s.solveMs);
}

}  // namespace

std::string printSchedule(const ir::Kernel& kernel, const analysis::KernelAnalysis& analysis,
                          const KernelSchedule& schedule) {
  std::string out = ir::printKernel(kernel);
  out += fmt::format("\n# schedule of {}\n", kernel.displayName());
  for (const ListSchedule& s : schedule.lists) {
    const analysis::UnitList* list = s.loop ? analysis.findLoop(s.loop) : &analysis.root;
    out += header(s) + "\n";
    if (!s.note.empty()) out += "#   " + s.note + "\n";
    if (!list) continue;
    for (size_t i = 0; i < list->units.size() && i < s.start.size(); ++i) {
      const analysis::Unit& u = list->units[i];
      std::string stmt = firstLine(ir::printStmt(u.stmt));
      out += fmt::format("{:<60}  # unit {}  {}  stage {}  start {}\n", stmt, i,
                         analysis::pipeMaskName(u.pipeMask), s.stage[i], s.start[i]);
    }
    out += "\n";
  }
  std::string versions;
  for (const StorageDecision& d : schedule.storages) {
    // A global tensor always has one copy; listing it only hides the buffers
    // whose count the scheduler chose.
    if (d.storage->scope == MemScope::Global) continue;
    versions += fmt::format("{}{} {} ({}, bound {})", versions.empty() ? "" : ", ", d.storage->name,
                            d.versions, versionSourceName(d.source), d.bound);
  }
  out += "# versions: " + versions + "\n";
  return out;
}

}  // namespace tilesched::schedule
