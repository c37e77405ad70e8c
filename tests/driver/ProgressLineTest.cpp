// `tilesched run`'s progress line (driver/ProgressLine.h): off when stderr is
// not a terminal (as here), on when TILESCHED_PROGRESS=1 forces it; the last
// line of a launch counts every block of both runs and ends the line.
#include <gtest/gtest.h>

#include <cstdlib>

#include "common/CliTestUtil.h"

namespace tilesched {
namespace {

using testing_cli::cli;
using testing_cli::example;

TEST(ProgressLine, OnlyWhenAskedForAndItCountsEveryBlock) {
  auto quiet = cli({"run", example("vec_add")});
  ASSERT_EQ(quiet.code, 0) << quiet.err;
  EXPECT_EQ(quiet.err.find("blocks"), std::string::npos) << quiet.err;

  setenv("TILESCHED_PROGRESS", "1", 1);
  setenv("TILESCHED_PROGRESS_AFTER_MS", "0", 1);
  auto loud = cli({"run", example("vec_add")});
  unsetenv("TILESCHED_PROGRESS");
  unsetenv("TILESCHED_PROGRESS_AFTER_MS");
  ASSERT_EQ(loud.code, 0) << loud.err;
  size_t last = loud.err.rfind('\r');
  ASSERT_NE(last, std::string::npos) << loud.err;
  std::string line = loud.err.substr(last + 1);
  EXPECT_EQ(line.substr(0, line.find(", ", line.find("simulated"))),
            "vec_add: reference 4/4 blocks, simulated 4/4");
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(std::count(loud.err.begin(), loud.err.end(), '\n'), 1);
}

}  // namespace
}  // namespace tilesched
