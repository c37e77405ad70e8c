// Cost model of SPEC §3.4: latency and II of every kind of task, as pure
// integer arithmetic over plain parameter structs (no IR).
//
// Assumes: parameters come from a validated target file (loadTarget) or are
// built by hand in tests; inputs are non-negative (violations are internal
// errors, never user errors).
// Guarantees: every division rounds up; rates with up to three decimals
// (58.6 B/cycle) are exact rationals, so results are deterministic and equal on
// every platform; latency >= II >= 1 for every task. The formulas are written
// out in docs/cost-model.md.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "target/Hardware.h"

namespace tilesched {

// A positive rate (bytes, elements or ops per cycle) with up to three decimals,
// stored exactly as thousandths: 58.6 B/cycle is {58600}.
struct Rate {
  int64_t milli = 1000;

  static constexpr Rate perCycle(int64_t whole) { return Rate{whole * 1000}; }
  double value() const { return static_cast<double>(milli) / 1000.0; }
  friend bool operator==(const Rate&, const Rate&) = default;
};

// ceil(amount / rate) for amount >= 0.
int64_t cyclesFor(int64_t amount, Rate rate);

// ceil(a / b) for a >= 0, b > 0; and a rounded up to a multiple of b.
int64_t ceilDiv(int64_t a, int64_t b);
int64_t alignUp(int64_t a, int64_t b);

struct Cost {
  int64_t latency = 0;  // cycles from start to completion
  int64_t ii = 0;       // cycles the pipe is busy before it can start the next instruction
  friend bool operator==(const Cost&, const Cost&) = default;
};

// ---------------------------------------------------------------- copies

// The data paths of `T.copy` (SPEC §1.5). JSON keys in copyPathName().
enum class CopyPath : uint8_t {
  GmToUb,      // MTE2
  UbToGm,      // MTE3
  UbToL1,      // MTE3
  GmToL1,      // MTE2
  L1ToL0A,     // MTE1
  L1ToL0B,     // MTE1
  L0cToUb,     // FIX
  L0cToGm,     // FIX
  VectorMove,  // V: other on-chip pairs (UB->UB, fragment<->UB, ...)
  // FIX: a hardware T.dual_copy, one FixPipe into both AIVs' UBs. Only its
  // figures differ: copyPathFor never returns it, and InstructionCost names
  // the data path (L0cToUb) of such a copy.
  L0cToUbDual
};
inline constexpr size_t kNumCopyPaths = 10;
inline constexpr std::array<CopyPath, kNumCopyPaths> kAllCopyPaths = {
    CopyPath::GmToUb,     CopyPath::UbToGm,     CopyPath::UbToL1,  CopyPath::GmToL1,
    CopyPath::L1ToL0A,    CopyPath::L1ToL0B,    CopyPath::L0cToUb, CopyPath::L0cToGm,
    CopyPath::VectorMove, CopyPath::L0cToUbDual};

constexpr size_t copyPathIndex(CopyPath p) { return static_cast<size_t>(p); }
// "gm_to_ub", "ub_to_gm", "ub_to_l1", "gm_to_l1", "l1_to_l0a", "l1_to_l0b",
// "l0c_to_ub", "l0c_to_gm", "vector_move", "l0c_to_ub_dual".
std::string_view copyPathName(CopyPath p);
std::optional<CopyPath> parseCopyPath(std::string_view name);

// The path of a copy from `src` to `dst` (SPEC §1.5), or nullopt when the pair
// is not a supported copy (GM->GM, anything into L0A/L0B except from L1,
// anything out of L0A/L0B, L1->UB, ...). Fragment/local scopes count as on-chip
// vector storage.
std::optional<CopyPath> copyPathFor(MemScope src, MemScope dst);

// One band of a row-strided rule: applies when the row width in bytes is at
// least `minRowBytes` (and below the next band's).
struct StridedBand {
  int64_t minRowBytes = 0;
  int64_t latencyBase = 0;
  Rate bytesPerCycle;
};

// latency = latencyBase + ceil(B / latencyRate)
// ii      = max(iiMin, iiBase + ceil(B / iiRate))
// with B = bytes * byteScale. Row-strided copies (rows > 1, rows not contiguous
// in memory) use the band of `rowStrided` selected by the row width instead of
// latencyBase and both rates; an empty table means "same as contiguous".
struct CopyPathParams {
  Pipe pipe = Pipe::V;
  int64_t byteScale = 1;
  int64_t latencyBase = 0;
  Rate latencyRate;
  int64_t iiBase = 0;
  Rate iiRate;
  int64_t iiMin = 1;
  std::vector<StridedBand> rowStrided;  // sorted by minRowBytes, first one 0
};

// ---------------------------------------------------------------- gemm

// Operand classes of the Cube (SPEC §3.4). F16 covers float16 and bfloat16;
// HF32 is float32 operands computed in the reduced-precision hf32 mode.
enum class DTypeClass : uint8_t { F16, F32, HF32, Int8 };
inline constexpr size_t kNumDTypeClasses = 4;
inline constexpr std::array<DTypeClass, kNumDTypeClasses> kAllDTypeClasses = {
    DTypeClass::F16, DTypeClass::F32, DTypeClass::HF32, DTypeClass::Int8};

constexpr size_t dtypeClassIndex(DTypeClass c) { return static_cast<size_t>(c); }
// "fp16", "fp32", "hf32", "int8" (the JSON keys).
std::string_view dtypeClassName(DTypeClass c);
std::optional<DTypeClass> parseDTypeClass(std::string_view name);
// Operand dtype ("float16", "bfloat16", "float32", "int8", "uint8") to class;
// float32 maps to HF32 when `hf32` is set. nullopt for other dtypes.
std::optional<DTypeClass> gemmDTypeClass(std::string_view dtype, bool hf32 = false);

// ops     = 2 * align(M, mnAlign) * align(N, mnAlign) * align(K, kAlign)
// latency = latencyBase + ceil(ops / latencyRate)
// ii      = max(iiMin, iiBase + ceil(ops / iiRate))
struct GemmParams {
  int64_t kAlign = 16;  // 256 bits / operand bits
  int64_t latencyBase = 0;
  Rate latencyRate;  // ops per cycle
  int64_t iiBase = 0;
  Rate iiRate;  // ops per cycle
  int64_t iiMin = 1;
};

// ---------------------------------------------------------------- vector

// Element-wise op classes with their own throughput (SPEC §3.4).
enum class VectorOpClass : uint8_t {
  Simple,         // add, sub, mul, min, max, compare (and abs, neg, select, cast, logic, move)
  DivMod,         // div, floordiv, mod, floormod
  Transcendental  // exp, log, sqrt, rsqrt, tanh, sigmoid, pow
};
inline constexpr size_t kNumVectorOpClasses = 3;
inline constexpr std::array<VectorOpClass, kNumVectorOpClasses> kAllVectorOpClasses = {
    VectorOpClass::Simple, VectorOpClass::DivMod, VectorOpClass::Transcendental};

constexpr size_t vectorOpClassIndex(VectorOpClass c) { return static_cast<size_t>(c); }
// "simple", "div_mod", "transcendental" (the JSON keys).
std::string_view vectorOpClassName(VectorOpClass c);
std::optional<VectorOpClass> parseVectorOpClass(std::string_view name);
// Class of an operation by its kernel-language name ("add", "+", "exp",
// "T.exp", "floordiv", "//", ...). Unknown names are Simple.
VectorOpClass classifyVectorOp(std::string_view op);

// latency = ii = max(minCycles, opCycles, ceil(bytesTouched / bytesPerCycle))
struct VectorParams {
  Rate bytesPerCycle;
  int64_t minCycles = 1;
  std::array<Rate, kNumVectorOpClasses> elementsPerCycle{};
};

// ---------------------------------------------------------------- scalar unit

struct ScalarParams {
  int64_t cyclesPerStatement = 1;  // S-pipe cycles of one scalar statement
  int64_t loopOverheadCycles = 2;  // scalar-unit cycles of loop control per iteration
  int64_t issueCycles = 1;         // scalar-unit cycles to issue one instruction to a pipe
};

// ---------------------------------------------------------------- all of it

struct CostModelParams {
  std::array<CopyPathParams, kNumCopyPaths> copy{};
  int64_t gemmMNAlign = 16;
  std::array<GemmParams, kNumDTypeClasses> gemm{};
  VectorParams vector;
  ScalarParams scalar;

  const CopyPathParams& path(CopyPath p) const { return copy[copyPathIndex(p)]; }
  const GemmParams& gemmFor(DTypeClass c) const { return gemm[dtypeClassIndex(c)]; }
};

// Cost of a copy of `bytes` bytes per core laid out as `rows` rows of
// `rowBytes` bytes; `rowStrided` says the rows are not contiguous in memory.
// The strided rule applies only when rowStrided and rows > 1.
Cost copyCost(const CostModelParams& params, CopyPath path, int64_t bytes, int64_t rows,
              int64_t rowBytes, bool rowStrided);
// Contiguous copy (one row).
Cost copyCost(const CostModelParams& params, CopyPath path, int64_t bytes);

// 2 * align(M) * align(N) * align(K) of the formula above.
int64_t gemmOps(const CostModelParams& params, int64_t m, int64_t n, int64_t k, DTypeClass cls);
Cost gemmCost(const CostModelParams& params, int64_t m, int64_t n, int64_t k, DTypeClass cls);

// ceil(elements / elementsPerCycle[cls]): the op cycles of one element-wise op
// over `elements` elements. A task's opCycles is the sum over its ops.
int64_t elementwiseCycles(const CostModelParams& params, VectorOpClass cls, int64_t elements);
// `opCycles` are the task's weighted element-op cycles (sum of
// elementwiseCycles); `bytesTouched` are the bytes it reads plus writes.
Cost vectorCost(const CostModelParams& params, int64_t opCycles, int64_t bytesTouched);
// `with T.SimtVF(latency=L)` / `T.SimdVF(latency=L)`: exactly (L, L), at least 1.
Cost vfRegionCost(int64_t latency);
// `statements` scalar statements on pipe S: latency = ii = statements * cyclesPerStatement
// (at least 1).
Cost scalarCost(const CostModelParams& params, int64_t statements);

}  // namespace tilesched
