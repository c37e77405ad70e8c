// --print-after and --time-passes (see PassLog.h).
#include "driver/PassLog.h"

#include <algorithm>
#include <ostream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ir/Printer.h"

namespace tilesched::driver {

void PassLog::after(std::string_view pass, double ms, const ir::Kernel* changed) {
  // One line per pass: a per-kernel pass adds up over the kernels.
  auto same = std::find_if(times_.begin(), times_.end(),
                           [&](const auto& entry) { return entry.first == pass; });
  if (same == times_.end())
    times_.push_back({std::string(pass), ms});
  else
    same->second += ms;
  if (printAfter_ != "all" && printAfter_ != pass) return;
  out_ << "# ---- IR after " << pass << " ----\n";
  if (changed)
    out_ << ir::printKernel(*changed, file_);
  else
    out_ << "# (unchanged)\n";
}

void PassLog::afterProgram(std::string_view pass, double ms,
                           const std::vector<ir::Kernel>& kernels) {
  for (const auto& k : kernels) after(pass, &k == &kernels.front() ? ms : 0.0, &k);
}

void PassLog::printTimes() const {
  if (!timePasses_) return;
  double total = 0;
  for (const auto& [name, ms] : times_) total += ms;
  out_ << "  pass timings (ms):\n";
  for (const auto& [name, ms] : times_) out_ << fmt::format("    {:<24} {:>10.2f}\n", name, ms);
  out_ << fmt::format("    {:<24} {:>10.2f}\n", "total", total);
}

std::string checkPrintAfter(const std::string& printAfter,
                            std::span<const std::string_view> passes) {
  if (printAfter.empty() || printAfter == "all") return "";
  for (std::string_view p : passes)
    if (printAfter == p) return "";
  return fmt::format("unknown pass '{}' for --print-after; use all or one of: {}", printAfter,
                     fmt::join(passes, ", "));
}

double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace tilesched::driver
