// Minimal NumPy .npy reading and writing (format versions 1.0-3.0, C order,
// little-endian), for `tilesched run --input NAME=file.npy` and
// `--output-dir`.
//
// bfloat16 has no NumPy dtype: it is read and written as raw '<u2' bits
// (ml_dtypes' bfloat16 arrays can be viewed as uint16 before saving).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/DType.h"

namespace tilesched::sim {

struct NpyArray {
  std::string descr;  // "<f4", "<f2", "|i1", ...
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
};

// The descr a tensor of dtype `t` is written with.
std::string npyDescr(ir::DType t);
// Reads a .npy file; on failure returns nullopt and sets `error`.
std::optional<NpyArray> readNpy(const std::string& path, std::string& error);
bool writeNpy(const std::string& path, const NpyArray& array, std::string& error);

}  // namespace tilesched::sim
