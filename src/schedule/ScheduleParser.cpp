// Reads a schedule back from text (see ScheduleParser.h).
#include "schedule/ScheduleParser.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "ir/Functor.h"

namespace tilesched::schedule {

namespace {

// The integer after `key` in `text` ("II 164" -> 164), or nullopt.
std::optional<int64_t> numberAfter(const std::string& text, const std::string& key) {
  size_t at = text.find(key);
  if (at == std::string::npos) return std::nullopt;
  at += key.size();
  while (at < text.size() && text[at] == ' ') ++at;
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data() + at, text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data() + at) return std::nullopt;
  return value;
}

std::string trimmed(std::string s) {
  s.erase(0, s.find_first_not_of(" \t"));
  s.erase(s.find_last_not_of(" \t\r") + 1);
  return s;
}

// The section of `text` for `kernel`: after its `# schedule of NAME` line up
// to the next one; the whole text when there is no such line at all.
std::optional<std::string> sectionFor(const std::string& text, const std::string& name) {
  static const std::string kHeader = "# schedule of ";
  if (text.find(kHeader) == std::string::npos) return text;
  std::istringstream in(text);
  std::string line, out;
  bool inside = false, found = false;
  while (std::getline(in, line)) {
    std::string t = trimmed(line);
    if (t.rfind(kHeader, 0) == 0) {
      inside = t.substr(kHeader.size()) == name;
      found |= inside;
      out += "\n";  // keep the line numbers of the file
      continue;
    }
    out += (inside ? line : std::string()) + "\n";
  }
  if (!found) return std::nullopt;
  return out;
}

}  // namespace

std::optional<KernelSchedule> parseSchedule(const std::string& fileText, const ir::Kernel& kernel,
                                            const analysis::KernelAnalysis& analysis,
                                            std::string& error) {
  auto text = sectionFor(fileText, kernel.displayName());
  if (!text) {
    error = fmt::format("it has no '# schedule of {}' section", kernel.displayName());
    return std::nullopt;
  }
  // The loops a header can name, by variable and line.
  std::map<std::pair<std::string, uint32_t>, const ir::ForStmt*> loops;
  ir::forEachStmt(kernel.body, [&](const ir::Stmt& s) {
    if (const auto* f = ir::as<ir::ForStmt>(s)) loops[{f->var->name, f->loc.line}] = f;
  });

  KernelSchedule out;
  // Every storage starts at one version; manual rings keep their ring.
  for (const auto& st : kernel.storages) {
    StorageDecision d;
    d.storage = st;
    if (const auto* own = analysis.ownership.find(st)) {
      if (own->manual) {
        d.source = VersionSource::Manual;
        d.versions = own->ring;
      } else if (own->optOut) {
        d.source = VersionSource::OptOut;
      } else if (own->eligible) {
        d.source = VersionSource::Solver;
        d.bound = own->versionBound;
        for (const auto& spec : kernel.annotations.bufferVersions)
          if (spec.storage == st && spec.count && *spec.count > 1) d.source = VersionSource::Fixed;
      }
    }
    out.storages.push_back(d);
  }

  struct Open {
    ListSchedule list;
    const analysis::UnitList* units = nullptr;
    std::vector<bool> seen;
    uint32_t line = 0;
    bool makespanGiven = false;
  };
  std::vector<Open> lists;
  auto fail = [&](uint32_t line, const std::string& msg) {
    error = fmt::format("line {}: {}", line, msg);
    return std::nullopt;
  };
  auto close = [&](Open& o) -> bool {
    for (size_t i = 0; i < o.seen.size(); ++i)
      if (!o.seen[i]) {
        error = fmt::format("line {}: unit {} of this list has no `# unit {}` line", o.line, i, i);
        return false;
      }
    ListSchedule& l = o.list;
    l.maxStage = l.stage.empty() ? 0 : *std::max_element(l.stage.begin(), l.stage.end());
    if (!o.makespanGiven && !l.start.empty()) {
      int64_t first = *std::min_element(l.start.begin(), l.start.end());
      for (size_t i = 0; i < l.start.size(); ++i)
        l.makespan = std::max(l.makespan, l.start[i] + o.units->units[i].latency - first);
    }
    return true;
  };

  std::istringstream in(*text);
  std::string raw;
  uint32_t lineNo = 0;
  while (std::getline(in, raw)) {
    ++lineNo;
    std::string line = trimmed(raw);
    if (line.rfind("# loop ", 0) == 0 || line.rfind("# kernel root", 0) == 0) {
      if (!lists.empty() && !close(lists.back())) return std::nullopt;
      Open o;
      o.line = lineNo;
      if (line.rfind("# loop ", 0) == 0) {
        std::string var = line.substr(7, line.find(' ', 7) - 7);
        auto at = numberAfter(line, "(line ");
        if (!at) return fail(lineNo, "a loop header names its loop as `# loop VAR (line N)`");
        auto it = loops.find({var, static_cast<uint32_t>(*at)});
        if (it == loops.end())
          return fail(lineNo, fmt::format("the kernel has no loop '{}' at line {}", var, *at));
        o.list.loop = it->second;
        o.units = analysis.findLoop(it->second);
        if (!o.units)
          return fail(lineNo, fmt::format("loop '{}' (line {}) is not scheduled: it has no unit "
                                          "list of its own",
                                          var, *at));
        auto ii = numberAfter(line, ": II ");
        if (!ii || *ii < 1) return fail(lineNo, "a loop header gives its II as `: II N`, N >= 1");
        o.list.ii = *ii;
        if (auto m = numberAfter(line, "iteration ")) {
          o.list.makespan = *m;
          o.makespanGiven = true;
        }
        o.list.enableOffset = line.find("enable_offset true") != std::string::npos;
      } else {
        o.units = &analysis.root;
        auto m = numberAfter(line, "makespan ");
        if (!m) return fail(lineNo, "the root header gives `# kernel root: makespan N`");
        o.list.ii = *m;
        o.list.makespan = *m;
        o.makespanGiven = true;
      }
      size_t n = o.units->units.size();
      o.list.start.assign(n, 0);
      o.list.stage.assign(n, 0);
      o.seen.assign(n, false);
      lists.push_back(std::move(o));
      continue;
    }
    if (line.rfind("# versions:", 0) == 0) {
      std::istringstream entries(line.substr(11));
      std::string entry;
      while (std::getline(entries, entry, ',')) {
        entry = trimmed(entry);
        if (entry.empty() || entry.rfind("bound", 0) == 0) continue;  // "(solver, bound 2)"
        std::string name = entry.substr(0, entry.find(' '));
        auto count = numberAfter(entry, name + " ");
        if (!count) return fail(lineNo, fmt::format("'{}' needs a version count", entry));
        const ir::Buffer* b = kernel.findBuffer(name);
        if (!b) return fail(lineNo, fmt::format("the kernel has no buffer '{}'", name));
        for (auto& d : out.storages)
          if (d.storage == (*b)->storage) d.versions = *count;
      }
      continue;
    }
    size_t unit = line.find("# unit ");
    if (unit == std::string::npos) continue;
    if (lists.empty()) return fail(lineNo, "a `# unit` line before any `# loop` or root header");
    Open& o = lists.back();
    std::string tail = line.substr(unit);
    auto index = numberAfter(tail, "# unit ");
    auto stage = numberAfter(tail, "stage ");
    auto start = numberAfter(tail, "start ");
    if (!index || !stage || !start)
      return fail(lineNo, "a unit line ends in `# unit K  PIPE  stage S  start T`");
    if (*index < 0 || static_cast<size_t>(*index) >= o.seen.size())
      return fail(lineNo, fmt::format("this list has {} units; there is no unit {}", o.seen.size(),
                                      *index));
    size_t i = static_cast<size_t>(*index);
    if (o.seen[i]) return fail(lineNo, fmt::format("unit {} is given twice", i));
    o.seen[i] = true;
    o.list.stage[i] = *stage;
    o.list.start[i] = *start;
  }
  if (!lists.empty() && !close(lists.back())) return std::nullopt;
  // Inner loops first, the kernel root last (as the scheduler orders them).
  std::stable_partition(lists.begin(), lists.end(), [](const Open& o) { return o.list.loop; });
  for (auto& o : lists) out.lists.push_back(std::move(o.list));
  return out;
}

}  // namespace tilesched::schedule
