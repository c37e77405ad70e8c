// The sequential reference of a manual-form core group (see GroupReference.h).
// The cores run on threads that pass one turn between them, so each core's
// Machine::exec keeps its own call stack across a blocking wait while only
// one of them ever runs: the result is that of a deterministic interleaving.
#include "sim/GroupReference.h"

#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "sim/CrossCoreFlags.h"

namespace tilesched::sim {

using namespace ir;

void bindGroupCore(const Kernel& kernel, Machine& machine, int core) {
  const auto& mc = *kernel.manualCores;
  machine.env[static_cast<size_t>(mc.core->id)] = Scalar::ofInt(core);
  machine.env[static_cast<size_t>(mc.sid->id)] = Scalar::ofInt(core > 0 ? core - 1 : 0);
  machine.setCoreView(core);
}

int groupCores(const Kernel& kernel) {
  return kernel.manualCores ? 1 + kernel.manualCores->vectorCores : 1;
}

namespace {

struct Aborted {};  // another core failed or the group deadlocked

class GroupRun {
 public:
  GroupRun(const Kernel& kernel, const std::vector<Machine*>& cores)
      : kernel_(kernel), cores_(cores), state_(cores.size()) {}

  void run() {
    for (size_t c = 0; c < cores_.size(); ++c)
      cores_[c]->onCrossCoreFlag = [this, c](const Stmt& s) { flag(static_cast<int>(c), s); };
    std::vector<std::thread> threads;
    for (size_t c = 0; c < cores_.size(); ++c)
      threads.emplace_back([this, c] { body(static_cast<int>(c)); });
    for (auto& t : threads) t.join();
    for (Machine* m : cores_) m->onCrossCoreFlag = nullptr;
    if (failure_) std::rethrow_exception(failure_);
    if (error_) throw *error_;
  }

 private:
  struct CoreState {
    bool done = false;
    bool waiting = false;
    // Waiting for room: a set on a counter that holds the most pending sets
    // the hardware keeps. The interleaving is the reference's choice, so a
    // producer that ran ahead waits for the consumer here; whether the
    // hardware's timing overfills the counter is the cycle simulator's call.
    bool full = false;
    CrossCoreCounter waitFor;
    SourceLoc waitLoc;
  };

  int aivs() const { return static_cast<int>(cores_.size()) - 1; }

  void body(int core) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      turnChanged_.wait(lock, [&] { return turn_ == core || aborted_; });
      if (aborted_) return;
    }
    try {
      cores_[static_cast<size_t>(core)]->exec(kernel_.body);
    } catch (const ExecError& e) {
      abort(e);
      return;
    } catch (const Aborted&) {
      return;
    } catch (...) {
      std::unique_lock<std::mutex> lock(mutex_);
      if (!failure_) failure_ = std::current_exception();
      aborted_ = true;
      turnChanged_.notify_all();
      return;
    }
    std::unique_lock<std::mutex> lock(mutex_);
    state_[static_cast<size_t>(core)].done = true;
    passTurn(core);
  }

  void abort(const ExecError& e) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!error_) error_ = e;
    aborted_ = true;
    turnChanged_.notify_all();
  }

  bool canGoOn(const CoreState& st) {
    int64_t pending = counters_[st.waitFor];
    return st.full ? pending < kMaxPendingCrossCoreSets : pending > 0;
  }

  // With the lock held, by the core that has the turn and cannot go on.
  void passTurn(int from) {
    size_t n = cores_.size();
    bool allDone = true;
    for (size_t k = 1; k <= n; ++k) {
      size_t c = (static_cast<size_t>(from) + k) % n;
      const CoreState& st = state_[c];
      if (st.done) continue;
      allDone = false;
      if (st.waiting && !canGoOn(st)) continue;
      turn_ = static_cast<int>(c);
      turnChanged_.notify_all();
      return;
    }
    turn_ = -1;
    if (allDone) return;
    std::string message = "deadlock in the core group: every core that has not finished waits";
    SourceLoc at;
    for (size_t c = 0; c < n; ++c) {
      const CoreState& st = state_[c];
      if (st.done) {
        message += fmt::format("; {} has finished", coreName(static_cast<int>(c)));
        continue;
      }
      if (!at.valid()) at = st.waitLoc;
      if (st.full)
        message += fmt::format(
            "; {} sets {} at line {}, which holds {} pending sets (the most the hardware keeps) "
            "that no core takes any more",
            coreName(static_cast<int>(c)), counterText(st.waitFor), st.waitLoc.line,
            kMaxPendingCrossCoreSets);
      else
        message +=
            fmt::format("; {} waits at line {} for {}, which no core sets any more",
                        coreName(static_cast<int>(c)), st.waitLoc.line, counterText(st.waitFor));
    }
    error_ = ExecError{at, message};
    aborted_ = true;
    turnChanged_.notify_all();
  }

  // Core `core` (which has the turn) sets or waits on a cross-core flag.
  void flag(int core, const Stmt& s) {
    Machine& m = *cores_[static_cast<size_t>(core)];
    const auto* set = as<SetFlagStmt>(s);
    const auto* wait = as<WaitFlagStmt>(s);
    const Expr& idExpr = set ? set->eventId : wait->eventId;
    m.loc = s->loc;
    int64_t id = m.eval(idExpr).asInt();
    std::string error;
    std::unique_lock<std::mutex> lock(mutex_);
    if (aborted_) throw Aborted{};
    if (set) {
      auto counter = crossCoreSetCounter(core, id, aivs(), error);
      if (!counter) throw ExecError{s->loc, coreName(core) + ": " + error};
      if (counters_[*counter] >= kMaxPendingCrossCoreSets)
        block(lock, core, *counter, s->loc, /*full=*/true);
      ++counters_[*counter];
      return;
    }
    auto counter = crossCoreWaitCounter(core, id, aivs(), error);
    if (!counter) throw ExecError{s->loc, coreName(core) + ": " + error};
    if (counters_[*counter] == 0) block(lock, core, *counter, s->loc, /*full=*/false);
    --counters_[*counter];
  }

  // Core `core` cannot go on until `counter` has a set (or, `full`, room for
  // one): it passes the turn and sleeps until it gets it back.
  void block(std::unique_lock<std::mutex>& lock, int core, const CrossCoreCounter& counter,
             SourceLoc at, bool full) {
    CoreState& st = state_[static_cast<size_t>(core)];
    st.waiting = true;
    st.full = full;
    st.waitFor = counter;
    st.waitLoc = at;
    passTurn(core);
    turnChanged_.wait(lock, [&] { return turn_ == core || aborted_; });
    st.waiting = false;
    if (aborted_) throw Aborted{};
  }

  const Kernel& kernel_;
  const std::vector<Machine*>& cores_;
  std::mutex mutex_;
  std::condition_variable turnChanged_;
  int turn_ = 0;
  bool aborted_ = false;
  std::vector<CoreState> state_;
  std::map<CrossCoreCounter, int64_t> counters_;
  std::optional<ExecError> error_;
  std::exception_ptr failure_;
};

}  // namespace

void runGroupReference(const Kernel& kernel, const std::vector<Machine*>& cores) {
  GroupRun(kernel, cores).run();
}

}  // namespace tilesched::sim
