// A kernel whose one pipelined loop has `groups` independent groups of
// copy-in (MTE2) / element-wise add (V) / copy-out (MTE3), each on its own UB
// tile and its own slice of one global tensor: about 3·groups tasks in one
// loop body (issue 11, "thousands of tasks in one loop"). Generated at test
// and bench time instead of committed: 1000 groups is a 4000-line file.
//
//   A[t·16·groups + 16·g : +16] -> a<g> (+1.0 in place) -> A[same slice]
//
// Every element of A is incremented once by the sequential reference, so
// any race or missed flag shows up as a mismatch in `tilesched run`.
#pragma once

#include <string>

namespace tilesched::testing {

inline std::string wideLoopKernel(int groups, int trips = 4) {
  const int tile = 16;
  const int stride = tile * groups;
  std::string s;
  s.reserve(static_cast<size_t>(groups) * 200 + 512);
  s += "import tilelang.language as T\n\n\n";
  s += "def wide_loop():\n";
  s += "    @T.prim_func\n";
  s += "    def main(A: T.Tensor((" + std::to_string(stride * trips) + ",), \"float32\")):\n";
  s += "        with T.Kernel(1, is_npu=True) as bx:\n";
  for (int g = 0; g < groups; ++g)
    s += "            a" + std::to_string(g) + " = T.alloc_ub((" + std::to_string(tile) +
         ",), \"float32\")\n";
  s += "            for t in T.Pipelined(" + std::to_string(trips) + ", num_stages=2):\n";
  for (int g = 0; g < groups; ++g) {
    std::string a = "a" + std::to_string(g);
    std::string lo = "t * " + std::to_string(stride) + " + " + std::to_string(g * tile);
    std::string hi = "t * " + std::to_string(stride) + " + " + std::to_string((g + 1) * tile);
    s += "                T.copy(A[" + lo + " : " + hi + "], " + a + ")\n";
    s += "                for i in T.Parallel(" + std::to_string(tile) + "):\n";
    s += "                    " + a + "[i] = " + a + "[i] + 1.0\n";
    s += "                T.copy(" + a + ", A[" + lo + " : " + hi + "])\n";
  }
  s += "\n    return main\n";
  return s;
}

}  // namespace tilesched::testing
