// Target file loader and validator (schema in docs/targets.md).
//
// Assumes: nothing about the input text.
// Guarantees: either a complete Target or every problem found, one line each,
// as "<file>: field '<json.path>' <what is wrong>" (or "missing field",
// "unknown field", "malformed JSON: <position>"). Keys starting with '_' are
// comments and ignored everywhere; any other unknown key is an error so typos
// never pass silently.
#include "target/Target.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <sstream>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "Version.h"

namespace tilesched {

namespace {

using nlohmann::json;

constexpr int64_t kFormatVersion = 1;
// Rates above this are typos; the bound also keeps arithmetic far from overflow.
constexpr double kMaxRate = 1e9;

std::string joinPath(const std::string& parent, std::string_view key) {
  if (parent.empty()) return std::string(key);
  return parent + "." + std::string(key);
}

std::string indexPath(const std::string& parent, size_t i) {
  return fmt::format("{}[{}]", parent, i);
}

enum class Bound { Positive, NonNegative };

// Walks the JSON document, converting fields and collecting every error.
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  const std::vector<std::string>& errors() const { return errors_; }

  void fieldError(const std::string& path, const std::string& what) {
    errors_.push_back(fmt::format("{}: field '{}' {}", file_, path, what));
  }
  void fileError(const std::string& what) { errors_.push_back(fmt::format("{}: {}", file_, what)); }

  // The member `key` of `obj` (at `objPath`), reporting it when missing.
  const json* member(const json& obj, const std::string& objPath, std::string_view key) {
    auto it = obj.find(key);
    if (it == obj.end()) {
      errors_.push_back(fmt::format("{}: missing field '{}'", file_, joinPath(objPath, key)));
      return nullptr;
    }
    return &*it;
  }

  const json* object(const json& obj, const std::string& objPath, std::string_view key) {
    const json* v = member(obj, objPath, key);
    if (!v) return nullptr;
    if (!v->is_object()) {
      typeError(joinPath(objPath, key), "an object", *v);
      return nullptr;
    }
    return v;
  }

  const json* array(const json& obj, const std::string& objPath, std::string_view key) {
    const json* v = member(obj, objPath, key);
    if (!v) return nullptr;
    if (!v->is_array()) {
      typeError(joinPath(objPath, key), "an array", *v);
      return nullptr;
    }
    return v;
  }

  std::optional<std::string> string(const json& obj, const std::string& objPath,
                                    std::string_view key, bool nonEmpty) {
    const json* v = member(obj, objPath, key);
    if (!v) return std::nullopt;
    if (!v->is_string()) {
      typeError(joinPath(objPath, key), "a string", *v);
      return std::nullopt;
    }
    std::string s = v->get<std::string>();
    if (nonEmpty && s.empty()) {
      fieldError(joinPath(objPath, key), "must be a non-empty string");
      return std::nullopt;
    }
    return s;
  }

  std::optional<bool> boolean(const json& obj, const std::string& objPath, std::string_view key) {
    const json* v = member(obj, objPath, key);
    if (!v) return std::nullopt;
    if (!v->is_boolean()) {
      typeError(joinPath(objPath, key), "a boolean (true or false)", *v);
      return std::nullopt;
    }
    return v->get<bool>();
  }

  std::optional<int64_t> integerValue(const json& v, const std::string& path, Bound bound) {
    const char* expected =
        bound == Bound::Positive ? "a positive integer" : "a non-negative integer";
    if (!v.is_number_integer()) {
      typeError(path, expected, v);
      return std::nullopt;
    }
    if (v.is_number_unsigned() &&
        v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      fieldError(path, fmt::format("must be {}, got {} (out of range)", expected, v.dump()));
      return std::nullopt;
    }
    int64_t x = v.get<int64_t>();
    bool ok = bound == Bound::Positive ? x > 0 : x >= 0;
    if (!ok) {
      fieldError(path, fmt::format("must be {}, got {}", expected, x));
      return std::nullopt;
    }
    return x;
  }

  std::optional<int64_t> integer(const json& obj, const std::string& objPath, std::string_view key,
                                 Bound bound) {
    const json* v = member(obj, objPath, key);
    if (!v) return std::nullopt;
    return integerValue(*v, joinPath(objPath, key), bound);
  }

  // A positive number with at most three decimals, e.g. 58.6.
  std::optional<Rate> rate(const json& obj, const std::string& objPath, std::string_view key) {
    const json* v = member(obj, objPath, key);
    if (!v) return std::nullopt;
    std::string path = joinPath(objPath, key);
    const char* expected = "a positive number with at most 3 decimals";
    if (!v->is_number()) {
      typeError(path, expected, *v);
      return std::nullopt;
    }
    double x = v->get<double>();
    if (!(x > 0) || !std::isfinite(x) || x > kMaxRate) {
      fieldError(path,
                 fmt::format("must be {} (at most {:g}), got {}", expected, kMaxRate, v->dump()));
      return std::nullopt;
    }
    double milli = x * 1000.0;
    double rounded = std::round(milli);
    if (rounded < 1 || std::fabs(milli - rounded) > 1e-6 * std::max(1.0, milli)) {
      fieldError(path, fmt::format("must be {}, got {}", expected, v->dump()));
      return std::nullopt;
    }
    return Rate{static_cast<int64_t>(rounded)};
  }

  // Reports members of `obj` other than `allowed` (keys starting with '_' are comments).
  void knownKeys(const json& obj, const std::string& objPath,
                 std::initializer_list<std::string_view> allowed) {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      const std::string& key = it.key();
      if (isComment(key)) continue;
      bool known = false;
      for (std::string_view a : allowed) known = known || a == key;
      if (known) continue;
      std::string list;
      for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      errors_.push_back(fmt::format("{}: unknown field '{}'; expected one of: {}", file_,
                                    joinPath(objPath, key), list));
    }
  }

  static bool isComment(const std::string& key) { return !key.empty() && key[0] == '_'; }

 private:
  void typeError(const std::string& path, const char* expected, const json& got) {
    fieldError(path, fmt::format("must be {}, got {}", expected, got.type_name()));
  }

  std::string file_;
  std::vector<std::string> errors_;
};

void readPipes(Reader& r, const json& root, Target& t) {
  const json* pipes = r.object(root, "", "pipes");
  if (!pipes) return;
  for (auto it = pipes->begin(); it != pipes->end(); ++it) {
    if (Reader::isComment(it.key()) || parsePipe(it.key())) continue;
    r.fieldError(
        joinPath("pipes", it.key()),
        fmt::format("names an unknown pipe '{}'; expected one of: {}", it.key(), allPipeNames()));
  }
  for (Pipe p : kAllPipes) {
    std::string path = joinPath("pipes", pipeName(p));
    const json* obj = r.object(*pipes, "pipes", pipeName(p));
    if (!obj) continue;
    r.knownKeys(*obj, path, {"in_order_completion", "queue_depth"});
    PipeProps& props = t.pipes[pipeIndex(p)];
    if (auto v = r.boolean(*obj, path, "in_order_completion")) props.inOrderCompletion = *v;
    if (auto v = r.integer(*obj, path, "queue_depth", Bound::Positive)) props.queueDepth = *v;
  }
}

// Reads an object keyed by capacity scope names. `requireAll`: every one of the
// five scopes must be present.
void readScopeTable(Reader& r, const json& root, std::string_view key, bool requireAll,
                    bool powerOfTwo, std::array<int64_t, kNumMemScopes>& out) {
  const json* table = r.object(root, "", key);
  if (!table) return;
  std::string tablePath(key);
  for (auto it = table->begin(); it != table->end(); ++it) {
    if (Reader::isComment(it.key())) continue;
    std::string path = joinPath(tablePath, it.key());
    std::optional<MemScope> scope = parseMemScope(it.key());
    if (!scope) {
      r.fieldError(path, fmt::format("names an unknown scope '{}'; expected one of: {}", it.key(),
                                     capacityScopeNames()));
      continue;
    }
    if (!isCapacityChecked(*scope)) {
      r.fieldError(path, fmt::format("names scope '{}', which has no capacity; expected one of: {}",
                                     it.key(), capacityScopeNames()));
      continue;
    }
    std::optional<int64_t> v = r.integerValue(it.value(), path, Bound::Positive);
    if (!v) continue;
    if (powerOfTwo && (*v & (*v - 1)) != 0) {
      r.fieldError(path, fmt::format("must be a power of two, got {}", *v));
      continue;
    }
    out[memScopeIndex(*scope)] = *v;
  }
  if (!requireAll) return;
  for (MemScope s : kCapacityScopes)
    if (!table->contains(memScopeName(s))) r.member(*table, tablePath, memScopeName(s));
}

void readCopyPath(Reader& r, const json& copy, CopyPath cp, CopyPathParams& out) {
  std::string path = joinPath("cost_model.copy", copyPathName(cp));
  const json* obj = r.object(copy, "cost_model.copy", copyPathName(cp));
  if (!obj) return;
  r.knownKeys(*obj, path, {"pipe", "byte_scale", "latency", "ii", "row_strided"});
  if (auto name = r.string(*obj, path, "pipe", true)) {
    if (auto p = parsePipe(*name))
      out.pipe = *p;
    else
      r.fieldError(joinPath(path, "pipe"), fmt::format("names an unknown pipe '{}'; expected one "
                                                       "of: {}",
                                                       *name, allPipeNames()));
  }
  if (auto v = r.integer(*obj, path, "byte_scale", Bound::Positive)) out.byteScale = *v;

  std::string latPath = joinPath(path, "latency");
  if (const json* lat = r.object(*obj, path, "latency")) {
    r.knownKeys(*lat, latPath, {"base", "bytes_per_cycle"});
    if (auto v = r.integer(*lat, latPath, "base", Bound::NonNegative)) out.latencyBase = *v;
    if (auto v = r.rate(*lat, latPath, "bytes_per_cycle")) out.latencyRate = *v;
  }
  std::string iiPath = joinPath(path, "ii");
  if (const json* ii = r.object(*obj, path, "ii")) {
    r.knownKeys(*ii, iiPath, {"base", "bytes_per_cycle", "min"});
    if (auto v = r.integer(*ii, iiPath, "base", Bound::NonNegative)) out.iiBase = *v;
    if (auto v = r.rate(*ii, iiPath, "bytes_per_cycle")) out.iiRate = *v;
    if (auto v = r.integer(*ii, iiPath, "min", Bound::Positive)) out.iiMin = *v;
  }

  // Optional: absent or [] means strided copies cost the same as contiguous ones.
  if (!obj->contains("row_strided")) return;
  std::string tablePath = joinPath(path, "row_strided");
  const json* table = r.array(*obj, path, "row_strided");
  if (!table) return;
  for (size_t i = 0; i < table->size(); ++i) {
    std::string bandPath = indexPath(tablePath, i);
    const json& entry = (*table)[i];
    if (!entry.is_object()) {
      r.fieldError(bandPath, fmt::format("must be an object, got {}", entry.type_name()));
      continue;
    }
    r.knownKeys(entry, bandPath, {"min_row_bytes", "latency_base", "bytes_per_cycle"});
    StridedBand band;
    auto minRow = r.integer(entry, bandPath, "min_row_bytes", Bound::NonNegative);
    auto base = r.integer(entry, bandPath, "latency_base", Bound::NonNegative);
    auto bw = r.rate(entry, bandPath, "bytes_per_cycle");
    if (!minRow || !base || !bw) continue;
    band.minRowBytes = *minRow;
    band.latencyBase = *base;
    band.bytesPerCycle = *bw;
    std::string minPath = joinPath(bandPath, "min_row_bytes");
    if (i == 0 && band.minRowBytes != 0) {
      r.fieldError(minPath, fmt::format("must be 0 in the first band (so every row width has a "
                                        "band), got {}",
                                        band.minRowBytes));
      continue;
    }
    if (!out.rowStrided.empty() && band.minRowBytes <= out.rowStrided.back().minRowBytes) {
      r.fieldError(minPath, fmt::format("must be greater than the previous band's ({}), got {}",
                                        out.rowStrided.back().minRowBytes, band.minRowBytes));
      continue;
    }
    out.rowStrided.push_back(band);
  }
}

void readGemm(Reader& r, const json& cost, CostModelParams& out) {
  const std::string path = "cost_model.gemm";
  const json* gemm = r.object(cost, "cost_model", "gemm");
  if (!gemm) return;
  r.knownKeys(*gemm, path, {"mn_align", "fp16", "fp32", "hf32", "int8"});
  if (auto v = r.integer(*gemm, path, "mn_align", Bound::Positive)) out.gemmMNAlign = *v;
  for (DTypeClass c : kAllDTypeClasses) {
    std::string clsPath = joinPath(path, dtypeClassName(c));
    const json* obj = r.object(*gemm, path, dtypeClassName(c));
    if (!obj) continue;
    GemmParams& g = out.gemm[dtypeClassIndex(c)];
    r.knownKeys(*obj, clsPath, {"k_align", "latency", "ii"});
    if (auto v = r.integer(*obj, clsPath, "k_align", Bound::Positive)) g.kAlign = *v;
    std::string latPath = joinPath(clsPath, "latency");
    if (const json* lat = r.object(*obj, clsPath, "latency")) {
      r.knownKeys(*lat, latPath, {"base", "ops_per_cycle"});
      if (auto v = r.integer(*lat, latPath, "base", Bound::NonNegative)) g.latencyBase = *v;
      if (auto v = r.rate(*lat, latPath, "ops_per_cycle")) g.latencyRate = *v;
    }
    std::string iiPath = joinPath(clsPath, "ii");
    if (const json* ii = r.object(*obj, clsPath, "ii")) {
      r.knownKeys(*ii, iiPath, {"base", "ops_per_cycle", "min"});
      if (auto v = r.integer(*ii, iiPath, "base", Bound::NonNegative)) g.iiBase = *v;
      if (auto v = r.rate(*ii, iiPath, "ops_per_cycle")) g.iiRate = *v;
      if (auto v = r.integer(*ii, iiPath, "min", Bound::Positive)) g.iiMin = *v;
    }
  }
}

void readVector(Reader& r, const json& cost, CostModelParams& out) {
  const std::string path = "cost_model.vector";
  const json* vec = r.object(cost, "cost_model", "vector");
  if (!vec) return;
  r.knownKeys(*vec, path, {"bytes_per_cycle", "min_cycles", "elements_per_cycle"});
  if (auto v = r.rate(*vec, path, "bytes_per_cycle")) out.vector.bytesPerCycle = *v;
  if (auto v = r.integer(*vec, path, "min_cycles", Bound::Positive)) out.vector.minCycles = *v;
  std::string epcPath = joinPath(path, "elements_per_cycle");
  const json* epc = r.object(*vec, path, "elements_per_cycle");
  if (!epc) return;
  r.knownKeys(*epc, epcPath, {"simple", "div_mod", "transcendental"});
  for (VectorOpClass c : kAllVectorOpClasses)
    if (auto v = r.rate(*epc, epcPath, vectorOpClassName(c)))
      out.vector.elementsPerCycle[vectorOpClassIndex(c)] = *v;
}

void readScalar(Reader& r, const json& cost, CostModelParams& out) {
  const std::string path = "cost_model.scalar";
  const json* s = r.object(cost, "cost_model", "scalar");
  if (!s) return;
  r.knownKeys(*s, path, {"cycles_per_statement", "loop_overhead_cycles", "issue_cycles"});
  if (auto v = r.integer(*s, path, "cycles_per_statement", Bound::Positive))
    out.scalar.cyclesPerStatement = *v;
  if (auto v = r.integer(*s, path, "loop_overhead_cycles", Bound::NonNegative))
    out.scalar.loopOverheadCycles = *v;
  if (auto v = r.integer(*s, path, "issue_cycles", Bound::NonNegative)) out.scalar.issueCycles = *v;
}

void readCostModel(Reader& r, const json& root, Target& t) {
  const json* cost = r.object(root, "", "cost_model");
  if (!cost) return;
  r.knownKeys(*cost, "cost_model", {"copy", "gemm", "vector", "scalar"});
  if (const json* copy = r.object(*cost, "cost_model", "copy")) {
    for (auto it = copy->begin(); it != copy->end(); ++it) {
      if (Reader::isComment(it.key()) || parseCopyPath(it.key())) continue;
      std::string list;
      for (CopyPath p : kAllCopyPaths)
        list += (list.empty() ? "" : ", ") + std::string(copyPathName(p));
      r.fieldError(
          joinPath("cost_model.copy", it.key()),
          fmt::format("names an unknown copy path '{}'; expected one of: {}", it.key(), list));
    }
    for (CopyPath p : kAllCopyPaths) {
      // Optional: a target without dual-copy figures costs one as a single
      // L0C -> UB copy of the whole tile (docs/targets.md).
      if (p == CopyPath::L0cToUbDual && !copy->contains(copyPathName(p))) {
        t.cost.copy[copyPathIndex(p)] = t.cost.copy[copyPathIndex(CopyPath::L0cToUb)];
        continue;
      }
      readCopyPath(r, *copy, p, t.cost.copy[copyPathIndex(p)]);
    }
  }
  readGemm(r, *cost, t.cost);
  readVector(r, *cost, t.cost);
  readScalar(r, *cost, t.cost);
}

// One core kind's {"pipes": [...], "scopes": [...]} of `core_group`.
// false when an entry was not a pipe or scope name (reported).
bool readCoreKind(Reader& r, const json& group, const char* kind, uint32_t& pipes,
                  uint32_t& scopes) {
  bool ok = true;
  std::string path = joinPath("core_group", kind);
  const json* obj = r.object(group, "core_group", kind);
  if (!obj) return false;
  r.knownKeys(*obj, path, {"pipes", "scopes"});
  if (const json* list = r.array(*obj, path, "pipes"))
    for (size_t i = 0; i < list->size(); ++i) {
      const json& v = (*list)[i];
      auto p = v.is_string() ? parsePipe(v.get<std::string>()) : std::nullopt;
      if (!p) {
        r.fieldError(indexPath(joinPath(path, "pipes"), i),
                     fmt::format("must name a pipe ({}), got {}", allPipeNames(), v.dump()));
        ok = false;
      } else
        pipes |= pipeMask(*p);
    }
  if (const json* list = r.array(*obj, path, "scopes"))
    for (size_t i = 0; i < list->size(); ++i) {
      const json& v = (*list)[i];
      auto s = v.is_string() ? parseMemScope(v.get<std::string>()) : std::nullopt;
      if (!s || *s == MemScope::Global || *s == MemScope::LocalVar || *s == MemScope::Local) {
        r.fieldError(indexPath(joinPath(path, "scopes"), i),
                     fmt::format("must name an on-chip scope of one core kind ({}, "
                                 "local.fragment), got {}",
                                 capacityScopeNames(), v.dump()));
        ok = false;
      } else {
        scopes |= uint32_t{1} << memScopeIndex(*s);
      }
    }
  return ok;
}

// `core_group`: every pipe on some core kind, S and MTE2 on both, every
// capacity scope on exactly one. Optional: without it, the Ascend split of
// docs/targets.md "Core group" (the AIC/AIV division is the same on every
// Ascend part with cube and vector cores; target files written before the
// field keep loading).
void readCoreGroup(Reader& r, const json& root, CoreGroup& g) {
  if (!root.contains("core_group")) {
    g.cubePipes = pipeMask(Pipe::MTE2) | pipeMask(Pipe::MTE1) | pipeMask(Pipe::M) |
                  pipeMask(Pipe::FIX) | pipeMask(Pipe::S);
    g.vectorPipes =
        pipeMask(Pipe::MTE2) | pipeMask(Pipe::V) | pipeMask(Pipe::MTE3) | pipeMask(Pipe::S);
    for (MemScope s : {MemScope::L1, MemScope::L0A, MemScope::L0B, MemScope::L0C})
      g.cubeScopes |= uint32_t{1} << memScopeIndex(s);
    for (MemScope s : {MemScope::UB, MemScope::Fragment})
      g.vectorScopes |= uint32_t{1} << memScopeIndex(s);
    return;
  }
  const json* group = r.object(root, "", "core_group");
  if (!group) return;
  r.knownKeys(*group, "core_group",
              {"aiv_per_aic", "cube", "vector", "cross_core_flags", "cross_core_flag_latency"});
  if (auto v = r.integer(*group, "core_group", "aiv_per_aic", Bound::Positive)) g.aivPerAic = *v;
  if (auto v = r.integer(*group, "core_group", "cross_core_flags", Bound::Positive))
    g.crossCoreFlags = *v;
  if (auto v = r.integer(*group, "core_group", "cross_core_flag_latency", Bound::NonNegative))
    g.crossCoreFlagLatency = *v;
  bool named = readCoreKind(r, *group, "cube", g.cubePipes, g.cubeScopes);
  named = readCoreKind(r, *group, "vector", g.vectorPipes, g.vectorScopes) && named;
  if (!named) return;  // the lists' own errors say it; the checks below would repeat them
  for (Pipe p : kAllPipes) {
    bool cube = g.cubePipes & pipeMask(p), vector = g.vectorPipes & pipeMask(p);
    bool both = p == Pipe::S || p == Pipe::MTE2;
    if ((cube && vector) != both || (!cube && !vector))
      r.fieldError("core_group", fmt::format("must put pipe {} on {}", pipeName(p),
                                             both ? "both core kinds (cube and vector)"
                                                  : "exactly one core kind"));
  }
  for (MemScope s : kAllMemScopes) {
    bool cube = g.cubeHas(s), vector = g.vectorHas(s);
    if (cube && vector)
      r.fieldError("core_group", fmt::format("must not list scope {} under both cube and vector",
                                             memScopeName(s)));
    else if (!cube && !vector && isCapacityChecked(s))
      r.fieldError("core_group",
                   fmt::format("must list scope {} under cube or vector", memScopeName(s)));
  }
}

Target readTarget(Reader& r, const json& root) {
  Target t;
  r.knownKeys(root, "",
              {"format_version", "name", "description", "pipes", "capacity",
               "capacity_with_simt_vf", "alignment", "sync", "core_group", "cost_model"});
  if (auto v = r.integer(root, "", "format_version", Bound::Positive); v && *v != kFormatVersion)
    r.fieldError("format_version",
                 fmt::format("must be {} (the only format this tilesched reads), got {}",
                             kFormatVersion, *v));
  if (auto v = r.string(root, "", "name", true)) t.name = *v;
  if (auto v = r.string(root, "", "description", false)) t.description = *v;
  readPipes(r, root, t);

  t.alignmentBytes.fill(1);
  readScopeTable(r, root, "capacity", /*requireAll=*/true, /*powerOfTwo=*/false, t.capacityBytes);
  std::array<int64_t, kNumMemScopes> simt{};
  readScopeTable(r, root, "capacity_with_simt_vf", /*requireAll=*/false, /*powerOfTwo=*/false,
                 simt);
  for (MemScope s : kCapacityScopes) {
    size_t i = memScopeIndex(s);
    t.capacityWithSimtVFBytes[i] = simt[i] != 0 ? simt[i] : t.capacityBytes[i];
  }
  readScopeTable(r, root, "alignment", /*requireAll=*/true, /*powerOfTwo=*/true, t.alignmentBytes);

  if (const json* sync = r.object(root, "", "sync")) {
    r.knownKeys(*sync, "sync", {"event_ids_per_hard_event"});
    if (auto v = r.integer(*sync, "sync", "event_ids_per_hard_event", Bound::Positive))
      t.eventIdsPerHardEvent = *v;
  }
  readCoreGroup(r, root, t.coreGroup);
  readCostModel(r, root, t);
  return t;
}

std::string joinLines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) {
    if (!out.empty()) out += '\n';
    out += l;
  }
  return out;
}

std::string builtinNameList() {
  std::string names;
  for (const std::string& n : builtinTargetNames()) names += (names.empty() ? "" : ", ") + n;
  return names;
}

bool isPathLike(const std::string& s) {
  return s.find('/') != std::string::npos || s.ends_with(".json");
}

}  // namespace

std::optional<int64_t> Target::capacity(MemScope scope, bool kernelHasSimtVF) const {
  if (!isCapacityChecked(scope)) return std::nullopt;
  size_t i = memScopeIndex(scope);
  return kernelHasSimtVF ? capacityWithSimtVFBytes[i] : capacityBytes[i];
}

const char* defaultTargetName() { return "ascend950"; }

std::vector<std::string> builtinTargetNames() { return {"ascend950", "ascend910b"}; }

std::string targetsDirectory() {
  if (const char* env = std::getenv("TILESCHED_TARGETS_DIR"); env && *env) return env;
  return std::string(TILESCHED_SOURCE_DIR) + "/targets";
}

std::optional<Target> parseTarget(const std::string& jsonText, const std::string& displayName,
                                  std::string& error) {
  error.clear();
  json root;
  try {
    root = json::parse(jsonText);
  } catch (const json::parse_error& e) {
    // e.what() is "[json.exception.parse_error.101] parse error at line L, column C: ...".
    std::string_view what = e.what();
    if (size_t close = what.find("] "); close != std::string_view::npos)
      what.remove_prefix(close + 2);
    error = fmt::format("{}: malformed JSON: {}", displayName, what);
    return std::nullopt;
  }
  Reader r(displayName);
  if (!root.is_object()) {
    r.fileError(fmt::format("the top level must be a JSON object, got {}", root.type_name()));
    error = joinLines(r.errors());
    return std::nullopt;
  }
  Target t = readTarget(r, root);
  if (!r.errors().empty()) {
    error = joinLines(r.errors());
    return std::nullopt;
  }
  return t;
}

std::optional<Target> loadTarget(const std::string& nameOrPath, std::string& error) {
  error.clear();
  std::string path = nameOrPath;
  bool bareName = !isPathLike(nameOrPath);
  if (bareName) {
    if (nameOrPath.empty()) {
      error = "empty target name; built-in targets: " + builtinNameList();
      return std::nullopt;
    }
    path = targetsDirectory() + "/" + nameOrPath + ".json";
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::string names = builtinNameList();
    if (bareName)
      error = fmt::format(
          "unknown target '{}' (no file {}); built-in targets: {}, or a path to "
          "a target .json file",
          nameOrPath, path, names);
    else
      error = fmt::format("{}: cannot open target file; built-in targets: {}", path, names);
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  std::optional<Target> t = parseTarget(text.str(), path, error);
  if (t) t->path = path;
  return t;
}

}  // namespace tilesched
