// Trace and timeline writers (see Trace.h). Plain streams: the files can get
// large and need no JSON library.
#include "sim/Trace.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <sstream>

#include <fmt/format.h>

#include "sim/CrossCoreFlags.h"
#include "sim/RaceDetector.h"

namespace tilesched::sim {

std::string jsonEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20)
          out += fmt::format("\\u{:04x}", static_cast<int>(c));
        else
          out += c;
    }
  }
  return out;
}

namespace {

// The block the b-th traced block is (a sampled run traces blocks 0 and grid - 1).
int64_t blockNumber(const SimResult& r, size_t b) {
  return b < r.blocks.size() ? r.blocks[b].block : static_cast<int64_t>(b);
}

std::string xmlEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// Colour per op kind (distinct hues; waits on barriers are grey because the
// pipe is idle then).
const char* kindColour(OpKind k) {
  static const char* kColours[kNumOpKinds] = {"#4e79a7", "#59a14f", "#76b7b2", "#b07aa1", "#e15759",
                                              "#f28e2b", "#edc948", "#9c755f", "#ff9da7", "#3b3b98",
                                              "#2f2f2f", "#d62728", "#8c8c8c"};
  return kColours[static_cast<size_t>(k)];
}

// Waiting on a wait_flag or a barrier, or a set_flag waiting for the earlier
// instructions of its pipe to complete: the pipe does no work then (later
// instructions may even run under a pending set_flag), so these are thin
// strips in the pipe's flag lane, where they cannot hide the work bars.
bool isStall(OpKind k) {
  return k == OpKind::WaitFlag || k == OpKind::Barrier || k == OpKind::SetFlag;
}

std::string legendName(OpKind k) {
  if (k == OpKind::WaitFlag) return "waiting on wait_flag";
  if (k == OpKind::Barrier) return "waiting on a barrier";
  if (k == OpKind::SetFlag) return "set_flag (until it fires)";
  return opKindName(k);
}

// Pipes in the order a reader expects them: data in, cube side, vector, out.
constexpr Pipe kLaneOrder[kNumPipes] = {Pipe::S,   Pipe::MTE2, Pipe::MTE1, Pipe::M,
                                        Pipe::FIX, Pipe::V,    Pipe::MTE3};

// A lane's name: the pipe, with its core in a core group ("AIV 0 MTE3").
std::string laneName(bool group, int core, Pipe p) {
  return group ? coreName(core) + " " + std::string(pipeName(p)) : std::string(pipeName(p));
}

int64_t niceStep(int64_t span, int ticks) {
  double raw = static_cast<double>(std::max<int64_t>(span, 1)) / ticks;
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw) return std::max<int64_t>(1, static_cast<int64_t>(m * mag));
  return std::max<int64_t>(1, static_cast<int64_t>(10 * mag));
}

}  // namespace

namespace {

// Width of `text` at `fontSize` in a sans-serif font, over-estimated (0.6 em
// per character where Helvetica averages about 0.55) so that a label that is
// drawn never spills out of its bar; a PNG rendering has no tooltips, so the
// label is all a reader of one gets.
double textWidth(const std::string& text, double fontSize) {
  size_t chars = 0;
  for (unsigned char c : text) chars += (c & 0xC0) != 0x80;  // UTF-8 code points
  return 0.6 * fontSize * static_cast<double>(chars);
}

// Dark text on light fills, white on dark ones ("#rrggbb").
const char* textColourOn(const char* fill) {
  auto channel = [&](int i) {
    return std::stoi(std::string(fill + 1 + 2 * i, 2), nullptr, 16) / 255.0;
  };
  double luminance = 0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2);
  return luminance > 0.5 ? "#1a1a1a" : "#ffffff";
}

// Colours of the iteration marks, one per loop.
const char* loopColour(size_t loop) {
  static const char* kColours[] = {"#6a3d9a", "#b15928", "#1f78b4"};
  return kColours[loop % 3];
}

const TraceIteration* iterationOf(const SimResult& r, size_t b, int32_t i) {
  if (i < 0 || b >= r.iterations.size() || static_cast<size_t>(i) >= r.iterations[b].size())
    return nullptr;
  return &r.iterations[b][static_cast<size_t>(i)];
}

// Same loop and loop variable values, out to the outermost loop.
bool sameIteration(const SimResult& r, size_t a, int32_t ia, size_t b, int32_t ib) {
  const TraceIteration* x = iterationOf(r, a, ia);
  const TraceIteration* y = iterationOf(r, b, ib);
  for (; x && y; x = iterationOf(r, a, x->parent), y = iterationOf(r, b, y->parent))
    if (x->loop != y->loop || x->value != y->value) return false;
  return !x && !y;
}

// The cycle the b-th traced block's wave starts (0 when every block has a
// core: with --cores below the grid, blocks run in waves one after another).
int64_t waveStart(const SimResult& r, size_t b) {
  return b < r.blockStart.size() ? r.blockStart[b] : 0;
}

// Where the b-th traced block ends: its last completion or scalar-unit end.
int64_t blockCycles(const SimResult& r, size_t b) {
  int64_t cycles = b < r.blocks.size() ? r.blocks[b].cycles : 0;
  for (const auto& e : r.trace[b]) cycles = std::max(cycles, e.end);
  return cycles;
}

// Blocks that did the same instructions at the same cycles: most grids are
// one tile kernel on different tiles, and four copies of one picture say
// nothing the first does not. The caller compares their cycles first.
bool identicalBlocks(const SimResult& r, size_t a, size_t b) {
  const auto& x = r.trace[a];
  const auto& y = r.trace[b];
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i) {
    const TraceEvent& e = x[i];
    const TraceEvent& f = y[i];
    if (e.pipe != f.pipe || e.kind != f.kind || e.start != f.start || e.end != f.end ||
        e.line != f.line || e.file != f.file || e.name != f.name ||
        !sameIteration(r, a, e.iteration, b, f.iteration))
      return false;
  }
  return true;
}

// "0–3", "0, 2, 5–7", shortened after a few ranges.
std::string blockRanges(const std::vector<int64_t>& blocks) {
  std::string text;
  size_t ranges = 0;
  for (size_t i = 0; i < blocks.size();) {
    size_t j = i;
    while (j + 1 < blocks.size() && blocks[j + 1] == blocks[j] + 1) ++j;
    if (++ranges > 6) return text + ", \u2026";
    if (!text.empty()) text += ", ";
    text += j == i ? fmt::format("{}", blocks[i]) : fmt::format("{}\u2013{}", blocks[i], blocks[j]);
    i = j + 1;
  }
  return text;
}

// The start of one iteration of a loop: its first work instruction.
struct IterationMark {
  int64_t start;
  int64_t value;
  int32_t parent;
};

// Per traced loop, the iterations that started work, by start cycle. An
// iteration of an outer loop starts with the first instruction of
// any loop nested in it. Flags and waits do not count: the scalar unit
// issues them ahead of the work, and the schedule's II is about the work.
std::vector<std::vector<IterationMark>> iterationMarks(const SimResult& r, size_t b) {
  std::vector<std::vector<IterationMark>> marks(r.traceLoops.size());
  if (b >= r.iterations.size()) return marks;
  const auto& its = r.iterations[b];
  std::vector<int64_t> first(its.size(), -1);
  for (const TraceEvent& e : r.trace[b]) {
    if (isStall(e.kind) || e.kind == OpKind::Scalar) continue;
    for (int32_t i = e.iteration; i >= 0 && static_cast<size_t>(i) < its.size();
         i = its[static_cast<size_t>(i)].parent) {
      int64_t& f = first[static_cast<size_t>(i)];
      f = f < 0 ? e.start : std::min(f, e.start);
    }
  }
  for (size_t i = 0; i < its.size(); ++i)
    if (first[i] >= 0 && static_cast<size_t>(its[i].loop) < marks.size())
      marks[static_cast<size_t>(its[i].loop)].push_back({first[i], its[i].value, its[i].parent});
  for (auto& m : marks)
    std::stable_sort(m.begin(), m.end(), [](const IterationMark& a, const IterationMark& b) {
      return a.start < b.start;
    });
  return marks;
}

// The mean distance between the starts of consecutive iterations within one
// run of the loop (0 when no run has two), to hold against the II: a mean,
// because versions let the first iterations start back to back (vec_add's
// second load 15 cycles after the first, then one per II), which a median
// would report as the rate.
double meanInterval(const std::vector<IterationMark>& marks) {
  int64_t cycles = 0, gaps = 0;
  for (size_t i = 1; i < marks.size(); ++i)
    if (marks[i].parent == marks[i - 1].parent) {
      cycles += marks[i].start - marks[i - 1].start;
      ++gaps;
    }
  return gaps ? static_cast<double>(cycles) / static_cast<double>(gaps) : 0;
}

}  // namespace

void writeChromeTrace(std::ostream& out, const std::vector<TraceInput>& kernels) {
  // No displayTimeUnit: its only values, "ms" and "ns", would relabel the
  // microsecond axis (chrome://tracing shows one cycle as "1,000 ns" with "ns").
  out << "{\"otherData\": {\"time_unit\": \"cycles: 1 us on the time axis = 1 simulated cycle (the "
         "target model has no clock frequency); args.start_cycle, end_cycle and cycles give them "
         "exactly\"}, "
         "\"traceEvents\": [\n";
  bool first = true;
  auto emit = [&](const std::string& e) {
    out << (first ? "" : ",\n") << e;
    first = false;
  };
  int pid = 0;
  int64_t flowId = 0;
  for (const auto& k : kernels) {
    const SimResult& r = *k.result;
    for (size_t b = 0; b < r.trace.size(); ++b, ++pid) {
      int64_t start = k.startCycle + waveStart(r, b);
      emit(fmt::format(
          R"({{"name": "process_name", "ph": "M", "pid": {}, "args": {{"name": "{} block {} {}"}}}})",
          pid, jsonEscape(k.kernelName), blockNumber(r, b), "(1 us = 1 cycle)"));
      emit(fmt::format(
          R"({{"name": "process_sort_index", "ph": "M", "pid": {}, "args": {{"sort_index": {}}}}})",
          pid, pid));
      int cores = 1;
      for (const TraceEvent& e : r.trace[b]) cores = std::max(cores, e.core + 1);
      for (int core = 0; core < cores; ++core)
        for (size_t lane = 0; lane < kNumPipes; ++lane) {
          Pipe p = kLaneOrder[lane];
          emit(fmt::format(
              R"({{"name": "thread_name", "ph": "M", "pid": {}, "tid": {}, "args": {{"name": "{}"}}}})",
              pid, clockLane(core, p), laneName(cores > 1, core, p)));
          emit(fmt::format(
              R"({{"name": "thread_sort_index", "ph": "M", "pid": {}, "tid": {}, "args": {{"sort_index": {}}}}})",
              pid, clockLane(core, p), static_cast<size_t>(core) * kNumPipes + lane));
        }
      for (const TraceEvent& e : r.trace[b]) {
        std::string args;
        if (e.line)
          args += fmt::format(R"("file": "{}", "line": {}, )",
                              jsonEscape(e.file ? e.file->path() : k.file), e.line);
        args += fmt::format(R"("pipe": "{}", "start_cycle": {}, "end_cycle": {}, "cycles": {})",
                            pipeName(e.pipe), start + e.start, start + e.end, e.end - e.start);
        if (const TraceIteration* it = iterationOf(r, b, e.iteration))
          args +=
              fmt::format(R"(, "loop": "{}", "iteration": {})",
                          jsonEscape(r.traceLoops[static_cast<size_t>(it->loop)].var), it->value);
        emit(fmt::format(
            R"({{"name": "{}", "cat": "{}", "ph": "X", "pid": {}, "tid": {}, "ts": {}, "dur": {}, )"
            R"("args": {{{}}}}})",
            jsonEscape(e.name), opKindName(e.kind), pid, clockLane(e.core, e.pipe), start + e.start,
            e.end - e.start, args));
      }
      if (b < r.arrows.size()) {
        for (const FlagArrow& a : r.arrows[b]) {
          ++flowId;
          std::string name =
              a.srcCore != a.dstCore
                  ? fmt::format("cross-core flag {} {} -> {} {} #{}", coreName(a.srcCore),
                                pipeName(a.src), coreName(a.dstCore), pipeName(a.dst), a.id)
                  : fmt::format("flag {}_{} #{}", pipeName(a.src), pipeName(a.dst), a.id);
          emit(fmt::format(
              R"({{"name": "{}", "cat": "flag", "ph": "s", "id": {}, "pid": {}, "tid": {}, "ts": {}}})",
              name, flowId, pid, clockLane(a.srcCore, a.src), start + a.setTime));
          emit(fmt::format(
              R"({{"name": "{}", "cat": "flag", "ph": "f", "bp": "e", "id": {}, "pid": {}, "tid": {}, "ts": {}}})",
              name, flowId, pid, clockLane(a.dstCore, a.dst), start + a.waitTime));
        }
      }
    }
  }
  out << "\n]}\n";
}

namespace {

// One drawing of the timeline: a traced block, or blocks identical to it.
struct Section {
  const TraceInput* input;
  size_t index;                 // into result->trace
  std::vector<int64_t> blocks;  // the block numbers it stands for
  int64_t offset;               // start of the launch (later launches of a prim_func) and wave
  int64_t cycles;               // end, counted from cycle 0 of the first launch
  int64_t wave = 0;             // 1-based when the blocks ran in several waves, else 0
};

const std::vector<TraceEvent>& eventsOf(const Section& s) {
  return s.input->result->trace[s.index];
}

// Per launch: its distinct blocks, the first maxBlocks of them drawn; the
// blocks left out are counted in `hidden`.
std::vector<Section> timelineSections(const std::vector<TraceInput>& kernels,
                                      const TimelineOptions& options, int64_t& hidden) {
  std::vector<Section> sections;
  for (const auto& k : kernels) {
    const SimResult& r = *k.result;
    size_t firstOfKernel = sections.size();
    for (size_t b = 0; b < r.trace.size(); ++b) {
      int64_t offset = k.startCycle + waveStart(r, b);
      int64_t end = offset + blockCycles(r, b);
      if (!options.allBlocks) {
        bool merged = false;
        for (size_t s = firstOfKernel; s < sections.size() && !merged; ++s)
          if (sections[s].cycles == end && identicalBlocks(r, sections[s].index, b)) {
            sections[s].blocks.push_back(blockNumber(r, b));
            merged = true;
          }
        if (merged) continue;
      }
      int64_t wave = r.waves > 1 ? static_cast<int64_t>(b) / std::max<int64_t>(1, r.cores) + 1 : 0;
      sections.push_back({&k, b, {blockNumber(r, b)}, offset, end, wave});
    }
    size_t limit = firstOfKernel + static_cast<size_t>(options.maxBlocks);
    if (!options.allBlocks && sections.size() > limit) {
      for (size_t s = limit; s < sections.size(); ++s)
        hidden += static_cast<int64_t>(sections[s].blocks.size());
      sections.resize(limit);
    }
  }
  return sections;
}

// One timeline lane: a pipe of one core of the group.
struct Lane {
  int core = 0;
  Pipe pipe = Pipe::S;
  size_t index() const { return clockLane(core, pipe); }
};

// The picture's geometry: margins and heights, the lanes every section has,
// and where a cycle is on the x axis.
struct TimelineLayout {
  static constexpr int left = 110, right = 30, plotW = 1100, width = left + plotW + right, top = 56,
                       laneH = 18, flagH = 8, laneGap = 5, sectionGap = 30, marksH = 13,
                       labelFont = 10;
  int64_t span = 1;
  std::vector<Lane> lanes;
  bool group = false;  // lanes of several cores: named "AIC MTE2", "AIV 0 V"
  std::array<bool, kClockLanes> hasFlags{};
  std::vector<int> laneY;  // offsets of the lanes under the first one
  int lanesH = 0;
  double x(int64_t c) const {
    return left + static_cast<double>(c) * plotW / static_cast<double>(span);
  }
};

TimelineLayout timelineLayout(const std::vector<Section>& sections) {
  TimelineLayout L;
  for (const auto& s : sections) L.span = std::max(L.span, s.cycles);
  // Only pipes that did something get a lane (a vector kernel has no cube
  // lanes), and only pipes that synchronised get a flag lane under it; the
  // cores of a group one after the other.
  for (int core = 0; core < static_cast<int>(kMaxGroupCores); ++core)
    for (Pipe p : kLaneOrder) {
      bool used = false;
      for (const auto& s : sections)
        for (const auto& e : eventsOf(s))
          if (e.pipe == p && e.core == core) {
            used = true;
            L.hasFlags[clockLane(core, p)] |= isStall(e.kind);
          }
      if (used) L.lanes.push_back({core, p});
      if (used && core > 0) L.group = true;
    }
  if (L.lanes.empty()) L.lanes.push_back({0, Pipe::S});
  for (const Lane& l : L.lanes) {
    L.laneY.push_back(L.lanesH);
    L.lanesH += L.laneH + (L.hasFlags[l.index()] ? L.flagH : 0) + L.laneGap;
  }
  return L;
}

// The kinds that appear, which are all the legend lists.
std::vector<OpKind> usedKinds(const std::vector<Section>& sections) {
  std::vector<OpKind> kinds;
  for (size_t k = 0; k < kNumOpKinds; ++k) {
    bool used = false;
    for (const auto& s : sections)
      for (const auto& e : eventsOf(s)) used |= e.kind == static_cast<OpKind>(k);
    if (used) kinds.push_back(static_cast<OpKind>(k));
  }
  return kinds;
}

// The section's title at `y`; returns where its text ends.
double drawSectionHeader(std::ostream& body, const Section& s, int y) {
  std::string label =
      s.blocks.size() == 1
          ? fmt::format("{} block {}", s.input->kernelName, s.blocks.front())
          : fmt::format("{} \u00d7 {} blocks (blocks {} are identical)", s.input->kernelName,
                        s.blocks.size(), blockRanges(s.blocks));
  if (s.wave > 0)
    label += fmt::format(", wave {} of {} ({} cores)", s.wave, s.input->result->waves,
                         s.input->result->cores);
  body << fmt::format(R"(<text x="{}" y="{}" font-weight="bold">{}</text>)", 8, y + 12,
                      xmlEscape(label))
       << "\n";
  return 8 + textWidth(label, 12) + 8;
}

// Grid lines and tick labels.
void drawGrid(std::ostream& body, const TimelineLayout& L, int lanesTop, int64_t step) {
  for (int64_t c = 0; c <= L.span; c += step) {
    body << fmt::format(R"(<line x1="{:.1f}" y1="{}" x2="{:.1f}" y2="{}" stroke="#e5e5e5"/>)",
                        L.x(c), lanesTop, L.x(c), lanesTop + L.lanesH)
         << "\n";
    body
        << fmt::format(
               R"(<text x="{:.1f}" y="{}" fill="#555" font-size="10" text-anchor="middle">{}</text>)",
               L.x(c), lanesTop + L.lanesH + 12, c)
        << "\n";
  }
}

// The lanes' backgrounds and names, a flag lane under the pipes that have one.
void drawLanes(std::ostream& body, const TimelineLayout& L, int lanesTop) {
  for (size_t lane = 0; lane < L.lanes.size(); ++lane) {
    int ly = lanesTop + L.laneY[lane];
    body << fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="#f7f7f7"/>)", L.left,
                        ly, L.plotW, L.laneH)
         << "\n";
    body << fmt::format(R"(<text x="{}" y="{}" text-anchor="end">{}</text>)", L.left - 8, ly + 13,
                        laneName(L.group, L.lanes[lane].core, L.lanes[lane].pipe))
         << "\n";
    if (L.hasFlags[L.lanes[lane].index()]) {
      body
          << fmt::format(
                 R"(<rect class="flag-lane" x="{}" y="{}" width="{}" height="{}" fill="#ececec"/>)",
                 L.left, ly + L.laneH, L.plotW, L.flagH)
          << "\n";
      body << fmt::format(
                  R"(<text x="{}" y="{}" font-size="8" fill="#777" text-anchor="end">flags</text>)",
                  L.left - 8, ly + L.laneH + 7)
           << "\n";
    }
  }
}

// A pipe that overlaps its instructions (MTE2 starts a copy before the
// last one completes) has later bars drawn over earlier ones: a label
// gets only the part of its bar that stays visible, up to the next start.
std::vector<int64_t> visibleEnds(const std::vector<TraceEvent>& events,
                                 const std::vector<Lane>& lanes) {
  std::vector<int64_t> visibleEnd(events.size());
  for (const Lane& l : lanes) {
    std::vector<size_t> order;
    for (size_t i = 0; i < events.size(); ++i)
      if (events[i].pipe == l.pipe && events[i].core == l.core && !isStall(events[i].kind))
        order.push_back(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return events[a].start < events[b].start; });
    for (size_t k = 0; k < order.size(); ++k) {
      const TraceEvent& e = events[order[k]];
      int64_t end = e.end;
      if (k + 1 < order.size()) end = std::min(end, events[order[k + 1]].start);
      if (k > 0 && order[k - 1] > order[k] && events[order[k - 1]].end > e.start) end = e.start;
      visibleEnd[order[k]] = end;
    }
  }
  return visibleEnd;
}

// A bar per instruction, with its label where it fits.
void drawBars(std::ostream& body, const TimelineLayout& L, const Section& s, int lanesTop) {
  const auto& events = eventsOf(s);
  std::vector<int64_t> visibleEnd = visibleEnds(events, L.lanes);
  for (size_t i = 0; i < events.size(); ++i) {
    const TraceEvent& e = events[i];
    size_t lane = 0;
    while (L.lanes[lane].pipe != e.pipe || L.lanes[lane].core != e.core) ++lane;
    int ly = lanesTop + L.laneY[lane];
    double x0 = L.x(s.offset + e.start), w = std::max(0.8, L.x(s.offset + e.end) - x0);
    bool stall = isStall(e.kind);
    // In the flag lane: a pending set_flag along its top, waits along its
    // bottom, so a wait and a set_flag of one moment both show.
    int barY = !stall ? ly + 1 : e.kind == OpKind::SetFlag ? ly + L.laneH : ly + L.laneH + 4;
    int barH = !stall ? L.laneH - 2 : e.kind == OpKind::SetFlag ? 3 : 4;
    body
        << fmt::format(
               R"(<rect x="{:.2f}" y="{}" width="{:.2f}" height="{}" fill="{}" stroke="#ffffff" stroke-width="0.3">)"
               R"(<title>{}{} [{}, {}) line {}</title></rect>)",
               x0, barY, w, barH, kindColour(e.kind),
               stall && e.kind != OpKind::SetFlag ? "waiting: " : "", xmlEscape(e.name),
               s.offset + e.start, s.offset + e.end, e.line)
        << "\n";
    if (stall || e.label.empty()) continue;
    // The whole label, else the operation alone ("copy", "add"), else nothing.
    double room = L.x(s.offset + visibleEnd[i]) - x0;
    std::string text = e.label;
    if (textWidth(text, L.labelFont) + 4 > room)
      text = text.substr(0, std::min(text.find(' '), text.find("\u2192")));
    if (textWidth(text, L.labelFont) + 4 > room) continue;
    body
        << fmt::format(
               R"(<text class="bar-label" x="{:.2f}" y="{}" font-size="{}" fill="{}" pointer-events="none">{}</text>)",
               x0 + 2, ly + 13, L.labelFont, textColourOn(kindColour(e.kind)), xmlEscape(text))
        << "\n";
  }
}

// Iteration starts, thinned where they would merge into a grey wash; loop l's
// labels go in row markRow[l] under marksTop.
void drawIterationMarks(std::ostream& body, const TimelineLayout& L, const Section& s,
                        const std::vector<std::vector<IterationMark>>& marks,
                        const std::vector<int>& markRow, int marksTop, int lanesTop) {
  const SimResult& r = *s.input->result;
  for (size_t l = 0; l < marks.size(); ++l) {
    double lastLine = -1e9, labelEnd = -1e9;
    for (const IterationMark& m : marks[l]) {
      double mx = L.x(s.offset + m.start);
      if (mx - lastLine < 3) continue;
      lastLine = mx;
      body
          << fmt::format(
                 R"(<line class="iteration" x1="{:.2f}" y1="{}" x2="{:.2f}" y2="{}" stroke="{}" stroke-width="0.8" stroke-dasharray="4,3"/>)",
                 mx, marksTop + markRow[l] * L.marksH + 2, mx, lanesTop + L.lanesH - L.laneGap,
                 loopColour(l))
          << "\n";
      std::string text = fmt::format("{}={}", r.traceLoops[l].var, m.value);
      if (mx < labelEnd + 4) continue;
      labelEnd = mx + 2 + textWidth(text, 9);
      body << fmt::format(R"(<text x="{:.2f}" y="{}" font-size="9" fill="{}">{}</text>)", mx + 2,
                          marksTop + markRow[l] * L.marksH + 9, loopColour(l), xmlEscape(text))
           << "\n";
    }
  }
}

// The dashed line where the section ends and its cycle count.
void drawEndMarker(std::ostream& body, const TimelineLayout& L, const Section& s, int sectionTop,
                   int lanesTop, double headerEnd) {
  body
      << fmt::format(
             R"(<line x1="{:.1f}" y1="{}" x2="{:.1f}" y2="{}" stroke="#333" stroke-dasharray="3,2"/>)",
             L.x(s.cycles), sectionTop + 14, L.x(s.cycles), lanesTop + L.lanesH)
      << "\n";
  // Next to the end marker: left of it, so it stays inside the picture,
  // else right of it, else (a launch that ends under the header's text)
  // after that text.
  std::string endText = s.offset > 0 ? fmt::format("cycles {} to {}", s.offset, s.cycles)
                                     : fmt::format("{} cycles", s.cycles);
  double endW = textWidth(endText, 10), endX = L.x(s.cycles);
  bool before = endX - 3 - endW >= headerEnd;
  double textX = before ? endX - 3 : std::min(std::max(endX + 3, headerEnd), L.width - endW);
  body << fmt::format(
              R"(<text x="{:.1f}" y="{}" font-size="10" fill="#333" text-anchor="{}">{}</text>)",
              textX, sectionTop + 12, before ? "end" : "start", endText)
       << "\n";
}

// What the dashed lines are, under the axis: the II the schedule
// promised and the distance between iteration starts the run achieved.
// Returns the y under them.
int drawLoopNotes(std::ostream& body, const TimelineLayout& L, const Section& s,
                  const std::vector<std::vector<IterationMark>>& marks, int y) {
  const SimResult& r = *s.input->result;
  for (size_t l = 0; l < marks.size(); ++l) {
    if (marks[l].empty()) continue;
    const TraceLoop& loop = r.traceLoops[l];
    std::string info = fmt::format("loop {} (line {}):", loop.var, loop.loc.line);
    for (const auto& ii : s.input->loopIIs)
      if (ii.var == loop.var && ii.line == loop.loc.line && ii.ii > 0)
        info += fmt::format(" II = {},", ii.ii);
    double every = meanInterval(marks[l]);
    info += every > 0 ? fmt::format(" iterations start every {:.0f} cycles on average", every)
                      : fmt::format(" {} iterations, one per run of the loop", marks[l].size());
    body << fmt::format(
                R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-dasharray="4,3"/>)",
                L.left, y - 8, L.left + 16, y - 8, loopColour(l))
         << "\n";
    body << fmt::format(R"(<text x="{}" y="{}" font-size="11" fill="{}">{}</text>)", L.left + 22,
                        y - 4, loopColour(l), xmlEscape(info))
         << "\n";
    y += 14;
  }
  return y;
}

// One section from `y` down: header, iteration marks, lanes, bars, end
// marker and loop notes. Returns the y under it; sets anyMarks when it drew
// iteration marks.
int drawSection(std::ostream& body, const TimelineLayout& L, const Section& s, int y, int64_t step,
                bool& anyMarks) {
  auto marks = iterationMarks(*s.input->result, s.index);
  // A row of iteration labels per loop with marks, outer loops first, so
  // nested loops' labels do not run into each other.
  std::vector<int> markRow(marks.size(), -1);
  int markRows = 0;
  for (size_t l = 0; l < marks.size(); ++l)
    if (!marks[l].empty()) markRow[l] = markRows++;
  anyMarks |= markRows > 0;
  int sectionTop = y;
  double headerEnd = drawSectionHeader(body, s, y);
  y += 18;
  int marksTop = y;
  y += markRows * L.marksH;
  int lanesTop = y;
  drawGrid(body, L, lanesTop, step);
  drawLanes(body, L, lanesTop);
  drawBars(body, L, s, lanesTop);
  drawIterationMarks(body, L, s, marks, markRow, marksTop, lanesTop);
  drawEndMarker(body, L, s, sectionTop, lanesTop, headerEnd);
  y = lanesTop + L.lanesH + L.sectionGap;
  return drawLoopNotes(body, L, s, marks, y);
}

// Legend: the kinds, then what the lines and the flag lane are. Returns the
// y under it.
int drawLegend(std::ostream& body, const TimelineLayout& L, const std::vector<OpKind>& kinds,
               bool anyMarks, int y) {
  const int left = L.left;
  size_t entries = kinds.size() + (anyMarks ? 1 : 0);
  body << fmt::format(R"(<text x="{}" y="{}" font-weight="bold">Legend</text>)", left, y + 4)
       << "\n";
  for (size_t i = 0; i < entries; ++i) {
    int col = static_cast<int>(i % 5), row = static_cast<int>(i / 5);
    int lx = left + col * 220, ly = y + 14 + row * 20;
    if (i == kinds.size()) {
      body << fmt::format(
                  R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-dasharray="4,3"/>)",
                  lx + 7, ly - 2, lx + 7, ly + 14, loopColour(0))
           << "\n";
      body << fmt::format(R"(<text x="{}" y="{}">start of a loop iteration</text>)", lx + 20,
                          ly + 10)
           << "\n";
      continue;
    }
    bool stall = isStall(kinds[i]);
    body << fmt::format(R"(<rect x="{}" y="{}" width="14" height="{}" fill="{}"/>)", lx,
                        stall ? ly + 4 : ly, stall ? 4 : 12, kindColour(kinds[i]))
         << "\n";
    body << fmt::format(R"(<text x="{}" y="{}">{}</text>)", lx + 20, ly + 10,
                        xmlEscape(legendName(kinds[i])))
         << "\n";
  }
  y += 14 + 20 * static_cast<int>((entries + 4) / 5);
  bool anyFlags = false;
  for (bool f : L.hasFlags) anyFlags |= f;
  if (anyFlags) {
    body
        << fmt::format(
               R"(<text x="{}" y="{}" fill="#555">the thin lane under a pipe holds its set_flag, wait_flag and barriers</text>)",
               left, y + 6)
        << "\n";
    y += 20;
  }
  return y;
}

// The <svg> element of `height` around `body`: background, title and subtitle.
void writeSvgDocument(std::ostream& out, const std::string& title, int64_t hidden, int height,
                      const std::string& body) {
  const int width = TimelineLayout::width, left = TimelineLayout::left;
  out << fmt::format(
             R"(<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" viewBox="0 0 {} {}" )"
             R"(font-family="Helvetica, Arial, sans-serif" font-size="12">)",
             width, height, width, height)
      << "\n";
  out << fmt::format(R"(<rect width="{}" height="{}" fill="#ffffff"/>)", width, height) << "\n";
  out << fmt::format(R"(<text x="{}" y="24" font-size="16" font-weight="bold">{}</text>)", left,
                     xmlEscape(title))
      << "\n";
  out << fmt::format(
             R"(<text x="{}" y="42" fill="#555">time in cycles; hover a bar for the instruction and its source line{}</text>)",
             left,
             hidden
                 ? fmt::format(" ({} more {} not shown; --timeline-all-blocks draws every block)",
                               hidden, hidden == 1 ? "block" : "blocks")
                 : "")
      << "\n";
  out << body;
  out << "</svg>\n";
}

}  // namespace

void writeTimelineSvg(std::ostream& out, const std::vector<TraceInput>& kernels,
                      const std::string& title, const TimelineOptions& options) {
  int64_t hidden = 0;
  std::vector<Section> sections = timelineSections(kernels, options, hidden);
  TimelineLayout layout = timelineLayout(sections);
  std::vector<OpKind> kinds = usedKinds(sections);
  std::ostringstream body;
  bool anyMarks = false;
  int y = TimelineLayout::top;
  int64_t step = niceStep(layout.span, 10);
  for (const auto& s : sections) y = drawSection(body, layout, s, y, step, anyMarks);
  y = drawLegend(body, layout, kinds, anyMarks, y);
  int height = y + 10;
  writeSvgDocument(out, title, hidden, height, body.str());
}

}  // namespace tilesched::sim
