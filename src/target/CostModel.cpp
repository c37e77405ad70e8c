// Cost model arithmetic (see CostModel.h and docs/cost-model.md).
//
// Assumes: validated parameters (positive rates, II minimum >= 1).
// Guarantees: exact integer arithmetic with round-up divisions; overflow and
// negative inputs are internal errors, never silent wrap-around.
#include "target/CostModel.h"

#include <algorithm>
#include <limits>
#include <string>

#include "support/Diagnostics.h"

namespace tilesched {

namespace {

int64_t checkedMul(int64_t a, int64_t b) {
  int64_t out = 0;
  TS_INTERNAL(!__builtin_mul_overflow(a, b, &out), "cost model: integer overflow");
  return out;
}

int64_t checkedAdd(int64_t a, int64_t b) {
  int64_t out = 0;
  TS_INTERNAL(!__builtin_add_overflow(a, b, &out), "cost model: integer overflow");
  return out;
}

// Latency never below II: a task cannot complete before its pipe is free again.
Cost normalized(int64_t latency, int64_t ii) {
  ii = std::max<int64_t>(ii, 1);
  return Cost{std::max(latency, ii), ii};
}

const StridedBand* stridedBand(const CopyPathParams& p, int64_t rowBytes) {
  const StridedBand* band = nullptr;
  for (const StridedBand& b : p.rowStrided)
    if (rowBytes >= b.minRowBytes) band = &b;
  return band;
}

}  // namespace

int64_t ceilDiv(int64_t a, int64_t b) {
  TS_INTERNAL(a >= 0 && b > 0, "ceilDiv expects a >= 0 and b > 0");
  return a / b + (a % b != 0 ? 1 : 0);
}

int64_t alignUp(int64_t a, int64_t b) { return checkedMul(ceilDiv(a, b), b); }

int64_t cyclesFor(int64_t amount, Rate rate) {
  TS_INTERNAL(amount >= 0, "cost model: negative amount");
  TS_INTERNAL(rate.milli > 0, "cost model: rate must be positive");
  // amount / (milli / 1000) = amount * 1000 / milli, rounded up, in 128 bits.
  __int128 num = static_cast<__int128>(amount) * 1000;
  __int128 q = num / rate.milli + (num % rate.milli != 0 ? 1 : 0);
  TS_INTERNAL(q <= std::numeric_limits<int64_t>::max(), "cost model: integer overflow");
  return static_cast<int64_t>(q);
}

// ---------------------------------------------------------------- names

std::string_view copyPathName(CopyPath p) {
  constexpr std::array<std::string_view, kNumCopyPaths> kNames = {
      "gm_to_ub",  "ub_to_gm",  "ub_to_l1",  "gm_to_l1",    "l1_to_l0a",
      "l1_to_l0b", "l0c_to_ub", "l0c_to_gm", "vector_move", "l0c_to_ub_dual"};
  return kNames[copyPathIndex(p)];
}

std::optional<CopyPath> parseCopyPath(std::string_view name) {
  for (CopyPath p : kAllCopyPaths)
    if (copyPathName(p) == name) return p;
  return std::nullopt;
}

std::optional<CopyPath> copyPathFor(MemScope src, MemScope dst) {
  auto isVectorStorage = [](MemScope s) { return s == MemScope::UB || isLocalScope(s); };
  using S = MemScope;
  if (src == S::Global && dst == S::UB) return CopyPath::GmToUb;
  if (src == S::Global && dst == S::L1) return CopyPath::GmToL1;
  if (src == S::UB && dst == S::Global) return CopyPath::UbToGm;
  if (src == S::UB && dst == S::L1) return CopyPath::UbToL1;
  if (src == S::L1 && dst == S::L0A) return CopyPath::L1ToL0A;
  if (src == S::L1 && dst == S::L0B) return CopyPath::L1ToL0B;
  if (src == S::L0C && dst == S::UB) return CopyPath::L0cToUb;
  if (src == S::L0C && dst == S::Global) return CopyPath::L0cToGm;
  if (isVectorStorage(src) && isVectorStorage(dst)) return CopyPath::VectorMove;
  return std::nullopt;
}

std::string_view dtypeClassName(DTypeClass c) {
  constexpr std::array<std::string_view, kNumDTypeClasses> kNames = {"fp16", "fp32", "hf32",
                                                                     "int8"};
  return kNames[dtypeClassIndex(c)];
}

std::optional<DTypeClass> parseDTypeClass(std::string_view name) {
  for (DTypeClass c : kAllDTypeClasses)
    if (dtypeClassName(c) == name) return c;
  return std::nullopt;
}

std::optional<DTypeClass> gemmDTypeClass(std::string_view dtype, bool hf32) {
  if (dtype == "float16" || dtype == "bfloat16") return DTypeClass::F16;
  if (dtype == "float32") return hf32 ? DTypeClass::HF32 : DTypeClass::F32;
  if (dtype == "int8" || dtype == "uint8") return DTypeClass::Int8;
  return std::nullopt;
}

std::string_view vectorOpClassName(VectorOpClass c) {
  constexpr std::array<std::string_view, kNumVectorOpClasses> kNames = {"simple", "div_mod",
                                                                        "transcendental"};
  return kNames[vectorOpClassIndex(c)];
}

std::optional<VectorOpClass> parseVectorOpClass(std::string_view name) {
  for (VectorOpClass c : kAllVectorOpClasses)
    if (vectorOpClassName(c) == name) return c;
  return std::nullopt;
}

VectorOpClass classifyVectorOp(std::string_view op) {
  if (op.starts_with("T.")) op.remove_prefix(2);
  constexpr std::array<std::string_view, 9> kDivMod = {"div", "/", "truediv",  "floordiv", "//",
                                                       "mod", "%", "floormod", "truncdiv"};
  constexpr std::array<std::string_view, 9> kTranscendental = {
      "exp", "exp2", "log", "log2", "sqrt", "rsqrt", "tanh", "sigmoid", "pow"};
  if (std::find(kDivMod.begin(), kDivMod.end(), op) != kDivMod.end()) return VectorOpClass::DivMod;
  if (std::find(kTranscendental.begin(), kTranscendental.end(), op) != kTranscendental.end())
    return VectorOpClass::Transcendental;
  return VectorOpClass::Simple;
}

// ---------------------------------------------------------------- costs

Cost copyCost(const CostModelParams& params, CopyPath path, int64_t bytes, int64_t rows,
              int64_t rowBytes, bool rowStrided) {
  TS_INTERNAL(bytes >= 0, "copyCost: negative byte count");
  TS_INTERNAL(rows >= 1, "copyCost: a copy has at least one row");
  const CopyPathParams& p = params.path(path);
  int64_t scaled = checkedMul(bytes, p.byteScale);

  const StridedBand* band = nullptr;
  if (rowStrided && rows > 1) {
    TS_INTERNAL(rowBytes >= 0, "copyCost: negative row width");
    band = stridedBand(p, rowBytes);
  }
  if (band) {
    int64_t transfer = cyclesFor(scaled, band->bytesPerCycle);
    int64_t latency = checkedAdd(band->latencyBase, transfer);
    int64_t ii = std::max(p.iiMin, checkedAdd(p.iiBase, transfer));
    return normalized(latency, ii);
  }
  int64_t latency = checkedAdd(p.latencyBase, cyclesFor(scaled, p.latencyRate));
  int64_t ii = std::max(p.iiMin, checkedAdd(p.iiBase, cyclesFor(scaled, p.iiRate)));
  return normalized(latency, ii);
}

Cost copyCost(const CostModelParams& params, CopyPath path, int64_t bytes) {
  return copyCost(params, path, bytes, 1, bytes, false);
}

int64_t gemmOps(const CostModelParams& params, int64_t m, int64_t n, int64_t k, DTypeClass cls) {
  TS_INTERNAL(m >= 0 && n >= 0 && k >= 0, "gemm: negative extent");
  const GemmParams& g = params.gemmFor(cls);
  int64_t mn = checkedMul(alignUp(m, params.gemmMNAlign), alignUp(n, params.gemmMNAlign));
  return checkedMul(checkedMul(2, mn), alignUp(k, g.kAlign));
}

Cost gemmCost(const CostModelParams& params, int64_t m, int64_t n, int64_t k, DTypeClass cls) {
  const GemmParams& g = params.gemmFor(cls);
  int64_t ops = gemmOps(params, m, n, k, cls);
  int64_t latency = checkedAdd(g.latencyBase, cyclesFor(ops, g.latencyRate));
  int64_t ii = std::max(g.iiMin, checkedAdd(g.iiBase, cyclesFor(ops, g.iiRate)));
  return normalized(latency, ii);
}

int64_t elementwiseCycles(const CostModelParams& params, VectorOpClass cls, int64_t elements) {
  return cyclesFor(elements, params.vector.elementsPerCycle[vectorOpClassIndex(cls)]);
}

Cost vectorCost(const CostModelParams& params, int64_t opCycles, int64_t bytesTouched) {
  TS_INTERNAL(opCycles >= 0, "vectorCost: negative op cycles");
  int64_t cycles = std::max(
      {params.vector.minCycles, opCycles, cyclesFor(bytesTouched, params.vector.bytesPerCycle)});
  return normalized(cycles, cycles);
}

Cost vfRegionCost(int64_t latency) {
  TS_INTERNAL(latency >= 0, "VF region: negative latency");
  return normalized(latency, latency);
}

Cost scalarCost(const CostModelParams& params, int64_t statements) {
  TS_INTERNAL(statements >= 0, "scalarCost: negative statement count");
  int64_t cycles = checkedMul(statements, params.scalar.cyclesPerStatement);
  return normalized(cycles, cycles);
}

}  // namespace tilesched
