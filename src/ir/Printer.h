// Prints the IR in the TileLang style a kernel author reads
// (`T.alloc_shared((2, 8192), "float32")`, `T.set_flag("MTE2", "V", 0)`).
//
// Guarantees: deterministic output (vars that share a name get `_1`, `_2`
// suffixes in first-use order), stable enough for golden tests, and text that
// the front end parses back to the same IR for unscheduled kernels.
#pragma once

#include <string>

#include "ir/IR.h"

namespace tilesched::ir {

std::string printKernel(const Kernel& k, const std::string& fileName = "");
// Every kernel after an `import tilelang.language as T` line: a kernel file.
std::string printProgram(const Program& p);
// Stand-alone printing of pieces, for tests and messages.
std::string printExpr(const Expr& e);
std::string printStmt(const Stmt& s);
// The statement's first printed line without its indent and trailing
// `# PIPE` comment, cut to `maxChars` with "..." (explanations, reports).
std::string printStmtFirstLine(const Stmt& s, size_t maxChars = 72);
std::string printRegion(const Region& r);
// `(2, 8192)`
std::string printShape(const std::vector<Expr>& shape);
// The buffer table of `tilesched compile`: one line per buffer.
std::string printBufferTable(const Kernel& k);

}  // namespace tilesched::ir
