// Order propagation over difference constraints (see PropagationBound.h).
#include "schedule/PropagationBound.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace tilesched::schedule {

namespace {

constexpr int64_t kNone = std::numeric_limits<int64_t>::min() / 4;

// One disjunction: either order `first` (edges a->b >= ab1, b->a >= ba1) or
// order `second` (a->b >= ab2, b->a >= ba2); "x->y >= w" is s_y - s_x >= w.
struct Choice {
  int a, b;
  int64_t ab1, ba1, ab2, ba2;
};

class Closure {
 public:
  explicit Closure(int n) : n_(n), d_(n, std::vector<int64_t>(n, kNone)) {
    for (int i = 0; i < n; ++i) d_[i][i] = 0;
  }
  void edge(int u, int v, int64_t w) { d_[u][v] = std::max(d_[u][v], w); }
  void close() {
    for (int k = 0; k < n_; ++k)
      for (int i = 0; i < n_; ++i) {
        if (d_[i][k] == kNone) continue;
        for (int j = 0; j < n_; ++j)
          if (d_[k][j] != kNone) d_[i][j] = std::max(d_[i][j], d_[i][k] + d_[k][j]);
      }
  }
  // Adds u->v >= w to a closed matrix, keeping it closed.
  void addClosed(int u, int v, int64_t w) {
    if (d_[u][v] >= w) return;
    for (int i = 0; i < n_; ++i) {
      if (d_[i][u] == kNone) continue;
      for (int j = 0; j < n_; ++j)
        if (d_[v][j] != kNone) d_[i][j] = std::max(d_[i][j], d_[i][u] + w + d_[v][j]);
    }
  }
  bool positiveCycle() const {
    for (int i = 0; i < n_; ++i)
      if (d_[i][i] > 0) return true;
    return false;
  }
  // Does the order (u->v >= w1, v->u >= w2) contradict the closure?
  bool contradicts(int u, int v, int64_t w1, int64_t w2) const {
    // s_v - s_u >= w1 needs s_v - s_u <= -d[v][u] to allow it, and alike.
    return (d_[v][u] != kNone && d_[v][u] > -w1) || (d_[u][v] != kNone && d_[u][v] > -w2);
  }

 private:
  int n_;
  std::vector<std::vector<int64_t>> d_;
};

bool refuted(const SchedulingProblem& p, int64_t t) {
  int n = p.numUnits();
  Closure c(n);
  for (int i = 0; i < n; ++i)
    if (p.pipeMask[i] && p.ii[i] > t) return true;
  for (const auto& d : p.deps) {
    int64_t distance = d.versionVar >= 0 ? p.versions[d.versionVar].maxVersions : d.distance;
    c.edge(d.from, d.to, d.latency - t * distance);
  }
  std::vector<Choice> choices;
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b) {
      if (!p.sharePipe(a, b)) continue;
      if (p.ii[a] + p.ii[b] > t) return true;
      // a then b: ii_a <= s_b - s_a <= T - ii_b; b then a: ii_a - T <= s_b - s_a <= -ii_b.
      choices.push_back({a, b, p.ii[a], p.ii[b] - t, p.ii[a] - t, p.ii[b]});
      c.edge(a, b, p.ii[a] - t);  // the hull of both orders
      c.edge(b, a, p.ii[b] - t);
    }
  for (const auto& e : p.exclusions)
    choices.push_back(
        {e.a, e.b, e.forwardLatency, e.reverseLatency - t, e.forwardLatency - t, e.reverseLatency});
  c.close();
  std::vector<bool> fixed(choices.size(), false);
  for (bool changed = true; changed;) {
    if (c.positiveCycle()) return true;
    changed = false;
    for (size_t k = 0; k < choices.size(); ++k) {
      if (fixed[k]) continue;
      const Choice& ch = choices[k];
      bool first = !c.contradicts(ch.a, ch.b, ch.ab1, ch.ba1);
      bool second = !c.contradicts(ch.a, ch.b, ch.ab2, ch.ba2);
      if (!first && !second) return true;
      if (first && second) continue;
      c.addClosed(ch.a, ch.b, first ? ch.ab1 : ch.ab2);
      c.addClosed(ch.b, ch.a, first ? ch.ba1 : ch.ba2);
      fixed[k] = true;
      changed = true;
    }
  }
  return c.positiveCycle();
}

}  // namespace

int64_t propagatedIIBound(const SchedulingProblem& p, int64_t from, int64_t to) {
  if (p.enableOffset || !p.isLoop || from >= to || !refuted(p, from)) return from;
  int64_t lo = from + 1, hi = to;  // every II < lo is refuted; `to` is feasible
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (refuted(p, mid))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

}  // namespace tilesched::schedule
