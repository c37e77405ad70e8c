// Element indices as the simulator's messages print them ("A[3, 17]"): one
// place for the row-major unflattening and the text, shared by the run-time
// errors (Machine.cpp), the races (LaunchResult.cpp) and the output
// comparison (Run.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace tilesched::sim {

// The multi-index of element `flat` of a row-major `shape` (an extent below 1
// counts as 1).
inline std::vector<int64_t> unflatten(int64_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> idx(shape.size(), 0);
  for (size_t d = shape.size(); d-- > 0;) {
    int64_t e = std::max<int64_t>(shape[d], 1);
    idx[d] = flat % e;
    flat /= e;
  }
  return idx;
}

// "3, 17".
inline std::string indexText(const std::vector<int64_t>& idx) {
  std::string s;
  for (size_t d = 0; d < idx.size(); ++d) s += (d ? ", " : "") + std::to_string(idx[d]);
  return s;
}

inline std::string indexText(int64_t flat, const std::vector<int64_t>& shape) {
  return indexText(unflatten(flat, shape));
}

}  // namespace tilesched::sim
