// The core group of a manual-form kernel in the cycle simulator: the AIC
// and the AIVs run concurrently, a cross-core flag is a counter, and the
// target's cross_core_flag_latency delays the wait a set releases.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "SimTestUtil.h"

namespace tilesched::sim::test {
namespace {

// The AIC loads a tile into L1 while AIV 0 loads and stores its own; the
// AIV then waits for the AIC's MTE2 flag before it stores a second time.
const char* kHandOff = R"(import tilelang.language as T

@T.prim_func
def main(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float32")):
    with T.Kernel(1) as bx:
        l1 = T.alloc_l1((64,), "float32")
        ub = T.alloc_ub((64,), "float32")
        with T.Cube():
            T.copy(A, l1)
            T.ascend_cross_core_set_flag(4, "PIPE_MTE2", 3)
        with T.Vector(vector=1):
            T.copy(A, ub)
            T.ascend_set_flag("MTE2_MTE3", 0)
            T.ascend_wait_flag("MTE2_MTE3", 0)
            T.ascend_cross_core_wait_flag(4, "PIPE_MTE3", 3)
            T.copy(ub, B)
)";

SimResult simulateWithLatency(Harness& h, int64_t latency) {
  Target target = testTarget();
  target.coreGroup.crossCoreFlagLatency = latency;
  SimOptions o;
  return sim::simulate(h.kernel(), target, *h.memory, o);
}

TEST(CoreGroup, CrossCoreFlagLatencyDelaysTheWait) {
  Harness h(kHandOff);
  h.set("A", std::vector<double>(64, 2.0));
  SimResult base = simulateWithLatency(h, 0);
  ASSERT_TRUE(base.issues.empty()) << base.issues.front().message;
  EXPECT_TRUE(base.races.empty());
  SimResult late = simulateWithLatency(h, 1000);
  ASSERT_TRUE(late.issues.empty()) << late.issues.front().message;
  EXPECT_TRUE(late.races.empty());
  ASSERT_EQ(base.blocks.size(), 1u);
  ASSERT_EQ(late.blocks.size(), 1u);
  // The store waits for the set plus the latency, and nothing else moves.
  EXPECT_EQ(late.blocks[0].cycles - base.blocks[0].cycles, 1000);
  EXPECT_EQ(h.get("B"), std::vector<double>(64, 2.0));
}

// The AIC sets one flag 20 times, each after a load; AIV 0 takes them one by
// one as they come. On the hardware (and in the cycle simulator) at most one
// set is pending; the reference, which runs the AIC first, must not call
// that an overfilled counter.
std::string producerAhead(int waits) {
  return fmt::format(R"(import tilelang.language as T

@T.prim_func
def main(A: T.Tensor((1280,), "float32"), B: T.Tensor((64,), "float32")):
    with T.Kernel(1) as bx:
        l1 = T.alloc_l1((1280,), "float32")
        ub = T.alloc_ub((64,), "float32")
        with T.Cube():
            for i in T.serial(20):
                T.copy(A[i * 64:(i + 1) * 64], l1[i * 64:(i + 1) * 64])
                T.ascend_cross_core_set_flag(4, "PIPE_MTE2", 3)
        with T.Vector(vector=1):
            for i in T.serial({}):
                T.ascend_cross_core_wait_flag(4, "PIPE_S", 3)
            T.copy(A[0:64], ub)
            T.ascend_set_flag("MTE2_MTE3", 0)
            T.ascend_wait_flag("MTE2_MTE3", 0)
            T.copy(ub, B)
)",
                     waits);
}

TEST(CoreGroup, TheReferenceLetsAProducerWaitForRoom) {
  auto run = runAsWritten(producerAhead(20));
  EXPECT_FALSE(run.referenceError) << run.referenceError->message;
  EXPECT_TRUE(run.sim.issues.empty()) << run.sim.issues.front().message;
  EXPECT_TRUE(run.ok());
}

TEST(CoreGroup, ACounterNobodyDrainsIsADeadlockOfTheReference) {
  auto run = runAsWritten(producerAhead(2));
  ASSERT_TRUE(run.referenceError);
  EXPECT_NE(run.referenceError->message.find(
                "AIC sets cross-core flag 3 of AIV 0 (set by the AIC with id 3) at line 11, which "
                "holds 15 pending sets (the most the hardware keeps) that no core takes any more"),
            std::string::npos)
      << run.referenceError->message;
  EXPECT_EQ(run.referenceError->loc.line, 11u);
}

// An AIV takes a run-time flag id mod 16 (upstream's files write
// `6 + 16 * sid` on the vector side); past 31 it is an error in both runs (a
// constant one is the front end's).
std::string aivWaitsOn(const std::string& id) {
  return fmt::format(R"(import tilelang.language as T

@T.prim_func
def main(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float32")):
    with T.Kernel(1) as bx:
        ub = T.alloc_ub((64,), "float32")
        with T.Cube():
            T.ascend_cross_core_set_flag(4, "PIPE_S", 1)
        with T.Vector(vector=1):
            T.ascend_cross_core_wait_flag(4, "PIPE_S", {})
            T.copy(A, ub)
            T.ascend_set_flag("MTE2_MTE3", 0)
            T.ascend_wait_flag("MTE2_MTE3", 0)
            T.copy(ub, B)
)",
                     id);
}

TEST(CoreGroup, AnAivTakesItsRunTimeFlagIdMod16) {
  auto run = runAsWritten(aivWaitsOn("bx + 17"));
  EXPECT_FALSE(run.referenceError) << run.referenceError->message;
  EXPECT_TRUE(run.sim.issues.empty()) << run.sim.issues.front().message;
  EXPECT_TRUE(run.ok());

  auto outside = runAsWritten(aivWaitsOn("bx + 33"));
  ASSERT_TRUE(outside.referenceError);
  EXPECT_NE(outside.referenceError->message.find(
                "AIV 0: flag id 33 is outside the pool (0-31 on both sides: an AIV takes its id "
                "mod 16, the AIC addresses AIV s as id + 16 * s)"),
            std::string::npos)
      << outside.referenceError->message;
  EXPECT_EQ(outside.referenceError->loc.line, 10u);
  EXPECT_TRUE(hasIssue(outside.sim, SimIssue::Flag, "flag id 33 is outside the pool"));
}

// A plain L0C -> UB copy lands in AIV 0's UB only: AIV 1 stores bytes nothing
// wrote, and the poison error names AIV 1's copy of the buffer.
TEST(CoreGroup, PoisonNamesTheAivWhoseCopyWasNeverWritten) {
  auto run = runAsWritten(R"(import tilelang.language as T

@T.prim_func
def main(X: T.Tensor((16, 16), "float16"), C: T.Tensor((32, 16), "float32")):
    with T.Kernel(1) as bx:
        x_l1 = T.alloc_l1((16, 16), "float16")
        acc = T.alloc_l0c((16, 16), "float32")
        ub = T.alloc_ub((16, 16), "float32")
        with T.Cube():
            T.copy(X, x_l1)
            T.ascend_set_flag("MTE2_MTE1", 0)
            T.ascend_wait_flag("MTE2_MTE1", 0)
            T.gemm(x_l1, x_l1, acc, clear_accum=True)
            T.ascend_set_flag("M_FIX", 0)
            T.ascend_wait_flag("M_FIX", 0)
            T.copy(acc, ub)
            T.ascend_cross_core_set_flag(4, "PIPE_FIX", 1)
            T.ascend_cross_core_set_flag(4, "PIPE_FIX", 17)
        with T.Vector() as sid:
            T.ascend_cross_core_wait_flag(4, "PIPE_MTE3", 1)
            T.copy(ub, C[sid * 16, 0])
)");
  EXPECT_TRUE(hasIssue(run.sim, SimIssue::Runtime,
                       "derived from 'ub' of AIV 1 bytes [0, 4), which hold poison: it comes "
                       "from 'ub' of AIV 1, which nothing writes in this block"));
  EXPECT_FALSE(run.ok());
}

}  // namespace
}  // namespace tilesched::sim::test
