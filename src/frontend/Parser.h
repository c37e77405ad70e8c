// Python 3 parser producing the syntax tree of Ast.h.
//
// parseModule never fails the whole file. Statements in the supported
// grammar become real nodes; anything else (try/except, match, async,
// yield, walrus, type aliases, and any syntax error) becomes ONE
// StmtKind::Unparsed statement with a lowercase `reason` and the `reasonLoc`
// of the problem. An Unparsed statement covers the statement's logical
// line(s) up to the problem, the indented block that follows, and the
// clauses that belong to it (`elif`/`else`/`except`/`finally`), so the next
// statement parses normally. A failing statement inside a block becomes an
// Unparsed statement in that block; the enclosing statement still parses.
//
// Guarantees: no exception escapes and recursion is bounded (expressions
// nested deeper than kMaxExpressionDepth, blocks deeper than
// kMaxBlockDepth become Unparsed), so any input — binary garbage included —
// returns a Module. The parser itself reports nothing; lexical errors are
// reported by the tokenizer into `diags`.
#pragma once

#include <string>

#include "frontend/Ast.h"
#include "support/Diagnostics.h"

namespace tilesched::py {

inline constexpr int kMaxExpressionDepth = 200;
inline constexpr int kMaxBlockDepth = 100;

// Tokenizes and parses a whole file.
Module parseModule(const SourceFile& file, DiagnosticEngine& diags);

// Parses the text of one expression, e.g. the VALUE of `-D NAME=VALUE`
// (`1048576`, `float16`, `"float16"`, `(128, 64)`, `1, 2` as a tuple). Line
// breaks are ignored. On any lexical or syntax error, reports one error
// without a source location ("invalid expression 'TEXT': REASON") and
// returns null. Locations in the result are relative to the text (line 1).
ExprPtr parseExpressionText(const std::string& text, DiagnosticEngine& diags);

}  // namespace tilesched::py
