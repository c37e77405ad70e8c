// Cost model tests: the ascend950 calibration points as goldens, the
// row-strided rules, ascend910b figures and exact round-up arithmetic.
#include <gtest/gtest.h>

#include <limits>

#include "support/Diagnostics.h"
#include "target/Target.h"

using namespace tilesched;

namespace {

const Target& target(const std::string& name) {
  static const Target t950 = [] {
    std::string error;
    auto t = loadTarget("ascend950", error);
    if (!t) throw std::runtime_error(error);
    return *t;
  }();
  static const Target t910b = [] {
    std::string error;
    auto t = loadTarget("ascend910b", error);
    if (!t) throw std::runtime_error(error);
    return *t;
  }();
  return name == "ascend910b" ? t910b : t950;
}

const CostModelParams& p950() { return target("ascend950").cost; }
const CostModelParams& p910b() { return target("ascend910b").cost; }

constexpr int64_t kBf16 = 2;
constexpr int64_t kFp32 = 4;

}  // namespace

// ---------------------------------------------------------------- arithmetic

TEST(CostArithmetic, DivisionsRoundUp) {
  EXPECT_EQ(ceilDiv(0, 7), 0);
  EXPECT_EQ(ceilDiv(7, 7), 1);
  EXPECT_EQ(ceilDiv(8, 7), 2);
  EXPECT_EQ(alignUp(17, 16), 32);
  EXPECT_EQ(alignUp(16, 16), 16);
  EXPECT_EQ(alignUp(0, 16), 0);
  EXPECT_EQ(cyclesFor(0, Rate::perCycle(100)), 0);
  EXPECT_EQ(cyclesFor(100, Rate::perCycle(100)), 1);
  EXPECT_EQ(cyclesFor(101, Rate::perCycle(100)), 2);
  EXPECT_EQ(cyclesFor(1, Rate::perCycle(100)), 1);
}

TEST(CostArithmetic, FractionalRatesAreExact) {
  // 586 / 58.6 is exactly 10; a floating-point division could give 10.000000000000002.
  EXPECT_EQ(cyclesFor(586, Rate{58600}), 10);
  EXPECT_EQ(cyclesFor(587, Rate{58600}), 11);
  EXPECT_EQ(cyclesFor(406, Rate{40600}), 10);
  EXPECT_EQ(cyclesFor(1094, Rate{109400}), 10);
  EXPECT_EQ(cyclesFor(1095, Rate{109400}), 11);
}

TEST(CostArithmetic, BadInputsAreInternalErrors) {
  EXPECT_THROW(ceilDiv(-1, 2), InternalError);
  EXPECT_THROW(cyclesFor(-1, Rate::perCycle(1)), InternalError);
  EXPECT_THROW(cyclesFor(std::numeric_limits<int64_t>::max(), Rate{1}), InternalError);
  EXPECT_THROW(copyCost(p950(), CopyPath::GmToUb, -4), InternalError);
  EXPECT_THROW(copyCost(p950(), CopyPath::GmToUb, 64, 0, 64, false), InternalError);
  EXPECT_THROW(gemmCost(p950(), -1, 16, 16, DTypeClass::F16), InternalError);
}

// ---------------------------------------------------------------- calibration goldens

TEST(CostCalibration950, GmToL1) {
  EXPECT_EQ(copyCost(p950(), CopyPath::GmToL1, 16 * 16 * kBf16), (Cost{196, 64}));
  EXPECT_EQ(copyCost(p950(), CopyPath::GmToL1, 128 * 128 * kBf16), (Cost{518, 328}));
}

TEST(CostCalibration950, L0cToUbAndGm) {
  EXPECT_EQ(copyCost(p950(), CopyPath::L0cToUb, 128 * 128 * kFp32), (Cost{570, 514}));
  EXPECT_EQ(copyCost(p950(), CopyPath::L0cToGm, 128 * 128 * kFp32), (Cost{712, 514}));
}

TEST(CostCalibration950, GmToUbAndBackPerCore) {
  // 1x64 bf16 per core = 128 bytes, doubled to 256 (two vector cores measured together).
  EXPECT_EQ(copyCost(p950(), CopyPath::GmToUb, 64 * kBf16, 1, 64 * kBf16, false), (Cost{93, 13}));
  EXPECT_EQ(copyCost(p950(), CopyPath::UbToGm, 64 * kBf16, 1, 64 * kBf16, false), (Cost{183, 10}));
}

TEST(CostCalibration950, GemmHf32) {
  EXPECT_EQ(gemmOps(p950(), 64, 64, 24, DTypeClass::HF32), 196608);
  EXPECT_EQ(gemmCost(p950(), 64, 64, 24, DTypeClass::HF32), (Cost{115, 48}));
}

// ---------------------------------------------------------------- other ascend950 paths

TEST(CostModel950, OtherCopyPaths) {
  EXPECT_EQ(copyCost(p950(), CopyPath::UbToL1, 32768), (Cost{171, 128}));
  EXPECT_EQ(copyCost(p950(), CopyPath::L1ToL0A, 32768), (Cost{133, 131}));
  EXPECT_EQ(copyCost(p950(), CopyPath::L1ToL0B, 32768), (Cost{133, 131}));
  // A vector move touches 2 * 4096 bytes at 256 B/cycle.
  EXPECT_EQ(copyCost(p950(), CopyPath::VectorMove, 4096), (Cost{32, 32}));
  EXPECT_EQ(copyCost(p950(), CopyPath::VectorMove, 4096), vectorCost(p950(), 0, 2 * 4096));
  // GM->UB: large contiguous copies are bandwidth bound.
  EXPECT_EQ(copyCost(p950(), CopyPath::GmToUb, 65536), (Cost{90 + 1311, 1311}));
}

TEST(CostModel950, GemmFormula) {
  // fp16/bf16: 8 + ops/8192, II max(1, ops/8192).
  EXPECT_EQ(gemmCost(p950(), 128, 128, 64, DTypeClass::F16), (Cost{264, 256}));
  EXPECT_EQ(gemmCost(p950(), 1, 1, 1, DTypeClass::F16), (Cost{9, 1}));
  // M aligned to 16: 17 -> 32.
  EXPECT_EQ(gemmOps(p950(), 17, 16, 16, DTypeClass::F16), 2 * 32 * 16 * 16);
  EXPECT_EQ(gemmCost(p950(), 17, 16, 16, DTypeClass::F16), (Cost{10, 2}));
  // fp32: 67 + ops/512, II ops/512; K aligned to 256/32 = 8.
  EXPECT_EQ(gemmCost(p950(), 64, 64, 24, DTypeClass::F32), (Cost{451, 384}));
  EXPECT_EQ(gemmOps(p950(), 16, 16, 1, DTypeClass::F32), 2 * 16 * 16 * 8);
  EXPECT_EQ(gemmCost(p950(), 16, 16, 1, DTypeClass::F32), (Cost{75, 8}));
  // fp16 K aligned to 16, int8 to 32.
  EXPECT_EQ(gemmOps(p950(), 16, 16, 1, DTypeClass::F16), 2 * 16 * 16 * 16);
  EXPECT_EQ(gemmOps(p950(), 16, 16, 1, DTypeClass::Int8), 2 * 16 * 16 * 32);
  EXPECT_EQ(gemmCost(p950(), 16, 16, 1, DTypeClass::Int8), (Cost{9, 1}));
}

TEST(CostModel950, VectorOps) {
  EXPECT_EQ(elementwiseCycles(p950(), VectorOpClass::Simple, 1024), 21);  // 1024/51
  EXPECT_EQ(elementwiseCycles(p950(), VectorOpClass::DivMod, 1024), 79);  // 1024/13
  EXPECT_EQ(elementwiseCycles(p950(), VectorOpClass::Transcendental, 1024), 128);
  EXPECT_EQ(elementwiseCycles(p950(), VectorOpClass::Simple, 51), 1);
  EXPECT_EQ(elementwiseCycles(p950(), VectorOpClass::Simple, 52), 2);
  // max(op cycles, bytes touched / 256), II = latency.
  EXPECT_EQ(vectorCost(p950(), 21, 12288), (Cost{48, 48}));
  EXPECT_EQ(vectorCost(p950(), 200, 12288), (Cost{200, 200}));
  EXPECT_EQ(vectorCost(p950(), 0, 257), (Cost{2, 2}));
  EXPECT_EQ(vectorCost(p950(), 0, 0), (Cost{1, 1}));
}

TEST(CostModel950, ScalarAndVfRegions) {
  EXPECT_EQ(scalarCost(p950(), 1), (Cost{1, 1}));
  EXPECT_EQ(scalarCost(p950(), 3), (Cost{3, 3}));
  EXPECT_EQ(vfRegionCost(100), (Cost{100, 100}));
  EXPECT_EQ(vfRegionCost(0), (Cost{1, 1}));
}

// ---------------------------------------------------------------- row-strided rules

struct StridedCase {
  int64_t rowBytes;
  Cost expected;
};

TEST(CostRowStrided950, GmToUbBandwidthByRowWidth) {
  // 16 rows of `rowBytes`; B = 2 * 16 * rowBytes; latency 75 + B/bw, II max(13, B/bw).
  const StridedCase cases[] = {
      {16, {86, 13}},    // bw 48: 512/48 -> 11
      {31, {96, 21}},    // bw 48: 992/48 -> 21
      {32, {91, 16}},    // bw 64: 1024/64 = 16
      {64, {101, 26}},   // bw 80: 2048/80 -> 26
      {128, {121, 46}},  // bw 90: 4096/90 -> 46
      {255, {166, 91}},  // bw 90: 8160/90 -> 91
      {256, {157, 82}},  // bw 100: 8192/100 -> 82
  };
  for (const StridedCase& c : cases) {
    EXPECT_EQ(copyCost(p950(), CopyPath::GmToUb, 16 * c.rowBytes, 16, c.rowBytes, true), c.expected)
        << "rowBytes=" << c.rowBytes;
  }
  // Wide strided rows: 75 + B/100 (the SPEC's strided base is below the contiguous 90).
  EXPECT_EQ(copyCost(p950(), CopyPath::GmToUb, 65536, 64, 1024, true), (Cost{75 + 1311, 1311}));
}

TEST(CostRowStrided950, OnlyStridedMultiRowCopiesUseTheRule) {
  Cost contiguous = copyCost(p950(), CopyPath::GmToUb, 512);
  EXPECT_EQ(contiguous, (Cost{101, 13}));
  EXPECT_EQ(copyCost(p950(), CopyPath::GmToUb, 512, 16, 32, false), contiguous);
  EXPECT_EQ(copyCost(p950(), CopyPath::GmToUb, 512, 1, 512, true), contiguous);
  // GM->L1 has no strided table: strided costs the same as contiguous.
  EXPECT_EQ(copyCost(p950(), CopyPath::GmToL1, 512, 16, 32, true),
            copyCost(p950(), CopyPath::GmToL1, 512));
}

TEST(CostRowStrided950, UbToGmNarrowRows) {
  // Narrow (< 32 B) strided rows: 440 + B/40, II max(10, B/40). 8 rows of 16 B: B = 256.
  EXPECT_EQ(copyCost(p950(), CopyPath::UbToGm, 128, 8, 16, true), (Cost{447, 10}));
  // 64 rows of 8 B: B = 1024, 1024/40 -> 26.
  EXPECT_EQ(copyCost(p950(), CopyPath::UbToGm, 512, 64, 8, true), (Cost{466, 26}));
  // Rows of 32 B and more are not narrow: the contiguous figures.
  EXPECT_EQ(copyCost(p950(), CopyPath::UbToGm, 256, 8, 32, true),
            copyCost(p950(), CopyPath::UbToGm, 256));
  EXPECT_EQ(copyCost(p950(), CopyPath::UbToGm, 256), (Cost{185, 10}));
}

// ---------------------------------------------------------------- ascend910b

TEST(CostModel910b, PerCoreBandwidths) {
  // No doubling: 910B figures are per core.
  EXPECT_EQ(copyCost(p910b(), CopyPath::GmToUb, 128), (Cost{93, 13}));
  EXPECT_EQ(copyCost(p910b(), CopyPath::GmToUb, 586), (Cost{100, 13}));        // exactly 10
  EXPECT_EQ(copyCost(p910b(), CopyPath::GmToUb, 32768), (Cost{650, 560}));     // 559.18 -> 560
  EXPECT_EQ(copyCost(p910b(), CopyPath::GmToL1, 32768), (Cost{608, 418}));     // 417.96 -> 418
  EXPECT_EQ(copyCost(p910b(), CopyPath::UbToGm, 32768), (Cost{480, 300}));     // 299.52 -> 300
  EXPECT_EQ(copyCost(p910b(), CopyPath::L1ToL0A, 32768), (Cost{133, 131}));    // 256 B/cycle
  EXPECT_EQ(copyCost(p910b(), CopyPath::L1ToL0B, 32768), (Cost{261, 259}));    // 128 B/cycle
  EXPECT_EQ(copyCost(p910b(), CopyPath::L0cToGm, 65536), (Cost{1815, 1617}));  // 40.6
}

TEST(CostModel910b, PathsThroughGm) {
  // UB->L1 and L0C->UB have no direct path on 910B: two legs through GM.
  EXPECT_EQ(copyCost(p910b(), CopyPath::UbToL1, 32768), (Cost{370 + 418, 300}));
  EXPECT_EQ(copyCost(p910b(), CopyPath::L0cToUb, 65536), (Cost{290 + 1615, 1617}));
}

TEST(CostModel910b, StridedAndCompute) {
  // 16 rows of 16 B: B = 256, band 28.1 -> 10.
  EXPECT_EQ(copyCost(p910b(), CopyPath::GmToUb, 256, 16, 16, true), (Cost{85, 13}));
  // Cube: 4096 fp16 MACs/cycle = 8192 ops/cycle, same as ascend950.
  EXPECT_EQ(gemmCost(p910b(), 128, 128, 64, DTypeClass::F16), (Cost{264, 256}));
  // Vector: 256 B per 2-cycle repeat = 128 B/cycle; fp32 binary ops 32 elements/cycle.
  EXPECT_EQ(vectorCost(p910b(), 0, 12288), (Cost{96, 96}));
  EXPECT_EQ(elementwiseCycles(p910b(), VectorOpClass::Simple, 1024), 32);
}

// ---------------------------------------------------------------- invariants and helpers

TEST(CostModel, LatencyIsNeverBelowII) {
  for (const char* name : {"ascend950", "ascend910b"}) {
    const CostModelParams& p = target(name).cost;
    for (CopyPath path : kAllCopyPaths) {
      for (int64_t bytes : {0, 1, 32, 512, 4096, 65536, 1 << 20}) {
        for (int64_t rowBytes : {1, 16, 32, 100, 512}) {
          Cost c = copyCost(p, path, bytes, 8, rowBytes, true);
          EXPECT_GE(c.latency, c.ii) << name << " " << copyPathName(path) << " " << bytes;
          EXPECT_GE(c.ii, 1);
        }
      }
    }
    for (DTypeClass cls : kAllDTypeClasses) {
      Cost c = gemmCost(p, 256, 256, 256, cls);
      EXPECT_GE(c.latency, c.ii);
    }
  }
}

TEST(CostModel, CopyPathClassification) {
  using S = MemScope;
  EXPECT_EQ(copyPathFor(S::Global, S::UB), CopyPath::GmToUb);
  EXPECT_EQ(copyPathFor(S::Global, S::L1), CopyPath::GmToL1);
  EXPECT_EQ(copyPathFor(S::UB, S::Global), CopyPath::UbToGm);
  EXPECT_EQ(copyPathFor(S::UB, S::L1), CopyPath::UbToL1);
  EXPECT_EQ(copyPathFor(S::L1, S::L0A), CopyPath::L1ToL0A);
  EXPECT_EQ(copyPathFor(S::L1, S::L0B), CopyPath::L1ToL0B);
  EXPECT_EQ(copyPathFor(S::L0C, S::UB), CopyPath::L0cToUb);
  EXPECT_EQ(copyPathFor(S::L0C, S::Global), CopyPath::L0cToGm);
  EXPECT_EQ(copyPathFor(S::UB, S::UB), CopyPath::VectorMove);
  EXPECT_EQ(copyPathFor(S::Fragment, S::UB), CopyPath::VectorMove);
  EXPECT_EQ(copyPathFor(S::UB, S::Fragment), CopyPath::VectorMove);
  EXPECT_EQ(copyPathFor(S::Global, S::Global), std::nullopt);
  EXPECT_EQ(copyPathFor(S::Global, S::L0A), std::nullopt);
  EXPECT_EQ(copyPathFor(S::L0A, S::L1), std::nullopt);
  EXPECT_EQ(copyPathFor(S::L1, S::UB), std::nullopt);
  for (CopyPath p : kAllCopyPaths) EXPECT_EQ(parseCopyPath(copyPathName(p)), p);
}

TEST(CostModel, DTypeAndOpClasses) {
  EXPECT_EQ(gemmDTypeClass("float16"), DTypeClass::F16);
  EXPECT_EQ(gemmDTypeClass("bfloat16"), DTypeClass::F16);
  EXPECT_EQ(gemmDTypeClass("float32"), DTypeClass::F32);
  EXPECT_EQ(gemmDTypeClass("float32", /*hf32=*/true), DTypeClass::HF32);
  EXPECT_EQ(gemmDTypeClass("int8"), DTypeClass::Int8);
  EXPECT_EQ(gemmDTypeClass("int32"), std::nullopt);
  for (DTypeClass c : kAllDTypeClasses) EXPECT_EQ(parseDTypeClass(dtypeClassName(c)), c);

  EXPECT_EQ(classifyVectorOp("add"), VectorOpClass::Simple);
  EXPECT_EQ(classifyVectorOp("max"), VectorOpClass::Simple);
  EXPECT_EQ(classifyVectorOp("//"), VectorOpClass::DivMod);
  EXPECT_EQ(classifyVectorOp("floormod"), VectorOpClass::DivMod);
  EXPECT_EQ(classifyVectorOp("T.exp"), VectorOpClass::Transcendental);
  EXPECT_EQ(classifyVectorOp("rsqrt"), VectorOpClass::Transcendental);
  for (VectorOpClass c : kAllVectorOpClasses)
    EXPECT_EQ(parseVectorOpClass(vectorOpClassName(c)), c);
}
