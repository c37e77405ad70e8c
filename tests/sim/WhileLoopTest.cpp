// `while` loops (src/frontend/WhileLoops.cpp): the trip count derived from the
// counter, the comparison and the step equals Python's while loop for every
// comparison, start, bound and step size here, including loops that never
// run; the counter's final value is Python's too.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "SimTestUtil.h"

namespace tilesched::sim::test {
namespace {

// Python's own loop: iterations and the counter's final value.
std::pair<int64_t, int64_t> pythonWhile(int64_t start, const std::string& op, int64_t bound,
                                        int64_t step) {
  auto holds = [&](int64_t v) {
    if (op == "<") return v < bound;
    if (op == "<=") return v <= bound;
    if (op == ">") return v > bound;
    return v >= bound;
  };
  int64_t v = start, n = 0;
  while (holds(v)) {
    ++n;
    v += step;
  }
  return {n, v};
}

TEST(WhileLoop, TripCountsMatchPython) {
  int checked = 0, empty = 0;
  for (std::string op : {"<", "<=", ">", ">="})
    for (int64_t start : {-2, 0, 3})
      for (int64_t bound : {-3, 0, 1, 4})
        for (int64_t size : {1, 2, 3}) {
          int64_t step = (op[0] == '<') ? size : -size;
          std::string stepText =
              step > 0 ? fmt::format("v += {}", step) : fmt::format("v = v - {}", -step);
          std::string text =
              kernelText("O: T.Tensor((2,), \"int32\")", fmt::format("n = T.alloc_var(\"int32\")\n"
                                                                     "n = 0\n"
                                                                     "v = T.alloc_var(\"int32\")\n"
                                                                     "v = {}\n"
                                                                     "while v {} {}:\n"
                                                                     "    n = n + 1\n"
                                                                     "    {}\n"
                                                                     "O[0] = n\n"
                                                                     "O[1] = v",
                                                                     start, op, bound, stepText));
          auto run = runSerial(text);
          ASSERT_TRUE(run.ok()) << text;
          auto o = finalValues(run, "O", ir::DType::Int32);
          auto [n, v] = pythonWhile(start, op, bound, step);
          EXPECT_EQ(o[0], static_cast<double>(n)) << text;
          EXPECT_EQ(o[1], static_cast<double>(v)) << text;
          ++checked;
          empty += n == 0;
        }
  EXPECT_EQ(checked, 144);
  EXPECT_GT(empty, 10);  // loops that never run are among them
}

}  // namespace
}  // namespace tilesched::sim::test
