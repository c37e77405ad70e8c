// Element types of buffers and scalar expressions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tilesched::ir {

enum class DType : uint8_t {
  Bool,
  Int8,
  Int16,
  Int32,
  Int64,
  UInt8,
  UInt16,
  UInt32,
  Float16,
  BFloat16,
  Float32,
  // OCP 8-bit floats (storage, copies and casts only; see docs/simulator.md):
  // E4M3FN has no infinities (max 448), E5M2 is IEEE-like (max 57344).
  Float8E4M3FN,
  Float8E5M2,
};

// "float16", "bfloat16", ... exactly as TileLang spells them.
std::string_view dtypeName(DType t);
// Accepts the TileLang names (also "half", "float", "int", "fp16", "bf16", "fp32").
std::optional<DType> parseDType(std::string_view name);
int dtypeBits(DType t);
inline int dtypeBytes(DType t) { return dtypeBits(t) == 1 ? 1 : dtypeBits(t) / 8; }
bool isFloat(DType t);
bool isFloat8(DType t);
inline bool isInt(DType t) { return !isFloat(t) && t != DType::Bool; }
bool isSigned(DType t);
// The list of valid spellings, for error messages.
std::string dtypeNameList();

}  // namespace tilesched::ir
