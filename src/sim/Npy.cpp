// .npy reading and writing (see Npy.h). The header is a Python dict literal;
// we only need three keys and parse them with string searches.
#include "sim/Npy.h"

#include <cctype>
#include <cstring>
#include <fstream>
#include <sstream>

namespace tilesched::sim {

using ir::DType;

std::string npyDescr(DType t) {
  switch (t) {
    case DType::Bool:
      return "|b1";
    case DType::Int8:
      return "|i1";
    case DType::UInt8:
      return "|u1";
    case DType::Int16:
      return "<i2";
    case DType::UInt16:
      return "<u2";
    case DType::Int32:
      return "<i4";
    case DType::UInt32:
      return "<u4";
    case DType::Int64:
      return "<i8";
    case DType::Float16:
      return "<f2";
    case DType::BFloat16:
      return "<u2";
    case DType::Float32:
      return "<f4";
    case DType::Float8E4M3FN:  // raw OCP bits, as bfloat16 is raw <u2
    case DType::Float8E5M2:
      return "|u1";
  }
  return "|u1";
}

namespace {

std::string valueOf(const std::string& header, const std::string& key) {
  auto k = header.find("'" + key + "'");
  if (k == std::string::npos) return "";
  auto colon = header.find(':', k);
  if (colon == std::string::npos) return "";
  size_t i = colon + 1;
  while (i < header.size() && header[i] == ' ') ++i;
  if (i >= header.size()) return "";
  if (header[i] == '\'') {
    auto end = header.find('\'', i + 1);
    return end == std::string::npos ? "" : header.substr(i + 1, end - i - 1);
  }
  if (header[i] == '(') {
    auto end = header.find(')', i);
    return end == std::string::npos ? "" : header.substr(i, end - i + 1);
  }
  auto end = header.find_first_of(",}", i);
  return header.substr(i, end - i);
}

}  // namespace

std::optional<NpyArray> readNpy(const std::string& path, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot read '" + path + "'";
    return std::nullopt;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string bytes = ss.str();
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) {
    error = "'" + path + "' is not a .npy file";
    return std::nullopt;
  }
  int major = static_cast<uint8_t>(bytes[6]);
  size_t headerLen = 0, offset = 0;
  if (major == 1) {
    headerLen =
        static_cast<uint8_t>(bytes[8]) | (static_cast<size_t>(static_cast<uint8_t>(bytes[9])) << 8);
    offset = 10;
  } else {
    if (bytes.size() < 12) {
      error = "'" + path + "': truncated header";
      return std::nullopt;
    }
    for (int i = 3; i >= 0; --i)
      headerLen = (headerLen << 8) | static_cast<uint8_t>(bytes[8 + static_cast<size_t>(i)]);
    offset = 12;
  }
  if (offset + headerLen > bytes.size()) {
    error = "'" + path + "': truncated header";
    return std::nullopt;
  }
  std::string header = bytes.substr(offset, headerLen);
  NpyArray a;
  a.descr = valueOf(header, "descr");
  if (valueOf(header, "fortran_order").find("True") != std::string::npos) {
    error = "'" + path + "' is in Fortran order; save it with C order";
    return std::nullopt;
  }
  std::string shape = valueOf(header, "shape");
  if (a.descr.empty() || shape.empty()) {
    error = "'" + path + "': cannot parse the .npy header";
    return std::nullopt;
  }
  for (size_t i = 0; i < shape.size();) {
    if (std::isdigit(static_cast<unsigned char>(shape[i]))) {
      size_t j = i;
      while (j < shape.size() && std::isdigit(static_cast<unsigned char>(shape[j]))) ++j;
      a.shape.push_back(std::stoll(shape.substr(i, j - i)));
      i = j;
    } else {
      ++i;
    }
  }
  a.data.assign(bytes.begin() + static_cast<long>(offset + headerLen), bytes.end());
  return a;
}

bool writeNpy(const std::string& path, const NpyArray& a, std::string& error) {
  std::string shape = "(";
  for (size_t i = 0; i < a.shape.size(); ++i)
    shape +=
        std::to_string(a.shape[i]) + (a.shape.size() == 1 || i + 1 < a.shape.size() ? "," : "");
  shape += ")";
  // The header is padded with spaces so that the data starts 64-byte aligned.
  std::string header =
      "{'descr': '" + a.descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  if (!out) {
    error = "cannot write '" + path + "'";
    return false;
  }
  out.write("\x93NUMPY\x01\x00", 8);
  uint16_t len = static_cast<uint16_t>(header.size());
  char lenBytes[2] = {static_cast<char>(len & 0xff), static_cast<char>(len >> 8)};
  out.write(lenBytes, 2);
  out << header;
  out.write(reinterpret_cast<const char*>(a.data.data()),
            static_cast<std::streamsize>(a.data.size()));
  if (!out) {
    error = "cannot write '" + path + "'";
    return false;
  }
  return true;
}

}  // namespace tilesched::sim
