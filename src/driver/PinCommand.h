// `tilesched pin FILE [-D ...] [--func] [--target] [-o OUT | --in-place]`
// (issue 17 §3): writes the author's own file back with the version map the
// schedule chose, as `T.annotate_buffer_versions({...})`, so that the choice
// is part of the kernel and survives the next change of the scheduler.
//
// Expects: a kernel file that compiles and schedules.
// Guarantees:
//  - a minimal edit: the dict of an existing `T.annotate_buffer_versions`
//    call is replaced; without one, a call is inserted on the line after the
//    last allocation it names, at that statement's indentation; every other
//    byte of the file stays as it was (comments, tests, `__main__` code);
//  - each entry keeps its mode (`(2, "counter")`, `(1, "auto")`, SPEC §2.1
//    write-back), so compiling the pinned file gives the same versions,
//    schedule and cycles;
//  - where `explain` finds that a loop's num_stages caps a buffer's versions
//    and more would lower the II bound, a `# pin:` comment line above the
//    call says so (the num_stages itself is the author's to change);
//  - pinning a pinned file changes nothing.
// The result goes to stdout, to `-o OUT`, or back into FILE (`--in-place`).
//
//   a_ub = T.alloc_ub((1024,), "float32")       a_ub = T.alloc_ub((1024,), "float32")
//   c_ub = T.alloc_ub((1024,), "float32")   ->  c_ub = T.alloc_ub((1024,), "float32")
//   for s in T.Pipelined(4, num_stages=2):      T.annotate_buffer_versions({a_ub: 2, c_ub: 2})
//                                               for s in T.Pipelined(4, num_stages=2):
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "pass/PassManager.h"

namespace CLI {
class App;
}

namespace tilesched::driver {

struct PinOptions {
  std::string file;
  std::vector<std::string> defines;
  std::string func;
  std::string target;
  std::string output;  // -o
  bool inPlace = false;
  unsigned solverTimeoutMs = 2000;
  pass::Instrumentation passes;  // --print-after, --time-passes, --stats, ...
};

CLI::App* addPinCommand(CLI::App& app, PinOptions& options);
int runPinCommand(const PinOptions& options, std::ostream& out, std::ostream& err);

// One replacement of the bytes [begin, end) of a text (an insertion when
// begin == end).
struct SourceEdit {
  size_t begin = 0, end = 0;
  std::string text;
};
// `text` with non-overlapping edits applied (in any order given).
std::string applySourceEdits(const std::string& text, std::vector<SourceEdit> edits);

}  // namespace tilesched::driver
