// The in-tree diagnostic runner (MLIR's -verify-diagnostics, in small).
//
// Every tests/diagnostics/*.py is one test: a kernel file whose expected
// diagnostics sit in comments, compiled by the front end in-process. The
// runner fails on any missing or unexpected diagnostic, on an internal error
// and on an escaping exception. The file format is documented in
// tests/README.md; in short:
//
//   # ARGS: -D N=3 --func main        compile options (lines accumulate)
//   # CHECK: T.copy(A, a)  # MTE2     a line the printed IR must contain, in order
//   x = 1 // 0  # expected-error col 9 {{integer division by zero}}
//   # expected-error@+1 col 5 {{...}}      the diagnostic is on the next line
//   # expected-warning@none {{...}}        a diagnostic without a location
//
// `@+N`/`@-N` are relative lines, `@N` an absolute line; `col` is required for
// every located diagnostic; the text between `{{` and the last `}}` of the
// line must equal the whole message.
//
// Files whose name starts with `_` are not tests: they are modules the tests
// import (`from _lib import factory`). The expectations written in such a
// module are checked, against the diagnostics located in it, by every test
// that imports it.
#include <gtest/gtest.h>

#include "driver/OptCommand.h"
#include "pass/PassManager.h"
#include "pipeline/Pipelines.h"
#include "target/Target.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "frontend/Elaborator.h"
#include "ir/Printer.h"

namespace tilesched {
namespace {

namespace fs = std::filesystem;

const fs::path kDir = TILESCHED_TEST_DATA_DIR;
// The text pass tests: the same format, with `# PASSES:` naming the passes.
const fs::path kPassesDir = fs::path(TILESCHED_TEST_DATA_DIR) / ".." / "passes";

struct Expected {
  const SourceFile* file = nullptr;  // an imported module; null: the test file
  Severity severity;
  std::optional<uint32_t> line;  // none: no location
  uint32_t col = 0;
  std::string message;
  uint32_t writtenAt;  // line of the comment, for failure messages
};

enum class CheckKind { Check, Next, Not };

struct Check {
  CheckKind kind;
  std::string text;
  uint32_t writtenAt;
};

struct TestFile {
  frontend::FrontendOptions options;
  std::string passes;             // # PASSES: a,b,c ("" = the compile pipeline)
  std::string schedule = "auto";  // # SCHEDULE: auto|none|double (the schedule pass's rule)
  std::string scheduleFile;       // # SCHEDULE-FILE: name (beside the test), read, not solved
  std::vector<Expected> expected;
  std::vector<Check> checks;
  std::vector<std::string> formatErrors;  // malformed directives
};

std::string readText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

void parseArgs(const std::string& text, TestFile& tf, uint32_t lineNo) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    std::string value;
    if ((w == "-D" || w == "--func") && i + 1 < words.size()) {
      value = words[++i];
    } else if (w.rfind("-D", 0) == 0 && w.size() > 2) {
      value = w.substr(2);
    } else {
      tf.formatErrors.push_back(fmt::format("line {}: unknown ARGS word '{}'", lineNo, w));
      continue;
    }
    if (w == "--func") {
      tf.options.func = value;
      continue;
    }
    // Single quotes around a whole -D argument are shell quoting: strip them.
    if (value.size() >= 2 && value.front() == '\'' && value.back() == '\'')
      value = value.substr(1, value.size() - 2);
    auto eq = value.find('=');
    if (eq == std::string::npos) {
      tf.formatErrors.push_back(fmt::format("line {}: -D needs NAME=VALUE", lineNo));
      continue;
    }
    tf.options.defines.push_back({value.substr(0, eq), value.substr(eq + 1)});
  }
}

TestFile parseTestFile(const std::string& text) {
  TestFile tf;
  static const std::regex kExpect(
      R"(expected-(error|warning|note)(@(none|[+-]?\d+))?(\s+col\s+(\d+))?\s*\{\{)");
  std::istringstream in(text);
  std::string line;
  uint32_t lineNo = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    std::string t = trim(line);
    if (t.rfind("# ARGS:", 0) == 0) parseArgs(t.substr(7), tf, lineNo);
    if (t.rfind("# CHECK:", 0) == 0)
      tf.checks.push_back({CheckKind::Check, trim(t.substr(8)), lineNo});
    if (t.rfind("# CHECK-NEXT:", 0) == 0)
      tf.checks.push_back({CheckKind::Next, trim(t.substr(13)), lineNo});
    if (t.rfind("# CHECK-NOT:", 0) == 0)
      tf.checks.push_back({CheckKind::Not, trim(t.substr(12)), lineNo});
    if (t.rfind("# PASSES:", 0) == 0) tf.passes = trim(t.substr(9));
    if (t.rfind("# SCHEDULE-FILE:", 0) == 0) tf.scheduleFile = trim(t.substr(16));
    if (t.rfind("# SCHEDULE:", 0) == 0) {
      tf.schedule = trim(t.substr(11));
      if (tf.schedule != "auto" && tf.schedule != "none" && tf.schedule != "double")
        tf.formatErrors.push_back(fmt::format("line {}: SCHEDULE is auto, none or double, not '{}'",
                                              lineNo, tf.schedule));
    }
    auto hash = line.find('#');
    if (hash == std::string::npos) continue;
    std::smatch m;
    std::string comment = line.substr(hash);
    if (!std::regex_search(comment, m, kExpect)) {
      if (comment.find("expected-") != std::string::npos)
        tf.formatErrors.push_back(fmt::format("line {}: malformed expectation", lineNo));
      continue;
    }
    size_t textStart = static_cast<size_t>(m.position(0) + m.length(0));
    size_t textEnd = comment.rfind("}}");
    if (textEnd == std::string::npos || textEnd < textStart) {
      tf.formatErrors.push_back(fmt::format("line {}: expectation without closing '}}}}'", lineNo));
      continue;
    }
    Expected e;
    e.severity = m[1] == "error"     ? Severity::Error
                 : m[1] == "warning" ? Severity::Warning
                                     : Severity::Note;
    e.message = comment.substr(textStart, textEnd - textStart);
    e.writtenAt = lineNo;
    std::string where = m[3];
    if (where == "none") {
      e.line = std::nullopt;
    } else if (where.empty()) {
      e.line = lineNo;
    } else if (where[0] == '+' || where[0] == '-') {
      e.line = static_cast<uint32_t>(static_cast<int>(lineNo) + std::stoi(where));
    } else {
      e.line = static_cast<uint32_t>(std::stoi(where));
    }
    if (e.line && !m[5].matched) {
      tf.formatErrors.push_back(
          fmt::format("line {}: a located expectation must give its column ('col N')", lineNo));
      continue;
    }
    if (m[5].matched) e.col = static_cast<uint32_t>(std::stoi(m[5]));
    tf.expected.push_back(std::move(e));
  }
  return tf;
}

const char* severityText(Severity s) {
  return s == Severity::Error ? "error" : s == Severity::Warning ? "warning" : "note";
}

std::string describe(Severity s, std::optional<uint32_t> line, uint32_t col,
                     const std::string& msg) {
  if (!line) return fmt::format("{} (no location): {}", severityText(s), msg);
  return fmt::format("{} at {}:{}: {}", severityText(s), *line, col, msg);
}

std::vector<std::string> testFiles(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".py" && entry.path().stem().string().rfind('_', 0) != 0)
      names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

// The CHECK lines in order against `text` (FileCheck's rules, in small):
// CHECK finds its text after the previous match, CHECK-NEXT on the line
// after the previous match's line, CHECK-NOT nowhere between the previous
// match and the next one (or the end). "" when all hold, else why not.
std::string matchChecks(const std::vector<Check>& checks, const std::string& text) {
  size_t pos = 0;  // just after the previous match
  std::vector<const Check*> nots;
  auto notsBetween = [&](size_t from, size_t to) -> std::string {
    for (const Check* n : nots) {
      size_t at = text.find(n->text, from);
      if (at != std::string::npos && at < to)
        return fmt::format("line {}: CHECK-NOT found: {}", n->writtenAt, n->text);
    }
    nots.clear();
    return "";
  };
  for (const auto& c : checks) {
    if (c.kind == CheckKind::Not) {
      nots.push_back(&c);
      continue;
    }
    size_t at;
    if (c.kind == CheckKind::Next) {
      size_t lineStart = text.find('\n', pos);
      if (lineStart == std::string::npos)
        return fmt::format("line {}: CHECK-NEXT has no next line: {}", c.writtenAt, c.text);
      ++lineStart;
      size_t lineEnd = std::min(text.find('\n', lineStart), text.size());
      at = text.find(c.text, lineStart);
      if (at == std::string::npos || at + c.text.size() > lineEnd)
        return fmt::format("line {}: CHECK-NEXT not on the next line: {}\n    next line: {}",
                           c.writtenAt, c.text, text.substr(lineStart, lineEnd - lineStart));
    } else {
      at = text.find(c.text, pos);
      if (at == std::string::npos)
        return fmt::format("line {}: CHECK not found (in order): {}", c.writtenAt, c.text);
    }
    if (std::string e = notsBetween(pos, at); !e.empty()) return e;
    pos = at + c.text.size();
  }
  return notsBetween(pos, text.size());
}

// One test file: its expected diagnostics and CHECK lines.
void runTestFile(const fs::path& dir, const std::string& name) {
  fs::path path = dir / (name + ".py");
  std::string text = readText(path);
  TestFile tf = parseTestFile(text);
  for (const auto& e : tf.formatErrors) ADD_FAILURE() << path.filename() << ": " << e;

  std::string targetError;
  auto target = loadTarget("ascend950", targetError);
  ASSERT_TRUE(target) << targetError;
  // As the CLI: `compile`'s pipeline (the analyses own the eligibility
  // warnings and errors of SPEC §2.1/§2.2/§2.4, the scheduler the capacity
  // errors and the write-back warnings), or the passes `# PASSES:` names, as
  // `tilesched opt` runs them.
  std::vector<std::string_view> passList = pipeline::compile();
  if (!tf.passes.empty()) {
    std::string error;
    passList = driver::parsePassList(tf.passes, error);
    ASSERT_FALSE(passList.empty()) << path.filename() << ": PASSES: " << error;
  }
  tf.options.moduleDir = dir.string();  // the test's path is its bare name
  pass::PassOptions po;
  po.frontend = tf.options;
  po.rule = pass::scheduleRuleOf(tf.schedule);
  if (!tf.scheduleFile.empty()) {
    po.rule = pass::ScheduleRule::File;
    po.scheduleFile = tf.scheduleFile;
    po.scheduleText = readText(dir / tf.scheduleFile);
    ASSERT_FALSE(po.scheduleText.empty()) << path.filename() << ": no " << tf.scheduleFile;
  }
  po.writeBackVersions = true;
  pass::PipelineState state(std::make_shared<SourceFile>(path.filename().string(), text), *target,
                            po);
  const DiagnosticEngine& diags = state.diags;
  pass::Instrumentation checked;
  checked.verifyEach = true;
  std::ostringstream prints;
  bool compiled = false;
  std::optional<size_t> frontEndErrors;  // the errors of elaborate
  pass::PassManager passes(passList, checked, prints, path.filename().string());
  passes.setBeforePass([&](const pass::Pass& p, const pass::PipelineState& s) {
    if (p.name == "analyze") frontEndErrors = s.diags.numErrors();
  });
  try {
    compiled = passes.run(state);
    if (!frontEndErrors) frontEndErrors = diags.numErrors();
  } catch (const std::exception& ex) {
    FAIL() << "exception escaped the passes: " << ex.what();
  }

  // The expectations written in the modules the test imported.
  for (const auto& module : diags.adoptedFiles()) {
    TestFile mf = parseTestFile(module->text());
    for (const auto& e : mf.formatErrors) ADD_FAILURE() << module->path() << ": " << e;
    for (auto& e : mf.expected) {
      e.file = module.get();
      tf.expected.push_back(std::move(e));
    }
  }
  auto where = [&](const SourceFile* f) { return f ? f->path() : path.filename().string(); };
  // Notes are checked like diagnostics of their own (`expected-note`).
  std::vector<Diagnostic> actual;
  for (const auto& d : diags.all()) {
    actual.push_back(d);
    for (const auto& [loc, msg] : d.notes) actual.push_back({Severity::Note, loc, msg, {}});
  }
  std::vector<bool> used(actual.size(), false);
  for (const auto& e : tf.expected) {
    bool found = false;
    for (size_t i = 0; i < actual.size() && !found; ++i) {
      const Diagnostic& d = actual[i];
      if (used[i] || d.severity != e.severity || d.message != e.message) continue;
      if (e.line ? (d.loc.line != *e.line || d.loc.col != e.col || d.loc.file != e.file)
                 : d.loc.valid())
        continue;
      used[i] = found = true;
    }
    if (!found) {
      // Say what came closest, so a wrong column or message is easy to spot.
      std::string near;
      for (const auto& d : actual)
        if (e.line && d.loc.line == *e.line)
          near += "\n    got: " + where(d.loc.file) + " " +
                  describe(d.severity, d.loc.line, d.loc.col, d.message);
      ADD_FAILURE() << where(e.file) << ":" << e.writtenAt << ": missing "
                    << describe(e.severity, e.line, e.col, e.message) << near;
    }
  }
  for (size_t i = 0; i < actual.size(); ++i) {
    const Diagnostic& d = actual[i];
    if (d.message.find("internal error") != std::string::npos)
      ADD_FAILURE() << path.filename() << ": internal error reached from user input: " << d.message;
    if (used[i]) continue;
    ADD_FAILURE() << path.filename() << ": unexpected " << where(d.loc.file) << " "
                  << describe(d.severity,
                              d.loc.valid() ? std::optional<uint32_t>(d.loc.line) : std::nullopt,
                              d.loc.col, d.message);
  }
  // The front end returns a program exactly when it reported no error; the
  // analyses and the scheduler may then still fail the compile (as the CLI).
  if (*frontEndErrors > 0) {
    EXPECT_FALSE(compiled) << "a front-end error must fail";
  }
  EXPECT_EQ(compiled, diags.numErrors() == 0)
      << "the passes must succeed exactly when no error was reported";

  if (tf.checks.empty()) return;
  ASSERT_TRUE(compiled) << "CHECK lines need a successful compile";
  // The IR the passes left: compile's program as elaborated and scheduled,
  // or each kernel as the last lowering pass rewrote it.
  std::string ir;
  if (tf.passes.empty()) {
    ir = ir::printProgram(*state.program);
  } else {
    for (size_t k = 0; k < state.numKernels(); ++k)
      ir += ir::printKernel(state.kernelIR(k), path.filename().string());
  }
  if (std::string why = matchChecks(tf.checks, ir); !why.empty())
    ADD_FAILURE() << path.filename() << ": " << why << "\n--- IR:\n" << ir;
}

class DiagnosticFile : public ::testing::TestWithParam<std::string> {};
TEST_P(DiagnosticFile, MatchesExpectations) { runTestFile(kDir, GetParam()); }

class PassFile : public ::testing::TestWithParam<std::string> {};
TEST_P(PassFile, MatchesChecks) { runTestFile(kPassesDir, GetParam()); }

std::string testName(const ::testing::TestParamInfo<std::string>& info) {
  std::string n = info.param;
  for (auto& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Files, PassFile, ::testing::ValuesIn(testFiles(kPassesDir)), testName);

INSTANTIATE_TEST_SUITE_P(Files, DiagnosticFile, ::testing::ValuesIn(testFiles(kDir)), testName);

// The runner itself: a file that expects nothing must not hide an error, and
// a malformed directive is reported, not ignored.
TEST(DiagnosticRunner, ParsesDirectives) {
  TestFile tf = parseTestFile(
      "# ARGS: -D N=3 -D 'dtype=\"float16\"' --func main\n"
      "x = 1  # expected-error col 5 {{a {b} c}}\n"
      "# expected-warning@+1 col 2 {{w}}\n"
      "y\n"
      "# expected-error@none {{global}}\n"
      "# expected-error {{no column}}\n");
  ASSERT_EQ(tf.options.defines.size(), 2u);
  EXPECT_EQ(tf.options.defines[1].second, "\"float16\"");
  EXPECT_EQ(tf.options.func, "main");
  ASSERT_EQ(tf.expected.size(), 3u);
  EXPECT_EQ(tf.expected[0].message, "a {b} c");
  EXPECT_EQ(*tf.expected[0].line, 2u);
  EXPECT_EQ(tf.expected[0].col, 5u);
  EXPECT_EQ(*tf.expected[1].line, 4u);
  EXPECT_FALSE(tf.expected[2].line.has_value());
  EXPECT_EQ(tf.formatErrors.size(), 1u);
}

// The CHECK matcher can fail: each kind of line, found and not found.
TEST(DiagnosticRunner, MatchesCheckLines) {
  const std::string ir = "a = 1\nb = 2\nc = 3\nd = 4\n";
  auto run = [&](std::vector<Check> checks) { return matchChecks(checks, ir); };
  EXPECT_EQ(run({{CheckKind::Check, "b = 2", 1}, {CheckKind::Next, "c = 3", 2}}), "");
  EXPECT_EQ(run({{CheckKind::Check, "a = 1", 1},
                 {CheckKind::Not, "x", 2},
                 {CheckKind::Check, "d = 4", 3}}),
            "");
  EXPECT_EQ(run({{CheckKind::Check, "c = 3", 1}, {CheckKind::Check, "a = 1", 2}}),
            "line 2: CHECK not found (in order): a = 1");
  EXPECT_EQ(run({{CheckKind::Check, "a = 1", 1}, {CheckKind::Next, "c = 3", 2}}),
            "line 2: CHECK-NEXT not on the next line: c = 3\n    next line: b = 2");
  EXPECT_EQ(run({{CheckKind::Check, "a = 1", 1},
                 {CheckKind::Not, "b = 2", 2},
                 {CheckKind::Check, "d = 4", 3}}),
            "line 2: CHECK-NOT found: b = 2");
  EXPECT_EQ(run({{CheckKind::Check, "c = 3", 1}, {CheckKind::Not, "d = 4", 2}}),
            "line 2: CHECK-NOT found: d = 4");
  EXPECT_EQ(run({{CheckKind::Check, "d = 4", 1}, {CheckKind::Not, "a = 1", 2}}), "");
  TestFile tf = parseTestFile(
      "# PASSES: analyze, schedule\n# SCHEDULE: fast\n"
      "# SCHEDULE-FILE: k.schedule\n# CHECK-NEXT: x\n# CHECK-NOT: y\n");
  EXPECT_EQ(tf.passes, "analyze, schedule");
  EXPECT_EQ(tf.scheduleFile, "k.schedule");
  ASSERT_EQ(tf.checks.size(), 2u);
  EXPECT_EQ(tf.checks[0].kind, CheckKind::Next);
  EXPECT_EQ(tf.checks[1].kind, CheckKind::Not);
  ASSERT_EQ(tf.formatErrors.size(), 1u);
  EXPECT_EQ(tf.formatErrors[0], "line 2: SCHEDULE is auto, none or double, not 'fast'");
}

}  // namespace
}  // namespace tilesched
