// Fill and drain per pipe (analysis/FillDrain.h) on small kernels, against
// closed forms written out from each task's latency and II.
#include <gtest/gtest.h>

#include "TestUtil.h"
#include "analysis/FillDrain.h"

using namespace tilesched;
using namespace tilesched::analysis;
using tilesched::testing::analyzeKernelBody;

namespace {

const char* kParams = "A: T.Tensor((256,), \"float32\"), B: T.Tensor((256,), \"float32\")";

int64_t fillOf(const FillDrain& fd, Pipe p) { return fd.fill[pipeIndex(p)]; }
int64_t drainOf(const FillDrain& fd, Pipe p) { return fd.drain[pipeIndex(p)]; }

// A leaf task's latency (start → completion) and II (pipe occupancy).
struct Cost {
  int64_t lat, ii;
};
Cost costOf(const Unit& u) {
  EXPECT_FALSE(u.isLoop());
  EXPECT_FALSE(u.cost.secondPipe.has_value());
  return {u.cost.latency, u.cost.ii};
}

TEST(FillDrain, StreamingLoopChainsCopyInComputeCopyOut) {
  auto a = analyzeKernelBody(kParams,
                             "a = T.alloc_ub((64,), \"float32\")\n"
                             "b = T.alloc_ub((64,), \"float32\")\n"
                             "for s in T.Pipelined(4, num_stages=2):\n"
                             "    T.copy(A[s * 64:s * 64 + 64], a)\n"
                             "    for i in T.Parallel(64):\n"
                             "        b[i] = a[i] * 2.0\n"
                             "    T.copy(b, B[s * 64:s * 64 + 64])\n");
  const UnitList& body = a.loop();
  ASSERT_EQ(body.units.size(), 3u);
  Cost in = costOf(body.units[0]), vec = costOf(body.units[1]), out = costOf(body.units[2]);
  ASSERT_EQ(body.units[0].cost.pipe, Pipe::MTE2);
  ASSERT_EQ(body.units[1].cost.pipe, Pipe::V);
  ASSERT_EQ(body.units[2].cost.pipe, Pipe::MTE3);
  // A copy's latency exceeds its II: the pipe is free before the data lands.
  ASSERT_GT(in.lat, in.ii);

  FillDrain fd = computeFillDrain(a.ka, tilesched::testing::ascend950());
  EXPECT_TRUE(fd.hasTasks[pipeIndex(Pipe::MTE2)]);
  EXPECT_FALSE(fd.hasTasks[pipeIndex(Pipe::M)]);
  EXPECT_EQ(fillOf(fd, Pipe::MTE2), 0);
  EXPECT_EQ(drainOf(fd, Pipe::MTE2), (in.lat - in.ii) + vec.lat + out.lat);
  EXPECT_EQ(fillOf(fd, Pipe::V), in.lat);
  EXPECT_EQ(drainOf(fd, Pipe::V), (vec.lat - vec.ii) + out.lat);
  EXPECT_EQ(fillOf(fd, Pipe::MTE3), in.lat + vec.lat);
  EXPECT_EQ(drainOf(fd, Pipe::MTE3), out.lat - out.ii);

  // A block: each pipe's busy cycles plus its fill and drain; the largest wins.
  std::array<int64_t, kNumPipes> busy{};
  busy[pipeIndex(Pipe::MTE2)] = 4 * in.ii;
  busy[pipeIndex(Pipe::V)] = 4 * vec.ii;
  busy[pipeIndex(Pipe::MTE3)] = 4 * out.ii;
  busy[pipeIndex(Pipe::S)] = 5;
  int64_t expected = std::max({4 * in.ii + (in.lat - in.ii) + vec.lat + out.lat,
                               4 * vec.ii + in.lat + (vec.lat - vec.ii) + out.lat,
                               4 * out.ii + in.lat + vec.lat + (out.lat - out.ii), int64_t{5}});
  EXPECT_EQ(boundWithFillDrain(fd, busy), expected);
  // A pipe that did not run in the block gives no bound.
  busy[pipeIndex(Pipe::MTE2)] = 0;
  EXPECT_EQ(boundWithFillDrain(fd, busy),
            std::max(4 * vec.ii + in.lat + (vec.lat - vec.ii) + out.lat,
                     4 * out.ii + in.lat + vec.lat + (out.lat - out.ii)));
}

TEST(FillDrain, DependenciesThroughALoopUnitReachItsLeafTasks) {
  // clear (V) → loop { copy (MTE2) → accumulate (V) } → copy out (MTE3): the
  // kernel root's dependencies on the loop count between the leaf tasks.
  auto a = analyzeKernelBody(kParams,
                             "a = T.alloc_ub((64,), \"float32\")\n"
                             "acc = T.alloc_ub((64,), \"float32\")\n"
                             "T.clear(acc)\n"
                             "for s in T.Pipelined(4, num_stages=2):\n"
                             "    T.copy(A[s * 64:s * 64 + 64], a)\n"
                             "    for i in T.Parallel(64):\n"
                             "        acc[i] = acc[i] + a[i]\n"
                             "T.copy(acc, B[0:64])\n");
  const UnitList& root = a.ka.root;
  ASSERT_EQ(root.units.size(), 3u);
  ASSERT_TRUE(root.units[1].isLoop());
  const UnitList& body = a.loop();
  Cost clear = costOf(root.units[0]), out = costOf(root.units[2]);
  Cost in = costOf(body.units[0]), acc = costOf(body.units[1]);
  ASSERT_EQ(root.units[0].cost.pipe, Pipe::V);

  // V completes in order: the accumulation may start once the clear has
  // freed V (its II), not only after its completion.
  ASSERT_TRUE(tilesched::testing::ascend950().completesInOrder(Pipe::V));
  int64_t headAcc = std::max(clear.ii, in.lat);
  FillDrain fd = computeFillDrain(a.ka, tilesched::testing::ascend950());
  EXPECT_EQ(fillOf(fd, Pipe::MTE2), 0);
  EXPECT_EQ(drainOf(fd, Pipe::MTE2), (in.lat - in.ii) + acc.lat + out.lat);
  EXPECT_EQ(fillOf(fd, Pipe::V), 0);  // the clear has no predecessor
  EXPECT_EQ(drainOf(fd, Pipe::V),
            std::min(std::max(clear.lat, clear.ii + acc.lat + out.lat) - clear.ii,
                     (acc.lat - acc.ii) + out.lat));
  EXPECT_EQ(fillOf(fd, Pipe::MTE3), headAcc + acc.lat);
  EXPECT_EQ(drainOf(fd, Pipe::MTE3), out.lat - out.ii);
}

TEST(FillDrain, GuardedProducersDoNotCount) {
  // The copy may not run in an iteration, so the Parallel need not wait for it.
  auto a = analyzeKernelBody(kParams,
                             "a = T.alloc_ub((64,), \"float32\")\n"
                             "b = T.alloc_ub((64,), \"float32\")\n"
                             "for s in T.Pipelined(4, num_stages=2):\n"
                             "    if s % 2 == 0:\n"
                             "        T.copy(A[s * 64:s * 64 + 64], a)\n"
                             "    for i in T.Parallel(64):\n"
                             "        b[i] = a[i] * 2.0\n"
                             "    T.copy(b, B[s * 64:s * 64 + 64])\n");
  const UnitList& body = a.loop();
  Cost vec = costOf(body.units[1]), out = costOf(body.units[2]);
  FillDrain fd = computeFillDrain(a.ka, tilesched::testing::ascend950());
  EXPECT_EQ(fillOf(fd, Pipe::V), 0);
  EXPECT_EQ(fillOf(fd, Pipe::MTE3), vec.lat);
  EXPECT_EQ(drainOf(fd, Pipe::V), (vec.lat - vec.ii) + out.lat);
  // The guarded copy's own drain: its latency beyond its II, nothing after it.
  Cost in = costOf(body.units[0]);
  EXPECT_EQ(drainOf(fd, Pipe::MTE2), in.lat - in.ii);
}

}  // namespace
