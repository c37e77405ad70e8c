// Trace and timeline writers (see Trace.h). Plain streams: the files can get
// large and need no JSON library.
#include "sim/Trace.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

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

// Colour per op kind (distinct hues; waits on barriers are light grey because
// the pipe is idle then).
const char* kindColour(OpKind k) {
  static const char* kColours[kNumOpKinds] = {"#4e79a7", "#59a14f", "#76b7b2", "#b07aa1", "#e15759",
                                              "#f28e2b", "#edc948", "#9c755f", "#ff9da7", "#3b3b98",
                                              "#2f2f2f", "#d62728", "#d0d0d0"};
  return kColours[static_cast<size_t>(k)];
}

// Waiting on a wait_flag or a barrier, or a set_flag waiting for the earlier
// instructions of its pipe to complete: the pipe does no work then (later
// instructions may even run under a pending set_flag), so the bar is a thin
// strip in the middle of the lane rather than a full-height "busy" bar.
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

int64_t niceStep(int64_t span, int ticks) {
  double raw = static_cast<double>(std::max<int64_t>(span, 1)) / ticks;
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw) return std::max<int64_t>(1, static_cast<int64_t>(m * mag));
  return std::max<int64_t>(1, static_cast<int64_t>(10 * mag));
}

}  // namespace

void writeChromeTrace(std::ostream& out, const std::vector<TraceInput>& kernels) {
  out << "{\"displayTimeUnit\": \"ns\", \"otherData\": {\"time_unit\": \"1 us = 1 cycle\"}, "
         "\"traceEvents\": [\n";
  bool first = true;
  auto emit = [&](const std::string& e) {
    out << (first ? "" : ",\n") << e;
    first = false;
  };
  int pid = 0;
  int64_t flowId = 0;
  for (const auto& k : kernels) {
    for (size_t b = 0; b < k.result->trace.size(); ++b, ++pid) {
      emit(fmt::format(
          R"({{"name": "process_name", "ph": "M", "pid": {}, "args": {{"name": "{} block {}"}}}})",
          pid, jsonEscape(k.kernelName), blockNumber(*k.result, b)));
      emit(fmt::format(
          R"({{"name": "process_sort_index", "ph": "M", "pid": {}, "args": {{"sort_index": {}}}}})",
          pid, pid));
      for (size_t lane = 0; lane < kNumPipes; ++lane) {
        Pipe p = kLaneOrder[lane];
        emit(fmt::format(
            R"({{"name": "thread_name", "ph": "M", "pid": {}, "tid": {}, "args": {{"name": "{}"}}}})",
            pid, pipeIndex(p), pipeName(p)));
        emit(fmt::format(
            R"({{"name": "thread_sort_index", "ph": "M", "pid": {}, "tid": {}, "args": {{"sort_index": {}}}}})",
            pid, pipeIndex(p), lane));
      }
      for (const TraceEvent& e : k.result->trace[b]) {
        emit(fmt::format(
            R"({{"name": "{}", "cat": "{}", "ph": "X", "pid": {}, "tid": {}, "ts": {}, "dur": {}, )"
            R"("args": {{"line": {}, "pipe": "{}"}}}})",
            jsonEscape(e.name), opKindName(e.kind), pid, pipeIndex(e.pipe), k.startCycle + e.start,
            e.end - e.start, e.line, pipeName(e.pipe)));
      }
      if (b < k.result->arrows.size()) {
        for (const FlagArrow& a : k.result->arrows[b]) {
          ++flowId;
          std::string name = fmt::format("flag {}_{} #{}", pipeName(a.src), pipeName(a.dst), a.id);
          emit(fmt::format(
              R"({{"name": "{}", "cat": "flag", "ph": "s", "id": {}, "pid": {}, "tid": {}, "ts": {}}})",
              name, flowId, pid, pipeIndex(a.src), k.startCycle + a.setTime));
          emit(fmt::format(
              R"({{"name": "{}", "cat": "flag", "ph": "f", "bp": "e", "id": {}, "pid": {}, "tid": {}, "ts": {}}})",
              name, flowId, pid, pipeIndex(a.dst), k.startCycle + a.waitTime));
        }
      }
    }
  }
  out << "\n]}\n";
}

void writeTimelineSvg(std::ostream& out, const std::vector<TraceInput>& kernels,
                      const std::string& title, int maxBlocks) {
  struct Section {
    std::string label;
    const std::vector<TraceEvent>* events;
    int64_t offset;  // start of the launch (later launches of a prim_func)
    int64_t cycles;  // end, counted from cycle 0 of the first launch
  };
  std::vector<Section> sections;
  int64_t span = 1;
  int hidden = 0;
  for (const auto& k : kernels) {
    for (size_t b = 0; b < k.result->trace.size(); ++b) {
      if (static_cast<int>(b) >= maxBlocks) {
        ++hidden;
        continue;
      }
      int64_t cycles = b < k.result->blocks.size() ? k.result->blocks[b].cycles : 0;
      for (const auto& e : k.result->trace[b]) cycles = std::max(cycles, e.end);
      cycles += k.startCycle;
      sections.push_back({fmt::format("{} block {}", k.kernelName, blockNumber(*k.result, b)),
                          &k.result->trace[b], k.startCycle, cycles});
      span = std::max(span, cycles);
    }
  }
  // Only pipes that did something get a lane (a vector kernel has no cube lanes).
  std::vector<Pipe> lanes;
  for (Pipe p : kLaneOrder) {
    bool used = false;
    for (const auto& s : sections)
      for (const auto& e : *s.events) used |= e.pipe == p;
    if (used) lanes.push_back(p);
  }
  if (lanes.empty()) lanes.push_back(Pipe::S);
  const size_t numLanes = lanes.size();
  // The legend lists only the kinds that appear.
  std::vector<OpKind> kinds;
  for (size_t k = 0; k < kNumOpKinds; ++k) {
    bool used = false;
    for (const auto& s : sections)
      for (const auto& e : *s.events) used |= e.kind == static_cast<OpKind>(k);
    if (used) kinds.push_back(static_cast<OpKind>(k));
  }
  const int left = 110, right = 30, top = 56, laneH = 18, laneGap = 4, sectionGap = 30,
            plotW = 1100;
  const int legendH = 30 + 20 * static_cast<int>((kinds.size() + 4) / 5);
  int height = top;
  for (size_t i = 0; i < sections.size(); ++i)
    height += 18 + static_cast<int>(numLanes) * (laneH + laneGap) + sectionGap;
  height += 30 + legendH;
  int width = left + plotW + right;
  auto x = [&](int64_t c) {
    return left + static_cast<double>(c) * plotW / static_cast<double>(span);
  };

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
             left, hidden ? fmt::format(" ({} more blocks not shown)", hidden) : "")
      << "\n";
  int y = top;
  int64_t step = niceStep(span, 10);
  for (const auto& s : sections) {
    int sectionTop = y;
    out << fmt::format(R"(<text x="{}" y="{}" font-weight="bold">{}</text>)", 8, y + 12,
                       xmlEscape(s.label))
        << "\n";
    y += 18;
    int lanesTop = y;
    int lanesH = static_cast<int>(numLanes) * (laneH + laneGap);
    // Grid lines and tick labels.
    for (int64_t c = 0; c <= span; c += step) {
      out << fmt::format(R"(<line x1="{:.1f}" y1="{}" x2="{:.1f}" y2="{}" stroke="#e5e5e5"/>)",
                         x(c), lanesTop, x(c), lanesTop + lanesH)
          << "\n";
      out << fmt::format(
                 R"(<text x="{:.1f}" y="{}" fill="#555" font-size="10" text-anchor="middle">{}</text>)",
                 x(c), lanesTop + lanesH + 12, c)
          << "\n";
    }
    for (size_t lane = 0; lane < numLanes; ++lane) {
      int ly = lanesTop + static_cast<int>(lane) * (laneH + laneGap);
      out << fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="#f7f7f7"/>)", left, ly,
                         plotW, laneH)
          << "\n";
      out << fmt::format(R"(<text x="{}" y="{}" text-anchor="end">{}</text>)", left - 8, ly + 13,
                         pipeName(lanes[lane]))
          << "\n";
    }
    for (const TraceEvent& e : *s.events) {
      size_t lane = 0;
      while (lanes[lane] != e.pipe) ++lane;
      int ly = lanesTop + static_cast<int>(lane) * (laneH + laneGap);
      double x0 = x(s.offset + e.start), w = std::max(0.8, x(s.offset + e.end) - x0);
      bool stall = isStall(e.kind);
      out << fmt::format(
                 R"(<rect x="{:.2f}" y="{}" width="{:.2f}" height="{}" fill="{}" stroke="#ffffff" stroke-width="0.3">)"
                 R"(<title>{}{} [{}, {}) line {}</title></rect>)",
                 x0, stall ? ly + laneH / 2 - 2 : ly + 1, w, stall ? 4 : laneH - 2,
                 kindColour(e.kind), stall && e.kind != OpKind::SetFlag ? "waiting: " : "",
                 xmlEscape(e.name), s.offset + e.start, s.offset + e.end, e.line)
          << "\n";
    }
    out << fmt::format(
               R"(<line x1="{:.1f}" y1="{}" x2="{:.1f}" y2="{}" stroke="#333" stroke-dasharray="3,2"/>)",
               x(s.cycles), sectionTop + 14, x(s.cycles), lanesTop + lanesH)
        << "\n";
    // Right-aligned to the end marker, so it stays inside the picture.
    bool roomLeft = x(s.cycles) - left > 200;
    out << fmt::format(
               R"(<text x="{:.1f}" y="{}" font-size="10" fill="#333" text-anchor="{}">{}</text>)",
               roomLeft ? x(s.cycles) - 3 : x(s.cycles) + 3, sectionTop + 12,
               roomLeft ? "end" : "start",
               s.offset > 0 ? fmt::format("cycles {} to {}", s.offset, s.cycles)
                            : fmt::format("{} cycles", s.cycles))
        << "\n";
    y = lanesTop + lanesH + sectionGap;
  }
  // Legend.
  out << fmt::format(R"(<text x="{}" y="{}" font-weight="bold">Legend</text>)", left, y + 4)
      << "\n";
  for (size_t i = 0; i < kinds.size(); ++i) {
    int col = static_cast<int>(i % 5), row = static_cast<int>(i / 5);
    int lx = left + col * 200, ly = y + 14 + row * 20;
    bool stall = isStall(kinds[i]);
    out << fmt::format(R"(<rect x="{}" y="{}" width="14" height="{}" fill="{}"/>)", lx,
                       stall ? ly + 4 : ly, stall ? 4 : 12, kindColour(kinds[i]))
        << "\n";
    out << fmt::format(R"(<text x="{}" y="{}">{}</text>)", lx + 20, ly + 10,
                       xmlEscape(legendName(kinds[i])))
        << "\n";
  }
  out << "</svg>\n";
}

}  // namespace tilesched::sim
