// Stale-version reads (see StaleVersions.h).
#include "sim/StaleVersions.h"

#include <algorithm>

#include <fmt/format.h>

#include "ir/Functor.h"
#include "sim/Simulator.h"

namespace tilesched::sim {

using namespace ir;

namespace {

constexpr int64_t kUnknown = -3;  // an access whose epoch could not be read off its index

// The leading indices of one statement's accesses to versioned storages.
class ClockCollector : public IRVisitor {
 public:
  ClockCollector(const std::unordered_map<int, const VersionedStorage*>& byStorageId,
                 const Memory& memory)
      : byStorageId_(byStorageId), memory_(memory) {}

  struct Found {
    int storage;
    Expr clock;    // null: broadcast
    bool decoded;  // false: the index has no recognisable clock
  };
  std::vector<Found> found;

  void visitExpr(const Expr& e) override {
    if (e && e->kind == ExprKind::Load && !e->operands.empty())
      element(e->buffer, e->operands.front());
    IRVisitor::visitExpr(e);
  }

 protected:
  void visitStore(const StoreStmt& s) override {
    if (!s.indices.empty()) element(s.buffer, s.indices.front());
    IRVisitor::visitStore(s);
  }
  void visitRegion(const Region& r) override {
    if (const VersionedStorage* v = lookup(r.buffer); v && !r.ranges.empty()) {
      const Range& lead = r.ranges.front();
      if (lead.extent == v->versions)
        found.push_back({memory_.index(r.buffer->storage), nullptr, true});
      else
        add(r.buffer, *v, lead.min);
    }
    IRVisitor::visitRegion(r);
  }

 private:
  const VersionedStorage* lookup(const Buffer& b) const {
    if (!b) return nullptr;
    auto it = byStorageId_.find(b->storage->id);
    return it == byStorageId_.end() ? nullptr : it->second;
  }
  void element(const Buffer& b, const Expr& index) {
    if (const VersionedStorage* v = lookup(b)) add(b, *v, index);
  }
  void add(const Buffer& b, const VersionedStorage& v, const Expr& index) {
    int storage = memory_.index(b->storage);
    bool decoded = index && index->kind == ExprKind::Binary && index->binOp == BinOp::FloorMod &&
                   index->operands.size() == 2 && index->operands[1]->kind == ExprKind::IntImm &&
                   index->operands[1]->intValue == v.versions;
    found.push_back({storage, decoded ? index->operands[0] : nullptr, decoded});
  }

  const std::unordered_map<int, const VersionedStorage*>& byStorageId_;
  const Memory& memory_;
};

}  // namespace

StaleVersionCheck::StaleVersionCheck(const Kernel& kernel, const Memory& memory) {
  for (const auto& record : kernel.annotations.versioned) {
    if (!record.storage || !record.buffer || record.versions < 2) continue;
    int index = memory.index(record.storage);
    Tracked t;
    t.record = &record;
    t.versionBytes = memory.size(index) / record.versions;
    if (t.versionBytes <= 0) continue;
    t.stamps.assign(static_cast<size_t>(memory.size(index)), kNever);
    tracked_.emplace(index, std::move(t));
    byStorageId_[record.storage->id] = &record;
  }
  memory_ = &memory;
}

void StaleVersionCheck::resetBlock() {
  for (auto& [index, t] : tracked_) std::fill(t.stamps.begin(), t.stamps.end(), kNever);
  reported_.clear();
}

const std::vector<StaleVersionCheck::Clock>& StaleVersionCheck::clocksOf(const Stmt& s) {
  auto [it, fresh] = clocks_.try_emplace(s.get());
  if (!fresh) return it->second;
  ClockCollector collect(byStorageId_, *memory_);
  // A loop or a branch reads only its own bounds or condition when it runs.
  if (const auto* f = as<ForStmt>(s)) {
    collect.visitExpr(f->min);
    collect.visitExpr(f->extent);
  } else if (const auto* i = as<IfStmt>(s)) {
    collect.visitExpr(i->cond);
  } else {
    collect.visitStmt(s);
  }
  for (const auto& f : collect.found)
    it->second.push_back(Clock{f.storage, f.decoded ? f.clock : nullptr, f.decoded});
  return it->second;
}

StaleVersionCheck::Epochs StaleVersionCheck::epochsOf(const Stmt& s, Machine& machine) {
  Epochs out;
  if (!active()) return out;
  for (const auto& c : clocksOf(s)) {
    int64_t epoch = kBroadcast;
    if (!c.decoded) {
      epoch = kUnknown;
    } else if (c.clock) {
      // The clock is register arithmetic, not an access of memory.
      AccessSet* saved = machine.access;
      machine.access = nullptr;
      try {
        epoch = machine.eval(c.clock).asInt();
        if (epoch < 0) epoch = kUnknown;
      } catch (const ExecError&) {
        epoch = kUnknown;
      }
      machine.access = saved;
    }
    auto same = std::find_if(out.begin(), out.end(),
                             [&](const Epoch& e) { return e.storage == c.storage; });
    if (same == out.end())
      out.push_back({c.storage, epoch});
    else if (same->epoch != epoch)
      same->epoch = kUnknown;  // two epochs of one storage in one instruction
  }
  return out;
}

// The epoch whose write makes the byte at `offset` stale for a reader in
// `epoch`, else kNever.
int64_t StaleVersionCheck::staleByte(const Tracked& t, int64_t offset, int64_t epoch) const {
  int64_t stamp = t.stamps[static_cast<size_t>(offset)];
  if (stamp == epoch || stamp == kNever || stamp == kUnknown) return kNever;
  if (stamp != kBroadcast) return stamp;
  // Broadcast bytes are current unless some epoch wrote this element since,
  // in any version: the sequential program would read that write.
  int64_t logical = offset % t.versionBytes;
  for (int64_t v = 0; v < t.record->versions; ++v) {
    int64_t other = t.stamps[static_cast<size_t>(v * t.versionBytes + logical)];
    if (other >= 0) return other;
  }
  return kNever;
}

void StaleVersionCheck::apply(const AccessSet& acc, const Epochs& epochs, const Stmt& s,
                              int64_t block, std::vector<SimIssue>& issues) {
  if (!active()) return;
  for (const auto& entry : acc.entries) {
    auto it = tracked_.find(entry.storage);
    if (it == tracked_.end()) continue;
    Tracked& t = it->second;
    int64_t epoch = kUnknown;
    for (const auto& e : epochs)
      if (e.storage == entry.storage) epoch = e.epoch;
    if (epoch >= 0 && !reported_.count({s.get(), entry.storage})) {
      for (const auto& r : entry.reads) {
        int64_t lo = r.lo, writer = kNever;
        const int64_t* stamps = t.stamps.data();
        for (; lo < r.hi; ++lo) {
          int64_t st = stamps[lo];  // staleByte's common cases, inline
          if (st == epoch || st == kNever || st == kUnknown) continue;
          if ((writer = staleByte(t, lo, epoch)) != kNever) break;
        }
        if (lo >= r.hi) continue;
        int64_t hi = lo + 1;
        while (hi < r.hi && staleByte(t, hi, epoch) != kNever) ++hi;
        reported_.insert({s.get(), entry.storage});
        issues.push_back(staleIssue(t, lo, hi, writer, epoch, s, block));
        break;
      }
    }
    int64_t stamp = epoch == kBroadcast ? kBroadcast : epoch >= 0 ? epoch : kUnknown;
    for (const auto& w : entry.writes)
      std::fill(t.stamps.begin() + w.lo, t.stamps.begin() + w.hi, stamp);
  }
}

SimIssue StaleVersionCheck::staleIssue(const Tracked& t, int64_t lo, int64_t hi, int64_t writer,
                                       int64_t epoch, const Stmt& s, int64_t block) const {
  const VersionedStorage& v = *t.record;
  const std::string& name = v.buffer->name;
  int64_t elem = std::max<int64_t>(1, dtypeBytes(v.buffer->dtype));
  int64_t version = lo / t.versionBytes;
  int64_t first = (lo % t.versionBytes) / elem;
  int64_t last = ((hi - 1) % t.versionBytes) / elem;
  std::string owner;
  for (const auto& [var, loc] : v.ownerLoops)
    owner += fmt::format("{}'{}' (line {})", owner.empty() ? "" : " or ", var, loc.line);
  SimIssue issue;
  issue.kind = SimIssue::Runtime;
  issue.loc = s->loc;
  issue.block = block;
  bool broadcast = t.stamps[static_cast<size_t>(lo)] == kBroadcast;
  std::string what =
      broadcast ? fmt::format(
                      "which hold what was written before the loop, but epoch {} of its "
                      "owner loop {} has written them since in another version",
                      writer, owner)
                : fmt::format("last written in epoch {} of its owner loop {}", writer, owner);
  issue.message = fmt::format(
      "stale version of '{}': {} reads elements {} to {} of version {}, {}, not in this epoch "
      "({}); the sequential program reads other values there",
      name, instructionName(s.get()), first, last, version, what, epoch);
  issue.notes.push_back(
      {v.ownerLoops.empty() ? s->loc : v.ownerLoops.front().second,
       fmt::format("'{}' has {} versions, taken in turn by the epochs of this loop: every epoch "
                   "must write each element of it that it reads before reading it (a copy clipped "
                   "at the end of its tensor does not; pad_value= fills the rest), else keep one "
                   "version ({{{}: 1}})",
                   name, v.versions, name)});
  return issue;
}

}  // namespace tilesched::sim
