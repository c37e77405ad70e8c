// libFuzzer target: file bytes -> parse, elaborate, analyse -> diagnostics.
//
// Any input must end in a program or in diagnostics: an exception, an
// "internal error" diagnostic, a sanitizer report or a crash is a bug. The
// first input byte picks a -D define set so that factories with parameters
// are elaborated with small and with large values too.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "analysis/TaskGraph.h"
#include "frontend/Elaborator.h"
#include "ir/Printer.h"
#include "target/Target.h"

using namespace tilesched;

namespace {

[[noreturn]] void fail(const std::string& why) {
  std::fprintf(stderr, "fuzz_frontend: %s\n", why.c_str());
  std::abort();
}

const Target& target() {
  static Target t = [] {
    std::string error;
    auto loaded = loadTarget(defaultTargetName(), error);
    if (!loaded) fail("cannot load the default target: " + error);
    return *loaded;
  }();
  return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 64 * 1024) return -1;  // kernels are small; keep the corpus fast
  std::string text(reinterpret_cast<const char*>(data), size);
  auto file = std::make_shared<SourceFile>("fuzz.py", text);
  DiagnosticEngine diags(file);
  try {
    auto program = frontend::compileSource(file, {}, diags);
    if (program.has_value() == diags.hasErrors())
      fail("a program must come back exactly when there are no errors");
    if (program) {
      (void)ir::printProgram(*program);
      (void)analysis::analyzeProgram(*program, target(), diags);
    }
    for (const auto& d : diags.all())
      if (d.message.rfind("internal error", 0) == 0) fail(d.message);  // not echoed user text
    (void)diags.renderAll();
  } catch (const std::exception& e) {
    fail(std::string("exception: ") + e.what());
  }
  return 0;
}
