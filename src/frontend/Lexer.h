// Python 3 tokenizer for kernel files.
//
// Turns a source file into the token stream of Python's own tokenizer:
// NEWLINE ends a logical line, INDENT/DEDENT bracket indented blocks, and
// blank or comment-only lines, line continuations and newlines inside
// (), [], {} produce nothing. Strings are decoded here (escapes, prefixes);
// f-strings are split into literal pieces and replacement fields whose
// expressions are tokenized recursively, so the parser never re-scans text.
//
// Assumes: nothing about the input; any bytes are accepted.
// Guarantees: every lexical error is reported once as `diags.error` with a
// lowercase message and the 1-based line and byte column of the problem, then
// the lexer recovers (skips the byte, ends the string at the end of line, ...).
// The returned stream always ends with exactly one EndOfFile token, the
// Indent/Dedent tokens are balanced, and Indent/Dedent only ever follow a
// Newline (or start the stream).
//
// Choices worth knowing:
//   - A tab in indentation advances to the next multiple of 8; a form feed
//     resets the indentation count, as in CPython.
//   - "\r\n" is a line break; a lone '\r' is whitespace (SourceFile splits
//     lines on '\n' only, and line numbers must agree with it). A leading
//     UTF-8 byte order mark is skipped (its bytes still count as columns).
//   - `\N{name}` escapes are kept as written: decoding them needs the
//     Unicode name database.
//   - Any well-formed UTF-8 sequence outside a few punctuation blocks is an
//     identifier character (CPython's XID tables are not reproduced);
//     malformed UTF-8 is accepted inside strings and comments only.
//   - Inside brackets, a line starting with a keyword that can only begin a
//     statement (`def`, `class`, `return`, `import`, ...) means a bracket was
//     left open: it is reported as "'(' was never closed" and the brackets
//     are closed there, so one typo does not swallow the rest of the file.
//   - f-string replacement fields follow Python 3.12 (quotes inside a field
//     start a nested string); nesting deeper than kMaxFStringDepth is an
//     error and the innermost string is then read as a plain string.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "support/Diagnostics.h"

namespace tilesched::py {

enum class TokenKind { Name, Number, String, Op, Newline, Indent, Dedent, EndOfFile };

enum class NumberKind { Int, Float, Imaginary };

struct Token;

// One piece of an f-string token: literal text or a replacement field.
struct FStrTokenPart {
  bool isField = false;
  std::string literal;           // decoded literal text (when !isField)
  SourceLoc loc;                 // start of the literal text or of the field's '{'
  std::vector<Token> tokens;     // field expression, ending with EndOfFile
  std::string exprText;          // raw expression text (used for `{x=}`)
  bool selfDocumenting = false;  // `{expr=}`
  char conversion = 0;           // 'r', 's', 'a' or 0
  std::string formatSpec;        // raw text after ':' (nested fields kept as text)
};

struct Token {
  TokenKind kind = TokenKind::EndOfFile;
  std::string text;  // raw spelling (strings: prefix and quotes included)
  SourceLoc loc;     // first byte of the token
  SourceLoc endLoc;  // just past the last byte (== loc for Newline/Indent/Dedent/EndOfFile)

  // Strings. `strValue` is the decoded value of a non-f-string (bytes are
  // kept byte for byte); an f-string's value is in `fstrParts`.
  std::string strValue;
  bool isBytes = false;
  bool isRaw = false;
  bool isFString = false;
  bool isTriple = false;
  std::vector<FStrTokenPart> fstrParts;

  // Numbers. An integer literal above INT64_MAX sets `overflow` and leaves
  // intValue at 0; floats follow IEEE (1e999 is infinity).
  NumberKind numberKind = NumberKind::Int;
  int64_t intValue = 0;
  double floatValue = 0;
  bool overflow = false;

  bool is(TokenKind k, std::string_view t) const { return kind == k && text == t; }
  bool isOp(std::string_view t) const { return is(TokenKind::Op, t); }
  bool isName(std::string_view t) const { return is(TokenKind::Name, t); }
};

// Maximum nesting of f-strings inside f-string replacement fields.
inline constexpr int kMaxFStringDepth = 32;

// Tokenizes a whole file (module mode: Newline/Indent/Dedent are produced).
// `locationFile` tags every location (SourceLoc::file): an imported module's
// file; null for the compilation's main file.
std::vector<Token> tokenize(const SourceFile& file, DiagnosticEngine& diags,
                            const SourceFile* locationFile = nullptr);

// Tokenizes `text` as if it were enclosed in parentheses: no Newline, Indent
// or Dedent tokens, line breaks are ignored. Used for `-D NAME=VALUE` values.
std::vector<Token> tokenizeExpression(const std::string& text, DiagnosticEngine& diags);

// True for Python's hard keywords (`if`, `def`, `None`, ...); soft keywords
// (`match`, `case`, `type`, `_`) are ordinary names.
bool isKeyword(std::string_view name);

}  // namespace tilesched::py
