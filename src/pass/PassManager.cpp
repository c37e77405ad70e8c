// Runs pipelines with their instrumentation (see PassManager.h).
#include "pass/PassManager.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ostream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ir/Printer.h"
#include "ir/Verifier.h"

namespace tilesched::pass {

namespace {

double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

bool verifyEachByDefault() {
#ifndef NDEBUG
  return true;
#else
  const char* env = std::getenv("TILESCHED_VERIFY_EACH");
  return env && std::string_view(env) == "1";
#endif
}

std::string checkPrintAfter(const std::string& printAfter,
                            std::span<const std::string_view> pipeline) {
  if (printAfter.empty() || printAfter == "all") return "";
  for (std::string_view p : pipeline)
    if (printAfter == p) return "";
  return fmt::format("unknown pass '{}' for --print-after; use all or one of: {}", printAfter,
                     fmt::join(pipeline, ", "));
}

PassManager::PassManager(std::span<const std::string_view> pipeline,
                         Instrumentation instrumentation, std::ostream& out, std::string fileName)
    : instrumentation_(std::move(instrumentation)), out_(out), fileName_(std::move(fileName)) {
  for (std::string_view name : pipeline) {
    const Pass* p = findPass(name);
    TS_INTERNAL(p, fmt::format("the pipeline names the unregistered pass '{}'", name));
    passes_.push_back(p);
  }
}

bool PassManager::run(PipelineState& state) {
  for (size_t i = 0; i < passes_.size();) {
    const Pass& pass = *passes_[i];
    if (pass.scope == PassScope::Program) {
      if (!runProgramPass(pass, state)) return false;
      ++i;
      continue;
    }
    size_t end = i;
    while (end < passes_.size() && passes_[end]->scope == PassScope::Kernel) ++end;
    if (!runKernelGroup(std::span(passes_).subspan(i, end - i), state)) return false;
    i = end;
  }
  return true;
}

bool PassManager::runProgramPass(const Pass& pass, PipelineState& state) {
  if (beforePass_) beforePass_(pass, state);
  std::vector<std::string> before;
  if (printing(pass))
    for (size_t k = 0; k < state.numKernels(); ++k)
      before.push_back(ir::printKernel(state.kernelIR(k), fileName_));
  auto start = std::chrono::steady_clock::now();
  bool ok = pass.runProgram(state);
  record(pass, msSince(start));
  for (size_t k = 0; k < state.numKernels(); ++k) ran_.push_back({&pass, k});
  if (printing(pass) && state.program) {
    std::vector<std::pair<std::string, std::string>> texts;
    for (size_t k = 0; k < state.numKernels(); ++k)
      texts.push_back(
          {k < before.size() ? before[k] : "", ir::printKernel(state.kernelIR(k), fileName_)});
    printAfter(pass, texts);
  }
  if (ok)
    for (size_t k = 0; k < state.numKernels(); ++k) verify(pass, state, k);
  return ok;
}

bool PassManager::runKernelGroup(std::span<const Pass* const> group, PipelineState& state) {
  bool allOk = true;
  for (size_t k = 0; k < state.numKernels(); ++k) {
    for (const Pass* pass : group) {
      if (beforePass_) beforePass_(*pass, state);
      std::string before = printing(*pass) ? ir::printKernel(state.kernelIR(k), fileName_) : "";
      auto start = std::chrono::steady_clock::now();
      bool ok = pass->runKernel(state, k);
      record(*pass, msSince(start));
      ran_.push_back({pass, k});
      if (printing(*pass))
        printAfter(*pass, {{before, ir::printKernel(state.kernelIR(k), fileName_)}});
      if (!ok) {
        allOk = false;
        break;
      }
      verify(*pass, state, k);
    }
  }
  return allOk;
}

void PassManager::record(const Pass& pass, double ms) {
  // One line per pass: a kernel pass adds up over the kernels.
  auto same = std::find_if(times_.begin(), times_.end(),
                           [&](const auto& entry) { return entry.first == pass.name; });
  if (same == times_.end())
    times_.push_back({pass.name, ms});
  else
    same->second += ms;
}

bool PassManager::printing(const Pass& pass) const {
  const std::string& which = instrumentation_.printAfter;
  if (which.empty()) return instrumentation_.printAfterChange;
  return which == "all" || which == pass.name;
}

void PassManager::printAfter(const Pass& pass,
                             const std::vector<std::pair<std::string, std::string>>& texts) {
  bool anyChanged = false;
  for (const auto& [before, after] : texts) {
    if (before == after) continue;
    anyChanged = true;
    out_ << "# ---- IR after " << pass.name << " ----\n" << after;
  }
  if (!anyChanged && !instrumentation_.printAfterChange)
    out_ << "# ---- IR after " << pass.name << " ----\n# (unchanged)\n";
}

void PassManager::verify(const Pass& pass, const PipelineState& state, size_t kernel) const {
  if (!instrumentation_.verifyEach || !pass.verifiable || kernel >= state.numKernels()) return;
  auto problems = ir::verifyKernel(state.kernelIR(kernel));
  TS_INTERNAL(problems.empty(), fmt::format("the IR of '{}' after pass '{}' does not verify: {}",
                                            state.sourceKernel(kernel).displayName(), pass.name,
                                            problems.empty() ? std::string() : problems.front()));
}

std::string PassManager::timesText() const {
  if (!instrumentation_.timePasses) return "";
  std::string text = "  pass timings (ms):\n";
  for (const auto& [name, ms] : times_) text += fmt::format("    {:<24} {:>10.2f}\n", name, ms);
  return text + fmt::format("    {:<24} {:>10.2f}\n", "total", totalMs());
}

std::string PassManager::statsText(const PipelineState& state) const {
  if (!instrumentation_.stats) return "";
  std::string text;
  for (const auto& [pass, kernel] : ran_)
    if (pass->stats && kernel < state.numKernels()) text += pass->stats(state, kernel);
  return text;
}

double PassManager::msOf(std::string_view name) const {
  for (const auto& [pass, ms] : times_)
    if (pass == name) return ms;
  return 0;
}

double PassManager::totalMs() const {
  double total = 0;
  for (const auto& [name, ms] : times_) total += ms;
  return total;
}

}  // namespace tilesched::pass
