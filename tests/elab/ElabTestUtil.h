// Helpers shared by the elaboration tests: compile a kernel file held in a
// string, in-process, and look at the result.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "frontend/Elaborator.h"
#include "ir/IROperator.h"
#include "ir/Printer.h"

namespace tilesched::testing {

struct Compiled {
  std::optional<ir::Program> program;
  std::shared_ptr<DiagnosticEngine> diags;
  std::string rendered() const { return diags->renderAll(); }
  const ir::Kernel& kernel(size_t i = 0) const { return program->kernels.at(i); }
  std::string ir() const { return program ? ir::printProgram(*program) : "<no program>"; }
};

inline Compiled compile(const std::string& text, frontend::FrontendOptions options = {},
                        const std::string& path = "test.py") {
  Compiled c;
  auto file = std::make_shared<SourceFile>(path, text);
  c.diags = std::make_shared<DiagnosticEngine>(file);
  c.program = frontend::compileSource(file, options, *c.diags);
  return c;
}

inline std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The statements of a kernel body in order, flattening nested sequences.
inline std::vector<ir::Stmt> flatten(const ir::Stmt& s) {
  std::vector<ir::Stmt> out;
  if (const auto* seq = ir::as<ir::SeqStmt>(s)) {
    for (const auto& c : seq->stmts) {
      auto inner = flatten(c);
      out.insert(out.end(), inner.begin(), inner.end());
    }
  } else if (s) {
    out.push_back(s);
  }
  return out;
}

}  // namespace tilesched::testing
