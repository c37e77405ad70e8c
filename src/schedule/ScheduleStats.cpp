// The scheduler's counters as text (see ScheduleStats.h).
#include "schedule/ScheduleStats.h"

#include <fmt/format.h>

namespace tilesched::schedule {

std::string printScheduleStats(const ir::Kernel& kernel, const KernelSchedule& schedule) {
  std::string out = fmt::format("# scheduler stats of {}\n",
                                kernel.factory.empty() ? kernel.name : kernel.factory);
  int checks = 0, unknown = 0, fallbacks = 0, unproven = 0;
  double ms = 0, cpu = 0;
  for (const auto& l : schedule.lists) {
    const SolveStats& s = l.stats;
    std::string name = l.loop
                           ? fmt::format("loop {} (line {})", l.loop->var->name, l.loop->loc.line)
                           : std::string("kernel root");
    out += fmt::format(
        "{}: {} checks ({} sat, {} unsat, {} unknown), {}{}, {:.1f} ms (II search {:.1f}, "
        "refine {:.1f}; cpu {:.1f})\n",
        name, s.checks, s.sat, s.unsat, s.unknown, l.provenOptimal ? "proven" : "not proven",
        l.fallback ? ", fallback" : "", l.solveMs, s.iiSearchMs, s.refineMs, s.cpuMs);
    checks += s.checks;
    unknown += s.unknown;
    fallbacks += l.fallback;
    unproven += !l.provenOptimal;
    ms += l.solveMs;
    cpu += s.cpuMs;
  }
  out += fmt::format(
      "total: {} lists, {} checks, {} unknown, {} fallbacks, {} not proven, {:.1f} ms (cpu "
      "{:.1f})\n",
      schedule.lists.size(), checks, unknown, fallbacks, unproven, ms, cpu);
  return out;
}

}  // namespace tilesched::schedule
