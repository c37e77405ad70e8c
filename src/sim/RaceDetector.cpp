// Vector-clock race detection (see RaceDetector.h).
#include "sim/RaceDetector.h"

#include <algorithm>
#include <iterator>
#include <limits>

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
  if ((a.operandsOf >= 0 && a.operandsOf == b.instr) ||
      (b.operandsOf >= 0 && b.operandsOf == a.instr))
    return true;
  return a.pipeIndex < b.clock[pipeIndex(a.pipe)] || b.pipeIndex < a.clock[pipeIndex(b.pipe)];
}

void RaceDetector::report(const Record& r, const AccessOwner& who, bool whoWrites, int storage,
                          ByteRange overlap) {
  // Report in issue order: `first` is the instruction the scalar unit issued first.
  bool swap = who.instr < r.who.instr;
  Race race;
  race.storage = storage;
  race.lo = overlap.lo;
  race.hi = overlap.hi;
  race.first = swap ? who : r.who;
  race.second = swap ? r.who : who;
  race.firstWrites = swap ? whoWrites : r.write;
  race.secondWrites = swap ? r.write : whoWrites;
  found_.add(race);
}

void RaceList::add(const Race& race) {
  ++total_;
  auto key = std::make_tuple(static_cast<const void*>(race.first.stmt),
                             static_cast<const void*>(race.second.stmt), race.storage);
  auto [it, inserted] = index_.try_emplace(key, races_.size());
  if (inserted)
    races_.push_back(race);
  else
    ++races_[it->second].occurrences;
}

void RaceDetector::cover(Segments& segs, int64_t lo, int64_t hi) {
  // Split a segment that straddles `at` into [lo, at) and [at, hi).
  auto split = [&](int64_t at) {
    auto it = segs.upper_bound(at);
    if (it == segs.begin()) return;
    --it;
    if (it->first < at && at < it->second.hi) {
      Segment right{it->second.hi, it->second.records};
      it->second.hi = at;
      segs.emplace(at, std::move(right));
    }
  };
  split(lo);
  split(hi);
  // Fill the gaps of [lo, hi) with empty segments.
  int64_t cursor = lo;
  auto it = segs.lower_bound(lo);
  while (cursor < hi) {
    if (it == segs.end() || it->first >= hi) {
      segs.emplace_hint(it, cursor, Segment{hi, {}});
      return;
    }
    if (it->first > cursor) segs.emplace_hint(it, cursor, Segment{it->first, {}});
    cursor = it->second.hi;
    ++it;
  }
}

void RaceDetector::compact(Segments& segs, int64_t lo, int64_t hi) {
  auto it = segs.lower_bound(lo);
  if (it != segs.begin()) --it;
  while (it != segs.end() && it->first <= hi) {
    if (it->second.records.empty()) {
      it = segs.erase(it);
      continue;
    }
    auto next = std::next(it);
    if (next != segs.end() && next->first == it->second.hi &&
        next->second.records == it->second.records) {
      it->second.hi = next->second.hi;
      segs.erase(next);
      continue;
    }
    it = next;
  }
}

void RaceDetector::access(const AccessOwner& who, const AccessSet& set) {
  for (const auto& e : set.entries) {
    Segments& segs = history_[e.storage];
    for (const ByteRange& r : e.writes) cover(segs, r.lo, r.hi);
    for (const ByteRange& r : e.reads) cover(segs, r.lo, r.hi);

    // 1. Check: per live record, the first overlap of a conflicting pair
    // (our writes against any record, then our reads against write records),
    // reported in the records' insertion order.
    struct Conflict {
      bool whoWrites = false;
      ByteRange overlap;
    };
    std::map<int64_t, Conflict> conflicts;
    std::map<int64_t, bool> unordered;  // per record id, computed once
    auto isUnordered = [&](int64_t id) {
      auto [it, fresh] = unordered.try_emplace(id, false);
      if (fresh) it->second = !ordered(records_[static_cast<size_t>(id)].who, who);
      return it->second;
    };
    // The overlap starting at segment `seg` extends over the adjacent segments
    // of the same range of ours that still hold record `id`.
    auto overlapFrom = [&](Segments::iterator seg, int64_t id, int64_t rangeHi) {
      ByteRange ov{seg->first, seg->second.hi};
      for (auto n = std::next(seg); n != segs.end() && n->first == ov.hi && n->first < rangeHi;
           ++n) {
        const auto& ids = n->second.records;
        if (!std::binary_search(ids.begin(), ids.end(), id)) break;
        ov.hi = n->second.hi;
      }
      return ov;
    };
    auto scan = [&](const std::vector<ByteRange>& ranges, bool ours) {
      for (const ByteRange& r : ranges)
        for (auto it = segs.lower_bound(r.lo); it != segs.end() && it->first < r.hi; ++it)
          for (int64_t id : it->second.records) {
            const Record& rec = records_[static_cast<size_t>(id)];
            if (rec.who.instr == who.instr || conflicts.count(id)) continue;
            if (!ours && !rec.write) continue;
            if (isUnordered(id)) conflicts[id] = Conflict{ours, overlapFrom(it, id, r.hi)};
          }
    };
    scan(e.writes, true);
    scan(e.reads, false);
    for (const auto& [id, c] : conflicts)
      report(records_[static_cast<size_t>(id)], who, c.whoWrites, e.storage, c.overlap);

    // 2. Trim records that the new access covers and follows (or raced with).
    auto before = [&](int64_t id) {
      const Record& r = records_[static_cast<size_t>(id)];
      if (r.who.instr == who.instr) return false;
      return r.who.pipeIndex < who.clock[pipeIndex(r.who.pipe)] || isUnordered(id);
    };
    for (const ByteRange& r : e.writes)
      for (auto it = segs.lower_bound(r.lo); it != segs.end() && it->first < r.hi; ++it) {
        auto& ids = it->second.records;
        ids.erase(std::remove_if(ids.begin(), ids.end(), before), ids.end());
      }
    for (const ByteRange& r : e.reads)
      for (auto it = segs.lower_bound(r.lo); it != segs.end() && it->first < r.hi; ++it) {
        auto& ids = it->second.records;
        ids.erase(std::remove_if(ids.begin(), ids.end(),
                                 [&](int64_t id) {
                                   return !records_[static_cast<size_t>(id)].write && before(id);
                                 }),
                  ids.end());
      }

    // 3. Record (ids increase, so every segment's list stays sorted).
    auto add = [&](const std::vector<ByteRange>& ranges, bool write) {
      if (ranges.empty()) return;
      auto id = static_cast<int64_t>(records_.size());
      records_.push_back(Record{who, write});
      for (const ByteRange& r : ranges)
        for (auto it = segs.lower_bound(r.lo); it != segs.end() && it->first < r.hi; ++it)
          it->second.records.push_back(id);
    };
    add(e.writes, true);
    add(e.reads, false);
    int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
    for (const auto* list : {&e.writes, &e.reads})
      for (const ByteRange& r : *list) {
        lo = std::min(lo, r.lo);
        hi = std::max(hi, r.hi);
      }
    if (lo <= hi) compact(segs, lo, hi);
  }
}

}  // namespace tilesched::sim

namespace tilesched::sim {

namespace {

bool sameSource(const AccessOwner& a, const AccessOwner& b) {
  return a.stmt == b.stmt && a.block == b.block;
}

}  // namespace

void GlobalRaceChecker::addGaps(Intervals& set, int64_t lo, int64_t hi, const AccessOwner& who) {
  // Inserts [a, b) (a gap), merged with neighbours of the same statement and block.
  auto insert = [&](int64_t a, int64_t b) {
    auto right = set.lower_bound(a);
    bool mergeRight = right != set.end() && right->first == b && sameSource(right->second.who, who);
    if (right != set.begin()) {
      auto left = std::prev(right);
      if (left->second.hi == a && sameSource(left->second.who, who)) {
        left->second.hi = mergeRight ? right->second.hi : b;
        if (mergeRight) set.erase(right);
        return;
      }
    }
    if (mergeRight) {
      Interval merged = right->second;
      set.erase(right);
      set.emplace(a, std::move(merged));
      return;
    }
    set.emplace(a, Interval{b, who});
  };
  int64_t cursor = lo;
  while (cursor < hi) {
    auto it = set.upper_bound(cursor);
    if (it != set.begin()) {
      auto holder = std::prev(it);
      if (holder->second.hi > cursor) {
        cursor = holder->second.hi;
        continue;
      }
    }
    int64_t end = it == set.end() ? hi : std::min(hi, it->first);
    insert(cursor, end);
    cursor = end;
  }
}

void GlobalRaceChecker::access(const AccessOwner& who, const AccessSet& set,
                               const StorageAtomics& atomics) {
  for (const auto& e : set.entries) {
    if (e.storage < 0 || static_cast<size_t>(e.storage) >= isGlobal_.size() ||
        !isGlobal_[static_cast<size_t>(e.storage)])
      continue;
    auto& kinds = block_[e.storage];
    ir::AtomicOp atomic = ir::AtomicOp::None;
    for (const auto& [storage, op] : atomics)
      if (storage == e.storage) atomic = op;
    size_t atomicKind = static_cast<size_t>(Atomic) + static_cast<size_t>(atomic) - 1;
    // An atomic accumulate reads and writes its destination as one access.
    bool isAtomic = atomic != ir::AtomicOp::None;
    size_t writeKind = isAtomic ? atomicKind : static_cast<size_t>(Write);
    size_t readKind = isAtomic ? atomicKind : static_cast<size_t>(Read);
    for (const ByteRange& r : e.writes) addGaps(kinds[writeKind], r.lo, r.hi, who);
    for (const ByteRange& r : e.reads) addGaps(kinds[readKind], r.lo, r.hi, who);
  }
}

void GlobalRaceChecker::report(const AccessOwner& earlier, size_t earlierKind,
                               const AccessOwner& later, size_t laterKind, int storage,
                               ByteRange overlap) {
  Race race;
  race.storage = storage;
  race.lo = overlap.lo;
  race.hi = overlap.hi;
  race.first = earlier;
  race.second = later;
  race.firstWrites = earlierKind != Read;
  race.secondWrites = laterKind != Read;
  race.firstAtomic = earlierKind >= Atomic;
  race.secondAtomic = laterKind >= Atomic;
  race.betweenBlocks = true;
  found_.add(race);
}

void GlobalRaceChecker::endBlock() {
  for (const auto& [storage, kinds] : block_) {
    auto seen = seen_.find(storage);
    if (seen == seen_.end()) continue;
    for (size_t later = 0; later < kKinds; ++later)
      for (const auto& [lo, iv] : kinds[later])
        for (size_t earlier = 0; earlier < kKinds; ++earlier) {
          if (!conflict(earlier, later)) continue;
          const Intervals& old = seen->second[earlier];
          auto it = old.upper_bound(lo);
          if (it != old.begin() && std::prev(it)->second.hi > lo) --it;
          for (; it != old.end() && it->first < iv.hi; ++it)
            report(it->second.who, earlier, iv.who, later, storage,
                   {std::max(lo, it->first), std::min(iv.hi, it->second.hi)});
        }
  }
  for (const auto& [storage, kinds] : block_)
    for (size_t k = 0; k < kKinds; ++k)
      for (const auto& [lo, iv] : kinds[k]) addGaps(seen_[storage][k], lo, iv.hi, iv.who);
  block_.clear();
}

}  // namespace tilesched::sim
