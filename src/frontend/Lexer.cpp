// Python 3 tokenizer; see Lexer.h for the contract.
//
// One Lexer object walks the text once. Module mode tracks the indentation
// stack and the open brackets of the current logical line; f-string fields
// reuse the same token scanner on the same position with a bracket stack of
// their own, so nested strings and operators behave exactly as outside.
#include "frontend/Lexer.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <limits>
#include <unordered_set>

#include <fmt/format.h>

namespace tilesched::py {

namespace {

constexpr std::array<std::string_view, 35> kKeywords = {
    "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
    "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
    "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};

// Keywords that can only start a statement, never continue an expression on
// a new line inside brackets; seeing one there means a bracket was left open.
constexpr std::array<std::string_view, 19> kStatementOnlyKeywords = {
    "assert", "break",   "class",  "continue", "def",      "del",  "elif",
    "except", "finally", "global", "import",   "nonlocal", "pass", "raise",
    "return", "try",     "while",  "with",     "async"};

// Keywords CPython accepts directly after a number (`1if x else 2`).
constexpr std::array<std::string_view, 8> kKeywordsAfterNumber = {"and", "else", "for", "if",
                                                                  "in",  "is",   "not", "or"};

template <size_t N>
bool contains(const std::array<std::string_view, N>& set, std::string_view s) {
  return std::find(set.begin(), set.end(), s) != set.end();
}

bool isAsciiIdentStart(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool isDigit(unsigned char c) { return c >= '0' && c <= '9'; }
bool isAsciiIdentCont(unsigned char c) { return isAsciiIdentStart(c) || isDigit(c); }

int digitValue(unsigned char c) {
  if (isDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return 99;
}

// Non-ASCII code points that are obviously punctuation or spaces, so that a
// pasted smart quote or no-break space is reported instead of becoming part
// of a name. Everything else non-ASCII is accepted as identifier text.
bool isNonIdentifierCodePoint(uint32_t cp) {
  bool latin1Symbol = cp >= 0xA0 && cp <= 0xBF && cp != 0xAA && cp != 0xB5 && cp != 0xBA;
  return latin1Symbol || cp == 0xD7 || cp == 0xF7 || (cp >= 0x2000 && cp <= 0x206F) ||
         (cp >= 0x3000 && cp <= 0x303F) || (cp >= 0xFF01 && cp <= 0xFF0F) || cp == 0xFEFF;
}

void appendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  }
}

// A byte as it may appear in a message: itself when printable ASCII, else \xNN.
std::string byteForMessage(unsigned char c) {
  if (c >= 0x20 && c < 0x7F) return std::string(1, char(c));
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", c);
  return buf;
}

bool isOpener(char c) { return c == '(' || c == '[' || c == '{'; }
bool isCloser(char c) { return c == ')' || c == ']' || c == '}'; }
char closerOf(char open) { return open == '(' ? ')' : open == '[' ? ']' : '}'; }

struct OpenBracket {
  char ch;
  SourceLoc loc;
};

class Lexer {
 public:
  Lexer(std::string_view src, DiagnosticEngine& diags, bool expressionMode,
        const SourceFile* locationFile = nullptr)
      : src_(src), diags_(diags), expressionMode_(expressionMode), locationFile_(locationFile) {}

  std::vector<Token> run();

 private:
  // --- position ----------------------------------------------------------
  bool atEnd() const { return pos_ >= src_.size(); }
  unsigned char peek(size_t k = 0) const {
    return pos_ + k < src_.size() ? static_cast<unsigned char>(src_[pos_ + k]) : 0;
  }
  bool atLineBreak() const { return peek() == '\n' || (peek() == '\r' && peek(1) == '\n'); }
  SourceLoc loc() const {
    return {line_, static_cast<uint32_t>(pos_ - lineStart_ + 1), locationFile_};
  }
  // Consumes one byte, keeping the line bookkeeping right.
  char bump() {
    char c = src_[pos_++];
    if (c == '\n') {
      ++line_;
      lineStart_ = pos_;
    }
    return c;
  }
  // Consumes "\n" or "\r\n".
  void bumpLineBreak() {
    if (peek() == '\r') ++pos_;
    bump();
  }
  void skipInlineSpace() {
    while (!atEnd()) {
      unsigned char c = peek();
      bool lonelyCr = c == '\r' && peek(1) != '\n';
      if (c != ' ' && c != '\t' && c != '\f' && !lonelyCr) break;
      ++pos_;
    }
  }
  void skipComment() {
    while (!atEnd() && peek() != '\n' && !(peek() == '\r' && peek(1) == '\n')) ++pos_;
  }

  bool isUtf8Text();
  void error(SourceLoc at, std::string message) {
    if (diags_.numErrors() < DiagnosticEngine::kMaxErrors) diags_.error(at, std::move(message));
  }

  // --- module mode -------------------------------------------------------
  void startLine();
  void applyIndent(SourceLoc at);
  void push(Token tok);
  void pushStructural(TokenKind kind, SourceLoc at);
  void lineBreak();
  void continuation();
  bool nextLineStartsStatement();
  bool trackBracket(const Token& tok, std::vector<OpenBracket>& stack, bool inField);
  void finish();

  // --- tokens ------------------------------------------------------------
  bool lexOne(Token& tok);
  void lexName(Token& tok);
  void lexNumber(Token& tok);
  void lexOp(Token& tok);
  void lexString(Token& tok, size_t start, std::string_view prefix);
  void lexPlainBody(Token& tok, char quote, SourceLoc start);
  void lexFStringBody(Token& tok, char quote, SourceLoc start);
  void decodeEscape(std::string& out, bool bytes);
  bool atClosingQuote(char quote, bool triple) const {
    if (peek() != static_cast<unsigned char>(quote)) return false;
    return !triple || (peek(1) == static_cast<unsigned char>(quote) &&
                       peek(2) == static_cast<unsigned char>(quote));
  }
  void skipToStringEnd(char quote, bool triple);
  bool lexField(FStrTokenPart& part, char quote, bool triple);
  bool lexFormatSpec(FStrTokenPart& part, char quote, bool triple);
  void reportInvalidCharacter();

  std::string_view src_;
  DiagnosticEngine& diags_;
  bool expressionMode_;
  const SourceFile* locationFile_;  // SourceLoc::file of every location (null: main file)

  size_t pos_ = 0;
  uint32_t line_ = 1;
  size_t lineStart_ = 0;

  std::vector<Token> out_;
  std::vector<uint32_t> indents_{0};
  std::vector<OpenBracket> brackets_;
  bool atLineStart_ = true;
  bool lineHasTokens_ = false;
  bool indentPending_ = false;
  uint32_t pendingIndent_ = 0;
  int fstringDepth_ = 0;
};

std::vector<Token> Lexer::run() {
  out_.reserve(src_.size() / 8 + 16);  // typical density; avoids most regrowth copies
  if (src_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;          // columns still count its bytes
  if (!expressionMode_ && !isUtf8Text()) pos_ = src_.size();  // an empty module follows
  while (true) {
    if (atLineStart_ && !expressionMode_) startLine();
    skipInlineSpace();
    if (atEnd()) break;
    unsigned char c = peek();
    if (c == '#') {
      skipComment();
    } else if (atLineBreak()) {
      lineBreak();
    } else if (c == '\\') {
      continuation();
    } else {
      Token tok;
      if (lexOne(tok) && trackBracket(tok, brackets_, false)) push(std::move(tok));
    }
  }
  finish();
  return std::move(out_);
}

// Measures the indentation of the next non-blank line. The Indent/Dedent
// tokens are emitted only with the line's first token, so a line holding
// nothing but a continuation backslash cannot leave an unbalanced Indent.
void Lexer::startLine() {
  while (true) {
    uint32_t col = 0;
    while (!atEnd()) {
      unsigned char c = peek();
      if (c == ' ') {
        ++col;
      } else if (c == '\t') {
        col = (col / 8 + 1) * 8;
      } else if (c == '\f') {
        col = 0;
      } else if (c != '\r' || peek(1) == '\n') {
        break;
      }
      ++pos_;
    }
    if (atEnd()) break;
    if (peek() == '#') skipComment();
    if (atLineBreak()) {
      bumpLineBreak();
      continue;
    }
    if (atEnd()) break;
    indentPending_ = true;
    pendingIndent_ = col;
    break;
  }
  atLineStart_ = false;
}

void Lexer::applyIndent(SourceLoc at) {
  uint32_t col = pendingIndent_;
  if (col > indents_.back()) {
    indents_.push_back(col);
    pushStructural(TokenKind::Indent, at);
    return;
  }
  while (indents_.size() > 1 && indents_[indents_.size() - 2] >= col) {
    indents_.pop_back();
    pushStructural(TokenKind::Dedent, at);
  }
  if (indents_.back() != col) {
    // Between two outer levels: keep the line in the inner block and adopt
    // its column, so following lines at the same column stay consistent.
    error(at, "unindent does not match any outer indentation level");
    indents_.back() = col;
  }
}

void Lexer::push(Token tok) {
  if (indentPending_) {
    indentPending_ = false;
    applyIndent(tok.loc);
  }
  lineHasTokens_ = true;
  out_.push_back(std::move(tok));
}

void Lexer::pushStructural(TokenKind kind, SourceLoc at) {
  Token tok;
  tok.kind = kind;
  tok.loc = tok.endLoc = at;
  out_.push_back(std::move(tok));
}

void Lexer::lineBreak() {
  SourceLoc at = loc();
  bumpLineBreak();
  if (expressionMode_) return;
  if (!brackets_.empty()) {
    if (!nextLineStartsStatement()) return;
    error(brackets_.back().loc, std::string("'") + brackets_.back().ch + "' was never closed");
    brackets_.clear();
  }
  if (lineHasTokens_) pushStructural(TokenKind::Newline, at);
  lineHasTokens_ = false;
  atLineStart_ = true;
}

void Lexer::continuation() {
  SourceLoc at = loc();
  ++pos_;
  if (atLineBreak()) {
    bumpLineBreak();
    return;
  }
  if (atEnd()) {
    error(at, "unexpected end of file after line continuation character");
    return;
  }
  error(at, "unexpected character after line continuation character");
}

bool Lexer::nextLineStartsStatement() {
  size_t p = pos_;
  while (p < src_.size() && (src_[p] == ' ' || src_[p] == '\t' || src_[p] == '\f')) ++p;
  size_t start = p;
  while (p < src_.size() && isAsciiIdentCont(static_cast<unsigned char>(src_[p]))) ++p;
  if (p < src_.size() && static_cast<unsigned char>(src_[p]) >= 0x80) return false;
  return contains(kStatementOnlyKeywords, src_.substr(start, p - start));
}

// Keeps `stack` in step with the brackets of `tok`; returns false when the
// token must be dropped (a closer with nothing open).
bool Lexer::trackBracket(const Token& tok, std::vector<OpenBracket>& stack, bool inField) {
  if (tok.kind != TokenKind::Op || tok.text.size() != 1) return true;
  char c = tok.text[0];
  if (isOpener(c)) {
    stack.push_back({c, tok.loc});
    return true;
  }
  if (!isCloser(c)) return true;
  if (stack.empty()) {
    error(tok.loc, std::string(inField ? "f-string: " : "") + "unmatched '" + c + "'");
    return false;
  }
  OpenBracket open = stack.back();
  stack.pop_back();
  if (closerOf(open.ch) != c) {
    std::string msg = std::string("closing parenthesis '") + c +
                      "' does not match opening parenthesis '" + open.ch + "'";
    if (open.loc.line != tok.loc.line) msg += " on line " + std::to_string(open.loc.line);
    error(tok.loc, msg);
  }
  return true;
}

void Lexer::finish() {
  SourceLoc at = loc();
  if (!brackets_.empty()) {
    error(brackets_.back().loc, std::string("'") + brackets_.back().ch + "' was never closed");
    brackets_.clear();
  }
  if (!expressionMode_) {
    if (lineHasTokens_) pushStructural(TokenKind::Newline, at);
    for (size_t i = 1; i < indents_.size(); ++i) pushStructural(TokenKind::Dedent, at);
    indents_.resize(1);
  }
  pushStructural(TokenKind::EndOfFile, at);
}

// Lexes the token at pos_ into `tok`. Returns false (after reporting and
// skipping the offending bytes) when there is no valid token there.
bool Lexer::lexOne(Token& tok) {
  unsigned char c = peek();
  tok.loc = loc();
  if (c == '"' || c == '\'') {
    lexString(tok, pos_, {});
  } else if (isDigit(c) || (c == '.' && isDigit(peek(1)))) {
    lexNumber(tok);
  } else if (isAsciiIdentStart(c)) {
    lexName(tok);
  } else if (c >= 0x80) {
    uint32_t cp = 0;
    size_t len = utf8Length(src_, pos_, cp);
    if (len == 0 || isNonIdentifierCodePoint(cp)) {
      reportInvalidCharacter();
      return false;
    }
    lexName(tok);
  } else if (std::string_view("+-*/%@&|^~<>()[]{},:;.=!").find(char(c)) != std::string_view::npos) {
    lexOp(tok);
  } else {
    reportInvalidCharacter();
    return false;
  }
  tok.endLoc = loc();
  return true;
}

// A file that is not UTF-8 is not Python source: one error at the first
// byte that is not part of a UTF-8 character, instead of one per byte.
bool Lexer::isUtf8Text() {
  uint32_t line = 1, col = 1, cp = 0;
  for (size_t i = 0; i < src_.size();) {
    auto c = static_cast<unsigned char>(src_[i]);
    size_t len = c < 0x80 ? 1 : utf8Length(src_, i, cp);
    if (len == 0) {
      error({line, col, locationFile_},
            fmt::format("this file is not UTF-8 text: byte 0x{:02x} here is not part of a UTF-8 "
                        "character; a kernel file is Python source, saved as UTF-8",
                        c));
      return false;
    }
    if (c == '\n') {
      ++line;
      col = 1;
    } else {
      col += static_cast<uint32_t>(len);
    }
    i += len;
  }
  return true;
}

void Lexer::reportInvalidCharacter() {
  SourceLoc at = loc();
  uint32_t cp = 0;
  size_t len = peek() >= 0x80 ? utf8Length(src_, pos_, cp) : 0;
  if (len == 0) {
    error(at, "invalid character '" + byteForMessage(peek()) + "' in source");
    ++pos_;
    return;
  }
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(cp));
  error(at,
        "invalid character '" + std::string(src_.substr(pos_, len)) + "' (" + buf + ") in source");
  pos_ += len;
}

void Lexer::lexName(Token& tok) {
  size_t start = pos_;
  while (!atEnd()) {
    unsigned char c = peek();
    if (isAsciiIdentCont(c)) {
      ++pos_;
      continue;
    }
    uint32_t cp = 0;
    size_t len = c >= 0x80 ? utf8Length(src_, pos_, cp) : 0;
    if (len == 0 || isNonIdentifierCodePoint(cp)) break;
    pos_ += len;
  }
  std::string_view word = src_.substr(start, pos_ - start);
  if (peek() == '"' || peek() == '\'') {
    std::string lower;
    for (char ch : word) lower += char(ch | 0x20);
    static constexpr std::array<std::string_view, 8> kPrefixes = {"r",  "u", "b",  "br",
                                                                  "rb", "f", "fr", "rf"};
    if (word.size() <= 2 && contains(kPrefixes, lower)) {
      lexString(tok, start, lower);
      return;
    }
  }
  tok.kind = TokenKind::Name;
  tok.text = std::string(word);
}

void Lexer::lexNumber(Token& tok) {
  size_t start = pos_;
  tok.kind = TokenKind::Number;
  int base = 10;
  bool isFloat = false;
  bool bad = false;
  std::string digits;  // the literal without prefix, underscores and 'j'

  // Reads digits of `radix` with single underscores between them; an
  // underscore not followed by a digit ends the literal as invalid.
  auto scanDigits = [&](int radix, bool underscoreFirstOk) {
    bool first = true;
    while (!atEnd()) {
      unsigned char c = peek();
      if (c == '_' && (!first || underscoreFirstOk)) {
        if (digitValue(peek(1)) >= radix) {
          bad = true;
          return;
        }
        ++pos_;
        continue;
      }
      if (digitValue(c) >= radix) return;
      digits += char(c);
      ++pos_;
      first = false;
    }
  };

  unsigned char p1 = peek(1) | 0x20;
  if (peek() == '0' && (p1 == 'x' || p1 == 'o' || p1 == 'b')) {
    base = p1 == 'x' ? 16 : p1 == 'o' ? 8 : 2;
    pos_ += 2;
    scanDigits(base, true);
    if (digits.empty()) bad = true;
  } else {
    scanDigits(10, false);
    if (!bad && peek() == '.') {
      isFloat = true;
      digits += '.';
      ++pos_;
      if (isDigit(peek())) scanDigits(10, false);
    }
    bool exponent = (peek() | 0x20) == 'e' &&
                    (isDigit(peek(1)) || ((peek(1) == '+' || peek(1) == '-') && isDigit(peek(2))));
    if (!bad && exponent) {
      isFloat = true;
      digits += 'e';
      ++pos_;
      if (peek() == '+' || peek() == '-') digits += char(bump());
      scanDigits(10, false);
    }
    if (!bad && (peek() | 0x20) == 'j') {
      tok.numberKind = NumberKind::Imaginary;
      ++pos_;
    }
  }

  const char* kind = base == 16                                ? "hexadecimal"
                     : base == 8                               ? "octal"
                     : base == 2                               ? "binary"
                     : tok.numberKind == NumberKind::Imaginary ? "imaginary"
                                                               : "decimal";
  // A letter or digit glued to the number makes it invalid, except for the
  // keywords CPython tolerates there (`1if x else 2`).
  bool glued = !atEnd() && (isAsciiIdentCont(peek()) || peek() >= 0x80);
  if (glued && !bad) {
    size_t wordEnd = pos_;
    while (wordEnd < src_.size() && isAsciiIdentCont(static_cast<unsigned char>(src_[wordEnd])))
      ++wordEnd;
    glued = !contains(kKeywordsAfterNumber, src_.substr(pos_, wordEnd - pos_));
  }
  if (bad || glued) {
    std::string msg = std::string("invalid ") + kind + " literal";
    if (!bad && base < 10 && isDigit(peek()))
      msg = "invalid digit '" + std::string(1, char(peek())) + "' in " + kind + " literal";
    error(tok.loc, msg);
    bad = true;
    // Swallow the rest so the parser sees one bad literal, not a cascade.
    while (!atEnd() && (isAsciiIdentCont(peek()) || peek() >= 0x80)) ++pos_;
  }
  tok.text = std::string(src_.substr(start, pos_ - start));

  if (isFloat || tok.numberKind == NumberKind::Imaginary) {
    if (tok.numberKind != NumberKind::Imaginary) tok.numberKind = NumberKind::Float;
    double v = 0;
    auto res = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (res.ec == std::errc::result_out_of_range) {
      size_t e = digits.find('e');
      bool tiny = e != std::string::npos && e + 1 < digits.size() && digits[e + 1] == '-';
      v = tiny ? 0.0 : std::numeric_limits<double>::infinity();
    }
    tok.floatValue = v;
    return;
  }
  bool allZeros = digits.find_first_not_of('0') == std::string::npos;
  if (base == 10 && digits.size() > 1 && digits[0] == '0' && !allZeros && !bad) {
    error(tok.loc,
          "leading zeros in decimal integer literals are not permitted; use an 0o prefix for "
          "octal integers");
  }
  uint64_t v = 0;
  constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  for (char d : digits) {
    auto dv = static_cast<uint64_t>(digitValue(static_cast<unsigned char>(d)));
    if (v > (kMax - dv) / static_cast<uint64_t>(base)) {
      tok.overflow = true;
      v = 0;
      break;
    }
    v = v * static_cast<uint64_t>(base) + dv;
  }
  tok.intValue = static_cast<int64_t>(v);
}

void Lexer::lexOp(Token& tok) {
  static constexpr std::array<std::string_view, 5> kOps3 = {"**=", "//=", ">>=", "<<=", "..."};
  static constexpr std::array<std::string_view, 19> kOps2 = {
      "**", "//", ">>", "<<", "<=", ">=", "==", "!=", "->", ":=",
      "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@="};
  std::string_view rest = src_.substr(pos_);
  size_t len = 1;
  if (rest.size() >= 3 && contains(kOps3, rest.substr(0, 3))) {
    len = 3;
  } else if (rest.size() >= 2 && contains(kOps2, rest.substr(0, 2))) {
    len = 2;
  }
  tok.kind = TokenKind::Op;
  tok.text = std::string(rest.substr(0, len));
  pos_ += len;
}

// pos_ is at the opening quote; `start` is where the prefix began.
void Lexer::lexString(Token& tok, size_t start, std::string_view prefix) {
  tok.kind = TokenKind::String;
  tok.isRaw = prefix.find('r') != std::string_view::npos;
  tok.isBytes = prefix.find('b') != std::string_view::npos;
  tok.isFString = prefix.find('f') != std::string_view::npos;
  char quote = static_cast<char>(peek());
  tok.isTriple =
      peek(1) == static_cast<unsigned char>(quote) && peek(2) == static_cast<unsigned char>(quote);
  pos_ += tok.isTriple ? 3 : 1;
  if (tok.isFString && fstringDepth_ >= kMaxFStringDepth) {
    error(tok.loc, "f-string: expressions nested too deeply");
    tok.isFString = false;  // read the innermost one as plain text to stop the recursion
  }
  if (tok.isFString) {
    ++fstringDepth_;
    lexFStringBody(tok, quote, tok.loc);
    --fstringDepth_;
  } else {
    lexPlainBody(tok, quote, tok.loc);
  }
  tok.text = std::string(src_.substr(start, pos_ - start));
}

void Lexer::lexPlainBody(Token& tok, char quote, SourceLoc start) {
  bool reportedNonAscii = false;
  while (true) {
    if (atEnd()) {
      error(start, tok.isTriple ? "unterminated triple-quoted string literal"
                                : "unterminated string literal");
      return;
    }
    if (atClosingQuote(quote, tok.isTriple)) {
      pos_ += tok.isTriple ? 3 : 1;
      return;
    }
    if (atLineBreak()) {
      if (!tok.isTriple) {
        error(start, "unterminated string literal");
        return;  // the line break still ends the logical line
      }
      bumpLineBreak();
      tok.strValue += '\n';
      continue;
    }
    unsigned char c = peek();
    if (c == '\\' && !tok.isRaw) {
      decodeEscape(tok.strValue, tok.isBytes);
      continue;
    }
    if (c == '\\') {
      // Raw: the backslash stays, but still protects the next quote.
      tok.strValue += bump();
      if (!atEnd() && !atLineBreak()) tok.strValue += bump();
      continue;
    }
    if (tok.isBytes && c >= 0x80 && !reportedNonAscii) {
      error(loc(), "bytes can only contain ascii literal characters");
      reportedNonAscii = true;
    }
    tok.strValue += bump();
  }
}

// pos_ is at a backslash inside a non-raw string; appends the decoded value.
void Lexer::decodeEscape(std::string& out, bool bytes) {
  SourceLoc at = loc();
  ++pos_;
  if (atEnd()) {
    out += '\\';
    return;
  }
  if (atLineBreak()) {
    bumpLineBreak();  // backslash-newline joins the lines
    return;
  }
  unsigned char c = peek();
  auto simple = [&](char value) {
    out += value;
    ++pos_;
  };
  auto hexEscape = [&](int ndigits, const char* name) {
    uint32_t v = 0;
    for (int k = 1; k <= ndigits; ++k) {
      int d = digitValue(peek(static_cast<size_t>(k)));
      if (d >= 16) {
        error(at, std::string("truncated ") + name + " escape");
        out += '\\';  // keep the text as written
        return;
      }
      v = v * 16 + static_cast<uint32_t>(d);
    }
    pos_ += static_cast<size_t>(ndigits) + 1;
    if (bytes) {
      out += char(v);
    } else if (v > 0x10FFFF) {
      error(at, "illegal unicode character");
    } else {
      appendUtf8(out, v);
    }
  };
  switch (c) {
    case '\\':
      return simple('\\');
    case '\'':
      return simple('\'');
    case '"':
      return simple('"');
    case 'a':
      return simple('\a');
    case 'b':
      return simple('\b');
    case 'f':
      return simple('\f');
    case 'n':
      return simple('\n');
    case 'r':
      return simple('\r');
    case 't':
      return simple('\t');
    case 'v':
      return simple('\v');
    case 'x':
      return hexEscape(2, "\\xXX");
    default:
      break;
  }
  if (c >= '0' && c <= '7') {
    uint32_t v = 0;
    for (int k = 0; k < 3 && peek() >= '0' && peek() <= '7'; ++k) v = v * 8 + (bump() - '0');
    if (bytes) {
      out += char(v & 0xFF);
    } else {
      appendUtf8(out, v);
    }
    return;
  }
  if (!bytes && c == 'u') return hexEscape(4, "\\uXXXX");
  if (!bytes && c == 'U') return hexEscape(8, "\\UXXXXXXXX");
  if (!bytes && c == 'N') {
    // Named characters need the Unicode database; keep `\N{...}` as written.
    // Names are short; bounding the search keeps a run of `\N{` linear.
    size_t close = src_.substr(0, std::min(src_.size(), pos_ + 128)).find('}', pos_);
    if (close != std::string_view::npos &&
        src_.substr(pos_, close - pos_).find('\n') != std::string_view::npos)
      close = std::string_view::npos;
    if (peek(1) != '{' || close == std::string_view::npos) {
      error(at, "malformed \\N character escape");
      out += '\\';
      return;
    }
    out += '\\';
    out += src_.substr(pos_, close + 1 - pos_);
    pos_ = close + 1;
    return;
  }
  out += '\\';  // unknown escape: Python keeps the backslash (and warns)
}

void Lexer::skipToStringEnd(char quote, bool triple) {
  while (!atEnd()) {
    if (atClosingQuote(quote, triple)) {
      pos_ += triple ? 3 : 1;
      return;
    }
    if (atLineBreak()) {
      if (!triple) return;
      bumpLineBreak();
      continue;
    }
    if (peek() == '\\' && pos_ + 1 < src_.size() && src_[pos_ + 1] != '\n') ++pos_;
    bump();
  }
}

void Lexer::lexFStringBody(Token& tok, char quote, SourceLoc start) {
  FStrTokenPart literal;
  literal.loc = loc();
  auto flush = [&] {
    if (!literal.literal.empty()) tok.fstrParts.push_back(std::move(literal));
    literal = FStrTokenPart{};
    literal.loc = loc();
  };
  while (true) {
    if (atEnd()) {
      error(start, tok.isTriple ? "unterminated triple-quoted string literal"
                                : "unterminated string literal");
      break;
    }
    if (atClosingQuote(quote, tok.isTriple)) {
      pos_ += tok.isTriple ? 3 : 1;
      break;
    }
    if (atLineBreak()) {
      if (!tok.isTriple) {
        error(start, "unterminated string literal");
        break;
      }
      bumpLineBreak();
      literal.literal += '\n';
      continue;
    }
    unsigned char c = peek();
    if (c == '\\') {
      unsigned char next = peek(1);
      if (tok.isRaw || next == '{' || next == '}') {
        // The backslash is literal; in a raw string it still protects a quote.
        literal.literal += bump();
        if (tok.isRaw && (next == static_cast<unsigned char>(quote) || next == '\\'))
          literal.literal += bump();
        continue;
      }
      decodeEscape(literal.literal, tok.isBytes);
      continue;
    }
    if (c == '{' && peek(1) == '{') {
      literal.literal += '{';
      pos_ += 2;
      continue;
    }
    if (c == '}') {
      if (peek(1) != '}') error(loc(), "f-string: single '}' is not allowed");
      literal.literal += '}';
      pos_ += peek(1) == '}' ? 2 : 1;
      continue;
    }
    if (c == '{') {
      flush();
      FStrTokenPart field;
      bool ok = lexField(field, quote, tok.isTriple);
      if (field.tokens.empty() || field.tokens.back().kind != TokenKind::EndOfFile) {
        Token eof;  // the parser relies on every token list ending in EndOfFile
        eof.kind = TokenKind::EndOfFile;
        eof.loc = eof.endLoc = loc();
        field.tokens.push_back(std::move(eof));
      }
      tok.fstrParts.push_back(std::move(field));
      if (!ok) {
        skipToStringEnd(quote, tok.isTriple);
        break;
      }
      literal.loc = loc();
      continue;
    }
    literal.literal += bump();
  }
  flush();
}

// pos_ is at the '{' of a replacement field. Tokenizes the expression and
// reads the conversion and format spec. Returns false after reporting an
// error; the caller then skips to the end of the string.
bool Lexer::lexField(FStrTokenPart& part, char quote, bool triple) {
  part.isField = true;
  part.loc = loc();
  ++pos_;
  size_t exprStart = pos_;
  std::vector<OpenBracket> stack;
  bool afterSelfDoc = false;
  auto fail = [&](SourceLoc at, std::string msg) {
    error(at, std::move(msg));
    return false;
  };
  auto endTokens = [&] {
    Token eof;
    eof.kind = TokenKind::EndOfFile;
    eof.loc = eof.endLoc = loc();
    part.tokens.push_back(std::move(eof));
  };
  auto setExprText = [&] {
    if (part.exprText.empty())
      part.exprText = std::string(src_.substr(exprStart, pos_ - exprStart));
  };
  while (true) {
    skipInlineSpace();
    if (atEnd()) return fail(part.loc, "f-string: expecting '}'");
    unsigned char c = peek();
    if (atLineBreak()) {
      if (!triple) return fail(part.loc, "f-string: expecting '}'");
      bumpLineBreak();
      continue;
    }
    if (c == '\\') {
      if (peek(1) == '\n' || (peek(1) == '\r' && peek(2) == '\n')) {
        ++pos_;
        bumpLineBreak();
        continue;
      }
      return fail(loc(), "unexpected character after line continuation character");
    }
    if (c == '#') {
      if (!triple) return fail(loc(), "f-string expression part cannot include '#'");
      skipComment();
      continue;
    }
    if (stack.empty()) {
      if (c == '}') {
        setExprText();
        endTokens();
        ++pos_;
        return true;
      }
      if (c == ':') {
        setExprText();
        endTokens();
        return lexFormatSpec(part, quote, triple);
      }
      if (c == '!' && peek(1) != '=') {
        setExprText();
        endTokens();
        ++pos_;
        SourceLoc convLoc = loc();
        size_t s = pos_;
        while (!atEnd() && isAsciiIdentCont(peek())) ++pos_;
        std::string_view conv = src_.substr(s, pos_ - s);
        if (conv.empty()) return fail(convLoc, "f-string: missing conversion character");
        if (conv != "r" && conv != "s" && conv != "a")
          return fail(convLoc, "f-string: invalid conversion character '" + std::string(conv) +
                                   "': expected 's', 'r', or 'a'");
        part.conversion = conv[0];
        if (peek() == ':') return lexFormatSpec(part, quote, triple);
        if (peek() != '}') return fail(loc(), "f-string: expecting '}'");
        ++pos_;
        return true;
      }
      if (c == '=' && peek(1) != '=' && !afterSelfDoc) {
        ++pos_;
        skipInlineSpace();
        part.exprText = std::string(src_.substr(exprStart, pos_ - exprStart));
        part.selfDocumenting = true;
        afterSelfDoc = true;
        continue;
      }
      if (afterSelfDoc) return fail(loc(), "f-string: expecting '}'");
    }
    Token tok;
    if (!lexOne(tok)) continue;
    if (trackBracket(tok, stack, true)) part.tokens.push_back(std::move(tok));
  }
}

// pos_ is at the ':' that starts a format spec. Nested fields are tokenized
// (to find where they end) but kept as raw text in the spec.
bool Lexer::lexFormatSpec(FStrTokenPart& part, char quote, bool triple) {
  ++pos_;
  while (true) {
    if (atEnd() || (!triple && atLineBreak()) || atClosingQuote(quote, triple)) {
      error(part.loc, "f-string: expecting '}'");
      return false;
    }
    unsigned char c = peek();
    if (c == '}') {
      ++pos_;
      return true;
    }
    if (c == '{') {
      if (fstringDepth_ >= kMaxFStringDepth) {
        error(loc(), "f-string: expressions nested too deeply");
        return false;
      }
      size_t s = pos_;
      FStrTokenPart nested;
      ++fstringDepth_;
      bool ok = lexField(nested, quote, triple);
      --fstringDepth_;
      if (!ok) return false;
      part.formatSpec += src_.substr(s, pos_ - s);
      continue;
    }
    if (atLineBreak()) {
      bumpLineBreak();
      part.formatSpec += '\n';
      continue;
    }
    part.formatSpec += bump();
  }
}

}  // namespace

bool isKeyword(std::string_view name) {
  // Called for most names the parser sees; a hash set beats 35 compares.
  static const std::unordered_set<std::string_view> kSet(kKeywords.begin(), kKeywords.end());
  return kSet.count(name) != 0;
}

std::vector<Token> tokenize(const SourceFile& file, DiagnosticEngine& diags,
                            const SourceFile* locationFile) {
  return Lexer(file.text(), diags, false, locationFile).run();
}

std::vector<Token> tokenizeExpression(const std::string& text, DiagnosticEngine& diags) {
  return Lexer(text, diags, true).run();
}

}  // namespace tilesched::py
