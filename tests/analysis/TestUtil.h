// Helpers of the analysis tests: compile kernel text or an example file and
// run the analyses on its first kernel.
#pragma once

#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

#include "Version.h"
#include "analysis/TaskGraph.h"
#include "frontend/Elaborator.h"
#include "ir/Functor.h"

namespace tilesched::testing {

inline const Target& ascend950() {
  static const Target t = [] {
    std::string error;
    auto t = loadTarget("ascend950", error);
    if (!t) throw std::runtime_error(error);
    return *t;
  }();
  return t;
}

// A compiled program with its diagnostics and the analysis of kernel 0.
struct Analyzed {
  std::shared_ptr<const SourceFile> file;
  std::unique_ptr<ir::Program> program;
  std::unique_ptr<DiagnosticEngine> diags;
  analysis::KernelAnalysis ka;

  const analysis::StorageOwnership& storage(const std::string& name) const {
    for (const auto& s : ka.ownership.storages)
      if (s.storage->name == name) return s;
    throw std::runtime_error("no storage " + name);
  }
  std::vector<std::string> warnings() const {
    std::vector<std::string> out;
    for (const auto& d : diags->all())
      if (d.severity == Severity::Warning) out.push_back(d.message);
    return out;
  }
  // The body of the `index`-th loop (pre-order) of the kernel.
  const analysis::UnitList& loop(int index = 0) const {
    const ir::ForStmt* found = nullptr;
    int seen = 0;
    ir::forEachStmt(program->kernels.at(0).body, [&](const ir::Stmt& s) {
      if (const auto* f = ir::as<ir::ForStmt>(s))
        if (!found && seen++ == index) found = f;
    });
    if (!found) throw std::runtime_error("no such loop");
    const analysis::UnitList* l = ka.findLoop(found);
    if (!l) throw std::runtime_error("loop not analysed");
    return *l;
  }
};

inline Analyzed analyzeText(const std::string& name, const std::string& text,
                            const frontend::FrontendOptions& options = {}) {
  Analyzed out;
  out.file = std::make_shared<SourceFile>(name, text);
  out.diags = std::make_unique<DiagnosticEngine>(out.file);
  auto program = frontend::compileSource(out.file, options, *out.diags);
  if (!program) throw std::runtime_error("kernel does not compile:\n" + out.diags->renderAll());
  out.program = std::make_unique<ir::Program>(std::move(*program));
  out.ka = analysis::analyzeKernel(out.program->kernels.at(0), ascend950(), *out.diags);
  return out;
}

// `body` indented under `with T.Kernel(1) as bx:` of a prim_func with `params`.
inline Analyzed analyzeKernelBody(const std::string& params, const std::string& body) {
  std::string text = "import tilelang.language as T\n\n@T.prim_func\ndef main(" + params +
                     "):\n    with T.Kernel(1) as bx:\n";
  std::istringstream in(body);
  std::string line;
  while (std::getline(in, line)) text += "        " + line + "\n";
  return analyzeText("test.py", text);
}

inline Analyzed analyzeExample(const std::string& file) {
  std::string path = std::string(TILESCHED_SOURCE_DIR) + "/examples/" + file;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return analyzeText(path, ss.str());
}

}  // namespace tilesched::testing
