// `_tilesched`, the native half of the Python package `tilesched`
// (python/tilesched): two entry points, both releasing the GIL while they
// work. The package turns their results into Python values and exceptions;
// nothing here throws.
//
//   solve(problem_json, straight_line, timeout_ms) -> (status, text)
//       status "ok": text is the result JSON (schedule/StandaloneSolve.h);
//       "field": text is "FIELD\nMESSAGE" (schedule/ProblemReader.h);
//       "infeasible": text is the error, then one line per checker message.
//   cli(args) -> (exit_code, stdout, stderr)
//       the `tilesched` command line in-process (driver/Driver.h).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "driver/Driver.h"
#include "schedule/ProblemReader.h"
#include "schedule/StandaloneSolve.h"

namespace py = pybind11;
using namespace tilesched;

namespace {

std::tuple<std::string, std::string> solve(const std::string& problemJson, bool straightLine,
                                           unsigned timeoutMs) {
  py::gil_scoped_release release;
  nlohmann::json input = nlohmann::json::parse(problemJson, nullptr, false);
  if (input.is_discarded()) return {"field", "(input)\nnot a JSON document"};
  auto shape = straightLine ? schedule::ProblemShape::StraightLine : schedule::ProblemShape::Loop;
  schedule::ReadProblem read = schedule::readProblem(input, shape);
  if (!read.problem) return {"field", read.field + "\n" + read.message};
  schedule::StandaloneResult result = schedule::solveStandalone(*read.problem, timeoutMs);
  if (!result.ok) {
    std::string text = result.error;
    for (const auto& e : result.checkerErrors) text += "\n" + e;
    return {"infeasible", text};
  }
  return {"ok", schedule::standaloneResultJson(*read.problem, result).dump()};
}

std::tuple<int, std::string, std::string> cli(const std::vector<std::string>& args) {
  py::gil_scoped_release release;
  std::vector<std::string> all = {"tilesched"};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<const char*> argv;
  for (const auto& a : all) argv.push_back(a.c_str());
  std::ostringstream out, err;
  int code = driver::runCli(static_cast<int>(argv.size()), argv.data(), out, err);
  return {code, out.str(), err.str()};
}

}  // namespace

PYBIND11_MODULE(_tilesched, m) {
  m.doc() = "tilesched's native entry points (use the `tilesched` package)";
  m.def("solve", &solve, py::arg("problem_json"), py::arg("straight_line"), py::arg("timeout_ms"));
  m.def("cli", &cli, py::arg("args"));
}
