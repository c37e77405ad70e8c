// Sampled runs (docs/simulator.md "Sampled runs"): a kernel whose global
// tensors exceed the simulator's 1 GiB runs its first and last block on
// demand-paged global memory. The expected sums below are computed in the test
// from the inputs, and the filled bytes show that nothing else was touched.
#include <gtest/gtest.h>

#include <cstring>

#include "sim/SimTestUtil.h"

namespace tilesched {
namespace {

using sim::Memory;
using sim::Scalar;

constexpr int64_t kN = int64_t(1) << 28;  // 1 GiB per float32 tensor, 3 GiB in all
constexpr int64_t kGrid = 4096;
constexpr int64_t kPerBlock = kN / kGrid;  // 65536 elements = 64 pages of 4 KiB

std::string bigAdd(const std::string& op) {
  return "import tilelang.language as T\n\n@T.prim_func\n"
         "def main(A: T.Tensor((268435456,), \"float32\"), B: T.Tensor((268435456,), "
         "\"float32\"), C: T.Tensor((268435456,), \"float32\")):\n"
         "    with T.Kernel(4096) as bx:\n"
         "        a = T.alloc_ub((8192,), \"float32\")\n"
         "        b = T.alloc_ub((8192,), \"float32\")\n"
         "        for i in T.serial(8):\n"
         "            base = bx * 65536 + i * 8192\n"
         "            T.copy(A[base:base + 8192], a)\n"
         "            T.copy(B[base:base + 8192], b)\n"
         "            for j in T.Parallel(8192):\n"
         "                a[j] = a[j] " +
         op +
         " b[j]\n"
         "            T.copy(a, C[base:base + 8192])\n";
}

ir::Program compiled(const std::string& text) {
  std::string errors;
  auto p = sim::test::compileText(text, &errors);
  if (!p) throw std::runtime_error(errors);
  return std::move(*p);
}

float floatAt(Memory& m, int storage, int64_t e) {
  float f;
  std::memcpy(&f, m.bytesAt(storage, e * 4, 4), 4);
  return f;
}

TEST(GenerateInput, AnyRangeIsWhatTheWholeTensorHolds) {
  for (ir::DType t : {ir::DType::Float32, ir::DType::Float16, ir::DType::Int8, ir::DType::Int32}) {
    int eb = ir::dtypeBytes(t);
    std::vector<uint8_t> whole(static_cast<size_t>(10000 * eb));
    sim::generateInput(whole, t, 7, "X");
    for (auto [first, count] : {std::pair<int64_t, int64_t>{0, 10000}, {1234, 555}, {9999, 1}}) {
      std::vector<uint8_t> part(static_cast<size_t>(count * eb));
      sim::generateInputElements(part.data(), t, 7, "X", first, count);
      EXPECT_EQ(0, std::memcmp(part.data(), whole.data() + first * eb, part.size()))
          << ir::dtypeName(t) << " [" << first << ", " << first + count << ")";
    }
  }
}

TEST(SampledRun, OnlyTheTensorsBeyondTheLimitAreSampled) {
  ir::Program big = compiled(bigAdd("+"));
  EXPECT_TRUE(sim::needsSampling(big.kernels.front()));
  EXPECT_EQ(sim::sampledBlocks(kGrid), (std::vector<int64_t>{0, kGrid - 1}));
  EXPECT_EQ(sim::sampledBlocks(1), (std::vector<int64_t>{0}));
  // Without sampling the kernel is beyond the limits; sampled it fits.
  EXPECT_TRUE(sim::checkSimulationLimits(big.kernels.front()));
  EXPECT_FALSE(sim::checkSimulationLimits(big.kernels.front(), true));
  ir::Program small = compiled(sim::test::kernelText(
      "A: T.Tensor((64,), \"float32\")", "a = T.alloc_ub((64,), \"float32\")\nT.copy(A, a)"));
  EXPECT_FALSE(sim::needsSampling(small.kernels.front()));
}

// The reference semantics on demand-paged memory, blocks 0 and 4095: every C
// element they own is A + B (computed here), and only their pages were filled.
TEST(SampledRun, DemandPagedMemoryFillsOnlyWhatTheBlocksTouch) {
  ir::Program p = compiled(bigAdd("+"));
  const ir::Kernel& k = p.kernels.front();
  Memory mem(k, /*demandPaged=*/true);
  for (const auto& param : k.params) {
    int idx = mem.index(param.buffer->storage);
    ASSERT_TRUE(mem.isPaged(idx));
    std::string name = param.name;
    mem.setChunkFill(idx, [name](int64_t offset, uint8_t* out, int64_t size) {
      sim::generateInputElements(out, ir::DType::Float32, 3, name, offset / 4, size / 4);
    });
  }
  sim::Machine m(k, mem);
  for (int64_t block : {int64_t(0), kGrid - 1}) {
    mem.resetOnChip();
    m.bindBlock(block);
    m.exec(k.body);
  }
  int a = mem.index(k.findBuffer("A")->get()->storage);
  int b = mem.index(k.findBuffer("B")->get()->storage);
  int c = mem.index(k.findBuffer("C")->get()->storage);
  EXPECT_EQ(mem.filledBytes(), 3 * 2 * kPerBlock * 4);
  for (int64_t block : {int64_t(0), kGrid - 1})
    for (int64_t e = block * kPerBlock; e < (block + 1) * kPerBlock; e += 97)
      ASSERT_EQ(floatAt(mem, c, e), floatAt(mem, a, e) + floatAt(mem, b, e)) << "C[" << e << "]";
  EXPECT_TRUE(mem.chunkFilled(c, 0));
  EXPECT_FALSE(mem.chunkFilled(c, kPerBlock * 4 / Memory::kPageChunk));  // block 1's first page
  // Unfilled pages of an input read as the generated input once touched.
  std::vector<uint8_t> expect(4);
  sim::generateInputElements(expect.data(), ir::DType::Float32, 3, "A", kN / 2, 1);
  EXPECT_EQ(0, std::memcmp(mem.bytesAt(a, kN / 2 * 4, 4), expect.data(), 4));
  // A budget stops filling: the next page is refused.
  mem.setPagedBudget(mem.filledBytes());
  EXPECT_EQ(mem.bytesAt(a, kN / 4 * 4, 4), nullptr);
}

TEST(SampledRun, RunKernelComparesThePagesTheSampledBlocksTouched) {
  ir::Program p = compiled(bigAdd("+"));
  ir::Kernel lowered = transform::lowerSerial(p.kernels.front());
  sim::RunRefusal refusal;
  auto run = sim::runKernel(p.kernels.front(), lowered, sim::test::testTarget(), {}, refusal);
  ASSERT_TRUE(run) << (refusal.errors.empty() ? "" : refusal.message());
  EXPECT_TRUE(run->ok());
  EXPECT_EQ(run->sampledBlocks, (std::vector<int64_t>{0, kGrid - 1}));
  EXPECT_EQ(run->globalBytes, 3 * kN * 4);
  ASSERT_EQ(run->sim.blocks.size(), 2u);
  EXPECT_EQ(run->sim.blocks[1].block, kGrid - 1);
  for (const auto& t : run->tensors) {
    EXPECT_EQ(t.elements, kN) << t.name;
    EXPECT_EQ(t.compared, 2 * kPerBlock) << t.name;
  }

  // A simulated kernel that subtracts: the sampled comparison sees it.
  ir::Program wrong = compiled(bigAdd("-"));
  ir::Kernel wrongLowered = transform::lowerSerial(wrong.kernels.front());
  auto bad = sim::runKernel(p.kernels.front(), wrongLowered, sim::test::testTarget(), {}, refusal);
  ASSERT_TRUE(bad);
  EXPECT_FALSE(bad->outputsMatch);
  const sim::TensorCheck* c = nullptr;
  for (const auto& t : bad->tensors)
    if (t.name == "C") c = &t;
  ASSERT_NE(c, nullptr);
  EXPECT_GT(c->mismatches, kPerBlock);  // both blocks (b == 0 in about 1 of 512 elements)
  ASSERT_FALSE(c->firstMismatches.empty());
  EXPECT_EQ(c->firstMismatches.front().rfind("C[", 0), 0u) << c->firstMismatches.front();
}

// Big inputs are made in two halves on two threads; element k must still be
// the counter generator's k-th value, for every dtype width (against a walk
// one element at a time, which is how a demand-paged chunk is made).
TEST(GeneratedInputs, HalvesOnTwoThreadsAreTheWholeSequence) {
  for (ir::DType t : {ir::DType::Float32, ir::DType::Float16, ir::DType::Int8, ir::DType::Int64}) {
    int64_t count = (int64_t{1} << 20) + 3;
    int eb = ir::dtypeBytes(t);
    std::vector<uint8_t> whole(static_cast<size_t>(count * eb));
    sim::generateInput(whole, t, 5, "X");
    std::vector<uint8_t> walk(whole.size());
    for (int64_t k = 0; k < count; k += 99991)
      sim::generateInputElements(walk.data() + k * eb, t, 5, "X", k,
                                 std::min<int64_t>(99991, count - k));
    EXPECT_TRUE(whole == walk) << ir::dtypeName(t);
  }
}

}  // namespace
}  // namespace tilesched
