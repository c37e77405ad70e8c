// Ownership under the revised SPEC §2.4 / §2.1 / §6.1 reading: any loop can
// own, one-trip loops are transparent, complementary guards combine into a
// write-first write, whole-buffer fills outside every loop are broadcast,
// nested claims are an error, the version bound comes from the owner's or the
// nearest enclosing num_stages, the epoch flags, and count + mode given
// through two aliases combine. Every expectation is read off the kernel text.
#include <gtest/gtest.h>

#include "TestUtil.h"

using namespace tilesched;
using namespace tilesched::analysis;
using tilesched::testing::Analyzed;
using tilesched::testing::analyzeKernelBody;

namespace {

const char* kParams =
    "A: T.Tensor((256,), \"float32\"), B: T.Tensor((256,), \"float32\"), "
    "C: T.Tensor((256,), \"float32\")";
const char* kAlloc = "a = T.alloc_ub((64,), \"float32\")\n";

std::vector<std::string> ownerVars(const StorageOwnership& s) {
  std::vector<std::string> out;
  for (const auto& o : s.owners) out.push_back(ir::as<ir::ForStmt>(o)->var->name);
  return out;
}

std::vector<std::string> errors(const Analyzed& a) {
  std::vector<std::string> out;
  for (const auto& d : a.diags->all())
    if (d.severity == Severity::Error) out.push_back(d.message);
  return out;
}

// `a` written from A, then read into B, in one iteration of `header`.
Analyzed copyThrough(const std::string& header) {
  return analyzeKernelBody(kParams, std::string(kAlloc) + header +
                                        "\n"
                                        "    T.copy(A[0:64], a)\n"
                                        "    T.copy(a, B[0:64])\n");
}

}  // namespace

// ------------------------------------------------------------ any loop owns

TEST(OwnershipRevised, EveryLoopKindCanOwn) {
  for (const char* header : {"for s in T.serial(4):", "for s in range(4):", "for s in T.unroll(4):",
                             "for s in T.serial(0, 8, 2):", "with T.Persistent(4) as s:",
                             "for s in T.Pipelined(4):", "for s in T.Persistent([4], 1, 0):"}) {
    auto a = copyThrough(header);
    const auto& so = a.storage("a");
    EXPECT_TRUE(so.eligible) << header << ": " << so.reason;
    ASSERT_EQ(so.owners.size(), 1u) << header;
    EXPECT_EQ(so.owners[0], a.loop().loopStmt) << header;
    EXPECT_TRUE(a.diags->all().empty()) << a.diags->renderAll();
    // Its cross-iteration hazards are versioned in the owner.
    bool versioned = false;
    for (const auto& d : a.loop().deps)
      versioned |= d.storage && d.storage->name == "a" && d.distanceKind == DistanceKind::Versioned;
    EXPECT_TRUE(versioned) << header;
  }
}

TEST(OwnershipRevised, ReadFirstSerialLoopDoesNotOwn) {
  auto a = analyzeKernelBody(kParams, std::string(kAlloc) +
                                          "for s in T.serial(4):\n"
                                          "    T.copy(a, B[s * 64:s * 64 + 64])\n"
                                          "    T.copy(A[s * 64:s * 64 + 64], a)\n");
  EXPECT_FALSE(a.storage("a").eligible);
  EXPECT_EQ(a.storage("a").reason,
            "it is read before it is written in an iteration of loop 's' (line 7) (read at line "
            "8)");
}

TEST(OwnershipRevised, DeepestWriteFirstLoopOwnsWhateverItsKind) {
  // The inner serial loop is write-first: it owns, not the pipelined loop.
  auto a = analyzeKernelBody(kParams,
                             std::string(kAlloc) +
                                 "for s in T.Pipelined(2, num_stages=3):\n"
                                 "    for k in T.serial(2):\n"
                                 "        T.copy(A[s * 128 + k * 64:s * 128 + k * 64 + 64], a)\n"
                                 "        T.copy(a, B[s * 128 + k * 64:s * 128 + k * 64 + 64])\n");
  EXPECT_EQ(ownerVars(a.storage("a")), std::vector<std::string>{"k"});
  // k has no num_stages: the nearest enclosing loop's bounds it.
  EXPECT_EQ(a.storage("a").versionBound, 3);
  for (const auto& d : a.loop(0).deps) EXPECT_NE(d.distanceKind, DistanceKind::Versioned);
}

TEST(OwnershipRevised, SerialOuterLoopOwnsWhatItsInnerLoopReadsFirst) {
  // The inner loop reads `a` that the outer iteration wrote: the outer serial
  // loop is the owner, and the inner loop sees an ordinary storage.
  auto a = analyzeKernelBody(kParams, std::string(kAlloc) +
                                          "for s in T.serial(4):\n"
                                          "    T.copy(A[s * 64:s * 64 + 64], a)\n"
                                          "    for k in T.Pipelined(2, num_stages=2):\n"
                                          "        T.copy(a, B[s * 64:s * 64 + 64])\n");
  EXPECT_EQ(ownerVars(a.storage("a")), std::vector<std::string>{"s"});
  // s has no num_stages and nothing encloses it.
  EXPECT_EQ(a.storage("a").versionBound, 1);
}

// ------------------------------------------------------------ one-trip loops

TEST(OwnershipRevised, OneTripLoopIsTransparent) {
  // A one-trip pipelined loop inside a serial loop: its body belongs to s.
  auto a = analyzeKernelBody(kParams, std::string(kAlloc) +
                                          "for s in T.serial(4):\n"
                                          "    for r in T.Pipelined(1, num_stages=2):\n"
                                          "        T.copy(A[s * 64:s * 64 + 64], a)\n"
                                          "        T.copy(a, B[s * 64:s * 64 + 64])\n");
  EXPECT_EQ(ownerVars(a.storage("a")), std::vector<std::string>{"s"});
  // r's num_stages bounds nothing (r is inside s, not around it); s has none
  // and no loop around s has one.
  EXPECT_EQ(a.storage("a").versionBound, 1);
}

TEST(OwnershipRevised, OneTripLoopAtTheRootOwnsNothing) {
  auto a = copyThrough("for r in T.serial(1):");
  EXPECT_FALSE(a.storage("a").eligible);
  EXPECT_EQ(a.storage("a").reason,
            "its only loop 'r' (line 7) has one trip, so no iteration follows to overlap with");
}

TEST(OwnershipRevised, OneTripLoopDoesNotSplitSiblings) {
  // Writes inside a one-trip loop and reads after it are one iteration of s.
  auto a = analyzeKernelBody(kParams, std::string(kAlloc) +
                                          "for s in T.serial(4):\n"
                                          "    for r in range(1):\n"
                                          "        T.copy(A[s * 64:s * 64 + 64], a)\n"
                                          "    T.copy(a, B[s * 64:s * 64 + 64])\n");
  EXPECT_EQ(ownerVars(a.storage("a")), std::vector<std::string>{"s"});
}

// ------------------------------------------------------------ complementary guards

TEST(OwnershipRevised, IfElseWritesTogetherAreWriteFirst) {
  auto a = analyzeKernelBody(kParams, std::string(kAlloc) +
                                          "for s in T.serial(4):\n"
                                          "    if s < 2:\n"
                                          "        T.copy(A[s * 64:s * 64 + 64], a)\n"
                                          "    else:\n"
                                          "        T.copy(B[s * 64:s * 64 + 64], a)\n"
                                          "    T.copy(a, C[s * 64:s * 64 + 64])\n");
  EXPECT_TRUE(a.storage("a").eligible) << a.storage("a").reason;
  EXPECT_EQ(ownerVars(a.storage("a")), std::vector<std::string>{"s"});
  // The read is unconditional: every iteration of s is an active epoch.
  EXPECT_FALSE(a.storage("a").guardedEpoch);
}

TEST(OwnershipRevised, IfAndIfNotWritesTogetherAreWriteFirst) {
  for (const char* negation : {"not (s % 2 == 0)", "s % 2 != 0"}) {
    auto a = analyzeKernelBody(kParams, std::string(kAlloc) +
                                            "for s in T.Pipelined(4, num_stages=2):\n"
                                            "    if s % 2 == 0:\n"
                                            "        T.copy(A[s * 64:s * 64 + 64], a)\n"
                                            "    if " +
                                            negation +
                                            ":\n"
                                            "        T.copy(B[s * 64:s * 64 + 64], a)\n"
                                            "    T.copy(a, C[s * 64:s * 64 + 64])\n");
    EXPECT_TRUE(a.storage("a").eligible) << negation << ": " << a.storage("a").reason;
  }
}

TEST(OwnershipRevised, NestedComplementaryGuardsCombine) {
  // (c and d) + (c and not d) = c; c + not c = always.
  auto a = analyzeKernelBody(kParams, std::string(kAlloc) +
                                          "for s in T.serial(8):\n"
                                          "    if s < 4:\n"
                                          "        if s % 2 == 0:\n"
                                          "            T.copy(A[s * 32:s * 32 + 64], a)\n"
                                          "        else:\n"
                                          "            T.copy(B[s * 32:s * 32 + 64], a)\n"
                                          "    else:\n"
                                          "        T.fill(a, 1.0)\n"
                                          "    T.copy(a, C[s * 32:s * 32 + 64])\n");
  EXPECT_TRUE(a.storage("a").eligible) << a.storage("a").reason;
}

TEST(OwnershipRevised, OneSidedGuardedWriteIsNotWriteFirst) {
  for (const char* second : {"    if s < 3:\n", "    if s >= 3:\n"}) {
    // `s < 2` and `s >= 3` (or `s < 3`) leave s == 2 without a write.
    auto a = analyzeKernelBody(kParams, std::string(kAlloc) +
                                            "for s in T.serial(4):\n"
                                            "    if s < 2:\n"
                                            "        T.copy(A[s * 64:s * 64 + 64], a)\n" +
                                            second +
                                            "        T.copy(B[s * 64:s * 64 + 64], a)\n"
                                            "    T.copy(a, C[s * 64:s * 64 + 64])\n");
    EXPECT_FALSE(a.storage("a").eligible) << second;
  }
}

TEST(OwnershipRevised, ComplementaryWritesMustPrecedeTheRead) {
  auto a = analyzeKernelBody(kParams, std::string(kAlloc) +
                                          "for s in T.serial(4):\n"
                                          "    if s < 2:\n"
                                          "        T.copy(A[s * 64:s * 64 + 64], a)\n"
                                          "    T.copy(a, C[s * 64:s * 64 + 64])\n"
                                          "    if s >= 2:\n"
                                          "        T.copy(B[s * 64:s * 64 + 64], a)\n");
  EXPECT_FALSE(a.storage("a").eligible);
  EXPECT_NE(a.storage("a").reason.find("read at line 10"), std::string::npos)
      << a.storage("a").reason;
}

TEST(OwnershipRevised, AConditionThatLoadsTheStorageReadsItFirst) {
  auto a = analyzeKernelBody(kParams, std::string(kAlloc) +
                                          "for s in T.Pipelined(4, num_stages=2):\n"
                                          "    if a[0] > 0.0:\n"
                                          "        T.copy(A[s * 64:s * 64 + 64], a)\n"
                                          "    T.copy(B[s * 64:s * 64 + 64], a)\n"
                                          "    T.copy(a, C[s * 64:s * 64 + 64])\n");
  EXPECT_FALSE(a.storage("a").eligible);
  EXPECT_NE(a.storage("a").reason.find("read at line 9"), std::string::npos)
      << a.storage("a").reason;
}

// ------------------------------------------------------------ fills outside loops

TEST(OwnershipRevised, WholeBufferFillOutsideEveryLoopIsBroadcast) {
  for (const char* fill : {"T.fill(a, 0.0)", "T.clear(a)", "T.fill(a[0:64], 2.0)"}) {
    auto a = analyzeKernelBody(kParams, std::string(kAlloc) + fill +
                                            "\n"
                                            "for s in T.serial(4):\n"
                                            "    T.copy(A[s * 64:s * 64 + 64], a)\n"
                                            "    T.copy(a, B[s * 64:s * 64 + 64])\n"
                                            "T.clear(a)\n");
    const auto& so = a.storage("a");
    EXPECT_TRUE(so.eligible) << fill << ": " << so.reason;
    EXPECT_EQ(ownerVars(so), std::vector<std::string>{"s"});
    // Both fills, in program order, for lowering to write to every version.
    ASSERT_EQ(so.broadcastFills.size(), 2u) << fill;
    EXPECT_EQ(so.broadcastFills[0]->loc.line, 7u);
    EXPECT_EQ(so.broadcastFills[1]->loc.line, 11u);
    EXPECT_NE(ir::as<ir::FillStmt>(so.broadcastFills[0]), nullptr);
  }
}

TEST(OwnershipRevised, FillThroughAWholeAliasIsBroadcast) {
  auto a = analyzeKernelBody(kParams, std::string(kAlloc) +
                                          "v = T.view(a, (8, 8))\n"
                                          "T.clear(v)\n"
                                          "for s in T.serial(4):\n"
                                          "    T.copy(A[s * 64:s * 64 + 64], a)\n"
                                          "    T.copy(a, B[s * 64:s * 64 + 64])\n");
  EXPECT_TRUE(a.storage("a").eligible) << a.storage("a").reason;
  EXPECT_EQ(a.storage("a").broadcastFills.size(), 1u);
}

TEST(OwnershipRevised, FillInsideAOneTripLoopAtTheRootIsOutsideEveryLoop) {
  auto a = analyzeKernelBody(kParams, std::string(kAlloc) +
                                          "for r in T.serial(1):\n"
                                          "    T.clear(a)\n"
                                          "for s in T.serial(4):\n"
                                          "    T.copy(A[s * 64:s * 64 + 64], a)\n"
                                          "    T.copy(a, B[s * 64:s * 64 + 64])\n");
  EXPECT_TRUE(a.storage("a").eligible) << a.storage("a").reason;
  EXPECT_EQ(a.storage("a").broadcastFills.size(), 1u);
}

TEST(OwnershipRevised, OtherAccessesOutsideTheOwnerStillBlock) {
  // A partial fill, a read and a copy into the buffer at the root.
  for (const char* root : {"T.fill(a[0:32], 0.0)", "T.copy(a, C[0:64])", "T.copy(A[0:64], a)"}) {
    auto a = analyzeKernelBody(kParams, std::string(kAlloc) + root +
                                            "\n"
                                            "for s in T.serial(4):\n"
                                            "    T.copy(A[s * 64:s * 64 + 64], a)\n"
                                            "    T.copy(a, B[s * 64:s * 64 + 64])\n");
    const auto& so = a.storage("a");
    EXPECT_FALSE(so.eligible) << root;
    EXPECT_EQ(so.reason,
              "it is accessed outside every loop (line 7), where only a T.fill or T.clear of the "
              "whole buffer may be")
        << root;
    EXPECT_TRUE(so.broadcastFills.empty());
  }
}

TEST(OwnershipRevised, FilledAccumulatorReadFirstInTheLoopStaysIneligible) {
  // The classic accumulator: the fill does not make the loop write-first.
  auto a = analyzeKernelBody(kParams, std::string(kAlloc) +
                                          "T.clear(a)\n"
                                          "for s in T.serial(4):\n"
                                          "    for i in T.Parallel(64):\n"
                                          "        a[i] = a[i] + A[s * 64 + i]\n"
                                          "T.copy(a, B[0:64])\n");
  EXPECT_FALSE(a.storage("a").eligible);
}

// ------------------------------------------------------------ explicit claims

TEST(OwnershipRevised, NestedExplicitClaimsAreAnError) {
  auto a = analyzeKernelBody(
      kParams,
      std::string(kAlloc) +
          "for s in T.Pipelined(2, num_stages=2, annotations={\"multi_buffer_eligible\": [a]}):\n"
          "    for k in T.serial(2, annotations={\"multi_buffer_eligible\": [a]}):\n"
          "        T.copy(A[s * 128 + k * 64:s * 128 + k * 64 + 64], a)\n"
          "        T.copy(a, B[s * 128 + k * 64:s * 128 + k * 64 + 64])\n");
  auto e = errors(a);
  ASSERT_EQ(e.size(), 1u) << a.diags->renderAll();
  EXPECT_EQ(e[0],
            "'a' is claimed by nested loops 's' (line 7) and 'k' (line 8); owners cannot nest, so "
            "name it in the multi_buffer_eligible claim of only one of them");
  EXPECT_EQ(a.diags->all()[0].loc.line, 8u);
  EXPECT_FALSE(a.storage("a").eligible);
  EXPECT_TRUE(a.warnings().empty()) << a.diags->renderAll();
}

TEST(OwnershipRevised, SiblingExplicitClaimsOnSerialLoopsAreTwoOwners) {
  auto a = analyzeKernelBody(
      kParams, std::string(kAlloc) +
                   "T.clear(a)\n"
                   "for s in T.serial(2, annotations={\"multi_buffer_eligible\": [a]}):\n"
                   "    T.copy(a, B[s * 64:s * 64 + 64])\n"
                   "for t in T.serial(2, annotations={\"multi_buffer_eligible\": [a]}):\n"
                   "    T.copy(A[t * 64:t * 64 + 64], a)\n"
                   "    T.fill(a[0:8], 1.0)\n"
                   "T.fill(a[0:8], 3.0)\n");
  const auto& so = a.storage("a");
  EXPECT_TRUE(so.eligible);
  EXPECT_EQ(ownerVars(so), (std::vector<std::string>{"s", "t"}));
  EXPECT_TRUE(errors(a).empty()) << a.diags->renderAll();
  // Fills outside the claiming loops are broadcast, whole or not; the one
  // inside t is an ordinary write of t's epoch.
  ASSERT_EQ(so.broadcastFills.size(), 2u);
  EXPECT_EQ(so.broadcastFills[0]->loc.line, 7u);
  EXPECT_EQ(so.broadcastFills[1]->loc.line, 13u);
  EXPECT_TRUE(so.autoPicksCounter());  // two owners share one counter
}

// ------------------------------------------------------------ version bound

TEST(OwnershipRevised, VersionBoundComesFromTheOwnerOrTheNearestEnclosingNumStages) {
  struct Case {
    std::string loops;  // the headers of the owner's loop nest, outermost first
    int64_t bound;
  };
  std::vector<Case> cases = {
      {"for s in T.Pipelined(4, num_stages=3):", 3},
      {"for s in T.serial(4):", 1},
      {"for s in T.serial(4, annotations={\"num_stages\": 3}):", 3},
      {"with T.Persistent(4, num_stages=2) as s:", 2},
      {"with T.Persistent(4) as s:", 1},
      // The owner has none: the nearest enclosing loop that has one.
      {"for o in T.Pipelined(2, num_stages=4):\n    for s in T.serial(4):", 4},
      {"for o in T.Pipelined(2, num_stages=4):\n    for m in T.Pipelined(2, num_stages=2):\n"
       "        for s in T.unroll(2):",
       2},
      {"for o in T.Pipelined(2, num_stages=4):\n    for m in T.serial(2):\n"
       "        for s in range(2):",
       4},
      {"with T.Persistent(2, num_stages=3) as o:\n    for s in T.serial(2):", 3},
      {"with T.Persistent(2) as o:\n    for s in T.serial(2):", 1},
      // A T.Pipelined owner always has one (default 1, SPEC §1.4).
      {"for o in T.Pipelined(2, num_stages=4):\n    for s in T.Pipelined(4):", 1},
  };
  for (const auto& c : cases) {
    std::string body = c.loops + "\n";
    std::string pad(4 * (1 + std::count(c.loops.begin(), c.loops.end(), '\n')), ' ');
    body += pad + "T.copy(A[0:64], a)\n" + pad + "T.copy(a, B[0:64])\n";
    auto a = analyzeKernelBody(kParams, std::string(kAlloc) + body);
    const auto& so = a.storage("a");
    EXPECT_EQ(ownerVars(so), std::vector<std::string>{"s"}) << c.loops;
    EXPECT_EQ(so.versionBound, c.bound) << c.loops;
  }
}

TEST(OwnershipRevised, SiblingOwnersTakeTheLargestBound) {
  auto a = analyzeKernelBody(kParams, std::string(kAlloc) +
                                          "for o in T.Pipelined(2, num_stages=3):\n"
                                          "    for s in T.serial(4):\n"
                                          "        T.copy(A[s * 64:s * 64 + 64], a)\n"
                                          "        T.copy(a, B[s * 64:s * 64 + 64])\n"
                                          "for t in T.Pipelined(4, num_stages=2):\n"
                                          "    T.copy(B[t * 64:t * 64 + 64], a)\n"
                                          "    T.copy(a, C[t * 64:t * 64 + 64])\n");
  EXPECT_EQ(ownerVars(a.storage("a")), (std::vector<std::string>{"s", "t"}));
  EXPECT_EQ(a.storage("a").versionBound, 3);
  EXPECT_EQ(a.ka.root.exclusions.size(), 1u);
}

// ------------------------------------------------------------ epochs

TEST(OwnershipRevised, UnconditionalAffineSerialOwnerIsIterationMode) {
  auto a = copyThrough("for s in T.serial(4):");
  EXPECT_EQ(ownerVars(a.storage("a")), std::vector<std::string>{"s"});
  EXPECT_FALSE(a.storage("a").guardedEpoch);
  EXPECT_FALSE(a.storage("a").nonAffineNest);
  EXPECT_FALSE(a.storage("a").autoPicksCounter());
}

TEST(OwnershipRevised, OwnerUnderAConditionHasAGuardedEpoch) {
  for (const char* header :
       {"if bx > 0:\n    for s in T.serial(4):",
        "for o in T.serial(2):\n    if o > 0:\n        for s in T.serial(4):"}) {
    std::string h = header;
    std::string pad(4 * (1 + std::count(h.begin(), h.end(), '\n')), ' ');
    auto a = analyzeKernelBody(kParams, std::string(kAlloc) + h + "\n" + pad +
                                            "T.copy(A[0:64], a)\n" + pad + "T.copy(a, B[0:64])\n");
    EXPECT_EQ(ownerVars(a.storage("a")), std::vector<std::string>{"s"}) << header;
    EXPECT_TRUE(a.storage("a").guardedEpoch) << header;
    EXPECT_TRUE(a.storage("a").autoPicksCounter()) << header;
  }
}

TEST(OwnershipRevised, GuardedAccessInsideAOneTripLoopIsAGuardedEpoch) {
  auto a = analyzeKernelBody(kParams, std::string(kAlloc) +
                                          "for s in T.serial(4):\n"
                                          "    for r in T.serial(1):\n"
                                          "        if s > 0:\n"
                                          "            T.copy(A[0:64], a)\n"
                                          "            T.copy(a, B[0:64])\n");
  EXPECT_EQ(ownerVars(a.storage("a")), std::vector<std::string>{"s"});
  EXPECT_TRUE(a.storage("a").guardedEpoch);
}

TEST(OwnershipRevised, AWriteInALoopThatMayNotRunIsNotWriteFirst) {
  // `s + 1` trips: the analysis cannot prove the inner loop runs, so its write
  // initialises nothing for the read after it (a zero-trip loop made `double`
  // read a stale version: tests/random/regress/zero_trip_inner_loop_is_not_write_first.py).
  for (const char* trips : {"s + 1", "0"}) {
    auto a = analyzeKernelBody(kParams, std::string(kAlloc) +
                                            "for s in T.serial(4):\n"
                                            "    for k in T.serial(" +
                                            trips +
                                            "):\n"
                                            "        T.copy(A[k * 64:k * 64 + 64], a)\n"
                                            "    T.copy(a, B[s * 64:s * 64 + 64])\n");
    EXPECT_FALSE(a.storage("a").eligible) << trips;
    EXPECT_TRUE(ownerVars(a.storage("a")).empty()) << trips;
  }
}

TEST(OwnershipRevised, AnEpochIsActiveWhenAnAccessSurelyRuns) {
  // The only unconditional access is in a nested loop with a constant trip
  // count: it surely runs, so the epoch is not guarded.
  for (const char* trips : {"2"}) {
    auto a = analyzeKernelBody(kParams, std::string(kAlloc) +
                                            "for s in T.serial(4):\n"
                                            "    for k in T.serial(" +
                                            trips +
                                            "):\n"
                                            "        T.copy(A[k * 64:k * 64 + 64], a)\n"
                                            "    if s > 0:\n"
                                            "        T.copy(a, B[s * 64:s * 64 + 64])\n");
    EXPECT_EQ(ownerVars(a.storage("a")), std::vector<std::string>{"s"}) << trips;
    EXPECT_EQ(a.storage("a").guardedEpoch, std::string(trips) != "2") << trips;
  }
}

TEST(OwnershipRevised, BoundsDependingOnAnOuterLoopAreNonAffine) {
  auto a = analyzeKernelBody(kParams, std::string(kAlloc) +
                                          "for o in T.serial(4):\n"
                                          "    for s in T.serial(o + 1):\n"
                                          "        T.copy(A[s * 64:s * 64 + 64], a)\n"
                                          "        T.copy(a, B[s * 64:s * 64 + 64])\n");
  EXPECT_EQ(ownerVars(a.storage("a")), std::vector<std::string>{"s"});
  EXPECT_TRUE(a.storage("a").nonAffineNest);
  EXPECT_FALSE(a.storage("a").guardedEpoch);
  EXPECT_TRUE(a.storage("a").autoPicksCounter());
}

// ------------------------------------------------------------ annotations

TEST(OwnershipRevised, CountAndModeThroughTwoAliasesCombine) {
  auto a = analyzeKernelBody(kParams, std::string(kAlloc) +
                                          "v = T.view(a, (8, 8))\n"
                                          "T.annotate_buffer_versions({a: 2, v: \"counter\"})\n"
                                          "for s in T.serial(4):\n"
                                          "    T.copy(A[s * 64:s * 64 + 64], a)\n"
                                          "    T.copy(a, B[s * 64:s * 64 + 64])\n");
  EXPECT_TRUE(a.diags->all().empty()) << a.diags->renderAll();
  const auto& specs = a.program->kernels.at(0).annotations.bufferVersions;
  ASSERT_EQ(specs.size(), 1u);
  EXPECT_EQ(specs[0].count, 2);
  EXPECT_EQ(specs[0].mode, ir::VersionMode::Counter);
  EXPECT_TRUE(a.storage("a").eligible);
}

TEST(OwnershipRevised, OptOutCountAndAModeThroughAnotherAliasKeepEligibility) {
  // {a: 1} alone opts out; with a mode through v it is (1, "iteration").
  auto a = analyzeKernelBody(kParams, std::string(kAlloc) +
                                          "v = T.view(a, (8, 8))\n"
                                          "T.annotate_buffer_versions({v: \"iteration\", a: 1})\n"
                                          "for s in T.serial(4):\n"
                                          "    T.copy(A[s * 64:s * 64 + 64], a)\n"
                                          "    T.copy(a, B[s * 64:s * 64 + 64])\n");
  EXPECT_TRUE(a.diags->all().empty()) << a.diags->renderAll();
  const auto& specs = a.program->kernels.at(0).annotations.bufferVersions;
  ASSERT_EQ(specs.size(), 1u);
  EXPECT_EQ(specs[0].count, 1);
  EXPECT_EQ(specs[0].mode, ir::VersionMode::Iteration);
  EXPECT_FALSE(a.storage("a").optOut);
  EXPECT_TRUE(a.storage("a").eligible);
}

// ------------------------------------------------------------ output

TEST(OwnershipRevised, ReportAndTaskGraphShowBoundEpochAndFills) {
  auto a = analyzeKernelBody(kParams, std::string(kAlloc) +
                                          "T.clear(a)\n"
                                          "for o in T.Pipelined(2, num_stages=3):\n"
                                          "    for s in T.serial(o + 1):\n"
                                          "        T.copy(A[s * 64:s * 64 + 64], a)\n"
                                          "        T.copy(a, B[s * 64:s * 64 + 64])\n");
  nlohmann::json entry = {{"buffers", {{{"name", "a"}}}}};
  annotateKernelReport(entry, a.ka);
  const auto& b = entry["buffers"][0];
  EXPECT_EQ(b["eligible"], true);
  EXPECT_EQ(b["version_bound"], 3);
  EXPECT_EQ(b["non_affine_nest"], true);
  EXPECT_EQ(b["guarded_epoch"], false);
  EXPECT_EQ(b["broadcast_fill_lines"], nlohmann::json::array({7}));
  std::string text = printTaskGraph(a.ka);
  EXPECT_NE(text.find("eligible, owners: s (line 9), bound 3, non-affine nest, broadcast fills: "
                      "line 7"),
            std::string::npos)
      << text;
}
