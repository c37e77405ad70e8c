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

#include "analysis/TaskGraph.h"
#include "schedule/Scheduler.h"
#include "schedule/WriteBack.h"
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

struct Expected {
  const SourceFile* file = nullptr;  // an imported module; null: the test file
  Severity severity;
  std::optional<uint32_t> line;  // none: no location
  uint32_t col = 0;
  std::string message;
  uint32_t writtenAt;  // line of the comment, for failure messages
};

struct TestFile {
  frontend::FrontendOptions options;
  std::vector<Expected> expected;
  std::vector<std::string> checks;
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
    if (t.rfind("# CHECK:", 0) == 0) tf.checks.push_back(trim(t.substr(8)));
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

std::vector<std::string> testFiles() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(kDir))
    if (entry.path().extension() == ".py" && entry.path().stem().string().rfind('_', 0) != 0)
      names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

class DiagnosticFile : public ::testing::TestWithParam<std::string> {};

TEST_P(DiagnosticFile, MatchesExpectations) {
  fs::path path = kDir / (GetParam() + ".py");
  std::string text = readText(path);
  TestFile tf = parseTestFile(text);
  for (const auto& e : tf.formatErrors) ADD_FAILURE() << path.filename() << ": " << e;

  auto file = std::make_shared<SourceFile>(path.filename().string(), text);
  DiagnosticEngine diags(file);
  std::optional<ir::Program> program;
  size_t frontEndErrors = 0;
  tf.options.moduleDir = kDir.string();  // the test's path is its bare name
  try {
    program = frontend::compileSource(file, tf.options, diags);
    frontEndErrors = diags.numErrors();
    // The analyses own the eligibility warnings and errors of SPEC §2.1/§2.2/§2.4; run them as
    // the CLI does.
    if (program) {
      std::string targetError;
      auto target = loadTarget("ascend950", targetError);
      ASSERT_TRUE(target) << targetError;
      auto analyses = analysis::analyzeProgram(*program, *target, diags);
      // The scheduler owns the capacity errors and the write-back warnings.
      for (size_t i = 0; i < analyses.size() && !diags.hasErrors(); ++i) {
        auto s = schedule::scheduleKernel(analyses[i], program->kernels[i], *target, {}, diags);
        if (!s.lists.empty()) schedule::writeBackVersions(program->kernels[i], s, diags);
      }
      if (diags.hasErrors()) program.reset();  // as the CLI: the compile fails
    }
  } catch (const std::exception& ex) {
    FAIL() << "exception escaped the front end: " << ex.what();
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
  if (frontEndErrors > 0) {
    EXPECT_FALSE(program.has_value()) << "a front-end error must fail";
  }
  EXPECT_EQ(program.has_value(), diags.numErrors() == 0)
      << "a program must come back exactly when no error was reported";

  if (tf.checks.empty()) return;
  ASSERT_TRUE(program) << "CHECK lines need a successful compile";
  std::string ir = ir::printProgram(*program);
  size_t pos = 0;
  for (const auto& c : tf.checks) {
    size_t at = ir.find(c, pos);
    if (at == std::string::npos) {
      ADD_FAILURE() << path.filename() << ": CHECK not found (in order): " << c << "\n--- IR:\n"
                    << ir;
      return;
    }
    pos = at + c.size();
  }
}

INSTANTIATE_TEST_SUITE_P(Files, DiagnosticFile, ::testing::ValuesIn(testFiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param;
                           for (auto& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

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

}  // namespace
}  // namespace tilesched
