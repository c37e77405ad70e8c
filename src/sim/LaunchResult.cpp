// What a launch reports besides each block's own stats and issues (see
// Simulator.h): the on-chip allocation and its capacity issues, the deadlocks
// of several blocks merged into one issue, duplicates dropped, the name of a
// racing global element, and the totals over the waves of blocks.
// Assumes: `result.blocks` in the order the blocks ran (a wave is `cores`
// consecutive ones). Guarantees: a deterministic order of issues (the order
// they were found in, the merged deadlock at the first one's place).
#include "sim/Simulator.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/IndexText.h"
#include "sim/SimulatorImpl.h"

namespace tilesched::sim {

using namespace ir;

int64_t SimResult::count(SimIssue::Kind k) const {
  int64_t n = 0;
  for (const auto& i : issues) n += i.kind == k;
  return n;
}

std::vector<Allocation> allocate(const Kernel& kernel, const Target& target,
                                 std::vector<SimIssue>& issues,
                                 std::array<int64_t, kNumMemScopes>& used) {
  std::vector<Allocation> out;
  used.fill(0);
  for (MemScope scope : kCapacityScopes) {
    int64_t cursor = 0;
    int64_t align = std::max<int64_t>(1, target.alignment(scope));
    auto cap = target.capacity(scope, kernel.hasSimtVF);
    bool unlimited =
        std::find(kernel.annotations.unlimited.begin(), kernel.annotations.unlimited.end(),
                  scope) != kernel.annotations.unlimited.end();
    for (const auto& st : kernel.storages) {
      if (st->scope != scope) continue;
      int64_t offset = (cursor + align - 1) / align * align;
      out.push_back({st->name, scope, offset, st->bytes});
      cursor = offset + st->bytes;
      if (cap && cursor > *cap) {
        SimIssue issue;
        issue.kind = SimIssue::Capacity;
        issue.loc = st->loc;
        issue.message = fmt::format(
            "'{}' ({} bytes at offset {}, {}-byte aligned) ends at byte {}, beyond the {} bytes of "
            "{} on {}",
            st->name, st->bytes, offset, align, cursor, *cap, memScopeName(scope), target.name);
        if (unlimited)
          issue.notes.push_back(
              {kernel.loc, fmt::format("T.annotate_unlimit_memory(\"{}\") lifts the limit for the "
                                       "scheduler only; the hardware keeps its capacity",
                                       memScopeName(scope))});
        issues.push_back(std::move(issue));
      }
    }
    used[memScopeIndex(scope)] = cursor;
  }
  return out;
}

namespace {

// One deadlock error for the whole launch, naming every blocked block: its
// notes are the blocks' notes (each pipe's blocked head, the scalar unit),
// prefixed with the block and cycle. A single blocked block keeps its own.
void mergeDeadlocks(std::vector<SimIssue>& issues, int64_t grid) {
  if (std::count_if(issues.begin(), issues.end(),
                    [](const SimIssue& i) { return i.kind == SimIssue::Deadlock; }) <= 1)
    return;
  std::vector<SimIssue> deadlocks, rest;
  size_t firstAt = issues.size();
  for (auto& i : issues) {
    if (i.kind == SimIssue::Deadlock && firstAt == issues.size()) firstAt = rest.size();
    (i.kind == SimIssue::Deadlock ? deadlocks : rest).push_back(std::move(i));
  }
  SimIssue merged;
  merged.kind = SimIssue::Deadlock;
  merged.loc = deadlocks.front().loc;
  merged.block = deadlocks.front().block;
  std::string blocks;
  for (size_t k = 0; k < deadlocks.size(); ++k)
    blocks += (k == 0                      ? ""
               : k + 1 == deadlocks.size() ? " and "
                                           : ", ") +
              std::to_string(deadlocks[k].block);
  merged.message = fmt::format("deadlock in blocks {} ({} of {} blocks): no pipe can make progress",
                               blocks, deadlocks.size(), grid);
  for (const auto& d : deadlocks) {
    // "deadlock in block 1 at cycle 57: ..." -> "block 1 at cycle 57"
    std::string where = fmt::format("block {}", d.block);
    auto at = d.message.find(" at cycle ");
    auto colon = d.message.find(':');
    if (at != std::string::npos && colon != std::string::npos && at < colon)
      where += d.message.substr(at, colon - at);
    if (d.notes.empty()) merged.notes.push_back({d.loc, where + ": blocked"});
    for (const auto& [loc, text] : d.notes) merged.notes.push_back({loc, where + ": " + text});
  }
  rest.insert(rest.begin() + static_cast<long>(firstAt), std::move(merged));
  issues = std::move(rest);
}

void dedupeIssues(std::vector<SimIssue>& issues) {
  std::vector<SimIssue> out;
  for (auto& i : issues) {
    bool dup = false;
    for (const auto& o : out)
      if (o.kind == i.kind && o.loc.line == i.loc.line && o.loc.col == i.loc.col &&
          (o.kind != SimIssue::Deadlock ? o.message == i.message : true))
        dup = true;
    if (!dup) out.push_back(std::move(i));
  }
  issues = std::move(out);
}

}  // namespace

std::string detail::elementName(const Kernel& kernel, const Memory& memory, Machine& machine,
                                int storage, int64_t byte) {
  for (const auto& p : kernel.params) {
    if (!p.buffer || memory.index(p.buffer->storage) != storage) continue;
    const auto& shape = machine.shapeOf(p.buffer);
    int64_t flat = byte / std::max(1, dtypeBytes(p.buffer->dtype));
    return fmt::format("{}[{}]", p.name, indexText(flat, shape));
  }
  return memory.storage(storage)->name;
}

void detail::finish(SimResult& result, const Kernel& kernel, const SimOptions& options) {
  mergeDeadlocks(result.issues, kernel.grid);
  dedupeIssues(result.issues);

  // Blocks run in waves of `cores` concurrent blocks.
  result.cores = options.cores > 0 ? options.cores : std::max<int64_t>(1, kernel.grid);
  result.waves = 0;
  result.blockStart.assign(result.blocks.size(), 0);
  for (size_t w = 0; w < result.blocks.size(); w += static_cast<size_t>(result.cores)) {
    ++result.waves;
    int64_t cycles = 0, bound = 0;
    std::array<int64_t, kNumPipes> busy{};
    for (size_t b = w; b < std::min(result.blocks.size(), w + static_cast<size_t>(result.cores));
         ++b) {
      const BlockStats& s = result.blocks[b];
      result.blockStart[b] = result.cycles;
      cycles = std::max(cycles, s.cycles);
      bound = std::max(bound, s.lowerBound);
      for (size_t p = 0; p < kNumPipes; ++p) busy[p] = std::max(busy[p], s.pipes[p].busy);
      result.flagStall += s.flagStall;
      result.instructions += s.instructions;
    }
    result.cycles += cycles;
    result.lowerBound += bound;
    for (size_t p = 0; p < kNumPipes; ++p) result.busy[p] += busy[p];
  }
  result.efficiency = result.cycles > 0 ? static_cast<double>(result.lowerBound) /
                                              static_cast<double>(result.cycles)
                                        : 0;
}

}  // namespace tilesched::sim
