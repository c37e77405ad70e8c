// Vector-clock race detection (see RaceDetector.h).
#include "sim/RaceDetector.h"

#include <algorithm>

namespace tilesched::sim {

bool firstOverlap(const std::vector<ByteRange>& a, const std::vector<ByteRange>& b,
                  ByteRange& out) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    int64_t lo = std::max(a[i].lo, b[j].lo);
    int64_t hi = std::min(a[i].hi, b[j].hi);
    if (lo < hi) {
      out = {lo, hi};
      return true;
    }
    if (a[i].hi <= b[j].hi)
      ++i;
    else
      ++j;
  }
  return false;
}

std::vector<ByteRange> subtractRanges(const std::vector<ByteRange>& a,
                                      const std::vector<ByteRange>& b) {
  std::vector<ByteRange> out;
  size_t j = 0;
  for (ByteRange r : a) {
    while (j < b.size() && b[j].hi <= r.lo) ++j;
    size_t k = j;
    int64_t lo = r.lo;
    while (k < b.size() && b[k].lo < r.hi) {
      if (b[k].lo > lo) out.push_back({lo, b[k].lo});
      lo = std::max(lo, b[k].hi);
      ++k;
    }
    if (lo < r.hi) out.push_back({lo, r.hi});
  }
  return out;
}

// a's completion happens before b's start, or the other way round.
bool RaceDetector::ordered(const AccessOwner& a, const AccessOwner& b) {
  return a.pipeIndex < b.clock[pipeIndex(a.pipe)] || b.pipeIndex < a.clock[pipeIndex(b.pipe)];
}

void RaceDetector::report(const Record& r, const AccessOwner& who, bool whoWrites, int storage,
                          ByteRange overlap) {
  ++total_;
  // Report in issue order: `first` is the instruction the scalar unit issued first.
  bool swap = who.instr < r.who.instr;
  const AccessOwner& first = swap ? who : r.who;
  const AccessOwner& second = swap ? r.who : who;
  auto key = std::make_tuple(static_cast<const void*>(first.stmt),
                             static_cast<const void*>(second.stmt), storage);
  auto it = seen_.find(key);
  if (it != seen_.end()) {
    ++races_[it->second].occurrences;
    return;
  }
  seen_[key] = races_.size();
  Race race;
  race.storage = storage;
  race.lo = overlap.lo;
  race.hi = overlap.hi;
  race.first = first;
  race.second = second;
  race.firstWrites = swap ? whoWrites : r.write;
  race.secondWrites = swap ? r.write : whoWrites;
  races_.push_back(race);
}

void RaceDetector::access(const AccessOwner& who, const AccessSet& set) {
  for (const auto& e : set.entries) {
    auto& records = history_[e.storage];
    // 1. Check.
    for (const Record& r : records) {
      if (r.who.instr == who.instr) continue;
      ByteRange ov;
      bool conflict = firstOverlap(e.writes, r.ranges, ov);
      bool whoWrites = conflict;
      if (!conflict && r.write) conflict = firstOverlap(e.reads, r.ranges, ov);
      if (conflict && !ordered(r.who, who)) report(r, who, whoWrites, e.storage, ov);
    }
    // 2. Trim records that the new access covers and follows (or raced with).
    auto before = [&](const Record& r) {
      return r.who.pipeIndex < who.clock[pipeIndex(r.who.pipe)] || !ordered(r.who, who);
    };
    for (Record& r : records) {
      if (r.who.instr == who.instr || !before(r)) continue;
      if (!e.writes.empty()) r.ranges = subtractRanges(r.ranges, e.writes);
      if (!r.write && !e.reads.empty()) r.ranges = subtractRanges(r.ranges, e.reads);
    }
    records.erase(std::remove_if(records.begin(), records.end(),
                                 [](const Record& r) { return r.ranges.empty(); }),
                  records.end());
    // 3. Record.
    if (!e.writes.empty()) records.push_back(Record{who, true, e.writes});
    if (!e.reads.empty()) records.push_back(Record{who, false, e.reads});
  }
}

}  // namespace tilesched::sim
