// Scheduling analyses on small kernels: eligibility and owners (SPEC §2.4,
// §2.1, §2.2 warnings), manual-ring distances, dependencies and their
// latencies, region overlap, and the JSON fields of the report.
#include <gtest/gtest.h>

#include <algorithm>

#include "TestUtil.h"
#include "analysis/Overlap.h"
#include "ir/IROperator.h"

using namespace tilesched;
using namespace tilesched::analysis;
using tilesched::testing::Analyzed;
using tilesched::testing::analyzeKernelBody;

namespace {

const char* kParams = "A: T.Tensor((256,), \"float32\"), B: T.Tensor((256,), \"float32\")";
const char* kAlloc = "a = T.alloc_ub((64,), \"float32\")\nb = T.alloc_ub((64,), \"float32\")\n";

std::vector<std::string> ownerVars(const StorageOwnership& s) {
  std::vector<std::string> out;
  for (const auto& o : s.owners) out.push_back(ir::as<ir::ForStmt>(o)->var->name);
  return out;
}

const Dependency* findDep(const UnitList& list, DepKind kind, int from, int to,
                          const std::string& storage) {
  for (const auto& d : list.deps)
    if (d.kind == kind && d.from == from && d.to == to && d.storage && d.storage->name == storage)
      return &d;
  return nullptr;
}

int depsOn(const UnitList& list, const std::string& storage) {
  int n = 0;
  for (const auto& d : list.deps) n += d.storage && d.storage->name == storage;
  return n;
}

bool anyWarningContains(const Analyzed& a, const std::string& text) {
  for (const auto& w : a.warnings())
    if (w.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

// ------------------------------------------------------------- eligibility

TEST(Eligibility, WriteThenReadIsEligible) {
  auto a = analyzeKernelBody(kParams, std::string(kAlloc) +
                                          "for s in T.Pipelined(4, num_stages=2):\n"
                                          "    T.copy(A[s * 64:s * 64 + 64], a)\n"
                                          "    for i in T.Parallel(64):\n"
                                          "        b[i] = a[i] * 2.0\n"
                                          "    T.copy(b, B[s * 64:s * 64 + 64])\n");
  EXPECT_TRUE(a.storage("a").eligible);
  EXPECT_TRUE(a.storage("b").eligible);
  EXPECT_EQ(ownerVars(a.storage("a")), std::vector<std::string>{"s"});
  EXPECT_FALSE(a.storage("a").guardedEpoch);
  EXPECT_FALSE(a.storage("A").eligible);  // global memory never is
  EXPECT_TRUE(a.warnings().empty());
}

TEST(Eligibility, ReadThenWriteIsNotEligible) {
  auto a = analyzeKernelBody(kParams, std::string(kAlloc) +
                                          "for s in T.Pipelined(4, num_stages=2):\n"
                                          "    T.copy(b, B[s * 64:s * 64 + 64])\n"
                                          "    T.copy(A[s * 64:s * 64 + 64], b)\n");
  EXPECT_FALSE(a.storage("b").eligible);
  EXPECT_NE(a.storage("b").reason.find("read before it is written"), std::string::npos)
      << a.storage("b").reason;
  // Its cross-iteration dependencies are ordinary ("carried", distance 1).
  const auto* raw = findDep(a.loop(), DepKind::RAW, 1, 0, "b");
  ASSERT_NE(raw, nullptr);
  EXPECT_EQ(raw->distanceKind, DistanceKind::Carried);
}

TEST(Eligibility, AccumulatorReadByItsOwnUpdateIsNotEligible) {
  auto a = analyzeKernelBody(kParams, std::string(kAlloc) +
                                          "for s in T.Pipelined(4, num_stages=2):\n"
                                          "    T.copy(A[s * 64:s * 64 + 64], a)\n"
                                          "    for i in T.Parallel(64):\n"
                                          "        b[i] = b[i] + a[i]\n");
  EXPECT_TRUE(a.storage("a").eligible);
  EXPECT_FALSE(a.storage("b").eligible);
}

TEST(Eligibility, WriteAndReadUnderTheSameGuardIsEligible) {
  auto a = analyzeKernelBody(kParams, std::string(kAlloc) +
                                          "for s in T.Pipelined(4, num_stages=2):\n"
                                          "    if s % 2 == 0:\n"
                                          "        T.copy(A[s * 64:s * 64 + 64], a)\n"
                                          "    if s % 2 == 0:\n"
                                          "        T.copy(a, B[s * 64:s * 64 + 64])\n");
  EXPECT_TRUE(a.storage("a").eligible) << a.storage("a").reason;
  EXPECT_TRUE(a.storage("a").guardedEpoch);
}

TEST(Eligibility, WriteUnderConditionReadUnderItsNegationIsNotEligible) {
  auto a = analyzeKernelBody(kParams, std::string(kAlloc) +
                                          "for s in T.Pipelined(4, num_stages=2):\n"
                                          "    if s < 2:\n"
                                          "        T.copy(A[s * 64:s * 64 + 64], a)\n"
                                          "    else:\n"
                                          "        T.copy(a, B[s * 64:s * 64 + 64])\n");
  EXPECT_FALSE(a.storage("a").eligible);
}

TEST(Eligibility, UnguardedWriteCoversAGuardedRead) {
  auto a = analyzeKernelBody(kParams, std::string(kAlloc) +
                                          "for s in T.Pipelined(4, num_stages=2):\n"
                                          "    T.copy(A[s * 64:s * 64 + 64], a)\n"
                                          "    if s > 0:\n"
                                          "        T.copy(a, B[s * 64:s * 64 + 64])\n");
  EXPECT_TRUE(a.storage("a").eligible);
  // The write happens in every iteration: every epoch is active (SPEC §6.1),
  // so the epoch is not guarded although the read is.
  EXPECT_FALSE(a.storage("a").guardedEpoch);
}

TEST(Eligibility, InnerLoopWritingRowsMakesTheOuterLoopTheOwner) {
  for (const char* inner : {"T.serial(4)", "T.Pipelined(4, num_stages=2)"}) {
    auto a =
        analyzeKernelBody("A: T.Tensor((16, 64), \"float32\"), B: T.Tensor((16, 64), \"float32\")",
                          std::string("t = T.alloc_ub((4, 64), \"float32\")\n"
                                      "for s in T.Pipelined(4, num_stages=2):\n"
                                      "    for r in ") +
                              inner +
                              ":\n"
                              "        T.copy(A[s * 4 + r, :], t[r, :])\n"
                              "    T.copy(t, B[s * 4:s * 4 + 4, :])\n");
    EXPECT_TRUE(a.storage("t").eligible) << inner;
    EXPECT_EQ(ownerVars(a.storage("t")), std::vector<std::string>{"s"}) << inner;
  }
}

TEST(Eligibility, DeepestWriteFirstLoopOwns) {
  auto a = analyzeKernelBody(kParams,
                             std::string(kAlloc) +
                                 "for s in T.Pipelined(2, num_stages=2):\n"
                                 "    for k in T.Pipelined(2, num_stages=2):\n"
                                 "        T.copy(A[s * 128 + k * 64:s * 128 + k * 64 + 64], a)\n"
                                 "        T.copy(a, B[s * 128 + k * 64:s * 128 + k * 64 + 64])\n");
  EXPECT_EQ(ownerVars(a.storage("a")), std::vector<std::string>{"k"});
  // In the outer loop, `a` is owned by an inner loop: ordinary distance.
  const UnitList& outer = a.loop(0);
  ASSERT_EQ(outer.units.size(), 1u);
  for (const auto& d : outer.deps) EXPECT_NE(d.distanceKind, DistanceKind::Versioned);
}

TEST(Eligibility, TwoSiblingOwnersExcludeEachOther) {
  auto a = analyzeKernelBody(kParams, std::string(kAlloc) +
                                          "for s in T.Pipelined(4, num_stages=2):\n"
                                          "    T.copy(A[s * 64:s * 64 + 64], a)\n"
                                          "    T.copy(a, B[s * 64:s * 64 + 64])\n"
                                          "for t in T.Pipelined(4, num_stages=2):\n"
                                          "    T.copy(B[t * 64:t * 64 + 64], a)\n"
                                          "    T.copy(a, A[t * 64:t * 64 + 64])\n");
  EXPECT_TRUE(a.storage("a").eligible);
  EXPECT_EQ(ownerVars(a.storage("a")), (std::vector<std::string>{"s", "t"}));
  const UnitList& root = a.ka.root;
  ASSERT_EQ(root.exclusions.size(), 1u);
  EXPECT_EQ(root.exclusions[0].a, 0);
  EXPECT_EQ(root.exclusions[0].b, 1);
  EXPECT_EQ(root.exclusions[0].storage->name, "a");
  EXPECT_EQ(root.exclusions[0].forwardLatency, root.units[0].latency);
  EXPECT_EQ(depsOn(root, "a"), 0);  // replaced by the exclusion
  // The GM hand-off B (written by s, read by t) stays an ordinary dependency.
  EXPECT_NE(findDep(root, DepKind::RAW, 0, 1, "B"), nullptr);
  // Each owner versions `a` in its own loop.
  EXPECT_EQ(findDep(a.loop(0), DepKind::WAR, 1, 0, "a")->distanceKind, DistanceKind::Versioned);
  EXPECT_EQ(findDep(a.loop(1), DepKind::WAR, 1, 0, "a")->distanceKind, DistanceKind::Versioned);
}

TEST(Eligibility, ExplicitClaimOnOptedOutStorageWarnsOnce) {
  auto a = analyzeKernelBody(
      kParams,
      std::string(kAlloc) +
          "T.annotate_buffer_versions({a: 1})\n"
          "for s in T.Pipelined(2, num_stages=2, annotations={\"multi_buffer_eligible\": [a]}):\n"
          "    T.copy(A[s * 64:s * 64 + 64], a)\n"
          "    T.copy(a, B[s * 64:s * 64 + 64])\n"
          "for t in T.Pipelined(2, num_stages=2, annotations={\"multi_buffer_eligible\": [a]}):\n"
          "    T.copy(A[t * 64:t * 64 + 64], a)\n"
          "    T.copy(a, B[t * 64:t * 64 + 64])\n");
  EXPECT_FALSE(a.storage("a").eligible);
  EXPECT_TRUE(a.storage("a").optOut);
  auto w = a.warnings();
  ASSERT_EQ(w.size(), 1u) << a.diags->renderAll();
  EXPECT_NE(w[0].find("'a'"), std::string::npos) << w[0];
  EXPECT_NE(w[0].find("(1, \"auto\")"), std::string::npos) << w[0];
  EXPECT_TRUE(a.diags->all()[0].loc.valid());
  // Ordinary dependencies instead of versioned ones.
  EXPECT_EQ(findDep(a.loop(0), DepKind::WAR, 1, 0, "a")->distanceKind, DistanceKind::Carried);
}

TEST(Eligibility, ExplicitClaimOnManualStorageWarns) {
  auto a = analyzeKernelBody(
      kParams,
      "m = T.alloc_ub((2, 64), \"float32\")\n"
      "T.annotate_manual_multi_buffer(m)\n"
      "for s in T.Pipelined(4, num_stages=2, annotations={\"multi_buffer_eligible\": [m]}):\n"
      "    T.copy(A[s * 64:s * 64 + 64], m[s % 2, :])\n"
      "    T.copy(m[s % 2, :], B[s * 64:s * 64 + 64])\n");
  EXPECT_FALSE(a.storage("m").eligible);
  EXPECT_TRUE(a.storage("m").manual);
  EXPECT_EQ(a.storage("m").ring, 2);
  EXPECT_TRUE(anyWarningContains(a, "'m' is a manual multi-buffer")) << a.diags->renderAll();
  EXPECT_EQ(a.warnings().size(), 1u);
}

TEST(Eligibility, OneVersionAutoStaysEligible) {
  auto a = analyzeKernelBody(kParams, std::string(kAlloc) +
                                          "T.annotate_buffer_versions({a: (1, \"auto\")})\n"
                                          "for s in T.Pipelined(4, num_stages=2):\n"
                                          "    T.copy(A[s * 64:s * 64 + 64], a)\n"
                                          "    T.copy(a, B[s * 64:s * 64 + 64])\n");
  EXPECT_TRUE(a.storage("a").eligible);
  EXPECT_FALSE(a.storage("a").optOut);
  EXPECT_TRUE(a.warnings().empty());
}

TEST(Eligibility, ExplicitClaimIsTrustedAndStopsInference) {
  auto a = analyzeKernelBody(
      kParams,
      std::string(kAlloc) +
          "for s in T.Pipelined(4, num_stages=2, annotations={\"multi_buffer_eligible\": [b]}):\n"
          "    T.copy(b, B[s * 64:s * 64 + 64])\n"
          "    T.copy(A[s * 64:s * 64 + 64], b)\n"
          "    T.copy(A[s * 64:s * 64 + 64], a)\n"
          "    T.copy(a, B[s * 64:s * 64 + 64])\n");
  // b is read first, but the claim is trusted.
  EXPECT_TRUE(a.storage("b").eligible);
  EXPECT_TRUE(a.storage("b").explicitClaim);
  EXPECT_EQ(ownerVars(a.storage("b")), std::vector<std::string>{"s"});
  // a is still inferred.
  EXPECT_TRUE(a.storage("a").eligible);
  EXPECT_FALSE(a.storage("a").explicitClaim);
}

TEST(Eligibility, FixedCountOnIneligibleStorageWarns) {
  auto a = analyzeKernelBody(kParams, std::string(kAlloc) +
                                          "T.annotate_buffer_versions({b: 2})\n"
                                          "T.copy(A[0:64], b)\n"
                                          "for s in T.Pipelined(4, num_stages=2):\n"
                                          "    T.copy(A[s * 64:s * 64 + 64], a)\n"
                                          "    for i in T.Parallel(64):\n"
                                          "        a[i] = a[i] + b[i]\n"
                                          "    T.copy(a, B[s * 64:s * 64 + 64])\n");
  EXPECT_FALSE(a.storage("b").eligible);
  EXPECT_TRUE(anyWarningContains(a, "'b' asks for 2 versions")) << a.diags->renderAll();
}

TEST(Eligibility, AliasesShareOneStorage) {
  auto a = analyzeKernelBody(kParams,
                             "a = T.alloc_ub((64,), \"float32\")\n"
                             "v = T.view(a, (8, 8))\n"
                             "for s in T.Pipelined(4, num_stages=2):\n"
                             "    T.copy(A[s * 64:s * 64 + 64], a)\n"
                             "    for i, j in T.Parallel(8, 8):\n"
                             "        v[i, j] = v[i, j] * 2.0\n"
                             "    T.copy(a, B[s * 64:s * 64 + 64])\n");
  EXPECT_TRUE(a.storage("a").eligible);
  const UnitList& l = a.loop();
  // The write through `a` and the read through the view `v` meet.
  EXPECT_NE(findDep(l, DepKind::RAW, 0, 1, "a"), nullptr);
  EXPECT_NE(findDep(l, DepKind::RAW, 1, 2, "a"), nullptr);
}

TEST(Eligibility, LocalScopesNeverAndUnusedStoragesAreNotEligible) {
  auto a = analyzeKernelBody(kParams,
                             "a = T.alloc_ub((64,), \"float32\")\n"
                             "u = T.alloc_ub((64,), \"float32\")\n"
                             "f = T.alloc_local((64,), \"float32\")\n"
                             "for s in T.Pipelined(4, num_stages=2):\n"
                             "    for i in T.Parallel(64):\n"
                             "        f[i] = A[s * 64 + i]\n"
                             "    for i in T.Parallel(64):\n"
                             "        a[i] = f[i]\n"
                             "    T.copy(a, B[s * 64:s * 64 + 64])\n");
  EXPECT_FALSE(a.storage("f").eligible);
  EXPECT_FALSE(a.storage("f").candidate);
  EXPECT_FALSE(a.storage("u").eligible);
  EXPECT_EQ(a.storage("u").reason, "it is never accessed");
}

// -------------------------------------------------------------- manual rings

TEST(ManualRing, PingPongGivesDistanceOne) {
  auto a = analyzeKernelBody(kParams,
                             "buf = T.alloc_ub((2, 64), \"float32\")\n"
                             "T.annotate_manual_multi_buffer(buf)\n"
                             "for l in T.Pipelined(4, num_stages=2):\n"
                             "    T.copy(A[l * 64:l * 64 + 64], buf[l % 2, :])\n"
                             "    T.copy(buf[(l + 1) % 2, :], B[l * 64:l * 64 + 64])\n");
  const UnitList& l = a.loop();
  const auto* raw = findDep(l, DepKind::RAW, 0, 1, "buf");
  ASSERT_NE(raw, nullptr);
  EXPECT_EQ(raw->distanceKind, DistanceKind::Exact);
  EXPECT_EQ(raw->distance, 1);
  const auto* war = findDep(l, DepKind::WAR, 1, 0, "buf");
  ASSERT_NE(war, nullptr);
  EXPECT_EQ(war->distance, 1);
  const auto* waw = findDep(l, DepKind::WAW, 0, 0, "buf");
  ASSERT_NE(waw, nullptr);
  EXPECT_EQ(waw->distance, 2);
  for (const auto& d : l.deps)
    EXPECT_NE(d.distanceKind, DistanceKind::Same) << "slots differ in one iteration";
}

TEST(ManualRing, ThreeSlotFlatRingBySubRanges) {
  auto a =
      analyzeKernelBody("X: T.Tensor((16, 64), \"float32\"), Y: T.Tensor((16, 64), \"float32\")",
                        "flat = T.alloc_ub((192,), \"float32\")\n"
                        "y = T.alloc_ub((64,), \"float32\")\n"
                        "T.annotate_manual_multi_buffer({flat: 3})\n"
                        "for l in T.Pipelined(16, num_stages=2):\n"
                        "    T.copy(X[l, :], flat[(l % 3) * 64 : (l % 3) * 64 + 64])\n"
                        "    for j in T.Parallel(64):\n"
                        "        y[j] = flat[(l % 3) * 64 + j] + flat[((l + 2) % 3) * 64 + j]\n"
                        "    T.copy(y, Y[l, :])\n");
  const UnitList& l = a.loop();
  const auto* raw = findDep(l, DepKind::RAW, 0, 1, "flat");
  ASSERT_NE(raw, nullptr);
  EXPECT_EQ(raw->distanceKind, DistanceKind::Same);
  const auto* war = findDep(l, DepKind::WAR, 1, 0, "flat");
  ASSERT_NE(war, nullptr);
  EXPECT_EQ(war->distanceKind, DistanceKind::Exact);
  EXPECT_EQ(war->distance, 2);
  EXPECT_EQ(findDep(l, DepKind::WAW, 0, 0, "flat")->distance, 3);
}

TEST(ManualRing, NoOverlapUpToTheRingSizeGivesNoDependency) {
  std::string body =
      "buf = T.alloc_ub((4, 64), \"float32\")\n"
      "T.annotate_manual_multi_buffer({buf: RING})\n"
      "for l in T.Pipelined(8, num_stages=2):\n"
      "    T.copy(A[l * 32:l * 32 + 64], buf[l % 4, :])\n"
      "    T.copy(buf[(l + 3) % 4, :], B[l * 16:l * 16 + 64])\n";
  auto withRing = [&](int ring) {
    std::string b = body;
    b.replace(b.find("RING"), 4, std::to_string(ring));
    return analyzeKernelBody("A: T.Tensor((512,), \"float32\"), B: T.Tensor((512,), \"float32\")",
                             b);
  };
  auto two = withRing(2);
  // The reader of slot (p + 3) % 4 is overwritten 3 iterations later: beyond a ring of 2.
  EXPECT_EQ(findDep(two.loop(), DepKind::WAR, 1, 0, "buf"), nullptr);
  EXPECT_EQ(findDep(two.loop(), DepKind::RAW, 0, 1, "buf")->distance, 1);
  EXPECT_EQ(findDep(two.loop(), DepKind::WAW, 0, 0, "buf"), nullptr);
  auto four = withRing(4);
  ASSERT_NE(findDep(four.loop(), DepKind::WAR, 1, 0, "buf"), nullptr);
  EXPECT_EQ(findDep(four.loop(), DepKind::WAR, 1, 0, "buf")->distance, 3);
  EXPECT_EQ(findDep(four.loop(), DepKind::WAW, 0, 0, "buf")->distance, 4);
}

TEST(ManualRing, DisjointSlotsHaveNoDependency) {
  auto a = analyzeKernelBody(kParams,
                             "buf = T.alloc_ub((2, 64), \"float32\")\n"
                             "T.annotate_manual_multi_buffer(buf)\n"
                             "for l in T.Pipelined(4, num_stages=2):\n"
                             "    T.copy(A[l * 64:l * 64 + 64], buf[0, :])\n"
                             "    T.copy(buf[1, :], B[l * 64:l * 64 + 64])\n");
  EXPECT_EQ(findDep(a.loop(), DepKind::RAW, 0, 1, "buf"), nullptr);
  EXPECT_EQ(findDep(a.loop(), DepKind::WAR, 1, 0, "buf"), nullptr);
}

// ------------------------------------------------------------ dependencies

TEST(Dependencies, DisjointGlobalRegionsAcrossIterationsAreIndependent) {
  auto a = analyzeKernelBody(kParams, std::string(kAlloc) +
                                          "for s in T.Pipelined(4, num_stages=2):\n"
                                          "    T.copy(A[s * 64:s * 64 + 64], a)\n"
                                          "    T.copy(a, B[s * 64:s * 64 + 64])\n"
                                          "    T.copy(B[s * 64:s * 64 + 64], b)\n");
  const UnitList& l = a.loop();
  EXPECT_EQ(depsOn(l, "A"), 0);
  // B is written then read in the same iteration, never across iterations.
  const auto* raw = findDep(l, DepKind::RAW, 1, 2, "B");
  ASSERT_NE(raw, nullptr);
  EXPECT_EQ(raw->distanceKind, DistanceKind::Same);
  EXPECT_EQ(depsOn(l, "B"), 1);
}

TEST(Dependencies, OverlappingGlobalRegionsAcrossIterationsAreCarried) {
  auto a = analyzeKernelBody(kParams, std::string(kAlloc) +
                                          "for s in T.Pipelined(4, num_stages=2):\n"
                                          "    T.copy(B[s * 32:s * 32 + 64], a)\n"
                                          "    T.copy(a, B[s * 32 + 64:s * 32 + 128])\n");
  // Iteration s writes [32s + 64, 32s + 128), which iteration s + 2 reads.
  const auto* raw = findDep(a.loop(), DepKind::RAW, 1, 0, "B");
  ASSERT_NE(raw, nullptr);
  EXPECT_EQ(raw->distanceKind, DistanceKind::Carried);
}

TEST(Dependencies, ScalarVariables) {
  auto a = analyzeKernelBody(kParams, std::string(kAlloc) +
                                          "for s in T.Pipelined(4, num_stages=2):\n"
                                          "    off = s * 64\n"
                                          "    T.copy(A[off:off + 64], a)\n"
                                          "    T.copy(a, B[off:off + 64])\n");
  const UnitList& l = a.loop();
  ASSERT_EQ(l.units.size(), 3u);
  EXPECT_EQ(l.units[0].pipeMask, 0u);  // register arithmetic: no pipe (cost::registerOnly)
  // A let is a fresh register value in every iteration (SPEC §4.2): RAW from
  // its definition to each later use, nothing else. (The WAR from the last
  // use to the next iteration's definition, which once made II the copy's
  // whole latency and turned multi-buffering off, must not come back.)
  int raw = 0, other = 0;
  for (const auto& d : l.deps) {
    if (!d.var || d.var->name != "off") continue;
    if (d.kind == DepKind::RAW && d.from == 0 && d.distanceKind == DistanceKind::Same)
      ++raw;
    else
      ++other;
  }
  EXPECT_EQ(raw, 2);
  EXPECT_EQ(other, 0);
  // `off` has one definition, so the boxes are exact: no carried dependency on GM B.
  EXPECT_EQ(depsOn(l, "B"), 0);
}

TEST(Dependencies, ScalarsReadByConditions) {
  auto a = analyzeKernelBody(kParams, std::string(kAlloc) +
                                          "for s in T.Pipelined(4, num_stages=2):\n"
                                          "    x = s * 2\n"
                                          "    if x > 3:\n"
                                          "        T.copy(A[s * 64:s * 64 + 64], a)\n"
                                          "        T.copy(a, B[s * 64:s * 64 + 64])\n");
  const UnitList& l = a.loop();
  ASSERT_EQ(l.units.size(), 3u);
  // The guard is kept resolved (exact for overlap) ...
  EXPECT_EQ(printGuard(l.units[1].guard), "(s * 2 > 3)");
  // ... but evaluating it reads x.
  int reads = 0;
  for (const auto& d : l.deps)
    reads += d.var && d.var->name == "x" && d.kind == DepKind::RAW && d.from == 0 &&
             d.distanceKind == DistanceKind::Same;
  EXPECT_EQ(reads, 2);
}

TEST(Dependencies, GuardedUnitsAndTheirConditions) {
  auto a = analyzeKernelBody(kParams, std::string(kAlloc) +
                                          "for s in T.Pipelined(4, num_stages=2):\n"
                                          "    if s > 0:\n"
                                          "        T.copy(A[s * 64:s * 64 + 64], a)\n"
                                          "        T.copy(a, B[s * 64:s * 64 + 64])\n");
  const UnitList& l = a.loop();
  ASSERT_EQ(l.units.size(), 2u);
  for (const auto& u : l.units) {
    ASSERT_EQ(u.guard.size(), 1u);
    EXPECT_EQ(printGuard(u.guard), "(s > 0)");
  }
}

TEST(Dependencies, LatencyThroughNestedLoops) {
  auto a = tilesched::testing::analyzeExample("gemm_l0.py");
  const UnitList& k = a.loop(0);
  const UnitList& sk = a.loop(1);
  ASSERT_EQ(k.units.size(), 3u);
  ASSERT_TRUE(k.units[2].isLoop());
  // WAR a_l1: the last read of a_l1 by sk's first task (last inner iteration)
  // to the next write: (trips - 1)·II + start + latency.
  const auto* war = findDep(k, DepKind::WAR, 2, 0, "a_l1");
  ASSERT_NE(war, nullptr);
  int64_t expected =
      (sk.timing.trips - 1) * sk.timing.ii + sk.timing.start[0] + sk.units[0].latency;
  EXPECT_EQ(war->latency, expected);
  EXPECT_EQ(war->latency, 101);
  // RAW b_l1: the copy's finish minus the start of its first reader inside sk.
  const auto* raw = findDep(k, DepKind::RAW, 1, 2, "b_l1");
  ASSERT_NE(raw, nullptr);
  EXPECT_EQ(raw->latency, k.units[1].latency - sk.timing.start[1]);
  // With a solved inner timing the latencies follow.
  auto& mutableSk = *a.ka.findLoop(sk.loop());
  mutableSk.timing.ii = 40;
  mutableSk.timing.estimated = false;
  auto& mutableK = *a.ka.findLoop(k.loop());
  recomputeDependencyLatencies(mutableK);
  EXPECT_EQ(findDep(k, DepKind::WAR, 2, 0, "a_l1")->latency,
            40 + sk.timing.start[0] + sk.units[0].latency);
  EXPECT_EQ(k.units[2].latency, mutableSk.timing.totalTime());
}

TEST(Dependencies, UnknownIndicesConflict) {
  auto a = analyzeKernelBody(kParams,
                             "a = T.alloc_ub((64,), \"float32\")\n"
                             "idx = T.alloc_ub((4,), \"int32\")\n"
                             "T.copy(A[0:64], a)\n"
                             "for s in T.Pipelined(4, num_stages=2):\n"
                             "    a[idx[s]] = 1.0\n"
                             "    a[idx[s] + 1] = 2.0\n");
  // Both stores may hit the same element.
  EXPECT_NE(findDep(a.loop(), DepKind::WAW, 0, 1, "a"), nullptr);
}

// ------------------------------------------------------------ overlap oracle

namespace {

struct OracleFixture {
  ir::Storage storage =
      std::make_shared<ir::StorageNode>(ir::StorageNode{1, "buf", MemScope::UB, 1024, {}});
  ir::Buffer buffer;
  ir::Buffer flatView;
  ir::Var l =
      std::make_shared<ir::VarNode>(ir::VarNode{7, "l", ir::DType::Int32, ir::VarKind::Loop});
  std::shared_ptr<ir::ForStmt> loop = std::make_shared<ir::ForStmt>(SourceLoc{});

  OracleFixture() {
    buffer = std::make_shared<ir::BufferNode>(ir::BufferNode{
        1, "buf", storage, ir::DType::Float32, {ir::intImm(4), ir::intImm(64)}, {}, false});
    flatView = std::make_shared<ir::BufferNode>(
        ir::BufferNode{2, "flat", storage, ir::DType::Float32, {ir::intImm(256)}, {}, true});
    loop->var = l;
    loop->min = ir::intImm(0);
    loop->extent = ir::intImm(8);
  }
  Access row(ir::Expr start, AccessKind kind, Guard guard = {}) const {
    Access a;
    a.kind = kind;
    a.storage = storage;
    a.buffer = buffer;
    a.box = {BoxDim{std::move(start), 1, false}, BoxDim{ir::intImm(0), 64, false}};
    a.guard = std::move(guard);
    return a;
  }
  ir::Expr lv() const { return ir::varRef(l); }
};

}  // namespace

TEST(Overlap, ModuloRingIndices) {
  OracleFixture f;
  OverlapOracle oracle;
  Access w = f.row(ir::floormod(f.lv(), ir::intImm(2)), AccessKind::Write);
  Access r = f.row(ir::floormod(ir::add(f.lv(), 1), ir::intImm(2)), AccessKind::Read);
  EXPECT_FALSE(oracle.mayOverlap(w, r, f.loop.get(), 0));
  EXPECT_TRUE(oracle.mayOverlap(w, r, f.loop.get(), 1));
  EXPECT_FALSE(oracle.mayOverlap(w, r, f.loop.get(), 2));
  EXPECT_EQ(oracle.smallestShift(w, r, f.loop.get(), 1, 2), 1);
  EXPECT_GT(oracle.stats().solverCalls, 0);
}

TEST(Overlap, FloorDivisionBlocks) {
  OracleFixture f;
  OverlapOracle oracle;
  Access w = f.row(ir::floordiv(f.lv(), ir::intImm(2)), AccessKind::Write);
  EXPECT_TRUE(oracle.mayOverlap(w, w, f.loop.get(), 1));  // l = 0 and 1 share block 0
  EXPECT_FALSE(oracle.mayOverlap(w, w, f.loop.get(), 2));
  EXPECT_TRUE(oracle.mayOverlap(w, w, f.loop.get(), std::nullopt));
}

TEST(Overlap, LoopBoundsAndGuards) {
  OracleFixture f;
  OverlapOracle oracle;
  // Shifts at or beyond the trip count never meet.
  Access w = f.row(ir::intImm(0), AccessKind::Write);
  EXPECT_FALSE(oracle.mayOverlap(w, w, f.loop.get(), 8));
  // A write under (l < 3) and a read under (l == 0) one iteration later: the
  // reader would need iteration p + 1 == 0.
  Access gw = f.row(ir::intImm(0), AccessKind::Write,
                    {{ir::binary(ir::BinOp::LT, f.lv(), ir::intImm(3)), false, nullptr}});
  Access gr = f.row(ir::intImm(0), AccessKind::Read,
                    {{ir::binary(ir::BinOp::EQ, f.lv(), ir::intImm(0)), false, nullptr}});
  EXPECT_FALSE(oracle.mayOverlap(gw, gr, f.loop.get(), 1));
  EXPECT_TRUE(oracle.mayOverlap(gr, gw, f.loop.get(), 1));
}

TEST(Overlap, AliasesCompareFlattenedBytes) {
  OracleFixture f;
  OverlapOracle oracle;
  Access rowTwo = f.row(ir::intImm(2), AccessKind::Write);
  Access flat;
  flat.kind = AccessKind::Read;
  flat.storage = f.storage;
  flat.buffer = f.flatView;
  flat.box = {BoxDim{ir::intImm(64), 64, false}};  // row 1
  EXPECT_FALSE(oracle.mayOverlap(rowTwo, flat, nullptr, 0));
  flat.box = {BoxDim{ir::intImm(150), 4, false}};  // inside row 2
  EXPECT_TRUE(oracle.mayOverlap(rowTwo, flat, nullptr, 0));
}

TEST(Overlap, LoadsInIndicesAreUnknown) {
  OracleFixture f;
  OverlapOracle oracle;
  auto idxStorage =
      std::make_shared<ir::StorageNode>(ir::StorageNode{2, "idx", MemScope::UB, 32, {}});
  auto idx = std::make_shared<ir::BufferNode>(
      ir::BufferNode{3, "idx", idxStorage, ir::DType::Int32, {ir::intImm(8)}, {}, false});
  Access a = f.row(ir::load(idx, {ir::intImm(0)}), AccessKind::Write);
  Access b = f.row(ir::add(ir::load(idx, {ir::intImm(0)}), 1), AccessKind::Write);
  EXPECT_TRUE(oracle.mayOverlap(a, b, f.loop.get(), 0));
}

// ------------------------------------------------------------------ JSON

TEST(Report, BuffersAndLoopsGetAnalysisFields) {
  auto a = tilesched::testing::analyzeExample("ring_buffer.py");
  const ir::ForStmt* loop = a.loop().loop();
  nlohmann::json entry = {{"buffers", {{{"name", "buf"}}, {{"name", "y_ub"}}}},
                          {"loops", {{{"var", loop->var->name}, {"line", loop->loc.line}}}}};
  annotateKernelReport(entry, a.ka);
  EXPECT_EQ(entry["buffers"][0]["manual"], true);
  EXPECT_EQ(entry["buffers"][0]["eligible"], false);
  EXPECT_EQ(entry["buffers"][0]["ring"], 2);
  EXPECT_EQ(entry["buffers"][1]["eligible"], true);
  EXPECT_EQ(entry["buffers"][1]["guarded_epoch"], true);
  ASSERT_EQ(entry["buffers"][1]["owner_loops"].size(), 1u);
  EXPECT_EQ(entry["buffers"][1]["owner_loops"][0]["var"], "l");
  EXPECT_EQ(entry["buffers"][1]["owner_loops"][0]["line"], loop->loc.line);
  const auto& tasks = entry["loops"][0]["tasks"];
  ASSERT_EQ(tasks.size(), 3u);
  EXPECT_EQ(tasks[0]["pipes"], nlohmann::json::array({"MTE2"}));
  EXPECT_EQ(tasks[0]["copy_path"], "gm_to_ub");
  EXPECT_EQ(tasks[0]["guard"], "(l < 8)");
  bool ringRaw = false;
  for (const auto& d : entry["loops"][0]["deps"])
    ringRaw |= d["kind"] == "RAW" && d["storage"] == "buf" && d["distance_kind"] == "exact" &&
               d["distance"] == 1;
  EXPECT_TRUE(ringRaw) << entry["loops"][0]["deps"].dump();
  EXPECT_TRUE(entry.contains("root"));
}

TEST(Report, LoopsCarryTheTimingThatEmitTasksPrints) {
  // `--emit tasks` prints "T.Pipelined, 9 trips, num_stages 2, estimated II
  // 238, iteration 238 cycles"; every one of those numbers is in the JSON.
  auto a = tilesched::testing::analyzeExample("ring_buffer.py");
  const ir::ForStmt* loop = a.loop().loop();
  const LoopTiming& t = a.loop().timing;
  nlohmann::json entry = {{"loops", {{{"var", loop->var->name}, {"line", loop->loc.line}}}}};
  annotateKernelReport(entry, a.ka);
  const auto& timing = entry["loops"][0]["timing"];
  ASSERT_TRUE(timing.is_object()) << entry.dump();
  EXPECT_EQ(timing["for_kind"], "T.Pipelined");
  EXPECT_EQ(timing["trips"], 9);
  EXPECT_EQ(timing["estimated"], true);
  EXPECT_EQ(timing["ii"], t.ii);
  EXPECT_EQ(timing["iteration"], t.makespan);
  EXPECT_EQ(timing["total"], t.totalTime());
  EXPECT_EQ(timing["starts"].size(), a.loop().units.size());
  std::string text = printTaskGraph(a.ka);
  EXPECT_NE(text.find("estimated II " + std::to_string(t.ii) + ", iteration " +
                      std::to_string(t.makespan) + " cycles"),
            std::string::npos)
      << text;
}

TEST(Report, RegionsPrintWithTheIRPrintersSpacing) {
  // `A[s * 1024:s * 1024 + 1024]`, not `...:s * 1024+1024]`.
  auto a = tilesched::testing::analyzeExample("vec_add.py");
  const Unit& load = a.loop().units[0];
  ASSERT_FALSE(load.accesses.empty());
  EXPECT_EQ(printAccess(load.accesses[0]), "R A[bx * 4096 + s * 1024:bx * 4096 + s * 1024 + 1024]");
  // Keep the JSON alive: a range-for over a temporary's member would dangle.
  const auto tasks = tasksJson(a.loop());
  for (const auto& r : tasks[0]["reads"])
    EXPECT_EQ(r.get<std::string>().find("+1024"), std::string::npos) << r;
}
