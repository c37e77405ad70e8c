// Shared by the tests that drive the CLI in-process (tests/driver, tests/sim):
// run it and name a bundled example.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "Version.h"
#include "driver/Driver.h"

namespace tilesched::testing_cli {

struct CliRun {
  int code;
  std::string out, err;
};

inline CliRun cli(std::vector<std::string> args) {
  args.insert(args.begin(), "tilesched");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  int code = driver::runCli(static_cast<int>(argv.size()), argv.data(), out, err);
  return {code, out.str(), err.str()};
}

inline std::string example(const std::string& name) {
  return std::string(TILESCHED_SOURCE_DIR) + "/examples/" + name + ".py";
}

}  // namespace tilesched::testing_cli
