#include "ir/DType.h"

namespace tilesched::ir {

namespace {
struct DTypeInfo {
  DType type;
  std::string_view name;
  int bits;
};
constexpr DTypeInfo kInfo[] = {
    {DType::Bool, "bool", 8},
    {DType::Int8, "int8", 8},
    {DType::Int16, "int16", 16},
    {DType::Int32, "int32", 32},
    {DType::Int64, "int64", 64},
    {DType::UInt8, "uint8", 8},
    {DType::UInt16, "uint16", 16},
    {DType::UInt32, "uint32", 32},
    {DType::Float16, "float16", 16},
    {DType::BFloat16, "bfloat16", 16},
    {DType::Float32, "float32", 32},
    {DType::Float8E4M3FN, "float8_e4m3fn", 8},
    {DType::Float8E5M2, "float8_e5m2", 8},
};
}  // namespace

std::string_view dtypeName(DType t) { return kInfo[static_cast<int>(t)].name; }
int dtypeBits(DType t) { return kInfo[static_cast<int>(t)].bits; }

std::optional<DType> parseDType(std::string_view name) {
  for (const auto& info : kInfo)
    if (info.name == name) return info.type;
  if (name == "half" || name == "fp16") return DType::Float16;
  if (name == "bf16") return DType::BFloat16;
  if (name == "float" || name == "fp32") return DType::Float32;
  if (name == "int") return DType::Int32;
  return std::nullopt;
}

bool isFloat(DType t) {
  return t == DType::Float16 || t == DType::BFloat16 || t == DType::Float32 || isFloat8(t);
}

bool isFloat8(DType t) { return t == DType::Float8E4M3FN || t == DType::Float8E5M2; }

bool isSigned(DType t) {
  return t == DType::Int8 || t == DType::Int16 || t == DType::Int32 || t == DType::Int64 ||
         isFloat(t);
}

std::string dtypeNameList() {
  std::string out;
  for (const auto& info : kInfo) {
    if (!out.empty()) out += ", ";
    out += info.name;
  }
  return out;
}

}  // namespace tilesched::ir
