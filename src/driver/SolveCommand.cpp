// `tilesched solve` (see SolveCommand.h).
#include "driver/SolveCommand.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <ostream>

#include "driver/Driver.h"
#include "schedule/ProblemReader.h"
#include "schedule/StandaloneSolve.h"

namespace tilesched::driver {

int runSolveCommand(const SolveOptions& o, std::ostream& out, std::ostream& err) {
  if (o.emit != "json" && o.emit != "text") {
    err << fmt::format("tilesched: error: unknown --emit '{}'; expected json or text\n", o.emit);
    return kExitUsage;
  }
  std::string text, readError;
  if (!readKernelFile(o.file, text, readError)) {
    err << "tilesched: error: " << readError << "\n";
    return kExitUsage;
  }
  nlohmann::json input = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (input.is_discarded()) {
    err << fmt::format("{}: error: not a JSON document\n", o.file);
    return kExitCompileError;
  }
  auto shape =
      o.straightLine ? schedule::ProblemShape::StraightLine : schedule::ProblemShape::FromInput;
  schedule::ReadProblem read = schedule::readProblem(input, shape);
  if (!read.problem) {
    err << fmt::format("{}: error: field '{}': {}\n", o.file, read.field, read.message);
    return kExitCompileError;
  }
  schedule::StandaloneResult result = schedule::solveStandalone(*read.problem, o.timeoutMs);
  if (!result.ok) {
    err << fmt::format("{}: error: {}\n", o.file, result.error);
    for (const auto& e : result.checkerErrors) err << "  note: " << e << "\n";
    return kExitCompileError;
  }
  if (o.emit == "text")
    out << schedule::standaloneResultText(*read.problem, result);
  else
    out << schedule::standaloneResultJson(*read.problem, result).dump(2) << "\n";
  return kExitOk;
}

}  // namespace tilesched::driver
