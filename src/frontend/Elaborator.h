// Front-end entry point: kernel file text → parsed module → evaluated
// factories → elaborated tile IR (SPEC §1, §2.1–2.3).
//
// Assumes: nothing about the input; any bytes are accepted.
// Guarantees: either a Program whose kernels pass ir::verifyKernel, or errors
// in `diags` (several per run where sensible). Never throws on user input.
//
//   def vec_add(N, block=64):             # factory, N from -D N=...
//       @T.prim_func
//       def main(A: T.Tensor((N,), "float32")):
//           with T.Kernel(N // block) as bx:
//               a = T.alloc_shared((block,), "float32")
//               T.copy(A[bx * block], a)
//       return main
//   →
//   with T.Kernel(4) as bx:
//       a = T.alloc_shared((64,), "float32")
//       T.copy(A[bx * 64:bx * 64 + 64], a)  # MTE2
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/IR.h"
#include "support/Diagnostics.h"

namespace tilesched::frontend {

struct FrontendOptions {
  // -D NAME=VALUE, in command-line order (VALUE is a Python literal or a bare word).
  std::vector<std::pair<std::string, std::string>> defines;
  // --func NAME: a prim_func or factory name; empty = every kernel in the file.
  std::string func;
  // Where `import M` / `from M import f` look for M.py; empty = the folder of
  // the compiled file's path (as Python puts the script's folder first on sys.path).
  std::string moduleDir;
};

// Errors, if any, are in `diags`; the result is empty exactly when there are errors.
std::optional<ir::Program> compileSource(std::shared_ptr<const SourceFile> file,
                                         const FrontendOptions& options, DiagnosticEngine& diags);

}  // namespace tilesched::frontend
