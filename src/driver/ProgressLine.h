// `tilesched run`'s progress line: a run that takes longer than two seconds
// says, per launch, how far the reference and the simulation are, on one
// line that it rewrites, so a kernel author waiting on a big kernel sees it
// move:
//
//   rmsnorm: reference 812/4096 blocks, simulated 790/4096, 3.4 s
//
// Expects: the stream the command writes its diagnostics to.
// Guarantees: nothing unless that stream is std::cerr on a terminal, or
// TILESCHED_PROGRESS=1 forces it (TILESCHED_PROGRESS_AFTER_MS replaces the
// two seconds, for tests); the line ends with a newline when the launch
// ends, so what follows starts on its own line. Thread-safe (the reference
// and the simulation report from two threads).
#pragma once

#include <functional>
#include <iosfwd>
#include <string>

namespace tilesched::driver {

using ProgressCallback = std::function<void(const std::string& launch, int64_t referenceDone,
                                            int64_t simulatedDone, int64_t total)>;

// An empty function when no progress line is wanted.
ProgressCallback progressLine(std::ostream& err);

}  // namespace tilesched::driver
