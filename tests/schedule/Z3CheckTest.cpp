#include <gtest/gtest.h>

#include "schedule/Z3Check.h"

using tilesched::schedule::smallestCongruent;

TEST(Z3, FindsSmallestCongruentValue) {
  EXPECT_EQ(smallestCongruent(10, 100, 7, 3), 10);  // 10 = 7 + 3
  EXPECT_EQ(smallestCongruent(11, 100, 7, 3), 17);
}

TEST(Z3, ReportsUnsatisfiable) { EXPECT_EQ(smallestCongruent(11, 16, 7, 3), std::nullopt); }
