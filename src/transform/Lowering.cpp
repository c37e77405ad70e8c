// The lowering pipeline (see Lowering.h).
#include "transform/Lowering.h"

#include <chrono>

#include <algorithm>

#include <fmt/format.h>

#include "ir/Functor.h"
#include "transform/LoweredVerifier.h"
#include "transform/Materialize.h"
#include "transform/SyncInsertion.h"
#include "transform/VersionModes.h"

namespace tilesched::transform {

using namespace ir;

namespace {

const StmtNode* firstAuthorSync(const Stmt& body) {
  const StmtNode* first = nullptr;
  forEachStmt(body, [&](const Stmt& s) {
    if (!first && (s->kind == StmtKind::SetFlag || s->kind == StmtKind::WaitFlag ||
                   s->kind == StmtKind::Barrier))
      first = s.get();
  });
  return first;
}

}  // namespace

std::optional<LoweredKernel> lowerKernel(const Kernel& kernel,
                                         const analysis::KernelAnalysis& analysis,
                                         const schedule::KernelSchedule& schedule,
                                         const Target& target, DiagnosticEngine& diags,
                                         const AfterPass& afterPass) {
  auto clock = std::chrono::steady_clock::now();
  auto after = [&](std::string_view pass, const Kernel& k) {
    auto now = std::chrono::steady_clock::now();
    double ms = std::chrono::duration<double, std::milli>(now - clock).count();
    if (afterPass) afterPass(pass, k, ms);
    clock = std::chrono::steady_clock::now();
  };
  size_t errors = diags.numErrors();
  if (const StmtNode* sync = firstAuthorSync(kernel.body))
    diags.warning(sync->loc,
                  "the scheduled lowering replaces the kernel's own set_flag / wait_flag / "
                  "pipe_barrier / buffer-lock statements with the synchronisation it derives "
                  "(first one here); "
                  "--schedule as-written simulates the kernel's own");
  LoweredKernel out;
  out.schedule = schedule;
  out.plan = chooseVersionModes(kernel, analysis, schedule, diags);
  if (diags.numErrors() > errors) return std::nullopt;
  after("version-modes", kernel);
  Kernel versioned = materializeVersions(kernel, out.plan);
  after("materialize-versions", versioned);
  out.kernel =
      insertSynchronization(versioned, analysis, schedule, out.plan, target, diags, out.sync);
  out.kernel.annotations.selectedVersions.clear();
  for (size_t i = 0; i < out.plan.storages.size(); ++i) {
    const auto& sl = out.plan.storages[i];
    if (sl.source == schedule::VersionSource::Ineligible ||
        sl.source == schedule::VersionSource::Manual)
      continue;
    out.kernel.annotations.selectedVersions.push_back({out.kernel.storages[i], sl.versions});
  }
  after("insert-synchronization", out.kernel);
  auto problems = verifyLoweredSync(out.kernel, target.eventIdsPerHardEvent);
  TS_INTERNAL(problems.empty(), "the lowering produced illegal synchronisation: " +
                                    (problems.empty() ? std::string() : problems.front()));
  after("verify-lowered-sync", out.kernel);
  return out;
}

schedule::KernelSchedule uniformSchedule(const Kernel& kernel,
                                         const analysis::KernelAnalysis& analysis, int64_t versions,
                                         const Target& target, DiagnosticEngine& diags) {
  schedule::KernelSchedule s;
  std::map<MemScope, int64_t> needed;
  for (const auto& st : kernel.storages) {
    schedule::StorageDecision d;
    d.storage = st;
    const auto* own = analysis.ownership.find(st);
    if (own && own->manual) {
      d.source = schedule::VersionSource::Manual;
      d.versions = own->ring;
    } else if (own && own->optOut) {
      d.source = schedule::VersionSource::OptOut;
    } else if (own && own->eligible) {
      d.source = schedule::VersionSource::Fixed;
      d.versions = versions;
      d.bound = own->versionBound;
    }
    int64_t copies = d.source == schedule::VersionSource::Manual ? 1 : d.versions;
    needed[st->scope] += copies * st->bytes;
    s.storages.push_back(d);
  }
  for (const auto& [scope, bytes] : needed) {
    auto cap = target.capacity(scope, kernel.hasSimtVF);
    // The hardware's capacity: T.annotate_unlimit_memory lifts the solver's
    // limit only, and a baseline must run on the real core.
    if (!cap || bytes <= *cap) continue;
    diags.error(kernel.kernelLoc.valid() ? kernel.kernelLoc : kernel.loc,
                fmt::format("{} version{} of every eligible buffer need {} bytes of {}, more than "
                            "the {} bytes of {}; use --schedule none or fewer versions",
                            versions, versions == 1 ? "" : "s", bytes, memScopeName(scope), *cap,
                            target.name));
  }
  return s;
}

}  // namespace tilesched::transform
