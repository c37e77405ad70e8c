// Diagnostics: user-facing errors and warnings anchored in a kernel file.
//
// A Diagnostic is what a kernel author sees: `FILE:LINE:COL: error: message`,
// the source line and a caret (GCC/Clang style). Messages start lowercase, have
// no trailing period and say what would be legal. Internal invariants use
// TS_INTERNAL (see below) and never carry user input.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tilesched {

class SourceFile;

// 1-based line and column; line 0 means "no location" (e.g. command line).
// `file` is the file the location is in when it is not the compilation's main
// file (a module the kernel file imports); null means the main file. Whoever
// tags a location keeps that file alive (DiagnosticEngine::adoptFile, ir::Program).
struct SourceLoc {
  uint32_t line = 0;
  uint32_t col = 0;
  const SourceFile* file = nullptr;
  bool valid() const { return line != 0; }
};

// One source file, loaded once and shared by every diagnostic pointing into it.
class SourceFile {
 public:
  SourceFile(std::string path, std::string text);
  const std::string& path() const { return path_; }
  const std::string& text() const { return text_; }
  // The text of 1-based line `line`, without its newline; empty when out of range.
  std::string_view line(uint32_t line) const;
  uint32_t numLines() const { return static_cast<uint32_t>(lineStarts_.size()); }

 private:
  std::string path_;
  std::string text_;
  std::vector<size_t> lineStarts_;
};

// Length of the well-formed UTF-8 sequence starting at s[i] (0 when
// malformed, overlong or a surrogate); its code point goes to `cp`.
size_t utf8Length(std::string_view s, size_t i, uint32_t& cp);

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity severity = Severity::Error;
  SourceLoc loc;
  std::string message;
  std::vector<std::pair<SourceLoc, std::string>> notes;
};

// Collects diagnostics of one compilation. Not thread-safe.
class DiagnosticEngine {
 public:
  explicit DiagnosticEngine(std::shared_ptr<const SourceFile> file = nullptr)
      : file_(std::move(file)) {}

  void setFile(std::shared_ptr<const SourceFile> file) { file_ = std::move(file); }
  const SourceFile* file() const { return file_.get(); }
  // The file a location is in: its own (an imported module) or the main file.
  const SourceFile* fileOf(SourceLoc loc) const { return loc.file ? loc.file : file_.get(); }
  // Keeps a further file (an imported module) alive as long as the engine, so
  // the locations tagged with it can be rendered.
  void adoptFile(std::shared_ptr<const SourceFile> file) { adopted_.push_back(std::move(file)); }
  const std::vector<std::shared_ptr<const SourceFile>>& adoptedFiles() const { return adopted_; }

  Diagnostic& error(SourceLoc loc, std::string message);
  Diagnostic& warning(SourceLoc loc, std::string message);
  // Emits a warning only once per key (e.g. "opt-out:<storage>").
  void warningOnce(const std::string& key, SourceLoc loc, std::string message);

  bool hasErrors() const { return numErrors_ > 0; }
  size_t numErrors() const { return numErrors_; }
  const std::vector<Diagnostic>& all() const { return diags_; }

  // Renders one diagnostic as `FILE:LINE:COL: error: msg` + source line + caret.
  std::string render(const Diagnostic& d) const;
  std::string renderAll() const;

  // Too many errors make the output useless; callers may stop early.
  static constexpr size_t kMaxErrors = 50;

 private:
  std::shared_ptr<const SourceFile> file_;
  std::vector<std::shared_ptr<const SourceFile>> adopted_;
  std::vector<Diagnostic> diags_;
  std::vector<std::string> onceKeys_;
  size_t numErrors_ = 0;
};

// Thrown to abandon a compilation after errors were recorded in the engine.
// Never escapes the driver.
// The candidate closest to `name` by edit distance, when it is close enough
// to be a typo (at most a third of the name's length, at least 1); "" else.
// For "did you mean ...?" in messages about unknown names.
std::string nearestName(const std::string& name, const std::vector<std::string>& candidates);

struct CompilationAborted : std::exception {
  const char* what() const noexcept override { return "compilation aborted"; }
};

// Internal invariant violation: a tilesched bug, never a user error.
struct InternalError : std::logic_error {
  using std::logic_error::logic_error;
};

[[noreturn]] void internalError(const char* file, int line, const std::string& msg);

}  // namespace tilesched

#define TS_INTERNAL(cond, msg)                                          \
  do {                                                                  \
    if (!(cond)) ::tilesched::internalError(__FILE__, __LINE__, (msg)); \
  } while (0)
