// The progress line (see ProgressLine.h).
#include "driver/ProgressLine.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <mutex>

namespace tilesched::driver {

namespace {

using Clock = std::chrono::steady_clock;

struct Printer {
  std::ostream* err = nullptr;
  double afterMs = 2000;
  std::mutex mutex;
  Clock::time_point start, lastPrint;
  bool printed = false, ended = false;
  size_t width = 0;

  void operator()(const std::string& launch, int64_t reference, int64_t simulated, int64_t total) {
    std::lock_guard<std::mutex> lock(mutex);
    auto now = Clock::now();
    if (reference == 0 && simulated == 0) {  // a launch starts
      start = lastPrint = now;
      printed = ended = false;
      return;
    }
    if (ended) return;  // both reached the total before the launch's last call
    double ms = std::chrono::duration<double, std::milli>(now - start).count();
    bool finished = reference == total && simulated == total;
    bool due = ms >= afterMs &&
               (!printed || finished ||
                std::chrono::duration<double, std::milli>(now - lastPrint).count() >= 200);
    if (due) {
      std::string line = fmt::format("{}: reference {}/{} blocks, simulated {}/{}, {:.1f} s",
                                     launch, reference, total, simulated, total, ms / 1000);
      size_t pad = width > line.size() ? width - line.size() : 0;
      width = line.size();
      *err << '\r' << line << std::string(pad, ' ') << std::flush;
      printed = true;
      lastPrint = now;
    }
    if (finished) {
      if (printed) *err << '\n' << std::flush;
      ended = true;
      width = 0;
    }
  }
};

}  // namespace

ProgressCallback progressLine(std::ostream& err) {
  const char* forced = std::getenv("TILESCHED_PROGRESS");
  bool wanted = (forced && std::string(forced) == "1") || (&err == &std::cerr && isatty(2));
  if (!wanted) return {};
  auto printer = std::make_shared<Printer>();
  printer->err = &err;
  if (const char* after = std::getenv("TILESCHED_PROGRESS_AFTER_MS"))
    printer->afterMs = std::atof(after);
  return [printer](const std::string& launch, int64_t reference, int64_t simulated, int64_t total) {
    (*printer)(launch, reference, simulated, total);
  };
}

}  // namespace tilesched::driver
