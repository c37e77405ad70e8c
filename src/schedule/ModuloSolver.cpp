// The Z3 encoding and the search (see ModuloSolver.h). Steps: build the
// variables once, then per candidate II push the constraints of that II,
// check, refine the objectives on a sat answer, pop.
#include "schedule/ModuloSolver.h"

#include <fmt/format.h>
#include <z3++.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <limits>
#include <optional>
#include <string>

#include "schedule/ListFallback.h"
#include "schedule/LowerBound.h"
#include "schedule/PropagationBound.h"
#include "schedule/RefineBounds.h"

namespace tilesched::schedule {

namespace {

using Clock = std::chrono::steady_clock;

enum class Answer { Sat, Unsat, Unknown };

class Encoding {
 public:
  Encoding(const SchedulingProblem& p, z3::context& c, const SolverLimits& limits)
      : p_(p),
        c_(c),
        solver_(c, z3::solver::simple()),
        limits_(limits),
        workLeft_(static_cast<int64_t>(limits.timeoutMs) * kWorkPerMs) {
    for (int i = 0; i < p.numUnits(); ++i) {
      s_.push_back(c.int_const(("s" + std::to_string(i)).c_str()));
      solver_.add(s_.back() >= 0);
    }
    // v_k = Σ j·[choice j]: a product II·v_k becomes one implication per
    // choice, linear even when II is a variable.
    for (size_t k = 0; k < p.versions.size(); ++k) {
      v_.push_back(c.int_const(("v" + std::to_string(k)).c_str()));
      std::vector<z3::expr> choices;
      z3::expr value = num(0), count = num(0);
      for (int64_t j = p.versions[k].minVersions; j <= p.versions[k].maxVersions; ++j) {
        choices.push_back(c.bool_const(fmt::format("v{}_is_{}", k, j).c_str()));
        value = value + z3::ite(choices.back(), num(j), num(0));
        count = count + z3::ite(choices.back(), num(1), num(0));
      }
      solver_.add(count == 1 && v_.back() == value);
      versionChoices_.push_back(std::move(choices));
    }
    for (const auto& g : p.memoryGroups) {
      z3::expr sum = num(0);
      for (int k : g.versions) sum = sum + v_[k] * num(p.versions[k].bytes);
      solver_.add(sum <= num(g.capacity));
    }
    m0_.emplace(c.int_const("first_start"));
    for (int i = 0; i < p.numUnits(); ++i) solver_.add(*m0_ <= s_[i]);
  }

  ProblemSolution solveLoop(const ProblemSolution& fallback) {
    return p_.enableOffset || p_.constrainsStages() ? solveLoopByProbes(fallback)
                                                    : solveLoopVariableII(fallback);
  }

  // Without enable_offset every constraint is linear in II, so "a schedule
  // with II <= T exists" is monotone in T: bisection on one solver, and an
  // unsat answer at T proves every II <= T infeasible.
  ProblemSolution solveLoopVariableII(const ProblemSolution& fallback) {
    int64_t lb = iiLowerBound(p_);
    int64_t ub = std::max(fallback.ii, lb);
    // Order propagation refutes IIs above the bound without a solver check
    // (PropagationBound.h): the search starts where it stops.
    int64_t start = propagatedIIBound(p_, lb, ub);
    z3::expr ii = c_.int_const("II");
    iiVar_.emplace(ii);
    solver_.add(ii >= num(start) && ii <= num(ub));
    addLoopConstraints(ii, ub);
    int64_t provenBelow = start;  // every II < provenBelow is infeasible
    std::optional<int64_t> found;
    auto query = [&](int64_t t, double share) {
      solver_.push();
      solver_.add(ii <= num(t));
      Answer a = check(share);
      solver_.pop();
      if (a == Answer::Sat) found = lastII_, foundStarts_ = starts_;
      if (a == Answer::Unsat) provenBelow = std::max(provenBelow, t + 1);
      return a;
    };
    int64_t lo = start, hi = ub;
    int probes = 0;
    // The bound first: it is the answer for most loops.
    if (query(start, 0.5) != Answer::Sat) {
      lo = start + 1;
      while (lo <= hi && probes++ < limits_.maxLinearProbes) {
        int64_t mid = lo + (hi - lo) / 2;
        Answer a = query(mid, 0.25);
        if (a == Answer::Sat)
          hi = *found - 1;
        else
          lo = mid + 1;
      }
    }
    ProblemSolution out;
    if (!found) return fallbackWithProof(fallback, lb, provenBelow, start);
    // The last sat model has II = t (the query's answer), so it is the
    // refinement's starting point without another check.
    int64_t t = *found;
    starts_ = foundStarts_;
    solver_.push();
    solver_.add(ii == num(t));
    refine(t);
    solver_.pop();
    out.found = true;
    out.ii = t;
    out.iiLowerBound = lb;
    out.provenOptimal = t == provenBelow;
    if (!out.provenOptimal)
      out.note = fmt::format("IIs {} to {} not refuted within the work budget", provenBelow, t - 1);
    out.start = normalise(starts_, t);
    out.versions = neededVersions(p_, out.start, t);
    return out;
  }

  ProblemSolution solveLoopByProbes(const ProblemSolution& fallback) {
    ProblemSolution out;
    int64_t lb = iiLowerBound(p_);
    int64_t ub = std::max(fallback.ii, lb);
    int64_t provenBelow = lb;  // every II < provenBelow is infeasible
    std::optional<int64_t> found;
    int64_t t = lb;
    for (int probes = 0; probes < limits_.maxLinearProbes && t <= ub; ++probes, ++t) {
      Answer a = probe(t);
      if (a == Answer::Sat) {
        found = t;
        break;
      }
      if (a == Answer::Unknown) break;
      if (provenBelow == t) provenBelow = t + 1;
    }
    if (!found && t <= ub) {
      // Bisection between the last II tried and the fallback's (heuristic:
      // feasibility need not be monotone in II, so nothing below is proven).
      int64_t lo = t + (probe_ == Answer::Unknown ? 1 : 0), hi = ub;
      while (lo <= hi) {
        int64_t mid = lo + (hi - lo) / 2;
        Answer a = probe(mid, /*refineAnswer=*/false);
        if (a == Answer::Sat) {
          found = mid;
          hi = mid - 1;
          bestStarts_ = starts_;
          bestT_ = mid;
        } else {
          lo = mid + 1;
        }
      }
      if (found) {
        found = bestT_;
        // Refine only the answer (a timed-out re-probe keeps its first model).
        if (probe(bestT_) != Answer::Sat) starts_ = bestStarts_;
      }
    }
    out.iiLowerBound = lb;
    if (!found) return fallbackWithProof(fallback, lb, provenBelow, lb);
    out.found = true;
    out.ii = *found;
    out.provenOptimal = *found == provenBelow;
    if (!out.provenOptimal)
      out.note = fmt::format(
          "enable_offset: IIs {} to {} not refuted one by one (probe limit or work budget)",
          provenBelow, *found - 1);
    out.start = normalise(starts_, *found);
    out.versions = neededVersions(p_, out.start, *found);
    return out;
  }

  // The list schedule, with what the solver did prove: IIs [from, provenBelow)
  // are infeasible (an unsat answer), which makes the fallback optimal when
  // it reaches provenBelow.
  ProblemSolution fallbackWithProof(const ProblemSolution& fallback, int64_t lb,
                                    int64_t provenBelow, int64_t from) const {
    ProblemSolution out = fallback;
    out.iiLowerBound = lb;
    out.provenOptimal = fallback.ii == provenBelow;
    if (out.provenOptimal && provenBelow > from)
      out.note =
          fmt::format("IIs {} to {} are proven infeasible: the list schedule's II is optimal", from,
                      provenBelow - 1);
    else if (provenBelow > from)
      out.note = fmt::format(
          "IIs {} to {} are proven infeasible; no schedule below the list schedule's II {} was "
          "found within the work budget",
          from, provenBelow - 1, fallback.ii);
    else
      out.note = "no solver answer within the work budget";
    return out;
  }

  ProblemSolution solveStraightLine(const ProblemSolution& fallback) {
    addStraightLineConstraints();
    int64_t lb = makespanLowerBound(p_);
    int64_t lo = lb, hi = std::max(fallback.ii, lb);
    std::vector<int64_t> best = fallback.start;
    bool fromSolver = false, unknown = false;
    while (lo < hi) {
      int64_t mid = lo + (hi - lo) / 2;
      solver_.push();
      for (int i = 0; i < p_.numUnits(); ++i) solver_.add(s_[i] + num(p_.span(i)) <= num(mid));
      Answer a = check();
      if (a == Answer::Sat) {
        best = starts_;
        fromSolver = true;
        hi = std::min(mid, makespanOf(starts_));
      }
      solver_.pop();
      if (a == Answer::Unsat) lo = mid + 1;
      if (a == Answer::Unknown) {
        unknown = true;
        break;
      }
    }
    ProblemSolution out;
    out.found = true;
    // A list schedule that meets the lower bound needs no solver.
    out.fallback = !fromSolver && makespanOf(best) != lb;
    out.start = best;
    out.ii = makespanOf(best);
    out.iiLowerBound = lb;
    out.provenOptimal = !unknown || out.ii == lb;
    if (!out.provenOptimal) out.note = "makespan not proven within the work budget";
    return out;
  }

 private:
  z3::expr num(int64_t v) { return c_.int_val(static_cast<int64_t>(v)); }

  // One check within `share` of what is left of the list's budget (so one
  // hard question cannot starve the rest of the search); none once the budget
  // is spent.
  Answer check(double share = 1.0) {
    Answer a = Answer::Unknown;
    ++stats_.checks;
    if (workLeft_ < 1) {
      ++stats_.unknown;
      return a;
    }
    int64_t limit =
        std::clamp<int64_t>(static_cast<int64_t>(static_cast<double>(workLeft_) * share), 1,
                            std::numeric_limits<unsigned>::max() / 2);
    try {
      z3::params params(c_);
      params.set("rlimit", static_cast<unsigned>(limit));
      params.set("timeout",
                 static_cast<unsigned>(std::min<int64_t>(
                     limit / kWorkPerMs * 10 + 1000, std::numeric_limits<unsigned>::max() / 2)));
      params.set("random_seed", 0u);
      solver_.set(params);
      int64_t before = workCount();
      z3::check_result r = solver_.check();
      int64_t used = std::max<int64_t>(0, workCount() - before);
      workLeft_ -= used;
      stats_.work += used;
      if (r == z3::sat) a = Answer::Sat;
      if (r == z3::unsat) a = Answer::Unsat;
      if (a == Answer::Sat) {
        z3::model m = solver_.get_model();
        starts_.clear();
        for (const auto& s : s_) starts_.push_back(m.eval(s, true).get_numeral_int64());
        if (iiVar_) lastII_ = m.eval(*iiVar_, true).get_numeral_int64();
      }
    } catch (const z3::exception&) {
      a = Answer::Unknown;
    }
    ++(a == Answer::Sat ? stats_.sat : a == Answer::Unsat ? stats_.unsat : stats_.unknown);
    return a;
  }

  int64_t makespanOf(const std::vector<int64_t>& start) const {
    if (start.empty()) return 1;
    int64_t first = *std::min_element(start.begin(), start.end()), last = 0;
    for (int i = 0; i < p_.numUnits(); ++i) last = std::max(last, start[i] + p_.span(i));
    return std::max<int64_t>(1, last - first);
  }

  int64_t maxStage(const std::vector<int64_t>& start, int64_t ii) const {
    int64_t k = 0;
    for (int64_t s : start) k = std::max(k, s / ii);
    return k;
  }

  int64_t versionBytes(const std::vector<int64_t>& start, int64_t ii) const {
    auto versions = neededVersions(p_, start, ii);
    int64_t bytes = 0;
    for (size_t k = 0; k < versions.size(); ++k) bytes += versions[k] * p_.versions[k].bytes;
    return bytes;
  }

  // Shifts whole stages away so the earliest unit starts in stage 0 (not
  // when the caller fixed the stages: they are absolute).
  std::vector<int64_t> normalise(std::vector<int64_t> start, int64_t ii) const {
    if (start.empty() || !p_.fixedStages.empty()) return start;
    int64_t first = *std::min_element(start.begin(), start.end());
    int64_t shift = first / ii * ii;
    for (auto& s : start) s -= shift;
    return start;
  }

  z3::expr distance(const ProblemDep& d) {
    return d.versionVar >= 0 ? v_[d.versionVar] : num(d.distance);
  }

  // Same-iteration earliest starts (a lower bound on every s_i).
  std::vector<int64_t> earliest() const {
    std::vector<int64_t> e(p_.numUnits(), 0);
    for (int i = 0; i < p_.numUnits(); ++i)
      for (const auto& d : p_.deps)
        if (d.to == i && d.from < i && d.versionVar < 0 && d.distance == 0)
          e[i] = std::max(e[i], e[d.from] + d.latency);
    return e;
  }

  // Pushes the constraints of II = t and, when sat, refines the objectives.
  // Leaves the best model of this II in starts_.
  Answer probe(int64_t t, bool refineAnswer = true) {
    solver_.push();
    Answer a = addLoopConstraints(num(t), t) ? check(0.25) : Answer::Unsat;
    probe_ = a;
    if (a == Answer::Sat && refineAnswer) refine(t);
    solver_.pop();
    return a;
  }

  // Without k_i·II + r_i variables: the window rule bounds |s_a - s_b| below
  // II, so a shared pipe's circular non-overlap is a disjunction of two
  // difference constraints; with enable_offset one integer wrap count per
  // pair measures how many IIs separate them.
  // `ii` is a constant (probes) or the II variable (<= tMax).
  bool addLoopConstraints(const z3::expr& ii, int64_t tMax) {
    int n = p_.numUnits();
    int64_t longest = 0;
    for (const auto& d : p_.deps) longest = std::max(longest, d.latency);
    for (const auto& e : p_.exclusions)
      longest = std::max({longest, e.forwardLatency, e.reverseLatency});
    for (int i = 0; i < n; ++i) longest = std::max(longest, p_.span(i));
    // A feasible II has a schedule within this horizon (docs/scheduler.md).
    int64_t horizon = (n + 1) * (longest + 2 * tMax) + tMax;
    for (int i = 0; i < n; ++i) {
      if (p_.pipeMask[i]) solver_.add(ii >= num(p_.ii[i]));
      solver_.add(s_[i] <= num(horizon));
    }
    for (const auto& d : p_.deps) {
      z3::expr gap = s_[d.to] - s_[d.from];
      if (d.versionVar < 0) {
        solver_.add(gap >= num(d.latency) - ii * num(d.distance));
        continue;
      }
      const ProblemVersion& v = p_.versions[d.versionVar];
      for (int64_t j = v.minVersions; j <= v.maxVersions; ++j)
        solver_.add(z3::implies(versionChoices_[d.versionVar][j - v.minVersions],
                                gap >= num(d.latency) - ii * num(j)));
    }
    for (int a = 0; a < n; ++a) {
      for (int b = a + 1; b < n; ++b) {
        if (!p_.sharePipe(a, b)) continue;
        solver_.add(ii >= num(p_.ii[a] + p_.ii[b]));
        z3::expr gap = s_[b] - s_[a];  // b's start after a's
        if (!p_.enableOffset) {
          // A flat body issues its units in program order and a pipe starts
          // its instructions in issue order: a (earlier) before b, every iteration.
          solver_.add(gap >= num(p_.ii[a]) && gap <= ii - num(p_.ii[b]));
          continue;
        }
        z3::expr wraps = c_.int_const(("m" + std::to_string(a) + "_" + std::to_string(b)).c_str());
        z3::expr phase = gap - wraps * ii;
        solver_.add(phase >= num(p_.ii[a]) && phase <= ii - num(p_.ii[b]));
      }
    }
    for (const auto& e : p_.exclusions) {
      z3::expr ab = s_[e.b] - s_[e.a] >= num(e.forwardLatency) &&
                    s_[e.a] + ii - s_[e.b] >= num(e.reverseLatency);
      z3::expr ba = s_[e.a] - s_[e.b] >= num(e.reverseLatency) &&
                    s_[e.b] + ii - s_[e.a] >= num(e.forwardLatency);
      solver_.add(ab || ba);
    }
    // SPEC §6.1: a counted storage's accesses share one stage k (II·k <= s <
    // II·(k + 1)), unless its version variable is 1. Only enable_offset loops
    // have groups, and there II is a constant, so II·k is linear.
    for (size_t g = 0; g < p_.sameStage.size(); ++g) {
      const SameStageGroup& group = p_.sameStage[g];
      z3::expr stage = c_.int_const(("stage_of_group" + std::to_string(g)).c_str());
      z3::expr same = c_.bool_val(true);
      for (int u : group.units)
        same = same && s_[u] >= stage * ii && s_[u] <= stage * ii + ii - num(1);
      if (group.versionVar >= 0 && p_.versions[group.versionVar].minVersions == 1)
        solver_.add(versionChoices_[group.versionVar][0] || same);
      else
        solver_.add(same);
    }
    if (p_.constrainsStages()) addStageConstraints(ii);
    return true;
  }

  // The caller's stage and phase constraints (Problem.h): k_i with
  // II·k_i <= s_i < II·(k_i + 1), linear because II is a constant here.
  void addStageConstraints(const z3::expr& ii) {
    std::vector<z3::expr> k;
    for (int i = 0; i < p_.numUnits(); ++i) {
      k.push_back(c_.int_const(("k" + std::to_string(i)).c_str()));
      solver_.add(s_[i] >= k.back() * ii && s_[i] <= k.back() * ii + ii - num(1));
    }
    for (auto [a, b] : p_.phaseOrder) solver_.add(s_[a] - k[a] * ii <= s_[b] - k[b] * ii);
    for (auto [u, w] : p_.stageOrder) solver_.add(k[u] <= k[w]);
    if (p_.enableOffset && p_.programOrderStages)
      for (const auto& d : p_.deps)
        if (d.from >= d.to) solver_.add(distance(d) + k[d.to] - k[d.from] >= num(1));
    for (size_t i = 0; i < p_.fixedStages.size(); ++i)
      if (p_.fixedStages[i] >= 0) solver_.add(k[i] == num(p_.fixedStages[i]));
  }

  // Every unit in stage <= k: s_i < (k + 1)·II.
  void boundStages(int64_t k, int64_t t) {
    for (const auto& s : s_) solver_.add(s <= num((k + 1) * t - 1));
  }

  // Lexicographic: fewest stages, fewest version bytes, shortest makespan.
  void refine(int64_t t) {
    auto begin = Clock::now();
    int checks = 0;
    auto budgetLeft = [&] { return checks < limits_.maxRefinementChecks; };
    // Stages: ascending from what the same-iteration dependencies force.
    int64_t stage = maxStage(starts_, t);
    int64_t least = 0;
    for (int64_t e : earliest()) least = std::max(least, e / t);
    for (int64_t k = least; k < stage && budgetLeft(); ++k) {
      solver_.push();
      boundStages(k, t);
      ++checks;
      Answer a = check(0.125);
      solver_.pop();
      if (a == Answer::Sat) {
        stage = maxStage(starts_, t);
        break;
      }
      if (a == Answer::Unknown) break;
    }
    std::vector<int64_t> best = starts_;
    boundStages(stage, t);
    // Version bytes: descending while a smaller total exists, and not below
    // what the difference constraints force (RefineBounds.h), where no
    // check is needed to prove it.
    std::vector<int64_t> leastVersions = minimumVersions(p_, t, stage);
    int64_t leastBytes = 0;
    for (size_t k = 0; k < p_.versions.size(); ++k)
      leastBytes += leastVersions[k] * p_.versions[k].bytes;
    int64_t bytes = versionBytes(best, t);
    if (!p_.versions.empty()) {
      while (bytes > leastBytes && budgetLeft()) {
        solver_.push();
        z3::expr sum = num(0);
        for (size_t k = 0; k < v_.size(); ++k) sum = sum + v_[k] * num(p_.versions[k].bytes);
        solver_.add(sum <= num(bytes - 1));
        ++checks;
        Answer a = check(0.125);
        solver_.pop();
        if (a != Answer::Sat) break;
        best = starts_;
        bytes = versionBytes(best, t);
      }
      z3::expr sum = num(0);
      for (size_t k = 0; k < v_.size(); ++k) sum = sum + v_[k] * num(p_.versions[k].bytes);
      solver_.add(sum <= num(bytes));
    }
    // Makespan: bisection from the longest paths of the difference
    // constraints, each version variable at the most its byte total allows.
    std::vector<int64_t> caps;
    for (size_t k = 0; k < p_.versions.size(); ++k) {
      int64_t room = bytes - (leastBytes - leastVersions[k] * p_.versions[k].bytes);
      caps.push_back(std::clamp(room / std::max<int64_t>(1, p_.versions[k].bytes), leastVersions[k],
                                p_.versions[k].maxVersions));
    }
    int64_t hi = makespanOf(best), lo = iterationLowerBound(p_, t, stage, caps);
    {
      auto e = earliest();
      for (int i = 0; i < p_.numUnits(); ++i) lo = std::max(lo, e[i] + p_.span(i));
    }
    bool first = true;  // the bound first: often reached
    while (lo < hi && budgetLeft()) {
      int64_t mid = first ? lo : lo + (hi - lo) / 2;
      first = false;
      solver_.push();
      for (int i = 0; i < p_.numUnits(); ++i)
        solver_.add(s_[i] + num(p_.span(i)) - *m0_ <= num(mid));
      ++checks;
      Answer a = check(0.125);
      solver_.pop();
      if (a == Answer::Sat) {
        best = starts_;
        hi = std::min(mid, makespanOf(best));
      } else if (a == Answer::Unsat) {
        lo = mid + 1;
      } else {
        break;
      }
    }
    starts_ = best;
    stats_.refineMs += std::chrono::duration<double, std::milli>(Clock::now() - begin).count();
  }

  void addStraightLineConstraints() {
    int n = p_.numUnits();
    for (const auto& d : p_.deps)
      if (d.versionVar < 0 && d.distance == 0) solver_.add(s_[d.to] - s_[d.from] >= num(d.latency));
    for (int a = 0; a < n; ++a) {
      for (int b = a + 1; b < n; ++b) {
        if (!p_.sharePipe(a, b)) continue;
        z3::expr order = c_.bool_const(("o" + std::to_string(a) + "_" + std::to_string(b)).c_str());
        solver_.add(z3::implies(order, s_[b] >= s_[a] + num(p_.ii[a])) &&
                    z3::implies(!order, s_[a] >= s_[b] + num(p_.ii[b])));
      }
    }
    for (size_t x = 0; x < p_.exclusions.size(); ++x) {
      const auto& e = p_.exclusions[x];
      z3::expr order = c_.bool_const(("e" + std::to_string(x)).c_str());
      solver_.add(z3::implies(order, s_[e.b] - s_[e.a] >= num(e.forwardLatency)) &&
                  z3::implies(!order, s_[e.a] - s_[e.b] >= num(e.reverseLatency)));
    }
    for (auto [a, b] : p_.phaseOrder) solver_.add(s_[a] <= s_[b]);
  }

  const SchedulingProblem& p_;
  z3::context& c_;
  z3::solver solver_;
  SolverLimits limits_;
  std::vector<z3::expr> s_, v_;
  std::optional<z3::expr> m0_, iiVar_;
  std::vector<std::vector<z3::expr>> versionChoices_;
  int64_t lastII_ = 0;
  int64_t workLeft_;  // Z3 resource units the list may still spend

  // Z3's resource counter of this solver (cumulative over its checks).
  int64_t workCount() {
    z3::stats st = solver_.statistics();
    for (unsigned i = 0; i < st.size(); ++i)
      if (st.key(i) == "rlimit count")
        return st.is_uint(i) ? static_cast<int64_t>(st.uint_value(i))
                             : static_cast<int64_t>(st.double_value(i));
    return 0;
  }
  std::vector<int64_t> starts_, bestStarts_, foundStarts_;
  int64_t bestT_ = 0;
  Answer probe_ = Answer::Unknown;

 public:
  SolveStats stats_;
};

double threadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

}  // namespace

ProblemSolution solveProblem(const SchedulingProblem& problem, const ProblemSolution& fallback,
                             z3::context& context, const SolverLimits& limits) {
  auto begin = Clock::now();
  double cpuBegin = threadCpuMs();
  ProblemSolution out;
  if (problem.numUnits() == 0) {
    out = fallback;
    out.fallback = false;
    out.provenOptimal = true;
    out.iiLowerBound = out.ii;
  } else if (problem.numUnits() > limits.maxUnits || limits.timeoutMs == 0) {
    // A list schedule that meets the lower bound is optimal without a solver.
    out = fallback;
    out.solverSkipped = true;
    out.iiLowerBound = problem.isLoop ? iiLowerBound(problem) : makespanLowerBound(problem);
    out.provenOptimal = out.ii == out.iiLowerBound;
    out.fallback = problem.isLoop || !out.provenOptimal;
    if (!out.fallback)
      out.note.clear();
    else if (problem.numUnits() > limits.maxUnits)
      out.note = fmt::format("{} units, above the solver's limit of {} per list: list schedule",
                             problem.numUnits(), limits.maxUnits);
    else
      out.note = "no work budget left for the solver: list schedule";
  } else {
    Encoding encoding(problem, context, limits);
    out = problem.isLoop ? encoding.solveLoop(fallback) : encoding.solveStraightLine(fallback);
    out.stats = encoding.stats_;
  }
  out.solveMs = std::chrono::duration<double, std::milli>(Clock::now() - begin).count();
  out.stats.iiSearchMs = out.solveMs - out.stats.refineMs;
  out.stats.cpuMs = threadCpuMs() - cpuBegin;
  return out;
}

}  // namespace tilesched::schedule
