// The pictures of a run: the Perfetto trace (--trace) and the SVG timeline
// (--timeline). Unit tests feed the writers a hand-made SimResult, so each
// feature is seen on its own; the CLI tests check what a real run draws,
// and that the SVG renders to a PNG (tooltips are lost there, so bar labels
// are what a reader of a PNG has).
#include <gtest/gtest.h>

#include <map>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "common/CliTestUtil.h"
#include "sim/Trace.h"

namespace tilesched::sim {
namespace {

namespace fs = std::filesystem;
using testing_cli::cli;
using testing_cli::example;

std::string readAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path tempDir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("tilesched_trace_test_" + name);
  fs::create_directories(d);
  return d;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TraceEvent work(Pipe p, OpKind k, int64_t start, int64_t end, std::string name,
                std::string label = "", int32_t iteration = -1) {
  return TraceEvent{p, k, start, end, 10, std::move(name), nullptr, std::move(label), iteration};
}

// A block that loads, waits on a flag, computes; `shift` moves everything.
std::vector<TraceEvent> oneBlock(int64_t shift = 0) {
  return {work(Pipe::MTE2, OpKind::Load, 0 + shift, 400 + shift, "T.copy A -> a_ub",
               "copy A\u2192a_ub"),
          work(Pipe::V, OpKind::WaitFlag, 0 + shift, 400 + shift, "wait_flag(\"MTE2\", \"V\", 0)"),
          work(Pipe::V, OpKind::Vector, 400 + shift, 500 + shift, "T.Parallel -> c_ub",
               "add\u2192c_ub")};
}

SimResult resultOf(std::vector<std::vector<TraceEvent>> blocks) {
  SimResult r;
  for (size_t b = 0; b < blocks.size(); ++b) {
    BlockStats s;
    s.block = static_cast<int64_t>(b);
    for (const auto& e : blocks[b]) s.cycles = std::max(s.cycles, e.end);
    r.blocks.push_back(s);
    r.trace.push_back(std::move(blocks[b]));
    r.arrows.emplace_back();
    r.iterations.emplace_back();
  }
  return r;
}

std::string svgOf(const SimResult& r, TimelineOptions options = {},
                  std::vector<TraceLoopII> iis = {}) {
  std::ostringstream out;
  writeTimelineSvg(out, {TraceInput{"k", &r, "k.py", 0, std::move(iis)}}, "title", options);
  return out.str();
}

// The y range [top, bottom) of the <rect> whose tooltip starts with `title`.
std::pair<double, double> rectRows(const std::string& svg, const std::string& title) {
  size_t at = svg.find("<title>" + title);
  EXPECT_NE(at, std::string::npos) << title;
  if (at == std::string::npos) return {0, 0};
  size_t rect = svg.rfind("<rect", at);
  std::smatch m;
  std::string tag = svg.substr(rect, at - rect);
  EXPECT_TRUE(std::regex_search(tag, m, std::regex(R"re( y="([0-9.]+)".* height="([0-9.]+)")re")))
      << tag;
  double y = std::stod(m[1]);
  return {y, y + std::stod(m[2])};
}

TEST(Timeline, IdenticalBlocksAreDrawnOnceUnlessAllBlocksAreAsked) {
  SimResult r = resultOf({oneBlock(), oneBlock(), oneBlock(), oneBlock()});
  std::string svg = svgOf(r);
  EXPECT_NE(svg.find("k \u00d7 4 blocks (blocks 0\u20133 are identical)"), std::string::npos)
      << svg;
  EXPECT_EQ(count(svg, "<title>T.copy A -&gt; a_ub"), 1u);
  EXPECT_EQ(svg.find("k block 1"), std::string::npos);

  TimelineOptions all;
  all.allBlocks = true;
  std::string every = svgOf(r, all);
  EXPECT_EQ(every.find("\u00d7"), std::string::npos);
  for (int b = 0; b < 4; ++b)
    EXPECT_NE(every.find("k block " + std::to_string(b) + "<"), std::string::npos) << b;
  EXPECT_EQ(count(every, "<title>T.copy A -&gt; a_ub"), 4u);
}

TEST(Timeline, BlocksThatDifferInOneCycleAreDrawnApart) {
  SimResult r = resultOf({oneBlock(), oneBlock(1), oneBlock(), oneBlock()});
  std::string svg = svgOf(r);
  EXPECT_NE(svg.find("k \u00d7 3 blocks (blocks 0, 2\u20133 are identical)"), std::string::npos)
      << svg;
  EXPECT_NE(svg.find("k block 1<"), std::string::npos);
  // Distinct blocks beyond the limit are counted, not drawn.
  TimelineOptions one;
  one.maxBlocks = 1;
  std::string first = svgOf(r, one);
  EXPECT_NE(first.find("(1 more block not shown; --timeline-all-blocks draws every block)"),
            std::string::npos);
  EXPECT_EQ(first.find("k block 1<"), std::string::npos);
  // The limit is per launch: a later launch is drawn however many blocks the first had.
  SimResult later = resultOf({oneBlock()});
  std::ostringstream two;
  writeTimelineSvg(two,
                   {TraceInput{"k", &r, "k.py", 0, {}}, TraceInput{"l", &later, "k.py", 500, {}}},
                   "title", one);
  EXPECT_NE(two.str().find("l block 0<"), std::string::npos);
  EXPECT_NE(two.str().find("cycles 500 to 1000"), std::string::npos);
}

TEST(Timeline, FlagsAndWaitsHaveTheirOwnLaneUnderThePipe) {
  // V waits while MTE2 works, and a pending set_flag overlaps the V work: in
  // one lane either would cover or hide a bar.
  auto events = oneBlock();
  events.push_back(work(Pipe::V, OpKind::SetFlag, 420, 480, "set_flag(\"V\", \"MTE3\", 0)"));
  SimResult r = resultOf({events});
  std::string svg = svgOf(r);
  auto bar = rectRows(svg, "T.Parallel -&gt; c_ub");
  auto wait = rectRows(svg, "waiting: wait_flag");
  auto set = rectRows(svg, "set_flag(&quot;V&quot;");
  EXPECT_GE(wait.first, bar.second);
  EXPECT_GE(set.first, bar.second);
  // The wait and the set_flag share the flag lane without overlapping.
  EXPECT_GE(wait.first, set.second);
  EXPECT_LT(wait.second - set.first, 10);
  EXPECT_EQ(count(svg, "class=\"flag-lane\""), 1u);  // MTE2 has no flags: no lane
  EXPECT_NE(svg.find("the thin lane under a pipe holds its set_flag, wait_flag and barriers"),
            std::string::npos);
}

TEST(Timeline, IterationStartsAndTheScheduleIIAreMarked) {
  // Three iterations of loop k (line 7): each starts with its load; the
  // second one's set_flag is issued early and must not move its mark.
  std::vector<TraceEvent> events;
  for (int i = 0; i < 3; ++i) {
    events.push_back(work(Pipe::MTE2, OpKind::Load, 100 * i + 5, 100 * i + 90, "T.copy A -> a_ub",
                          "copy A\u2192a_ub", i));
    events.push_back(work(Pipe::V, OpKind::SetFlag, 1, 2, "set_flag(\"V\", \"MTE2\", 0)", "", i));
  }
  SimResult r = resultOf({events});
  r.traceLoops.push_back({"k", SourceLoc{7, 5, nullptr}});
  r.iterations[0] = {{0, 0, -1}, {0, 1, -1}, {0, 2, -1}};
  std::string svg = svgOf(r, {}, {{"k", 7, 96}});
  EXPECT_EQ(count(svg, "class=\"iteration\""), 3u);
  EXPECT_NE(svg.find("loop k (line 7): II = 96, iterations start every 100 cycles on average"),
            std::string::npos)
      << svg;
  for (const char* label : {">k=0<", ">k=1<", ">k=2<"})
    EXPECT_NE(svg.find(label), std::string::npos) << label;
  // The marks sit at the loads' starts (cycles 5, 105, 205 of a 295-cycle span).
  std::regex line(R"re(class="iteration" x1="([0-9.]+)")re");
  std::vector<double> xs;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), line); it != std::sregex_iterator();
       ++it)
    xs.push_back(std::stod((*it)[1]));
  ASSERT_EQ(xs.size(), 3u);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(xs[i], 110 + (100.0 * i + 5) * 1100 / 290, 0.01) << i;
  // Without a schedule (serial, none, double) the lines stay, the II goes.
  std::string unscheduled = svgOf(r);
  EXPECT_EQ(unscheduled.find("II ="), std::string::npos);
  EXPECT_EQ(count(unscheduled, "class=\"iteration\""), 3u);
}

TEST(Timeline, BarsShowTheirShortNameWhereItFits) {
  // Over a 1000-cycle span a cycle is 1.1 px: the 400-cycle load has room
  // for "copy A→a_ub", a 40-cycle add only for "add", a 5-cycle one for
  // nothing; the second load starts while the first is in flight (MTE2
  // overlaps copies), so the first keeps only the part left visible.
  SimResult r = resultOf({{
      work(Pipe::MTE2, OpKind::Load, 0, 400, "T.copy A -> a_ub", "copy A\u2192a_ub"),
      work(Pipe::V, OpKind::Vector, 400, 440, "T.Parallel -> c_ub", "add\u2192c_ub"),
      work(Pipe::V, OpKind::Vector, 450, 455, "T.Parallel -> d_ub", "mul\u2192d_ub"),
      work(Pipe::MTE2, OpKind::Load, 500, 1000, "T.copy B -> b_ub", "copy B\u2192b_ub"),
      work(Pipe::MTE2, OpKind::Load, 530, 1000, "T.copy C -> c_ub", "copy C\u2192c_ub"),
  }});
  std::string svg = svgOf(r);
  EXPECT_NE(svg.find("class=\"bar-label\""), std::string::npos);
  EXPECT_NE(svg.find(">copy A\u2192a_ub</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">add</text>"), std::string::npos);
  EXPECT_EQ(svg.find(">mul"), std::string::npos);
  EXPECT_NE(svg.find(">copy</text>"), std::string::npos);  // B: 30 cycles visible
  EXPECT_NE(svg.find(">copy C\u2192c_ub</text>"), std::string::npos);
  EXPECT_EQ(svg.find(">copy B"), std::string::npos);
}

TEST(Trace, EventsCarryFileLineAndCyclesAndTheUnitIsNamed) {
  auto module = std::make_shared<SourceFile>("lib/example_lib.py", "");
  auto events = oneBlock();
  events[0].file = module.get();
  events.push_back(TraceEvent{Pipe::S, OpKind::Scalar, 0, 7, 0, "scalar unit", nullptr, "", -1});
  SimResult r = resultOf({events});
  r.traceLoops.push_back({"s", SourceLoc{9, 5, nullptr}});
  r.iterations[0] = {{0, 3, -1}};
  r.trace[0][2].iteration = 0;
  std::ostringstream out;
  writeChromeTrace(out, {TraceInput{"k", &r, "kernels/k.py", 100, {}}});
  auto trace = nlohmann::json::parse(out.str());
  // Perfetto has no cycle unit: the axis is microseconds, and every block says what they are.
  EXPECT_FALSE(trace.contains("displayTimeUnit"));
  EXPECT_NE(trace.at("otherData").at("time_unit").get<std::string>().find("1 us"),
            std::string::npos);
  std::vector<nlohmann::json> slices;
  for (const auto& e : trace.at("traceEvents")) {
    if (e.at("name") == "process_name") {
      EXPECT_EQ(e.at("args").at("name"), "k block 0 (1 us = 1 cycle)");
    }
    if (e.at("ph") == "X") slices.push_back(e);
  }
  ASSERT_EQ(slices.size(), 4u);
  const auto& load = slices[0].at("args");
  EXPECT_EQ(load.at("file"), "lib/example_lib.py");
  EXPECT_EQ(load.at("line"), 10);
  EXPECT_EQ(load.at("start_cycle"), 100);  // the launch's start added, as in ts
  EXPECT_EQ(load.at("end_cycle"), 500);
  EXPECT_EQ(load.at("cycles"), 400);
  EXPECT_EQ(slices[0].at("ts"), 100);
  EXPECT_FALSE(load.contains("loop"));
  const auto& add = slices[2].at("args");
  EXPECT_EQ(add.at("file"), "kernels/k.py");
  EXPECT_EQ(add.at("loop"), "s");
  EXPECT_EQ(add.at("iteration"), 3);
  // The scalar unit's merged bars have no one source line.
  EXPECT_FALSE(slices[3].at("args").contains("file"));
  EXPECT_FALSE(slices[3].at("args").contains("line"));
}

// ---------------------------------------------------------------- the CLI

TEST(TimelineCli, VecAddDrawsItsFourIdenticalBlocksOnceWithTheLoopAndItsII) {
  fs::path dir = tempDir("vec_add");
  auto r = cli({"run", example("vec_add"), "--timeline", (dir / "t.svg").string(), "--report",
                (dir / "r.json").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  std::string svg = readAll(dir / "t.svg");
  EXPECT_NE(svg.find("vec_add \u00d7 4 blocks (blocks 0\u20133 are identical)"), std::string::npos);
  auto report = nlohmann::json::parse(readAll(dir / "r.json"));
  const auto& loop = report.at("kernels").at(0).at("loops").at(0);
  EXPECT_NE(svg.find(fmt::format("loop s (line {}): II = {},", loop.at("line").get<int>(),
                                 loop.at("ii").get<int64_t>())),
            std::string::npos);
  EXPECT_EQ(count(svg, "class=\"iteration\""), 4u);  // num_sub = 4
  EXPECT_NE(svg.find(">copy A\u2192a_ub</text>"), std::string::npos);
  EXPECT_NE(svg.find(">copy c_ub\u2192C</text>"), std::string::npos);
  EXPECT_NE(svg.find("class=\"flag-lane\""), std::string::npos);

  auto all = cli({"run", example("vec_add"), "--timeline", (dir / "all.svg").string(),
                  "--timeline-all-blocks"});
  ASSERT_EQ(all.code, 0) << all.err;
  std::string every = readAll(dir / "all.svg");
  EXPECT_NE(every.find("vec_add block 3<"), std::string::npos);
  EXPECT_EQ(every.find("\u00d7 4 blocks"), std::string::npos);

  auto alone = cli({"run", example("vec_add"), "--timeline-all-blocks"});
  EXPECT_EQ(alone.code, 2);
  EXPECT_NE(alone.err.find("give --timeline FILE.svg too"), std::string::npos) << alone.err;
}

// With fewer cores than blocks the blocks run in waves: a later wave is drawn
// (and traced) where it runs, after the earlier one, not from cycle 0.
TEST(TimelineCli, LaterWavesStartWhereTheEarlierOneEnded) {
  fs::path dir = tempDir("waves");
  auto r = cli({"run", example("vec_add"), "--cores", "2", "--timeline", (dir / "t.svg").string(),
                "--trace", (dir / "t.json").string(), "--report", (dir / "r.json").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  auto report = nlohmann::json::parse(readAll(dir / "r.json"));
  int64_t total = report.at("simulation").at("cycles").get<int64_t>();
  ASSERT_EQ(total % 2, 0);  // two identical waves
  int64_t wave = total / 2;
  std::string svg = readAll(dir / "t.svg");
  EXPECT_NE(
      svg.find("vec_add \u00d7 2 blocks (blocks 0\u20131 are identical), wave 1 of 2 (2 cores)"),
      std::string::npos);
  EXPECT_NE(
      svg.find("vec_add \u00d7 2 blocks (blocks 2\u20133 are identical), wave 2 of 2 (2 cores)"),
      std::string::npos);
  EXPECT_NE(svg.find(fmt::format("cycles {} to {}", wave, total)), std::string::npos);
  auto trace = nlohmann::json::parse(readAll(dir / "t.json"));
  std::map<int64_t, int64_t> firstStart;  // pid (= block here) -> first slice
  for (const auto& e : trace.at("traceEvents")) {
    if (e.at("ph") != "X") continue;
    int64_t pid = e.at("pid").get<int64_t>(), ts = e.at("ts").get<int64_t>();
    firstStart[pid] = firstStart.count(pid) ? std::min(firstStart[pid], ts) : ts;
  }
  ASSERT_EQ(firstStart.size(), 4u);
  EXPECT_LT(firstStart[1], wave);
  EXPECT_GE(firstStart[2], wave);
  EXPECT_GE(firstStart[3], wave);
}

TEST(TraceCli, EventsNameTheLoopIterationAndTheModuleOfAnImportedFactory) {
  fs::path dir = tempDir("trace");
  auto r = cli({"run", example("vec_add"), "--trace", (dir / "t.json").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  auto trace = nlohmann::json::parse(readAll(dir / "t.json"));
  std::set<int64_t> iterations;
  for (const auto& e : trace.at("traceEvents")) {
    if (e.at("ph") != "X" || e.at("name") != "T.copy A -> a_ub") continue;
    EXPECT_EQ(e.at("args").at("file"), example("vec_add"));
    EXPECT_EQ(e.at("args").at("loop"), "s");
    iterations.insert(e.at("args").at("iteration").get<int64_t>());
  }
  EXPECT_EQ(iterations, (std::set<int64_t>{0, 1, 2, 3}));

  std::string test =
      std::string(TILESCHED_SOURCE_DIR) + "/tests/oracle/kernels/test_import_axpy.py";
  auto imported = cli({"run", test, "--trace", (dir / "i.json").string()});
  ASSERT_EQ(imported.code, 0) << imported.err;
  bool inModule = false;
  auto importedTrace = nlohmann::json::parse(readAll(dir / "i.json"));
  for (const auto& e : importedTrace.at("traceEvents"))
    if (e.at("ph") == "X" && e.at("cat") == "load (GM->UB/L1)")
      inModule |= e.at("args").at("file").get<std::string>().ends_with("/example_import_axpy.py");
  EXPECT_TRUE(inModule);
}

// The SVG is read by browsers and by converters alike; rsvg-convert (librsvg,
// what most PNG conversions use) must render it, at the size the SVG says.
TEST(TimelineCli, RendersToAPngWithRsvgConvert) {
  if (std::system("command -v rsvg-convert >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "rsvg-convert not installed (Debian package librsvg2-bin)";
  fs::path dir = tempDir("png");
  for (const char* name : {"vec_add", "softmax", "gemm_l1", "persistent_tiles"}) {
    SCOPED_TRACE(name);
    fs::path svg = dir / (std::string(name) + ".svg"), png = dir / (std::string(name) + ".png");
    fs::remove(png);
    auto r = cli({"run", example(name), "--timeline", svg.string()});
    ASSERT_EQ(r.code, 0) << r.err;
    std::string command = "rsvg-convert '" + svg.string() + "' -o '" + png.string() + "' 2>'" +
                          png.string() + ".err'";
    ASSERT_EQ(std::system(command.c_str()), 0) << readAll(png.string() + ".err");
    EXPECT_EQ(readAll(png.string() + ".err"), "");
    std::string bytes = readAll(png);
    ASSERT_GT(bytes.size(), 24u);
    EXPECT_EQ(bytes.substr(0, 8), "\x89PNG\r\n\x1a\n");
    auto be32 = [&](size_t at) {
      return (static_cast<uint32_t>(static_cast<unsigned char>(bytes[at])) << 24) |
             (static_cast<uint32_t>(static_cast<unsigned char>(bytes[at + 1])) << 16) |
             (static_cast<uint32_t>(static_cast<unsigned char>(bytes[at + 2])) << 8) |
             static_cast<uint32_t>(static_cast<unsigned char>(bytes[at + 3]));
    };
    std::smatch size;
    std::string svgText = readAll(svg);
    ASSERT_TRUE(
        std::regex_search(svgText, size, std::regex(R"re(width="(\d+)" height="(\d+)")re")));
    EXPECT_EQ(be32(16), std::stoul(size[1]));  // IHDR width
    EXPECT_EQ(be32(20), std::stoul(size[2]));  // IHDR height
    // Bars, labels and text compress far worse than an empty page (~3 KB).
    EXPECT_GT(bytes.size(), 20000u);
  }
}

}  // namespace
}  // namespace tilesched::sim

namespace tilesched::sim {
namespace {

// In a core group every flag arrow runs between the lanes of the cores that
// set and waited: the AIC's FixPipe hands the tile to AIV 0's vector pipe
// through cross-core flag 6, and AIV 0's own V -> MTE3 flag stays on AIV 0.
TEST(TraceCli, CrossCoreFlagArrowsJoinTheLanesOfBothCores) {
  fs::path dir = tempDir("cross_core_arrows");
  fs::path trace = dir / "t.json";
  auto r = cli(
      {"run", std::string(TILESCHED_SOURCE_DIR) + "/tests/oracle/kernels/manual_fixpipe_to_aiv0.py",
       "--schedule", "as-written", "--trace", trace.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(readAll(trace));
  std::map<int64_t, std::string> laneNames;                  // tid of block 0's process
  std::map<std::string, std::pair<int64_t, int64_t>> flows;  // name -> (start tid, end tid)
  for (const auto& e : j.at("traceEvents")) {
    if (e.at("pid") != 0) continue;
    if (e.at("name") == "thread_name")
      laneNames[e.at("tid").get<int64_t>()] = e.at("args").at("name").get<std::string>();
    if (e.value("cat", "") == "flag") {
      auto& f = flows[e.at("name").get<std::string>()];
      (e.at("ph") == "s" ? f.first : f.second) = e.at("tid").get<int64_t>();
    }
  }
  ASSERT_TRUE(flows.count("cross-core flag AIC FIX -> AIV 0 V #6")) << j.dump(1).substr(0, 4000);
  auto cross = flows.at("cross-core flag AIC FIX -> AIV 0 V #6");
  EXPECT_EQ(laneNames.at(cross.first), "AIC FIX");
  EXPECT_EQ(laneNames.at(cross.second), "AIV 0 V");
  ASSERT_TRUE(flows.count("flag V_MTE3 #0"));
  EXPECT_EQ(laneNames.at(flows.at("flag V_MTE3 #0").first), "AIV 0 V");
  EXPECT_EQ(laneNames.at(flows.at("flag V_MTE3 #0").second), "AIV 0 MTE3");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tilesched::sim
