// Vector-clock race detection (see RaceDetector.h).
#include "sim/RaceDetector.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <queue>

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
  return a.pipeIndex < b.clock[a.lane()] || b.pipeIndex < a.clock[b.lane()];
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
      return r.who.pipeIndex < who.clock[r.who.lane()] || isUnordered(id);
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

void GlobalRaceChecker::normalize(std::vector<Piece>& pieces,
                                  const std::vector<AccessOwner>& owners) {
  auto sameStmt = [&](const Piece& x, const Piece& y) {
    return owners[static_cast<size_t>(x.owner)].stmt == owners[static_cast<size_t>(y.owner)].stmt;
  };
  // Merges touching neighbours of one statement (the left one's owner stays).
  auto coalesce = [&](std::vector<Piece>& sorted) {
    size_t out = 0;
    for (size_t i = 0; i < sorted.size(); ++i) {
      if (sorted[i].lo >= sorted[i].hi) continue;
      if (out > 0 && sorted[out - 1].hi == sorted[i].lo && sameStmt(sorted[out - 1], sorted[i]))
        sorted[out - 1].hi = sorted[i].hi;
      else
        sorted[out++] = sorted[i];
    }
    sorted.resize(out);
  };
  bool disjointInOrder = true;
  for (size_t i = 1; i < pieces.size() && disjointInOrder; ++i)
    disjointInOrder = pieces[i].lo >= pieces[i - 1].hi;
  if (disjointInOrder) {  // the usual case: one pass, nothing to resolve
    coalesce(pieces);
    return;
  }
  // General case: a sweep over the boundaries; the owner of each elementary
  // range is the earliest recorded piece covering it (smallest index).
  std::vector<size_t> order(pieces.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t x, size_t y) { return pieces[x].lo < pieces[y].lo; });
  std::vector<int64_t> bounds;
  bounds.reserve(2 * pieces.size());
  for (const Piece& p : pieces) {
    bounds.push_back(p.lo);
    bounds.push_back(p.hi);
  }
  std::sort(bounds.begin(), bounds.end());
  bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
  std::priority_queue<size_t, std::vector<size_t>, std::greater<>> active;  // piece indices
  std::vector<Piece> out;
  size_t next = 0;
  for (size_t k = 0; k + 1 < bounds.size(); ++k) {
    int64_t x = bounds[k];
    while (next < order.size() && pieces[order[next]].lo <= x) active.push(order[next++]);
    while (!active.empty() && pieces[active.top()].hi <= x) active.pop();
    if (active.empty()) continue;
    const Piece& top = pieces[active.top()];
    out.push_back(Piece{x, bounds[k + 1], top.owner});
  }
  // Elementary ranges of one piece are adjacent: merging them first keeps
  // the owner a piece of the statement's own.
  coalesce(out);
  pieces = std::move(out);
}

void GlobalRaceChecker::access(const AccessOwner& who, const AccessSet& set,
                               const StorageAtomics& atomics) {
  bool ownerAdded = false;
  for (const auto& e : set.entries) {
    if (e.storage < 0 || static_cast<size_t>(e.storage) >= isGlobal_.size() ||
        !isGlobal_[static_cast<size_t>(e.storage)])
      continue;
    if (e.writes.empty() && e.reads.empty()) continue;
    if (!ownerAdded) {
      block_.owners.push_back(who);
      ownerAdded = true;
    }
    auto owner = static_cast<int32_t>(block_.owners.size() - 1);
    if (block_.storages.size() <= static_cast<size_t>(e.storage))
      block_.storages.resize(static_cast<size_t>(e.storage) + 1);
    auto& kinds = block_.storages[static_cast<size_t>(e.storage)];
    ir::AtomicOp atomic = ir::AtomicOp::None;
    for (const auto& [storage, op] : atomics)
      if (storage == e.storage) atomic = op;
    size_t atomicKind = static_cast<size_t>(Atomic) + static_cast<size_t>(atomic) - 1;
    // An atomic accumulate reads and writes its destination as one access.
    bool isAtomic = atomic != ir::AtomicOp::None;
    size_t writeKind = isAtomic ? atomicKind : static_cast<size_t>(Write);
    size_t readKind = isAtomic ? atomicKind : static_cast<size_t>(Read);
    for (const ByteRange& r : e.writes) kinds[writeKind].push_back(Piece{r.lo, r.hi, owner});
    for (const ByteRange& r : e.reads) kinds[readKind].push_back(Piece{r.lo, r.hi, owner});
  }
}

void GlobalRaceChecker::normalizeBlock() {
  if (block_.normalized) return;
  for (auto& kinds : block_.storages)
    for (auto& pieces : kinds) normalize(pieces, block_.owners);
  block_.normalized = true;
}

GlobalRaceChecker::Summary GlobalRaceChecker::takeBlock() {
  normalizeBlock();
  Summary s = std::move(block_);
  block_ = Summary{};
  return s;
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

namespace {

// The first interval of `set` that ends after `lo`, searched forward from
// `from` (a few steps, then a lookup): the callers ask with increasing `lo`.
template <typename Map>
typename Map::const_iterator firstEndingAfter(const Map& set, typename Map::const_iterator from,
                                              int64_t lo) {
  for (int step = 0; step < 8; ++step) {
    if (from == set.end() || from->second.hi > lo) return from;
    ++from;
  }
  auto it = set.upper_bound(lo);
  if (it != set.begin() && std::prev(it)->second.hi > lo) --it;
  return it;
}

}  // namespace

void GlobalRaceChecker::endBlock() {
  normalizeBlock();
  if (seen_.size() < block_.storages.size()) seen_.resize(block_.storages.size());
  for (size_t storage = 0; storage < block_.storages.size(); ++storage) {
    const auto& kinds = block_.storages[storage];
    auto& seen = seen_[storage];
    for (size_t later = 0; later < kKinds; ++later)
      for (size_t earlier = 0; earlier < kKinds; ++earlier) {
        if (!conflict(earlier, later) || seen[earlier].empty()) continue;
        const SeenIntervals& old = seen[earlier];
        auto cursor = old.begin();
        for (const Piece& p : kinds[later]) {
          cursor = firstEndingAfter(old, cursor, p.lo);
          for (auto it = cursor; it != old.end() && it->first < p.hi; ++it)
            report(seenOwners_[static_cast<size_t>(it->second.owner)], earlier,
                   block_.owners[static_cast<size_t>(p.owner)], later, static_cast<int>(storage),
                   {std::max(p.lo, it->first), std::min(p.hi, it->second.hi)});
        }
      }
  }
  // Merge: the parts of each interval no earlier block touched. Blocks never
  // share an owner, so a gap never merges with an earlier block's interval.
  std::vector<int32_t> seenOwnerOf(block_.owners.size(), -1);
  auto seenOwner = [&](int32_t owner) {
    int32_t& id = seenOwnerOf[static_cast<size_t>(owner)];
    if (id < 0) {
      id = static_cast<int32_t>(seenOwners_.size());
      seenOwners_.push_back(block_.owners[static_cast<size_t>(owner)]);
    }
    return id;
  };
  for (size_t storage = 0; storage < block_.storages.size(); ++storage)
    for (size_t k = 0; k < kKinds; ++k) {
      SeenIntervals& set = seen_[storage][k];
      auto cursor = set.cbegin();
      for (const Piece& p : block_.storages[storage][k]) {
        int64_t at = p.lo;
        cursor = firstEndingAfter(set, cursor, at);
        while (at < p.hi) {
          if (cursor != set.end() && cursor->first <= at) {  // covered up to its end
            at = cursor->second.hi;
            ++cursor;
            continue;
          }
          int64_t end = cursor == set.end() ? p.hi : std::min(p.hi, cursor->first);
          set.emplace_hint(cursor, at, Seen{end, seenOwner(p.owner)});
          at = end;
        }
      }
    }
  block_ = Summary{};
}

}  // namespace tilesched::sim
