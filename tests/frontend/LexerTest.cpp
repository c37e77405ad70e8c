// Tokenizer tests: layout tokens, literals, f-string pieces and every
// lexical error with its line:col and recovery.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "frontend/Lexer.h"

using namespace tilesched;
using namespace tilesched::py;

namespace {

std::vector<Token> lex(const std::string& src, DiagnosticEngine& diags) {
  SourceFile file("t.py", src);
  return tokenize(file, diags);
}

std::vector<Token> lexClean(const std::string& src) {
  DiagnosticEngine diags;
  auto tokens = lex(src, diags);
  EXPECT_FALSE(diags.hasErrors()) << diags.renderAll();
  return tokens;
}

// Compact spelling of a token stream: names and ops as written, numbers
// prefixed '#', strings as '"', layout as NL/IN/DE/EOF.
std::string shape(const std::vector<Token>& tokens) {
  std::string out;
  for (const Token& t : tokens) {
    if (!out.empty()) out += ' ';
    switch (t.kind) {
      case TokenKind::Name:
      case TokenKind::Op:
        out += t.text;
        break;
      case TokenKind::Number:
        out += "#" + t.text;
        break;
      case TokenKind::String:
        out += "\"" + t.strValue + "\"";
        break;
      case TokenKind::Newline:
        out += "NL";
        break;
      case TokenKind::Indent:
        out += "IN";
        break;
      case TokenKind::Dedent:
        out += "DE";
        break;
      case TokenKind::EndOfFile:
        out += "EOF";
        break;
    }
  }
  return out;
}

// Every error as "line:col message", in order.
std::vector<std::string> errors(const DiagnosticEngine& diags) {
  std::vector<std::string> out;
  for (const Diagnostic& d : diags.all())
    out.push_back(std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + " " + d.message);
  return out;
}

// The stream invariants every caller relies on.
void expectWellFormed(const std::vector<Token>& tokens) {
  ASSERT_FALSE(tokens.empty());
  EXPECT_EQ(tokens.back().kind, TokenKind::EndOfFile);
  int depth = 0;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    if (t.kind == TokenKind::EndOfFile) {
      EXPECT_EQ(i + 1, tokens.size());
    }
    if (t.kind == TokenKind::Indent || t.kind == TokenKind::Dedent) {
      bool afterLayout = i == 0 || tokens[i - 1].kind == TokenKind::Newline ||
                         tokens[i - 1].kind == TokenKind::Indent ||
                         tokens[i - 1].kind == TokenKind::Dedent;
      EXPECT_TRUE(afterLayout) << "layout token at index " << i;
    }
    if (t.kind == TokenKind::Indent) ++depth;
    if (t.kind == TokenKind::Dedent) --depth;
    EXPECT_GE(depth, 0);
  }
  EXPECT_EQ(depth, 0);
}

}  // namespace

TEST(Lexer, IndentDedentAndNewline) {
  auto tokens = lexClean("if x:\n    y = 1\n    if z:\n        w\nv\n");
  EXPECT_EQ(shape(tokens), "if x : NL IN y = #1 NL if z : NL IN w NL DE DE v NL EOF");
  expectWellFormed(tokens);
}

TEST(Lexer, BlankAndCommentOnlyLinesProduceNothing) {
  auto tokens =
      lexClean("a = 1  # trailing\n\n   \n# only comment\n        # indented comment\nb\n");
  EXPECT_EQ(shape(tokens), "a = #1 NL b NL EOF");
}

TEST(Lexer, MissingFinalNewlineStillEndsLineAndClosesBlocks) {
  auto tokens = lexClean("def f():\n  return 1");
  EXPECT_EQ(shape(tokens), "def f ( ) : NL IN return #1 NL DE EOF");
  expectWellFormed(tokens);
}

TEST(Lexer, EmptyInputIsJustEndOfFile) {
  EXPECT_EQ(shape(lexClean("")), "EOF");
  EXPECT_EQ(shape(lexClean("\n\n  \n# c")), "EOF");
}

TEST(Lexer, NoNewlineInsideBrackets) {
  auto tokens = lexClean("f(a,\n      b,\n  [c,\n{d: e}])\nx\n");
  EXPECT_EQ(shape(tokens), "f ( a , b , [ c , { d : e } ] ) NL x NL EOF");
}

TEST(Lexer, BackslashContinuationJoinsLines) {
  auto tokens = lexClean("x = 1 + \\\n    2\ny\n");
  EXPECT_EQ(shape(tokens), "x = #1 + #2 NL y NL EOF");
  EXPECT_EQ(tokens[4].loc.line, 2u);
  EXPECT_EQ(tokens[4].loc.col, 5u);
}

TEST(Lexer, TabsAdvanceToMultipleOfEight) {
  DiagnosticEngine diags;
  auto tokens = lex("if x:\n\ty\n        z\n    \tw\n", diags);
  EXPECT_FALSE(diags.hasErrors()) << diags.renderAll();
  EXPECT_EQ(shape(tokens), "if x : NL IN y NL z NL w NL DE EOF");
}

TEST(Lexer, CrLfLineEndings) {
  auto tokens = lexClean("if a:\r\n  b = 'x'\r\nc\r\n");
  EXPECT_EQ(shape(tokens), "if a : NL IN b = \"x\" NL DE c NL EOF");
  EXPECT_EQ(tokens.back().loc.line, 4u);
}

TEST(Lexer, LocationsAreOneBasedByteColumns) {
  auto tokens = lexClean("ab = \xC3\xA9 + 1\n");
  ASSERT_GE(tokens.size(), 5u);
  EXPECT_EQ(tokens[0].loc.line, 1u);
  EXPECT_EQ(tokens[0].loc.col, 1u);
  EXPECT_EQ(tokens[0].endLoc.col, 3u);
  EXPECT_EQ(tokens[2].kind, TokenKind::Name);  // UTF-8 identifier
  EXPECT_EQ(tokens[2].text, "\xC3\xA9");
  EXPECT_EQ(tokens[3].loc.col, 9u);  // 'é' is two bytes
}

TEST(Lexer, ByteOrderMarkIsSkippedButCountsAsColumns) {
  auto tokens = lexClean("\xEF\xBB\xBFx = 1\n");
  EXPECT_EQ(shape(tokens), "x = #1 NL EOF");
  EXPECT_EQ(tokens[0].loc.col, 4u);
}

TEST(Lexer, NamedUnicodeEscapesAreKeptVerbatim) {
  auto tokens = lexClean("'a\\N{EM DASH}b' b'\\N{X}'\n");
  EXPECT_EQ(tokens[0].strValue, "a\\N{EM DASH}b");
  EXPECT_EQ(tokens[1].strValue, "\\N{X}");  // not an escape in bytes
}

TEST(Lexer, TripleQuotedStringSpansLines) {
  auto tokens = lexClean("s = \"\"\"one\n  two 'q' \"\n\"\"\"\nx = 1\n");
  ASSERT_EQ(tokens[2].kind, TokenKind::String);
  EXPECT_TRUE(tokens[2].isTriple);
  EXPECT_EQ(tokens[2].strValue, "one\n  two 'q' \"\n");
  EXPECT_EQ(tokens[2].loc.line, 1u);
  EXPECT_EQ(tokens[2].endLoc.line, 3u);
  EXPECT_EQ(tokens[2].endLoc.col, 4u);
  EXPECT_EQ(tokens[4].text, "x");
  EXPECT_EQ(tokens[4].loc.line, 4u);
}

TEST(Lexer, StringPrefixesInAnyCase) {
  auto tokens = lexClean("r'\\n' b'a' u'c' Rb'\\d' bR'x' F'y' rf'{z}' fR'' B\"q\"\n");
  ASSERT_GE(tokens.size(), 9u);
  EXPECT_TRUE(tokens[0].isRaw);
  EXPECT_EQ(tokens[0].strValue, "\\n");
  EXPECT_TRUE(tokens[1].isBytes);
  EXPECT_FALSE(tokens[1].isRaw);
  EXPECT_FALSE(tokens[2].isBytes);
  EXPECT_EQ(tokens[2].strValue, "c");
  EXPECT_TRUE(tokens[3].isBytes && tokens[3].isRaw);
  EXPECT_EQ(tokens[3].strValue, "\\d");
  EXPECT_TRUE(tokens[4].isBytes && tokens[4].isRaw);
  EXPECT_TRUE(tokens[5].isFString);
  EXPECT_TRUE(tokens[6].isFString && tokens[6].isRaw);
  EXPECT_TRUE(tokens[7].isFString && tokens[7].isRaw);
  EXPECT_TRUE(tokens[8].isBytes);
  // Not prefixes: a name followed by a string.
  auto other = lexClean("ub'x' rx'y'\n");
  EXPECT_EQ(shape(other), "ub \"x\" rx \"y\" NL EOF");
}

TEST(Lexer, EscapeSequencesAreDecoded) {
  auto tokens = lexClean(
      "'a\\tb\\n\\\\\\'\\\"' '\\x41\\101\\0' '\\u00e9\\U0001F600' '\\q' 'x\\\ny' b'\\xff\\u'\n");
  EXPECT_EQ(tokens[0].strValue, "a\tb\n\\'\"");
  EXPECT_EQ(tokens[1].strValue, std::string("AA\0", 3));
  EXPECT_EQ(tokens[2].strValue, "\xC3\xA9\xF0\x9F\x98\x80");
  EXPECT_EQ(tokens[3].strValue, "\\q");                // unknown escapes keep the backslash
  EXPECT_EQ(tokens[4].strValue, "xy");                 // backslash-newline joins
  EXPECT_EQ(tokens[5].strValue, "\xff\\u");            // bytes: raw byte, no \u escape
  EXPECT_EQ(tokens[0].text, "'a\\tb\\n\\\\\\'\\\"'");  // raw spelling kept
}

TEST(Lexer, RawStringBackslashProtectsQuote) {
  auto tokens = lexClean("r'a\\'b' x\n");
  EXPECT_EQ(tokens[0].strValue, "a\\'b");
  EXPECT_EQ(tokens[1].text, "x");
}

TEST(Lexer, Numbers) {
  auto tokens = lexClean(
      "0 123 1_000 0x_fF 0o17 0B1010 1.5 .5 1. 1e10 1.5E-3 1_0.0_1 3j 1.5J 00 "
      "9223372036854775807\n");
  std::vector<int64_t> ints = {0, 123, 1000, 255, 15, 10};
  for (size_t i = 0; i < ints.size(); ++i) {
    EXPECT_EQ(tokens[i].numberKind, NumberKind::Int) << i;
    EXPECT_EQ(tokens[i].intValue, ints[i]) << i;
  }
  std::vector<double> floats = {1.5, 0.5, 1.0, 1e10, 1.5e-3, 10.01};
  for (size_t i = 0; i < floats.size(); ++i) {
    EXPECT_EQ(tokens[6 + i].numberKind, NumberKind::Float) << i;
    EXPECT_DOUBLE_EQ(tokens[6 + i].floatValue, floats[i]) << i;
  }
  EXPECT_EQ(tokens[12].numberKind, NumberKind::Imaginary);
  EXPECT_DOUBLE_EQ(tokens[12].floatValue, 3.0);
  EXPECT_EQ(tokens[13].numberKind, NumberKind::Imaginary);
  EXPECT_EQ(tokens[14].intValue, 0);
  EXPECT_EQ(tokens[15].intValue, INT64_MAX);
  EXPECT_FALSE(tokens[15].overflow);
}

TEST(Lexer, HugeIntegersFlagOverflowWithoutError) {
  auto tokens =
      lexClean("9223372036854775808 0xFFFFFFFFFFFFFFFF 1" + std::string(400, '0') + " 1e999\n");
  EXPECT_TRUE(tokens[0].overflow);
  EXPECT_TRUE(tokens[1].overflow);
  EXPECT_TRUE(tokens[2].overflow);
  EXPECT_EQ(tokens[3].numberKind, NumberKind::Float);
  EXPECT_TRUE(std::isinf(tokens[3].floatValue));
}

TEST(Lexer, KeywordGluedToNumberIsAccepted) {
  auto tokens = lexClean("x = 1if y else 2\n");
  EXPECT_EQ(shape(tokens), "x = #1 if y else #2 NL EOF");
}

TEST(Lexer, Operators) {
  auto tokens = lexClean("a->b := c **= d //= e @ f ... >>= <<= != == <= >= ** // -= @=\n");
  EXPECT_EQ(shape(tokens),
            "a -> b := c **= d //= e @ f ... >>= <<= != == <= >= ** // -= @= NL EOF");
  auto dots = lexClean("x..y\n");
  EXPECT_EQ(shape(dots), "x . . y NL EOF");
}

TEST(Lexer, FStringPartsAndFields) {
  auto tokens = lexClean("f\"ok {c.shape!r:>10} {{lit}} {x=}{d['k']:{w}.2f}\"\n");
  ASSERT_EQ(tokens[0].kind, TokenKind::String);
  const auto& parts = tokens[0].fstrParts;
  ASSERT_EQ(parts.size(), 5u);
  EXPECT_EQ(parts[0].literal, "ok ");
  ASSERT_TRUE(parts[1].isField);
  EXPECT_EQ(shape(parts[1].tokens), "c . shape EOF");
  EXPECT_EQ(parts[1].conversion, 'r');
  EXPECT_EQ(parts[1].formatSpec, ">10");
  EXPECT_EQ(parts[1].tokens[0].loc.col, 7u);  // real source columns
  EXPECT_EQ(parts[2].literal, " {lit} ");
  EXPECT_TRUE(parts[3].selfDocumenting);
  EXPECT_EQ(parts[3].exprText, "x=");
  EXPECT_EQ(shape(parts[4].tokens), "d [ \"k\" ] EOF");
  EXPECT_EQ(parts[4].formatSpec, "{w}.2f");
}

TEST(Lexer, FStringNestedQuotesAndFStrings) {
  auto tokens = lexClean("f\"{x[\"a\"]} {f'{y}'}\" z\n");
  ASSERT_EQ(tokens[0].fstrParts.size(), 3u);
  EXPECT_EQ(shape(tokens[0].fstrParts[0].tokens), "x [ \"a\" ] EOF");
  const Token& inner = tokens[0].fstrParts[2].tokens[0];
  EXPECT_TRUE(inner.isFString);
  EXPECT_EQ(shape(inner.fstrParts[0].tokens), "y EOF");
  EXPECT_EQ(tokens[1].text, "z");
}

TEST(Lexer, TripleQuotedFStringFieldSpansLines) {
  auto tokens = lexClean("f'''a{\n  b +\n  c}'''\nd\n");
  ASSERT_EQ(tokens[0].fstrParts.size(), 2u);
  EXPECT_EQ(shape(tokens[0].fstrParts[1].tokens), "b + c EOF");
  EXPECT_EQ(tokens[0].fstrParts[1].tokens[2].loc.line, 3u);
  EXPECT_EQ(shape(tokens), "\"\" NL d NL EOF");
}

TEST(Lexer, ExpressionModeHasNoLayoutTokens) {
  DiagnosticEngine diags;
  auto tokens = tokenizeExpression("  (1,\n 2)\n", diags);
  EXPECT_FALSE(diags.hasErrors());
  EXPECT_EQ(shape(tokens), "( #1 , #2 ) EOF");
}

TEST(Lexer, KeywordsAreHardKeywordsOnly) {
  EXPECT_TRUE(isKeyword("def"));
  EXPECT_TRUE(isKeyword("None"));
  EXPECT_FALSE(isKeyword("match"));
  EXPECT_FALSE(isKeyword("print"));
}

// --- errors ----------------------------------------------------------------

TEST(LexerErrors, UnterminatedStringClosesAtEndOfLine) {
  DiagnosticEngine diags;
  auto tokens = lex("x = 1\ny = 'abc\nz = 2\n", diags);
  EXPECT_EQ(errors(diags), std::vector<std::string>{"2:5 unterminated string literal"});
  EXPECT_EQ(shape(tokens), "x = #1 NL y = \"abc\" NL z = #2 NL EOF");
}

TEST(LexerErrors, UnterminatedTripleQuotedStringAtEof) {
  DiagnosticEngine diags;
  auto tokens = lex("if a:\n    s = '''abc\n\nmore", diags);
  EXPECT_EQ(errors(diags),
            std::vector<std::string>{"2:9 unterminated triple-quoted string literal"});
  expectWellFormed(tokens);
}

TEST(LexerErrors, InconsistentDedent) {
  DiagnosticEngine diags;
  auto tokens = lex("if a:\n        b\n    c\n    d\ne\n", diags);
  EXPECT_EQ(errors(diags),
            std::vector<std::string>{"3:5 unindent does not match any outer indentation level"});
  EXPECT_EQ(shape(tokens), "if a : NL IN b NL c NL d NL DE e NL EOF");
}

TEST(LexerErrors, InvalidCharactersAreSkipped) {
  DiagnosticEngine diags;
  auto tokens = lex(std::string("a = \x01 b $ c\n d\0e\n", 17), diags);
  EXPECT_EQ(errors(diags), (std::vector<std::string>{"1:5 invalid character '\\x01' in source",
                                                     "1:9 invalid character '$' in source",
                                                     "2:3 invalid character '\\x00' in source"}));
  expectWellFormed(tokens);
  EXPECT_EQ(shape(tokens), "a = b c NL IN d e NL DE EOF");
}

TEST(LexerErrors, UnicodePunctuationIsNotAnIdentifier) {
  DiagnosticEngine diags;
  lex("x = \xE2\x80\x9Chi\xE2\x80\x9D\n", diags);
  ASSERT_EQ(diags.numErrors(), 2u);
  EXPECT_EQ(errors(diags)[0], "1:5 invalid character '\xE2\x80\x9C' (U+201C) in source");
}

// Python reads source as UTF-8: a file that is not is one error at its first
// bad byte (inside a string or comment too), not one per byte.
TEST(LexerErrors, AFileThatIsNotUtf8IsOneError) {
  DiagnosticEngine diags;
  auto tokens = lex("s = 'ok'  # fine\nt = '\xff\xfe'  # \xc0\xaf\nu = \xff\n", diags);
  EXPECT_EQ(errors(diags),
            (std::vector<std::string>{"2:6 this file is not UTF-8 text: byte 0xff here is not "
                                      "part of a UTF-8 character; a kernel file is Python source, "
                                      "saved as UTF-8"}));
  expectWellFormed(tokens);
  DiagnosticEngine fine;
  lex("s = '\xc3\xa9'  # \xe2\x80\x94\n", fine);
  EXPECT_FALSE(fine.hasErrors()) << fine.renderAll();
}

TEST(LexerErrors, UnmatchedAndMismatchedBrackets) {
  DiagnosticEngine diags;
  auto tokens = lex("a)\nb = (1]\n", diags);
  EXPECT_EQ(errors(diags),
            (std::vector<std::string>{"1:2 unmatched ')'",
                                      "2:7 closing parenthesis ']' does not match opening "
                                      "parenthesis '('"}));
  EXPECT_EQ(shape(tokens), "a NL b = ( #1 ] NL EOF");
}

TEST(LexerErrors, NeverClosedBracketRecoversAtNextStatementKeyword) {
  DiagnosticEngine diags;
  auto tokens = lex("x = f(1,\n\ndef g():\n    return 2\n", diags);
  EXPECT_EQ(errors(diags), std::vector<std::string>{"1:6 '(' was never closed"});
  EXPECT_EQ(shape(tokens), "x = f ( #1 , NL def g ( ) : NL IN return #2 NL DE EOF");
}

TEST(LexerErrors, NeverClosedBracketAtEof) {
  DiagnosticEngine diags;
  auto tokens = lex("x = [1,\n  2", diags);
  EXPECT_EQ(errors(diags), std::vector<std::string>{"1:5 '[' was never closed"});
  expectWellFormed(tokens);
}

TEST(LexerErrors, BadContinuation) {
  DiagnosticEngine diags;
  lex("x = 1 \\ 2\ny = \\", diags);
  EXPECT_EQ(errors(diags), (std::vector<std::string>{
                               "1:7 unexpected character after line continuation character",
                               "2:5 unexpected end of file after line continuation character"}));
}

TEST(LexerErrors, BadNumbers) {
  DiagnosticEngine diags;
  auto tokens = lex("a = 012\nb = 1_\nc = 0b102\nd = 12abc\ne = 0x\nf = 1__0\n", diags);
  EXPECT_EQ(errors(diags),
            (std::vector<std::string>{
                "1:5 leading zeros in decimal integer literals are not permitted; use an 0o "
                "prefix for octal integers",
                "2:5 invalid decimal literal", "3:5 invalid digit '2' in binary literal",
                "4:5 invalid decimal literal", "5:5 invalid hexadecimal literal",
                "6:5 invalid decimal literal"}));
  // Each bad literal stays one token, so the statement shape survives.
  EXPECT_EQ(tokens[2 + 8].text, "0b102");
  EXPECT_EQ(tokens[2 + 12].text, "12abc");
}

TEST(LexerErrors, BadEscapes) {
  DiagnosticEngine diags;
  auto tokens = lex("'\\x4' '\\u12' '\\N{DASH'\n", diags);
  EXPECT_EQ(errors(diags),
            (std::vector<std::string>{"1:2 truncated \\xXX escape", "1:8 truncated \\uXXXX escape",
                                      "1:15 malformed \\N character escape"}));
  EXPECT_EQ(tokens[0].strValue, "\\x4");
}

TEST(LexerErrors, FStringErrors) {
  DiagnosticEngine diags;
  auto tokens = lex("a = f'{x'\nb = f'}'\nc = f'{x!z}'\nd = 1\n", diags);
  EXPECT_EQ(errors(diags), (std::vector<std::string>{
                               // 3.12 rules: the quote opens a nested string
                               "1:9 unterminated string literal", "1:7 f-string: expecting '}'",
                               "2:7 f-string: single '}' is not allowed",
                               "3:10 f-string: invalid conversion character 'z': expected "
                               "'s', 'r', or 'a'"}));
  expectWellFormed(tokens);
  // Recovery keeps the statement structure of the following lines.
  EXPECT_EQ(tokens[tokens.size() - 5].text, "d");
}

TEST(LexerErrors, ErrorCountIsCapped) {
  DiagnosticEngine diags;
  lex(std::string(10000, '$'), diags);
  EXPECT_EQ(diags.numErrors(), DiagnosticEngine::kMaxErrors);
}
