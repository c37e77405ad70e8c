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
// Guarantees: no exception escapes and recursion is bounded (see the limits
// below), so any input — binary garbage included — returns a Module, and
// consumers may walk the tree recursively. The parser itself reports
// nothing; lexical errors are reported by the tokenizer into `diags`.
#pragma once

#include <string>

#include "frontend/Ast.h"
#include "support/Diagnostics.h"

namespace tilesched::py {

// Limits that keep every recursive walk of the tree shallow. Beyond them the
// statement becomes Unparsed ("expression nested too deeply", "too many
// levels of indentation", "too many 'elif' clauses").
inline constexpr int kMaxExpressionDepth = 200;    // nested brackets / unary ops
inline constexpr int kMaxExpressionHeight = 1000;  // any expression tree, incl.
                                                   // chains like `a + b + ...`
inline constexpr int kMaxBlockDepth = 100;         // indented blocks, as CPython
inline constexpr int kMaxElifChain = 1000;         // nested If nodes of one chain

// Tokenizes and parses a whole file. `locationFile` tags every location of
// the tree (an imported module's file; null for the main file, see SourceLoc).
Module parseModule(const SourceFile& file, DiagnosticEngine& diags,
                   const SourceFile* locationFile = nullptr);

// Parses the text of one expression, e.g. the VALUE of `-D NAME=VALUE`
// (`1048576`, `float16`, `"float16"`, `(128, 64)`, `1, 2` as a tuple). Line
// breaks are ignored. On any lexical or syntax error, reports one error
// without a source location ("invalid expression 'TEXT': REASON") and
// returns null. Locations in the result are relative to the text (line 1).
ExprPtr parseExpressionText(const std::string& text, DiagnosticEngine& diags);

}  // namespace tilesched::py
