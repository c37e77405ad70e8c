#include "support/Diagnostics.h"

#include <algorithm>
#include <sstream>

namespace tilesched {

SourceFile::SourceFile(std::string path, std::string text)
    : path_(std::move(path)), text_(std::move(text)) {
  lineStarts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n' && i + 1 <= text_.size()) lineStarts_.push_back(i + 1);
  if (!lineStarts_.empty() && lineStarts_.back() == text_.size() && lineStarts_.size() > 1)
    lineStarts_.pop_back();
}

std::string_view SourceFile::line(uint32_t line) const {
  if (line == 0 || line > lineStarts_.size()) return {};
  size_t begin = lineStarts_[line - 1];
  size_t end = text_.find('\n', begin);
  if (end == std::string::npos) end = text_.size();
  std::string_view view(text_.data() + begin, end - begin);
  if (!view.empty() && view.back() == '\r') view.remove_suffix(1);
  return view;
}

Diagnostic& DiagnosticEngine::error(SourceLoc loc, std::string message) {
  ++numErrors_;
  diags_.push_back({Severity::Error, loc, std::move(message), {}});
  return diags_.back();
}

Diagnostic& DiagnosticEngine::warning(SourceLoc loc, std::string message) {
  diags_.push_back({Severity::Warning, loc, std::move(message), {}});
  return diags_.back();
}

void DiagnosticEngine::warningOnce(const std::string& key, SourceLoc loc, std::string message) {
  if (std::find(onceKeys_.begin(), onceKeys_.end(), key) != onceKeys_.end()) return;
  onceKeys_.push_back(key);
  warning(loc, std::move(message));
}

static const char* severityName(Severity s) {
  switch (s) {
    case Severity::Error:
      return "error";
    case Severity::Warning:
      return "warning";
    case Severity::Note:
      return "note";
  }
  return "error";
}

// Length of the well-formed UTF-8 sequence starting at s[i] (0 when
// malformed, overlong or a surrogate); its code point goes to `cp`.
size_t utf8Length(std::string_view s, size_t i, uint32_t& cp) {
  auto b0 = static_cast<unsigned char>(s[i]);
  size_t len = 0;
  uint32_t min = 0;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2, cp = b0 & 0x1F, min = 0x80;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3, cp = b0 & 0x0F, min = 0x800;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4, cp = b0 & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  bool surrogate = cp >= 0xD800 && cp <= 0xDFFF;
  if (cp < min || cp > 0x10FFFF || surrogate) return 0;
  return len;
}

// Replaces control bytes and bytes that are not UTF-8 so a garbage file
// cannot mess up a terminal; well-formed characters are kept.
static std::string printable(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    uint32_t cp = 0;
    size_t len = c >= 0x80 ? utf8Length(s, i, cp) : 1;
    if (len == 0) {
      out += '?';
      ++i;
    } else if (len == 1) {
      out += (c == '\t' || (c >= 0x20 && c != 0x7f)) ? char(c) : '?';
      ++i;
    } else {
      out += s.substr(i, len);
      i += len;
    }
  }
  return out;
}

static void renderOne(std::ostringstream& os, const SourceFile* file, SourceLoc loc,
                      Severity severity, const std::string& message) {
  if (file) os << file->path() << ":";
  if (loc.valid()) os << loc.line << ":" << loc.col << ":";
  if (file || loc.valid()) os << " ";
  os << severityName(severity) << ": " << message << "\n";
  if (!file || !loc.valid()) return;
  std::string_view line = file->line(loc.line);
  if (line.empty() && loc.line > file->numLines()) return;
  os << printable(line) << "\n";
  std::string caret;
  for (uint32_t i = 1; i < loc.col && i <= line.size() + 1; ++i)
    caret += (i - 1 < line.size() && line[i - 1] == '\t') ? '\t' : ' ';
  os << caret << "^\n";
}

std::string DiagnosticEngine::render(const Diagnostic& d) const {
  std::ostringstream os;
  renderOne(os, fileOf(d.loc), d.loc, d.severity, d.message);
  for (const auto& [loc, msg] : d.notes) renderOne(os, fileOf(loc), loc, Severity::Note, msg);
  return os.str();
}

std::string DiagnosticEngine::renderAll() const {
  std::string out;
  for (const auto& d : diags_) out += render(d);
  return out;
}

void internalError(const char* file, int line, const std::string& msg) {
  throw InternalError(std::string("internal error at ") + file + ":" + std::to_string(line) + ": " +
                      msg);
}

std::string nearestName(const std::string& name, const std::vector<std::string>& candidates) {
  size_t limit = std::max<size_t>(1, name.size() / 3);
  std::string best;
  size_t bestDistance = limit + 1;
  std::vector<size_t> row, prev;
  for (const auto& c : candidates) {
    if (c == name) continue;
    // Levenshtein distance, one row at a time.
    prev.assign(c.size() + 1, 0);
    for (size_t j = 0; j <= c.size(); ++j) prev[j] = j;
    for (size_t i = 1; i <= name.size(); ++i) {
      row.assign(c.size() + 1, 0);
      row[0] = i;
      for (size_t j = 1; j <= c.size(); ++j)
        row[j] = std::min({prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (name[i - 1] != c[j - 1])});
      prev.swap(row);
    }
    if (prev[c.size()] < bestDistance) {
      bestDistance = prev[c.size()];
      best = c;
    }
  }
  return best;
}

}  // namespace tilesched
