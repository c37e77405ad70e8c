// The problem reader (see ProblemReader.h). One small reader per field kind;
// the first wrong field stops the read.
#include "schedule/ProblemReader.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace tilesched::schedule {

using nlohmann::json;

namespace {

// Inputs the reader knows; results of a dump that it skips.
const std::set<std::string> kInputFields = {"num_stages",
                                            "latencies",
                                            "iis",
                                            "resource_flags",
                                            "data_deps",
                                            "resource_deps",
                                            "owner_exclusion_deps",
                                            "pipe_order_deps",
                                            "stage_order_deps",
                                            "buffer_sizes",
                                            "storage_sizes",
                                            "memory_groups",
                                            "enable_offset",
                                            "manual_stages",
                                            "manual_schedule",
                                            "recalculate_buffer_versions",
                                            "seed",
                                            "verbose",
                                            "version_bounds",
                                            "same_stage",
                                            "is_loop"};
const std::set<std::string> kResultFields = {
    "start_times",    "versions",       "modulo_versions", "ii",
    "ii_lower_bound", "proven_optimal", "solve_ms",        "list"};

// Limits that keep every sum of the solver, the list schedule and the
// checker inside int64 and every answer within seconds; far above what a
// kernel's loop has (tens of tasks, a few thousand cycles each).
constexpr int64_t kMaxCycles = 1'000'000'000;          // a latency or II
constexpr int64_t kMaxBytes = int64_t{1} << 40;        // a buffer or a capacity
constexpr size_t kMaxTasks = 4096, kMaxEdges = 65536;  // tasks; entries of a dependency list
constexpr size_t kMaxBuffers = 256;
constexpr int64_t kMaxVersions = 256;

class Reader {
 public:
  Reader(const json& in, ProblemShape shape) : in_(in), shape_(shape) {}

  ReadProblem run() {
    ReadProblem out;
    if (!in_.is_object()) {
      out.field = "(input)";
      out.message = "the problem must be an object of named fields";
      return out;
    }
    SchedulingProblem p;
    if (read(p)) {
      out.problem = std::move(p);
    } else {
      out.field = field_;
      out.message = message_;
    }
    out.verbose = verbose_;
    return out;
  }

 private:
  bool fail(std::string field, std::string message) {
    field_ = std::move(field);
    message_ = std::move(message);
    return false;
  }

  bool read(SchedulingProblem& p) {
    for (const auto& [name, value] : in_.items()) {
      (void)value;
      if (!kInputFields.count(name) && !kResultFields.count(name))
        return fail(name, "unknown field (docs/solver-interface.md lists the fields)");
    }
    p.isLoop =
        shape_ == ProblemShape::Loop ||
        (shape_ == ProblemShape::FromInput &&
         !(in_.contains("is_loop") && in_["is_loop"].is_boolean() && !in_["is_loop"].get<bool>()));
    if (!flag("enable_offset", p.enableOffset) || !flag("verbose", verbose_)) return false;
    bool manual = false, recalculate = true;
    if (!flag("manual_schedule", manual) || !flag("recalculate_buffer_versions", recalculate))
      return false;
    if (in_.contains("seed") && !in_["seed"].is_null() && !in_["seed"].is_number_integer())
      return fail("seed", "must be an integer or None");
    if (!intList("latencies", p.latency, true, kMaxCycles) ||
        !intList("iis", p.ii, true, kMaxCycles))
      return false;
    n_ = static_cast<int>(p.latency.size());
    if (n_ == 0) return fail("latencies", "the task list is empty: nothing to schedule");
    if (p.latency.size() > kMaxTasks)
      return fail("latencies", fmt::format("{} tasks, above the limit of {}", n_, kMaxTasks));
    if (static_cast<int>(p.ii.size()) != n_)
      return fail("iis", fmt::format("{} entries for {} tasks", p.ii.size(), n_));
    std::vector<int64_t> flags;
    if (!intList("resource_flags", flags, true)) return false;
    if (static_cast<int>(flags.size()) != n_)
      return fail("resource_flags", fmt::format("{} entries for {} tasks", flags.size(), n_));
    for (int i = 0; i < n_; ++i) {
      if (flags[i] > 127)
        return fail(fmt::format("resource_flags[{}]", i),
                    fmt::format("{} has bits above S=64 (MTE1=1 ... S=64)", flags[i]));
      p.pipeMask.push_back(static_cast<uint32_t>(flags[i]));
    }
    if (p.isLoop) {
      if (!required("num_stages")) return false;
      if (!integer(in_["num_stages"], "num_stages", p.numStages)) return false;
      // 0 is what `T.Pipelined(n, num_stages=0)` passes: one version at most,
      // as the compiler reads it (upstream's encoding has no answer then).
      if (p.numStages < 0) return fail("num_stages", "must be 0 or more");
      if (!buffers(p)) return false;
    }
    return dataDeps(p) && resourceDeps(p) && exclusions(p) &&
           pairs("pipe_order_deps", p.phaseOrder) && pairs("stage_order_deps", p.stageOrder) &&
           (!p.isLoop || (memoryGroups(p) && sameStage(p))) && stages(p, manual);
  }

  bool required(const char* name) {
    return in_.contains(name) && !in_[name].is_null() ? true : fail(name, "missing");
  }

  bool flag(const char* name, bool& out) {
    if (!in_.contains(name) || in_[name].is_null()) return true;
    if (!in_[name].is_boolean()) return fail(name, "must be True or False");
    out = in_[name].get<bool>();
    return true;
  }

  bool integer(const json& v, const std::string& field, int64_t& out) {
    if (v.is_boolean() || !v.is_number_integer()) return fail(field, "must be an integer");
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX / 4))
      return fail(field, "is too large");
    out = v.get<int64_t>();
    if (out > INT64_MAX / 4 || out < INT64_MIN / 4) return fail(field, "is too large");
    return true;
  }

  bool intList(const char* name, std::vector<int64_t>& out, bool nonNegative,
               int64_t max = kMaxCycles) {
    if (!required(name)) return false;
    if (!in_[name].is_array()) return fail(name, "must be a list of integers");
    if (in_[name].size() > kMaxEdges)
      return fail(name,
                  fmt::format("{} entries, above the limit of {}", in_[name].size(), kMaxEdges));
    for (size_t i = 0; i < in_[name].size(); ++i) {
      int64_t v = 0;
      std::string field = fmt::format("{}[{}]", name, i);
      if (!integer(in_[name][i], field, v)) return false;
      if (nonNegative && v < 0) return fail(field, fmt::format("{} is negative", v));
      if (v > max) return fail(field, fmt::format("{} is above the limit of {}", v, max));
      out.push_back(v);
    }
    return true;
  }

  // A list of fixed-length integer tuples; `arities` lists the lengths allowed.
  bool tuples(const char* name, std::vector<std::vector<int64_t>>& out, std::vector<size_t> arities,
              bool isRequired) {
    if (!in_.contains(name) || in_[name].is_null())
      return isRequired ? fail(name, "missing") : true;
    if (!in_[name].is_array()) return fail(name, "must be a list");
    if (in_[name].size() > kMaxEdges)
      return fail(name,
                  fmt::format("{} entries, above the limit of {}", in_[name].size(), kMaxEdges));
    for (size_t i = 0; i < in_[name].size(); ++i) {
      const json& t = in_[name][i];
      std::string field = fmt::format("{}[{}]", name, i);
      if (!t.is_array()) return fail(field, "must be a list of integers");
      bool arity = false;
      for (size_t a : arities) arity = arity || t.size() == a;
      if (!arity)
        return fail(field, fmt::format("has {} entries, expected {}", t.size(),
                                       fmt::join(arities, " or ")));
      std::vector<int64_t> values;
      for (size_t k = 0; k < t.size(); ++k) {
        int64_t v = 0;
        if (!integer(t[k], fmt::format("{}[{}]", field, k), v)) return false;
        values.push_back(v);
      }
      out.push_back(std::move(values));
    }
    return true;
  }

  bool task(int64_t v, const std::string& field) {
    if (v >= 0 && v < n_) return true;
    return fail(field, fmt::format("task {} does not exist ({} tasks)", v, n_));
  }

  bool buffers(SchedulingProblem& p) {
    const char* name = in_.contains("buffer_sizes") ? "buffer_sizes" : "storage_sizes";
    std::vector<int64_t> sizes;
    if (!intList(name, sizes, true, kMaxBytes)) return false;
    if (sizes.size() > kMaxBuffers)
      return fail(name,
                  fmt::format("{} buffers, above the limit of {}", sizes.size(), kMaxBuffers));
    std::vector<std::vector<int64_t>> bounds;
    if (!tuples("version_bounds", bounds, {2}, false)) return false;
    if (!bounds.empty() && bounds.size() != sizes.size())
      return fail("version_bounds",
                  fmt::format("{} entries for {} buffers", bounds.size(), sizes.size()));
    for (size_t k = 0; k < sizes.size(); ++k) {
      ProblemVersion v;
      v.bytes = sizes[k];
      v.minVersions = 1;
      v.maxVersions = std::max<int64_t>(1, p.numStages);
      if (!bounds.empty()) {
        v.minVersions = bounds[k][0];
        v.maxVersions = bounds[k][1];
        if (v.minVersions < 1 || v.maxVersions < v.minVersions || v.maxVersions > 4096)
          return fail(
              fmt::format("version_bounds[{}]", k),
              fmt::format("[{}, {}] is not 1 <= min <= max <= 4096", v.minVersions, v.maxVersions));
      }
      p.versions.push_back(v);
    }
    if (p.numStages > kMaxVersions)
      return fail("num_stages",
                  fmt::format("{} is above the limit of {}", p.numStages, kMaxVersions));
    return true;
  }

  bool dataDeps(SchedulingProblem& p) {
    std::vector<std::vector<int64_t>> deps;
    std::vector<size_t> arities = p.isLoop ? std::vector<size_t>{4} : std::vector<size_t>{3, 4};
    if (!tuples("data_deps", deps, arities, true)) return false;
    for (size_t x = 0; x < deps.size(); ++x) {
      const auto& t = deps[x];
      std::string field = fmt::format("data_deps[{}]", x);
      if (!task(t[0], field + "[0]") || !task(t[1], field + "[1]")) return false;
      ProblemDep d;
      d.from = static_cast<int>(t[0]);
      d.to = static_cast<int>(t[1]);
      d.latency = t.back();
      if (d.latency < 0 || d.latency > kMaxCycles)
        return fail(fmt::format("{}[{}]", field, t.size() - 1),
                    d.latency < 0 ? fmt::format("latency {} is negative", d.latency)
                                  : fmt::format("latency {} is above the limit of {}", d.latency,
                                                kMaxCycles));
      int64_t distance = t.size() == 4 ? t[2] : 0;
      if (distance > kMaxVersions)
        return fail(field + "[2]",
                    fmt::format("distance {} is above the limit of {}", distance, kMaxVersions));
      if (distance < 0) {
        int64_t k = -distance - 1;
        if (!p.isLoop)
          distance = 1;  // a buffer's reuse: never binds in one pass
        else if (k >= static_cast<int64_t>(p.versions.size()))
          return fail(field + "[2]",
                      fmt::format("distance {} names buffer {}, but there are {} buffers", distance,
                                  k, p.versions.size()));
        else
          d.versionVar = static_cast<int>(k);
      }
      d.distance = distance < 0 ? 0 : distance;
      p.deps.push_back(d);
    }
    return true;
  }

  bool resourceDeps(const SchedulingProblem& p) {
    std::vector<std::vector<int64_t>> pairsIn;
    if (!tuples("resource_deps", pairsIn, {2}, true)) return false;
    for (size_t x = 0; x < pairsIn.size(); ++x) {
      std::string field = fmt::format("resource_deps[{}]", x);
      if (!task(pairsIn[x][0], field + "[0]") || !task(pairsIn[x][1], field + "[1]")) return false;
      int a = static_cast<int>(pairsIn[x][0]), b = static_cast<int>(pairsIn[x][1]);
      if (a != b && !p.sharePipe(a, b))
        return fail(field, fmt::format("not supported yet: tasks {} and {} share no pipe in "
                                       "resource_flags ({} and {}); tilesched derives resource "
                                       "conflicts from the pipe masks",
                                       a, b, p.pipeMask[a], p.pipeMask[b]));
    }
    return true;
  }

  bool exclusions(SchedulingProblem& p) {
    std::vector<std::vector<int64_t>> in;
    if (!tuples("owner_exclusion_deps", in, {4}, false)) return false;
    for (size_t x = 0; x < in.size(); ++x) {
      std::string field = fmt::format("owner_exclusion_deps[{}]", x);
      if (!task(in[x][0], field + "[0]") || !task(in[x][1], field + "[1]")) return false;
      if (in[x][0] == in[x][1]) return fail(field, "a task cannot exclude itself");
      for (size_t k = 2; k < 4; ++k)
        if (in[x][k] < 0 || in[x][k] > kMaxCycles)
          return fail(fmt::format("{}[{}]", field, k),
                      in[x][k] < 0 ? fmt::format("latency {} is negative", in[x][k])
                                   : fmt::format("latency {} is above the limit of {}", in[x][k],
                                                 kMaxCycles));
      p.exclusions.push_back(
          {static_cast<int>(in[x][0]), static_cast<int>(in[x][1]), in[x][2], in[x][3]});
    }
    return true;
  }

  bool pairs(const char* name, std::vector<std::pair<int, int>>& out) {
    std::vector<std::vector<int64_t>> in;
    if (!tuples(name, in, {2}, false)) return false;
    for (size_t x = 0; x < in.size(); ++x) {
      std::string field = fmt::format("{}[{}]", name, x);
      if (!task(in[x][0], field + "[0]") || !task(in[x][1], field + "[1]")) return false;
      out.push_back({static_cast<int>(in[x][0]), static_cast<int>(in[x][1])});
    }
    return true;
  }

  bool memoryGroups(SchedulingProblem& p) {
    std::vector<std::vector<int64_t>> in;
    if (!in_.contains("memory_groups")) return fail("memory_groups", "missing");
    if (!in_["memory_groups"].is_array()) return fail("memory_groups", "must be a list");
    if (in_["memory_groups"].size() > kMaxBuffers) return fail("memory_groups", "too many groups");
    for (size_t g = 0; g < in_["memory_groups"].size(); ++g) {
      const json& group = in_["memory_groups"][g];
      std::string field = fmt::format("memory_groups[{}]", g);
      if (!group.is_array() || group.empty() || group.size() > kMaxBuffers + 1)
        return fail(field, "must be [capacity, buffer ids...]");
      MemoryGroup out;
      if (!integer(group[0], field + "[0]", out.capacity)) return false;
      if (out.capacity < 0 || out.capacity > kMaxBytes * static_cast<int64_t>(kMaxBuffers))
        return fail(field + "[0]", fmt::format("capacity {} is {}", out.capacity,
                                               out.capacity < 0 ? "negative" : "above the limit"));
      for (size_t k = 1; k < group.size(); ++k) {
        int64_t id = 0;
        std::string idField = fmt::format("{}[{}]", field, k);
        if (!integer(group[k], idField, id)) return false;
        if (id < 0 || id >= static_cast<int64_t>(p.versions.size()))
          return fail(idField,
                      fmt::format("buffer {} does not exist ({} buffers)", id, p.versions.size()));
        out.versions.push_back(static_cast<int>(id));
      }
      p.memoryGroups.push_back(std::move(out));
    }
    return true;
  }

  bool sameStage(SchedulingProblem& p) {
    if (!in_.contains("same_stage")) return true;
    if (!in_["same_stage"].is_array()) return fail("same_stage", "must be a list");
    if (in_["same_stage"].size() > kMaxBuffers) return fail("same_stage", "too many groups");
    for (size_t g = 0; g < in_["same_stage"].size(); ++g) {
      const json& group = in_["same_stage"][g];
      std::string field = fmt::format("same_stage[{}]", g);
      if (!group.is_array() || group.size() < 3 || group.size() > kMaxTasks + 1)
        return fail(field, "must be [buffer id or -1, task, task...]");
      SameStageGroup out;
      int64_t var = 0;
      if (!integer(group[0], field + "[0]", var)) return false;
      if (var < -1 || var >= static_cast<int64_t>(p.versions.size()))
        return fail(field + "[0]", fmt::format("buffer {} does not exist", var));
      out.versionVar = static_cast<int>(var);
      for (size_t k = 1; k < group.size(); ++k) {
        int64_t u = 0;
        std::string unitField = fmt::format("{}[{}]", field, k);
        if (!integer(group[k], unitField, u) || !task(u, unitField)) return false;
        out.units.push_back(static_cast<int>(u));
      }
      p.sameStage.push_back(std::move(out));
    }
    return true;
  }

  bool stages(SchedulingProblem& p, bool manual) {
    std::vector<int64_t> stagesIn;
    if (in_.contains("manual_stages") && !in_["manual_stages"].is_null() &&
        !intList("manual_stages", stagesIn, true))
      return false;
    for (size_t i = 0; i < stagesIn.size(); ++i)
      if (stagesIn[i] > kMaxVersions)
        return fail(fmt::format("manual_stages[{}]", i),
                    fmt::format("stage {} is above the limit of {}", stagesIn[i], kMaxVersions));
    if (!manual) return true;
    if (!p.isLoop) return fail("manual_schedule", "applies to loops only");
    if (static_cast<int>(stagesIn.size()) != n_)
      return fail("manual_stages", fmt::format("{} stages for {} tasks", stagesIn.size(), n_));
    for (int64_t s : stagesIn)
      if (s != 0 && !p.enableOffset)
        return fail("manual_stages", "non-zero stages need enable_offset=True");
    p.fixedStages = stagesIn;
    return true;
  }

  const json& in_;
  ProblemShape shape_;
  int n_ = 0;
  bool verbose_ = false;
  std::string field_, message_;
};

}  // namespace

ReadProblem readProblem(const json& input, ProblemShape shape) {
  return Reader(input, shape).run();
}

}  // namespace tilesched::schedule
