// `tilesched pin` (see PinCommand.h): compile and schedule, then edit the
// author's text in place of re-printing the kernel.
#include "driver/PinCommand.h"

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "driver/Driver.h"
#include "driver/ExplainCommand.h"
#include "frontend/Elaborator.h"
#include "schedule/Explain.h"
#include "schedule/Scheduler.h"
#include "schedule/WriteBack.h"

namespace tilesched::driver {

std::string applySourceEdits(const std::string& text, std::vector<SourceEdit> edits) {
  std::sort(edits.begin(), edits.end(),
            [](const SourceEdit& a, const SourceEdit& b) { return a.begin > b.begin; });
  std::string out = text;
  for (const auto& e : edits) out.replace(e.begin, e.end - e.begin, e.text);
  return out;
}

namespace {

// The byte offset of a 1-based line and column of `text`, or npos.
size_t offsetOf(const std::string& text, uint32_t line, uint32_t col) {
  size_t pos = 0;
  for (uint32_t l = 1; l < line; ++l) {
    pos = text.find('\n', pos);
    if (pos == std::string::npos) return std::string::npos;
    ++pos;
  }
  return pos + (col ? col - 1 : 0);
}

size_t lineStart(const std::string& text, size_t pos) {
  size_t nl = text.rfind('\n', pos == 0 ? 0 : pos - 1);
  return pos == 0 || nl == std::string::npos ? 0 : nl + 1;
}

// The offset just past the end of the line holding `pos`.
size_t nextLine(const std::string& text, size_t pos) {
  size_t nl = text.find('\n', pos);
  return nl == std::string::npos ? text.size() : nl + 1;
}

std::string indentationAt(const std::string& text, size_t pos) {
  size_t start = lineStart(text, pos), end = start;
  while (end < text.size() && (text[end] == ' ' || text[end] == '\t')) ++end;
  return text.substr(start, end - start);
}

// The offset of the `)` that closes the `(` at `open`, skipping strings and
// comments; npos when it is not closed.
size_t matchingParen(const std::string& text, size_t open) {
  int depth = 0;
  for (size_t i = open; i < text.size(); ++i) {
    char c = text[i];
    if (c == '#') {
      i = text.find('\n', i);
      if (i == std::string::npos) return std::string::npos;
      continue;
    }
    if (c == '"' || c == '\'') {
      bool triple = text.compare(i, 3, std::string(3, c)) == 0;
      std::string close = triple ? std::string(3, c) : std::string(1, c);
      size_t j = i + close.size();
      while (j < text.size() && text.compare(j, close.size(), close) != 0)
        j += text[j] == '\\' ? 2 : 1;
      if (j >= text.size()) return std::string::npos;
      i = j + close.size() - 1;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') {
      if (--depth == 0) return c == ')' ? i : std::string::npos;
    }
  }
  return std::string::npos;
}

// The map of one kernel as it pastes back (SPEC §2.1 write-back).
std::string mapText(const ir::Kernel& k) {
  std::string map;
  for (const auto& [st, n] : k.annotations.selectedVersions) {
    std::string name = st->name;
    for (const auto& b : k.buffers)
      if (b->storage == st && !b->isAlias) name = b->name;
    auto mode = k.annotations.writtenBackMode(st, n);
    map += fmt::format(
        "{}{}: {}", map.empty() ? "" : ", ", name,
        mode ? fmt::format("({}, \"{}\")", n, ir::versionModeName(*mode)) : std::to_string(n));
  }
  return "{" + map + "}";
}

// `# pin:` lines for the buffers whose versions a num_stages caps while more
// would lower the loop's II bound (what `explain` says).
std::vector<std::string> numStagesNotes(const ir::Kernel& k, const schedule::KernelExplanation& e) {
  std::vector<std::string> out;
  for (const auto& s : e.storages) {
    if (s.reason != schedule::VersionReason::NumStages || !s.iiBoundWithMoreVersions ||
        *s.iiBoundWithMoreVersions >= s.loopLowerBound || !s.boundLoop)
      continue;
    std::string name = s.buffer ? s.buffer->name : s.storage->name;
    out.push_back(fmt::format(
        "# pin: '{}' has the {} versions num_stages={} of loop '{}' allows; a larger num_stages "
        "would lower the loop's II bound from {} to {}",
        name, s.versions, s.boundLoop->numStages, s.boundLoop->var->name, s.loopLowerBound,
        *s.iiBoundWithMoreVersions));
  }
  (void)k;
  return out;
}

// The edits that pin one kernel's map into `text`; a message when it cannot.
std::optional<std::string> pinEdits(const ir::Kernel& k, const schedule::KernelExplanation& e,
                                    const std::string& text, std::vector<SourceEdit>& edits) {
  if (k.annotations.selectedVersions.empty()) return std::nullopt;
  std::string map = mapText(k);
  std::vector<std::string> notes = numStagesNotes(k, e);
  auto notesText = [&](const std::string& indent, size_t at) {
    std::string out;
    for (const auto& n : notes) {
      // Already there (a pinned file pinned again): keep it once.
      size_t prev = lineStart(text, at == 0 ? 0 : at - 1);
      if (text.find(indent + n + "\n", prev >= 2048 ? prev - 2048 : 0) < at) continue;
      out += indent + n + "\n";
    }
    return out;
  };
  SourceLoc loc = k.annotations.bufferVersionsLoc;
  if (loc.valid()) {
    if (loc.file) return "its T.annotate_buffer_versions is in an imported module";
    size_t at = offsetOf(text, loc.line, loc.col);
    size_t open = at == std::string::npos ? at : text.find('(', at);
    size_t close = open == std::string::npos ? open : matchingParen(text, open);
    if (close == std::string::npos) return "its T.annotate_buffer_versions call could not be found";
    edits.push_back({open + 1, close, map});
    size_t start = lineStart(text, at);
    std::string indent = indentationAt(text, at);
    std::string lines = notesText(indent, start);
    if (!lines.empty()) edits.push_back({start, start, lines});
    return std::nullopt;
  }
  // No call yet: one after the last allocation it names.
  size_t insertAt = 0;
  std::string indent;
  for (const auto& [st, n] : k.annotations.selectedVersions) {
    (void)n;
    for (const auto& b : k.buffers) {
      if (b->storage != st || b->isAlias || !b->loc.valid()) continue;
      if (b->loc.file) return "'" + b->name + "' is allocated in an imported module";
      size_t at = offsetOf(text, b->loc.line, b->loc.col);
      if (at == std::string::npos || at >= text.size()) return "an allocation could not be found";
      size_t open = text.find('(', at);
      size_t close = open == std::string::npos ? open : matchingParen(text, open);
      if (close == std::string::npos) return "the allocation of '" + b->name + "' is not closed";
      size_t after = nextLine(text, close);
      if (after > insertAt) {
        insertAt = after;
        indent = indentationAt(text, at);
      }
    }
  }
  if (insertAt == 0) return "none of its buffers has a location in the file";
  std::string call =
      notesText(indent, insertAt) + indent + "T.annotate_buffer_versions(" + map + ")\n";
  if (insertAt == text.size() && !text.empty() && text.back() != '\n') call = "\n" + call;
  edits.push_back({insertAt, insertAt, call});
  return std::nullopt;
}

}  // namespace

int runPinCommand(const PinOptions& o, std::ostream& out, std::ostream& err) {
  auto usage = [&](const std::string& msg) {
    err << "tilesched: error: " << msg << "\n";
    return kExitUsage;
  };
  // The pinned file goes to stdout unless -o or --in-place: nothing else may.
  for (const auto& [flag, set] :
       {std::pair<const char*, bool>{"--print-after", !o.passes.printAfter.empty()},
        {"--print-after-change", o.passes.printAfterChange},
        {"--time-passes", o.passes.timePasses}})
    if (set && o.output.empty() && !o.inPlace)
      return usage(
          fmt::format("{} prints on stdout, where pin writes the pinned file; give -o "
                      "FILE or --in-place",
                      flag));
  ExplainOptions eo{o.file, o.defines, o.func, o.target, o.solverTimeoutMs, o.passes};
  ScheduledFile r;
  if (int code = scheduleFile(eo, out, err, r); code != kExitOk) return code;
  DiagnosticEngine& diags = r.state->diags;
  for (size_t i = 0; i < r.numKernels(); ++i)
    schedule::writeBackVersions(r.kernel(i), r.schedule(i), diags);
  const std::string& text = r.state->file->text();
  std::vector<SourceEdit> edits;
  int pinned = 0;
  for (size_t i = 0; i < r.numKernels(); ++i) {
    const ir::Kernel& k = r.kernel(i);
    auto e = schedule::explainSchedule(r.analysis(i), k, r.schedule(i), *r.target);
    size_t before = edits.size();
    if (auto why = pinEdits(k, e, text, edits)) {
      diags.warning(k.kernelLoc,
                    fmt::format("kernel '{}' is not pinned: {}", k.displayName(), *why));
      continue;
    }
    pinned += edits.size() > before;
  }
  // Two kernels naming one call (launches of one prim_func with one map) would edit it twice.
  std::sort(edits.begin(), edits.end(),
            [](const SourceEdit& a, const SourceEdit& b) { return a.begin < b.begin; });
  for (size_t i = 1; i < edits.size(); ++i)
    if (edits[i].begin < edits[i - 1].end ||
        (edits[i].begin == edits[i - 1].begin && edits[i].end == edits[i - 1].end &&
         edits[i].begin != edits[i].end))
      return usage(
          "two kernels of the file edit the same annotation; pin them one at a time "
          "with --func");
  err << diags.renderAll() << r.passes->statsText(*r.state);
  std::string result = applySourceEdits(text, edits);
  const std::string& path = o.inPlace ? o.file : o.output;
  if (path.empty()) {
    out << result;
  } else {
    std::ofstream f(path, std::ios::binary);
    if (!f) return usage(fmt::format("cannot write '{}'", path));
    f << result;
  }
  err << fmt::format("pinned the versions of {} kernel{}{}\n", pinned, pinned == 1 ? "" : "s",
                     path.empty() ? "" : " into " + path);
  out << r.passes->timesText();
  return kExitOk;
}

}  // namespace tilesched::driver
