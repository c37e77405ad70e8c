#include "report/Report.h"
#include "report/ExplainReport.h"

#include "Version.h"
#include "ir/Functor.h"
#include "ir/IROperator.h"
#include "ir/Printer.h"
#include "schedule/Memory.h"

namespace tilesched::report {

using nlohmann::json;
using namespace ir;

namespace {

json shapeJson(const std::vector<Expr>& shape) {
  json out = json::array();
  for (const auto& d : shape) {
    if (auto c = asConstInt(d))
      out.push_back(*c);
    else
      out.push_back(printExpr(d));
  }
  return out;
}

}  // namespace

json bufferReport(const Kernel& k, const Buffer& b) {
  json j;
  j["name"] = b->name;
  j["scope"] = std::string(memScopeName(b->storage->scope));
  j["dtype"] = std::string(dtypeName(b->dtype));
  j["shape"] = shapeJson(b->shape);
  if (b->storage->bytes > 0)
    j["bytes"] = b->storage->bytes;
  else
    j["bytes"] = nullptr;
  j["alias_of"] = b->isAlias ? json(b->storage->name) : json(nullptr);
  bool manual = false;
  for (const auto& m : k.annotations.manual) manual |= m.storage == b->storage;
  j["manual"] = manual;
  // Filled by the ownership analysis and the scheduler.
  j["eligible"] = nullptr;
  j["versions"] = nullptr;
  j["source"] = nullptr;
  j["mode"] = nullptr;
  j["owner_loops"] = nullptr;
  return j;
}

json kernelReport(const Kernel& k, const std::string& file, const Target& target) {
  json j;
  j["name"] = k.displayName();
  j["func"] = k.name;
  j["file"] = file;
  j["line"] = k.loc.line;
  j["grid"] = k.grid;
  // Launch order within the prim_func (`func` is main, main_1, ... per launch):
  // the launches run one after another on shared global memory.
  j["prim_func"] = k.primFuncName();
  j["launch"] = k.launch;
  j["launches"] = k.numLaunches;
  // Global tensors have one copy and no schedule decisions: their own list.
  j["tensors"] = json::array();
  j["buffers"] = json::array();
  for (const auto& b : k.buffers) {
    if (b->storage->scope != MemScope::Global) {
      j["buffers"].push_back(bufferReport(k, b));
      continue;
    }
    json t = bufferReport(k, b);
    for (const char* decided :
         {"scope", "manual", "eligible", "versions", "source", "mode", "owner_loops"})
      t.erase(decided);
    j["tensors"].push_back(t);
  }

  json requested = json::object();
  for (const auto& v : k.annotations.bufferVersions) {
    if (v.count && v.mode)
      requested[v.buffer->name] = json::array({*v.count, std::string(versionModeName(*v.mode))});
    else if (v.count)
      requested[v.buffer->name] = *v.count;
    else
      requested[v.buffer->name] = std::string(versionModeName(v.mode.value_or(VersionMode::Auto)));
  }
  json manual = json::object();
  for (const auto& m : k.annotations.manual) manual[m.buffer->name] = m.ring;
  json unlimited = json::array();
  for (auto s : k.annotations.unlimited) unlimited.push_back(std::string(memScopeName(s)));
  j["annotations"] = {{"buffer_versions", nullptr},
                      {"requested_buffer_versions", requested},
                      {"manual_multi_buffer", manual},
                      {"unlimit_memory", unlimited}};

  j["loops"] = json::array();
  forEachStmt(k.body, [&](const Stmt& s) {
    const auto* f = as<ForStmt>(s);
    if (!f || !f->isPipelined()) return;
    j["loops"].push_back({{"var", f->var->name},
                          {"line", f->loc.line},
                          {"num_stages", f->numStages},
                          {"enable_offset", f->enableOffset},
                          {"ii", nullptr},
                          {"ii_lower_bound", nullptr},
                          {"proven_optimal", nullptr},
                          {"max_stage", nullptr},
                          {"solve_ms", nullptr},
                          {"fallback", nullptr}});
  });
  j["sync"] = nullptr;

  // Memory at one version per storage, after alignment (the scheduler refines it).
  json memory = json::object();
  for (MemScope scope : kCapacityScopes) {
    int64_t used = 0;
    for (const auto& st : k.storages)
      if (st->scope == scope) used += schedule::alignedVersionBytes(st, target);
    bool unlimited = false;
    for (auto u : k.annotations.unlimited) unlimited |= u == scope;
    memory[std::string(memScopeName(scope))] = {{"capacity", *target.capacity(scope, k.hasSimtVF)},
                                                {"used", used},
                                                {"unlimited", unlimited}};
  }
  j["memory"] = memory;
  return j;
}

json diagnosticsReport(const DiagnosticEngine& diags) {
  json out = json::array();
  for (const auto& d : diags.all()) {
    json j;
    j["severity"] = d.severity == Severity::Error     ? "error"
                    : d.severity == Severity::Warning ? "warning"
                                                      : "note";
    const SourceFile* file = diags.fileOf(d.loc);
    j["file"] = file ? json(file->path()) : json(nullptr);
    j["line"] = d.loc.valid() ? json(d.loc.line) : json(nullptr);
    j["col"] = d.loc.valid() ? json(d.loc.col) : json(nullptr);
    j["message"] = d.message;
    out.push_back(j);
  }
  return out;
}

void setLoopSchedule(json& loop, const schedule::ListSchedule& ls) {
  loop["ii"] = ls.ii;
  loop["ii_lower_bound"] = ls.iiLowerBound;
  loop["proven_optimal"] = ls.provenOptimal;
  loop["max_stage"] = ls.maxStage;
  loop["solve_ms"] = ls.solveMs;
  loop["fallback"] = ls.fallback;
}

void annotateScheduleReport(json& entry, const Kernel& k, const schedule::KernelSchedule& sched,
                            const Target& target) {
  if (sched.lists.empty()) return;  // not scheduled (e.g. the capacity pre-check failed)
  json loops = json::array();
  forEachStmt(k.body, [&](const Stmt& s) {
    const auto* f = as<ForStmt>(s);
    const schedule::ListSchedule* ls = f ? sched.find(f) : nullptr;
    if (!ls) return;
    json loop = {
        {"var", f->var->name},        {"line", f->loc.line},
        {"num_stages", f->numStages}, {"enable_offset", f->enableOffset},
        {"iteration", ls->makespan},  {"note", ls->note.empty() ? json(nullptr) : json(ls->note)},
        {"starts", ls->start},        {"stages", ls->stage}};
    setLoopSchedule(loop, *ls);
    loops.push_back(loop);
  });
  entry["loops"] = loops;
  if (const schedule::ListSchedule* root = sched.find(nullptr))
    entry["root_schedule"] = {{"makespan", root->ii},
                              {"lower_bound", root->iiLowerBound},
                              {"proven_optimal", root->provenOptimal},
                              {"fallback", root->fallback},
                              {"solve_ms", root->solveMs},
                              {"starts", root->start}};
  for (auto& b : entry["buffers"]) {
    const Buffer* buf = k.findBuffer(b["name"].get<std::string>());
    if (!buf) continue;
    const schedule::StorageDecision* d = sched.find((*buf)->storage);
    if (!d || (*buf)->storage->scope == MemScope::Global) continue;
    b["versions"] = d->versions;
    b["source"] = std::string(schedule::versionSourceName(d->source));
  }
  json written = json::object(), withModes = json::object();
  for (const auto& [st, n] : k.annotations.selectedVersions) {
    written[st->name] = n;
    // The map as it pastes back into the kernel: [count, mode] where the
    // mode must be kept (SPEC §2.1 write-back; issue 17 §3).
    auto mode = k.annotations.writtenBackMode(st, n);
    withModes[st->name] = mode ? json::array({n, std::string(versionModeName(*mode))}) : json(n);
  }
  entry["annotations"]["buffer_versions"] = written;
  entry["annotations"]["buffer_versions_with_modes"] = withModes;
  setMemoryUsed(entry, k, target, [&](const Storage& st) -> std::optional<VersionCount> {
    const schedule::StorageDecision* d = sched.find(st);
    if (!d) return std::nullopt;
    return VersionCount{d->versions, d->source};
  });
}

void setMemoryUsed(json& entry, const Kernel& k, const Target& target,
                   const std::function<std::optional<VersionCount>(const Storage&)>& decision) {
  for (MemScope scope : kCapacityScopes) {
    int64_t used = 0;
    for (const auto& st : k.storages) {
      if (st->scope != scope) continue;
      std::optional<VersionCount> d = decision(st);
      bool manual = d && d->source == schedule::VersionSource::Manual;
      used += schedule::alignedVersionBytes(st, target) * (d && !manual ? d->versions : 1);
    }
    entry["memory"][std::string(memScopeName(scope))]["used"] = used;
  }
}

json compileReport(const Program* program, const std::string& file, const Target* target,
                   const DiagnosticEngine& diags,
                   const std::vector<analysis::KernelAnalysis>* analyses,
                   const std::vector<schedule::KernelSchedule>* schedules) {
  json j;
  j["schema_version"] = kReportSchemaVersion;
  j["tool"] = "tilesched";
  j["version"] = TILESCHED_VERSION;
  j["target"] = target ? json(target->name) : json(nullptr);
  j["kernels"] = json::array();
  if (program && target) {
    for (size_t i = 0; i < program->kernels.size(); ++i) {
      json entry = kernelReport(program->kernels[i], file, *target);
      if (schedules && i < schedules->size())
        annotateScheduleReport(entry, program->kernels[i], (*schedules)[i], *target);
      if (analyses && i < analyses->size()) analysis::annotateKernelReport(entry, (*analyses)[i]);
      if (analyses && schedules && i < analyses->size() && i < schedules->size())
        annotateExplanations(entry, program->kernels[i], (*analyses)[i], (*schedules)[i], *target);
      j["kernels"].push_back(std::move(entry));
    }
  }
  j["diagnostics"] = diagnosticsReport(diags);
  return j;
}

}  // namespace tilesched::report
