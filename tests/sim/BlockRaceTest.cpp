// Issue 11 and issue 7 §3 in the simulator: races between blocks on global
// memory, a deadlock that names every blocked block, and store-mode atomics
// (T.set_atomic) whose inter-block accumulation is legal, deterministic
// (block-id order) and checked against closed forms.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <tuple>

#include "SimTestUtil.h"
#include "common/CliTestUtil.h"
#include "ir/Printer.h"
#include "sim/RaceDetector.h"

namespace tilesched::sim::test {
namespace {

const char* kParams = "A: T.Tensor((64,), \"float32\"), C: T.Tensor((64,), \"float32\")";

std::vector<const Race*> blockRaces(const KernelRun& run) {
  std::vector<const Race*> out;
  for (const auto& r : run.sim.races)
    if (r.betweenBlocks) out.push_back(&r);
  return out;
}

// `tilesched run FILE ARGS...` on `text` written to a temporary file.
testing_cli::CliRun runCli(const std::string& text, const std::string& stem,
                           std::vector<std::string> args) {
  auto path = std::filesystem::path(::testing::TempDir()) / (stem + ".py");
  std::ofstream(path) << text;
  args.insert(args.begin(), {"run", path.string()});
  return testing_cli::cli(std::move(args));
}

// Lines: 6 alloc, 7 load, 8 store.
std::string bothBlocksWriteAllOfC() {
  return kernelText(kParams,
                    "a = T.alloc_shared((64,), \"float32\")\n"
                    "T.copy(A, a)\n"
                    "T.copy(a, C)\n",
                    2);
}

TEST(BlockRaces, TwoBlocksWritingOneTileRace) {
  auto run = runSerial(bothBlocksWriteAllOfC());
  auto races = blockRaces(run);
  ASSERT_EQ(races.size(), 1u);
  const Race& r = *races[0];
  EXPECT_EQ(r.first.block, 0);
  EXPECT_EQ(r.second.block, 1);
  EXPECT_TRUE(r.firstWrites && r.secondWrites);
  EXPECT_FALSE(r.firstAtomic || r.secondAtomic);
  EXPECT_EQ(r.first.pipe, Pipe::MTE3);
  EXPECT_EQ(r.first.stmt->loc.line, 8u);
  EXPECT_EQ(r.second.stmt->loc.line, 8u);
  EXPECT_EQ(r.element, "C[0]");
  EXPECT_EQ(r.lo, 0);
  EXPECT_EQ(r.hi, 256);
  // Both blocks store the same values, so only the race makes the run fail;
  // both blocks read all of A, which is no race.
  EXPECT_TRUE(run.outputsMatch);
  EXPECT_FALSE(run.ok());
}

TEST(BlockRaces, MessageNamesBothBlocksInstructionsAndElement) {
  auto r = runCli(bothBlocksWriteAllOfC(), "block_race", {"--schedule", "serial"});
  EXPECT_EQ(r.code, 3) << r.out << r.err;
  std::string all = r.out + r.err;
  EXPECT_NE(all.find(":8:9: error: race between blocks 0 and 1 on global tensor 'C' (element "
                     "C[0], bytes [0, 256)): written by T.copy a -> C (MTE3) in block 1 here and "
                     "written by T.copy a -> C (MTE3) in block 0 at line 8; blocks run "
                     "concurrently on different cores with no order between them"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("note: the other access (MTE3, block 0)"), std::string::npos) << all;
}

// A scatter through an index read from an input: with run's random inputs
// the indices repeat and two blocks race; the report says the inputs may be
// the cause and how to pass the kernel's own. With a permutation as --input
// the same file passes. A race at a constant element gets no such note.
TEST(BlockRaces, DataDependentRaceSaysTheInputsMayBeTheCause) {
  std::string text = kernelText(
      "Idx: T.Tensor((8,), \"int32\"), V: T.Tensor((8,), \"float32\"), O: T.Tensor((8,), "
      "\"float32\")",
      "d = T.alloc_var(\"int32\")\n"
      "d = Idx[bx]\n"
      "if 0 <= d < 8:\n"
      "    O[d] = V[bx]",
      8);
  const std::string note =
      "note: the element is found through a value read at run time, so which elements the blocks "
      "touch depends on the inputs: inputs not given with --input are random (--seed), and may "
      "repeat where the kernel expects distinct values (a permutation, as torch.randperm makes); "
      "pass the kernel's own with --input NAME=FILE.npy";
  auto r = runCli(text, "scatter_race", {"--schedule", "serial"});
  EXPECT_EQ(r.code, 3) << r.out << r.err;
  std::string all = r.out + r.err;
  EXPECT_NE(all.find("error: race between blocks"), std::string::npos) << all;
  EXPECT_NE(all.find(":9:20: " + note), std::string::npos) << all;

  auto permNpy = std::filesystem::path(::testing::TempDir()) / "perm_idx.npy";
  {
    // A .npy of int32 [3, 0, 7, 1, 6, 2, 5, 4] written by hand (format 1.0).
    std::string header = "{'descr': '<i4', 'fortran_order': False, 'shape': (8,), }";
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    std::ofstream f(permNpy, std::ios::binary);
    f.write("\x93NUMPY\x01\x00", 8);
    uint16_t len = static_cast<uint16_t>(header.size());
    f.put(static_cast<char>(len & 0xff));
    f.put(static_cast<char>(len >> 8));
    f << header;
    for (int32_t v : {3, 0, 7, 1, 6, 2, 5, 4}) f.write(reinterpret_cast<const char*>(&v), 4);
  }
  auto ok =
      runCli(text, "scatter_perm", {"--schedule", "serial", "--input", "Idx=" + permNpy.string()});
  EXPECT_EQ(ok.code, 0) << ok.out << ok.err;

  auto constant = runCli(bothBlocksWriteAllOfC(), "block_race_const", {"--schedule", "serial"});
  EXPECT_EQ(constant.code, 3);
  EXPECT_EQ((constant.out + constant.err).find("found through a value read at run time"),
            std::string::npos);
}

TEST(BlockRaces, DisjointTilesDoNotRace) {
  auto run = runSerial(kernelText(kParams,
                                  "a = T.alloc_shared((16,), \"float32\")\n"
                                  "T.copy(A[bx * 16 : bx * 16 + 16], a)\n"
                                  "T.copy(a, C[bx * 16 : bx * 16 + 16])\n",
                                  4));
  EXPECT_TRUE(run.sim.races.empty());
  EXPECT_TRUE(run.ok());
}

TEST(BlockRaces, ReadOfAnotherBlocksTileRaces) {
  // Each block writes its half of C (line 9) and reads the other half (line 10).
  auto run = runSerial(kernelText(kParams,
                                  "a = T.alloc_shared((32,), \"float32\")\n"
                                  "b = T.alloc_shared((32,), \"float32\")\n"
                                  "T.copy(A[bx * 32 : bx * 32 + 32], a)\n"
                                  "T.copy(a, C[bx * 32 : bx * 32 + 32])\n"
                                  "T.copy(C[(1 - bx) * 32 : (1 - bx) * 32 + 32], b)\n",
                                  2));
  auto races = blockRaces(run);
  ASSERT_EQ(races.size(), 2u);
  bool readThenWrite = false, writeThenRead = false;
  for (const Race* r : races) {
    EXPECT_EQ(r->first.block, 0);
    EXPECT_EQ(r->second.block, 1);
    if (r->element == "C[32]") {  // block 0 reads what block 1 writes
      readThenWrite = !r->firstWrites && r->secondWrites && r->first.stmt->loc.line == 10 &&
                      r->second.stmt->loc.line == 9;
    } else if (r->element == "C[0]") {  // block 1 reads what block 0 writes
      writeThenRead = r->firstWrites && !r->secondWrites && r->first.stmt->loc.line == 9 &&
                      r->second.stmt->loc.line == 10;
    }
  }
  EXPECT_TRUE(readThenWrite);
  EXPECT_TRUE(writeThenRead);
  EXPECT_FALSE(run.ok());
}

// Lines: 6 a, 7 b, 8 load, 9 the wait, 10-11 the vector copy, 12 the store.
std::string waitNobodySets(const std::string& wait) {
  return kernelText(kParams,
                    "a = T.alloc_shared((32,), \"float32\")\n"
                    "b = T.alloc_shared((32,), \"float32\")\n"
                    "T.copy(A[bx * 32 : bx * 32 + 32], a)\n" +
                        wait +
                        "for i in T.Parallel(32):\n"
                        "    b[i] = a[i]\n"
                        "T.pipe_barrier(\"ALL\")\n"
                        "T.copy(b, C[bx * 32 : bx * 32 + 32])\n",
                    2);
}

TEST(BlockDeadlock, NamesEveryBlockedBlock) {
  auto run = runAsWritten(waitNobodySets("T.wait_flag(\"MTE2\", \"V\", 0)\n"));
  ASSERT_EQ(run.sim.count(SimIssue::Deadlock), 1);
  const SimIssue* d = nullptr;
  for (const auto& i : run.sim.issues)
    if (i.kind == SimIssue::Deadlock) d = &i;
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("deadlock in blocks 0 and 1 (2 of 2 blocks)"), std::string::npos)
      << d->message;
  EXPECT_EQ(d->loc.line, 9u);
  for (int b = 0; b < 2; ++b) {
    bool named = false;
    for (const auto& [loc, text] : d->notes)
      named |= loc.line == 9 && text.rfind("block " + std::to_string(b) + " at cycle ", 0) == 0 &&
               text.find(
                   "pipe V: wait_flag(\"MTE2\", \"V\", 0) waits for a flag that no issued "
                   "set_flag sets") != std::string::npos;
    EXPECT_TRUE(named) << "block " << b;
  }
  EXPECT_TRUE(run.sim.aborted);
  EXPECT_FALSE(run.ok());
}

TEST(BlockDeadlock, OtherBlocksRunOnAfterADeadlock) {
  auto run =
      runAsWritten(waitNobodySets("if bx == 0:\n"
                                  "    T.wait_flag(\"MTE2\", \"V\", 0)\n"
                                  "else:\n"
                                  "    T.set_flag(\"MTE2\", \"V\", 0)\n"
                                  "    T.wait_flag(\"MTE2\", \"V\", 0)\n"));
  ASSERT_EQ(run.sim.count(SimIssue::Deadlock), 1);
  const SimIssue& d = run.sim.issues.front();
  EXPECT_NE(d.message.find("deadlock in block 0 at cycle"), std::string::npos) << d.message;
  ASSERT_EQ(run.sim.blocks.size(), 2u);  // block 1 was simulated too
  EXPECT_GT(run.sim.blocks[1].instructions, 0);
  // Block 1 finished: its half of C holds A's second half.
  auto c = finalValues(run, "C", ir::DType::Float32);
  std::vector<uint8_t> a(256);
  generateInput(a, ir::DType::Float32, 0, "A");
  for (int i = 32; i < 64; ++i)
    EXPECT_EQ(c[static_cast<size_t>(i)],
              loadElement(a.data() + 4 * i, ir::DType::Float32).asDouble())
        << i;
}

TEST(BlockDeadlock, CliListsEveryBlock) {
  auto r = runCli(waitNobodySets("T.wait_flag(\"MTE2\", \"V\", 0)\n"), "block_deadlock",
                  {"--schedule", "as-written"});
  EXPECT_EQ(r.code, 3);
  std::string all = r.out + r.err;
  EXPECT_NE(all.find("error: deadlock in blocks 0 and 1 (2 of 2 blocks)"), std::string::npos)
      << all;
  EXPECT_NE(all.find("note: block 1 at cycle"), std::string::npos) << all;
}

// Element i of the float32 input `name` as the runs generate it.
std::vector<float> floatInput(const char* name, size_t count) {
  std::vector<uint8_t> bytes(4 * count);
  generateInput(bytes, ir::DType::Float32, 0, name);
  std::vector<float> out(count);
  for (size_t i = 0; i < count; ++i)
    out[i] = static_cast<float>(loadElement(bytes.data() + 4 * i, ir::DType::Float32).asDouble());
  return out;
}

// The closed form of two blocks adding A[0:32] and A[32:64] into C[0:32] in
// block-id order (binary32): C[i] = (C0[i] + A[i]) + A[32 + i]; C[32:] keeps C0.
void expectBlockOrderSums(const KernelRun& run, const std::string& what) {
  auto a = floatInput("A", 64), c0 = floatInput("C", 64);
  auto c = finalValues(run, "C", ir::DType::Float32);
  for (size_t i = 0; i < 64; ++i) {
    float want = i < 32 ? (c0[i] + a[i]) + a[32 + i] : c0[i];
    EXPECT_EQ(c[i], static_cast<double>(want)) << what << i;
  }
}

// Each block adds its 32-element slice of A into C[0:32] atomically.
std::string atomicAdds(const std::string& store) {
  return kernelText(kParams,
                    "a = T.alloc_shared((32,), \"float32\")\n"
                    "T.copy(A[bx * 32 : bx * 32 + 32], a)\n" +
                        store,
                    2);
}

TEST(Atomic, AtomicAddsFromTwoBlocksAccumulateWithoutRace) {
  {
    auto run =
        runSerial(atomicAdds("T.set_atomic(\"add\")\n"
                             "T.copy(a, C[0:32])\n"
                             "T.set_atomic_none()\n"));
    EXPECT_TRUE(run.sim.races.empty());
    EXPECT_TRUE(run.ok());
    expectBlockOrderSums(run, "");
  }
}

// Armed in one `if` on a compile-time flag and cleared in another (upstream's
// example_gemm.py `if acc:`): such an `if` is inlined, so the mode spans the
// store between them.
TEST(Atomic, ArmedAndClearedUnderACompileTimeFlag) {
  auto run =
      runSerial(atomicAdds("acc = True\n"
                           "if acc:\n"
                           "    T.set_atomic(\"add\")\n"
                           "T.copy(a, C[0:32])\n"
                           "if acc:\n"
                           "    T.set_atomic_none()\n"));
  EXPECT_TRUE(run.sim.races.empty());
  EXPECT_TRUE(run.ok());
  expectBlockOrderSums(run, "");
}

TEST(Atomic, MaxAndMinReduceIntoGlobalMemory) {
  auto run =
      runSerial(atomicAdds("T.set_atomic(\"max\", \"float32\")\n"
                           "T.copy(a, C[0:32])\n"
                           "T.set_atomic(op=\"min\", dtype=T.float32)\n"
                           "T.copy(a, C[32:64])\n"
                           "T.set_atomic_none()\n"));
  EXPECT_TRUE(run.sim.races.empty());
  EXPECT_TRUE(run.ok());
  std::vector<uint8_t> a(256), c0(256);
  generateInput(a, ir::DType::Float32, 0, "A");
  generateInput(c0, ir::DType::Float32, 0, "C");
  auto at = [](const std::vector<uint8_t>& v, int i) {
    return loadElement(v.data() + 4 * i, ir::DType::Float32).asDouble();
  };
  auto c = finalValues(run, "C", ir::DType::Float32);
  for (int i = 0; i < 32; ++i) {
    EXPECT_EQ(c[static_cast<size_t>(i)], std::max({at(c0, i), at(a, i), at(a, 32 + i)})) << i;
    EXPECT_EQ(c[static_cast<size_t>(32 + i)], std::min({at(c0, 32 + i), at(a, i), at(a, 32 + i)}))
        << i;
  }
}

TEST(Atomic, AtomicAgainstPlainStoreFromAnotherBlockRaces) {
  auto run =
      runSerial(atomicAdds("if bx == 0:\n"
                           "    T.copy(a, C[0:32])\n"
                           "else:\n"
                           "    T.set_atomic(\"add\")\n"
                           "    T.copy(a, C[0:32])\n"
                           "    T.set_atomic_none()\n"));
  auto races = blockRaces(run);
  ASSERT_EQ(races.size(), 1u);
  EXPECT_FALSE(races[0]->firstAtomic);
  EXPECT_TRUE(races[0]->secondAtomic);
  EXPECT_EQ(races[0]->element, "C[0]");
  EXPECT_FALSE(run.ok());
}

TEST(Atomic, AddAgainstMaxFromAnotherBlockRaces) {
  auto run =
      runSerial(atomicAdds("if bx == 0:\n"
                           "    T.set_atomic(\"add\")\n"
                           "    T.copy(a, C[0:32])\n"
                           "    T.set_atomic_none()\n"
                           "else:\n"
                           "    T.set_atomic(\"max\")\n"
                           "    T.copy(a, C[0:32])\n"
                           "    T.set_atomic_none()\n"));
  ASSERT_EQ(blockRaces(run).size(), 1u);
  EXPECT_TRUE(blockRaces(run)[0]->firstAtomic && blockRaces(run)[0]->secondAtomic);
}

// One SIMT region per block: every thread reads its element of A into a
// scalar and updates S and M with it (lines: 6 region, 9 atomic_add, 10 max).
std::string simtSumAndMax(const std::string& extra) {
  return kernelText(
      "A: T.Tensor((64,), \"float32\"), S: T.Tensor((2,), \"float32\"), "
      "M: T.Tensor((2,), \"float32\"), B: T.Tensor((64,), \"float32\")",
      "with T.SimtVF(threads=16):\n"
      "    for tx in T.Parallel(16):\n"
      "        x = A[bx * 16 + tx]\n"
      "        T.atomic_add(S[0], x)\n"
      "        T.atomic_max(M[0], x)\n" +
          extra,
      4);
}

// The atomic kind is per tensor: a region that adds into S and takes the
// maximum into M does not race across blocks, and its plain reads of A do not
// race with another instruction's reads of A (both were reported before).
TEST(Atomic, OneRegionUpdatingTwoTensorsWithDifferentKindsDoesNotRace) {
  auto run =
      runSerial(simtSumAndMax("a = T.alloc_shared((64,), \"float32\")\n"
                              "T.copy(A, a)\n"
                              "T.copy(a[bx * 16 : bx * 16 + 16], B[bx * 16 : bx * 16 + 16])\n"));
  EXPECT_TRUE(run.sim.races.empty()) << run.sim.races.front().element;
  EXPECT_TRUE(run.ok());
  auto a = floatInput("A", 64), s0 = floatInput("S", 2), m0 = floatInput("M", 2);
  float sum = s0[0], max = m0[0];
  for (float x : a) sum += x, max = std::max(max, x);
  auto s = finalValues(run, "S", ir::DType::Float32);
  auto m = finalValues(run, "M", ir::DType::Float32);
  EXPECT_EQ(s[0], static_cast<double>(sum));
  EXPECT_EQ(m[0], static_cast<double>(max));
  EXPECT_EQ(s[1], static_cast<double>(s0[1]));
}

// Another instruction's plain read of the atomically updated tensor still
// races with the other blocks' updates.
TEST(Atomic, PlainReadOfAnAtomicallyUpdatedTensorRaces) {
  auto run =
      runSerial(simtSumAndMax("s = T.alloc_shared((8,), \"float32\")\n"
                              "T.copy(S[0:2], s[0:2])\n"));
  auto races = blockRaces(run);
  ASSERT_FALSE(races.empty());
  EXPECT_EQ(races[0]->element, "S[0]");
  EXPECT_NE(races[0]->firstAtomic, races[0]->secondAtomic);
  EXPECT_FALSE(run.ok());
}

// An integer update by 0 stays an atomic update (the value `H[k] + 0` is not
// simplified to `H[k]`): no race between blocks, and the printed IR keeps it.
TEST(Atomic, IntegerUpdateByZeroStaysAtomic) {
  std::string text = kernelText("H: T.Tensor((4,), \"int32\")",
                                "with T.SimtVF(threads=16):\n"
                                "    for tx in T.Parallel(16):\n"
                                "        T.atomic_add(H[tx % 4], 0)\n",
                                4);
  auto run = runSerial(text);
  EXPECT_TRUE(run.sim.races.empty()) << run.sim.races.front().element;
  EXPECT_TRUE(run.ok());
  Harness h(text);
  EXPECT_NE(ir::printKernel(h.kernel()).find("T.atomic_add(H[tx % 4], 0)"), std::string::npos)
      << ir::printKernel(h.kernel());
}

// Scalar code's atomic updates (outside VF regions) do not race either.
TEST(Atomic, ScalarAtomicUpdatesDoNotRace) {
  auto run = runSerial(kernelText("S: T.Tensor((2,), \"float32\")",
                                  "for i in T.serial(2):\n"
                                  "    T.atomic_add(S[i], 1.5)\n",
                                  4));
  EXPECT_TRUE(run.sim.races.empty()) << run.sim.races.front().element;
  EXPECT_TRUE(run.ok());
  auto s0 = floatInput("S", 2);
  auto s = finalValues(run, "S", ir::DType::Float32);
  for (size_t i = 0; i < 2; ++i) {
    float want = s0[i];
    for (int b = 0; b < 4; ++b) want += 1.5f;
    EXPECT_EQ(s[i], static_cast<double>(want)) << i;
  }
}

// An element-wise copy to global memory (from a fragment, or inside a SIMT
// region) under T.set_atomic accumulates like the DMA store does.
TEST(Atomic, ElementwiseCopiesUnderSetAtomicAccumulate) {
  for (const char* store :
       {"T.copy(f, C[0:32])\n", "with T.SimtVF(threads=8):\n    T.copy(f, C[0:32])\n"}) {
    auto run = runSerial(kernelText(kParams,
                                    std::string("f = T.alloc_fragment((32,), \"float32\")\n"
                                                "T.copy(A[bx * 32 : bx * 32 + 32], f)\n"
                                                "T.set_atomic(\"add\")\n") +
                                        store + "T.set_atomic_none()\n",
                                    2));
    EXPECT_TRUE(run.sim.races.empty()) << store << run.sim.races.front().element;
    EXPECT_TRUE(run.ok()) << store;
    expectBlockOrderSums(run, store);
  }
}

TEST(Atomic, PrintedIrShowsTheAtomicStore) {
  Harness h(
      atomicAdds("T.set_atomic(\"add\")\n"
                 "T.copy(a, C[0:32])\n"
                 "T.set_atomic_none()\n"
                 "T.copy(a, C[32:64])\n"));
  std::string printed = ir::printKernel(h.kernel());
  auto set = printed.find("T.set_atomic(\"add\", \"float32\")");
  ASSERT_NE(set, std::string::npos) << printed;
  auto atomicStore = printed.find("C[0:32])", set);
  auto clear = printed.find("T.set_atomic_none()", set);
  ASSERT_NE(atomicStore, std::string::npos) << printed;
  ASSERT_NE(clear, std::string::npos) << printed;
  EXPECT_LT(atomicStore, clear);
  EXPECT_EQ(printed.find("T.set_atomic", clear + 1), std::string::npos) << printed;
  // The printed IR is valid input and compiles to the same IR.
  std::string program = ir::printProgram(h.program), errors;
  auto again = compileText(program, &errors);
  ASSERT_TRUE(again) << program << errors;
  auto body = [](const std::string& text) { return text.substr(text.find("@T.prim_func")); };
  EXPECT_EQ(body(ir::printProgram(*again)), body(program));  // the "# kernel" line differs
}

// Issue 10: the blocks of a launch on two threads give exactly the result of
// one thread: memory, statistics, issues and races.
std::string summary(const SimResult& r, const Memory& mem) {
  std::ostringstream o;
  o << "cycles " << r.cycles << " bound " << r.lowerBound << " instr " << r.instructions
    << " stall " << r.flagStall << " aborted " << r.aborted << "\n";
  for (const auto& b : r.blocks) {
    o << "block " << b.block << " " << b.cycles << " " << b.instructions << " " << b.lowerBound;
    for (const auto& p : b.pipes) o << " " << p.busy << "/" << p.flagStall << "/" << p.barrierStall;
    o << "\n";
  }
  for (const auto& i : r.issues) {
    o << "issue " << i.kind << " " << i.block << " " << i.loc.line << " " << i.message << "\n";
    for (const auto& [loc, text] : i.notes) o << "  " << loc.line << " " << text << "\n";
  }
  for (const auto& race : r.races)
    o << "race " << race.storage << " " << race.lo << " " << race.hi << " " << race.occurrences
      << " " << race.first.block << " " << race.second.block << " " << race.element << "\n";
  for (int i = 0; i < mem.numStorages(); ++i)
    if (mem.storage(i)->scope == ir::MemScope::Global)
      o << mem.storage(i)->name << " "
        << std::string(reinterpret_cast<const char*>(mem.data(i)), static_cast<size_t>(mem.size(i)))
        << "\n";
  return o.str();
}

std::string simulateWith(const ir::Kernel& lowered, int threads) {
  Memory mem(lowered);
  for (const auto& p : lowered.params)
    if (p.buffer) generateInput(mem.raw(mem.index(p.buffer->storage)), p.buffer->dtype, 7, p.name);
  SimOptions o;
  o.recordTrace = false;
  o.threads = threads;
  return summary(sim::simulate(lowered, testTarget(), mem, o), mem);
}

// `asWritten`: the kernel's own flags (deadlocks, intra-block races), else serial.
void expectSameOnTwoThreads(const std::string& text, bool asWritten = false) {
  auto p = compileText(text);
  ASSERT_TRUE(p) << text;
  ir::Kernel lowered = asWritten ? p->kernels.front() : transform::lowerSerial(p->kernels.front());
  EXPECT_EQ(simulateWith(lowered, 1), simulateWith(lowered, 2)) << text;
}

TEST(TwoThreads, EveryExampleGivesTheSameResult) {
  int examples = 0;
  for (const auto& entry : std::filesystem::directory_iterator(TILESCHED_EXAMPLES_DIR)) {
    if (entry.path().extension() != ".py") continue;
    std::ifstream in(entry.path());
    std::ostringstream text;
    text << in.rdbuf();
    expectSameOnTwoThreads(text.str());
    ++examples;
  }
  EXPECT_GE(examples, 10);
}

TEST(TwoThreads, RacesDeadlocksErrorsAndAtomicsGiveTheSameResult) {
  expectSameOnTwoThreads(bothBlocksWriteAllOfC());  // falls back: inter-block race
  expectSameOnTwoThreads(waitNobodySets("T.wait_flag(\"MTE2\", \"V\", 0)\n"), true);
  expectSameOnTwoThreads(
      atomicAdds("T.set_atomic(\"add\")\nT.copy(a, C[0:32])\n"
                 "T.set_atomic_none()\n"));
  // A run-time error in block 1 (out of bounds): the sequential run stops there.
  expectSameOnTwoThreads(kernelText(kParams,
                                    "a = T.alloc_shared((16,), \"float32\")\n"
                                    "T.copy(A[bx * 16 : bx * 16 + 16], a)\n"
                                    "T.copy(a, C[bx * 16 : bx * 16 + 16])\n"
                                    "a[max(bx * 15, 0)] = 1.0\n",
                                    3));
  // Intra-block races in every block: reported once, occurrences summed.
  expectSameOnTwoThreads(kernelText(kParams,
                                    "a = T.alloc_shared((16,), \"float32\")\n"
                                    "b = T.alloc_shared((16,), \"float32\")\n"
                                    "T.copy(A[bx * 16 : bx * 16 + 16], a)\n"
                                    "for i in T.Parallel(16):\n"
                                    "    b[i] = a[i]\n"
                                    "T.copy(b, C[bx * 16 : bx * 16 + 16])\n",
                                    4),
                         true);
}

// The between-blocks checker against a byte-by-byte model, on random access
// streams (overlapping, out of order, atomics of two kinds, a storage that is
// not global): the same races (statement pair and storage), every reported
// overlap inside the bytes the model says conflict for that pair, and each
// block's summary first-touch, disjoint and merged per statement.
TEST(GlobalRaceCheckerModel, RandomStreamsMatchAByteModel) {
  constexpr int64_t kBytes = 48;
  constexpr size_t kKinds = GlobalRaceChecker::kKinds;
  std::vector<ir::Stmt> stmts;
  for (int i = 0; i < 4; ++i)
    stmts.push_back(std::make_shared<ir::BarrierStmt>(false, Pipe::V, SourceLoc{}));
  const std::vector<bool> isGlobal = {true, false, true};
  std::mt19937 rng(11);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  int racesSeen = 0;
  for (int round = 0; round < 300; ++round) {
    GlobalRaceChecker checker(isGlobal);
    GlobalRaceChecker summaries(isGlobal);
    // seen[storage][kind][byte]: the statement of the first block touching it.
    using ByteOwners = std::array<std::array<const ir::StmtNode*, kBytes>, kKinds>;
    std::vector<ByteOwners> seen(isGlobal.size());
    for (auto& s : seen)
      for (auto& k : s) k.fill(nullptr);
    using Key = std::tuple<const void*, const void*, int>;
    std::map<Key, std::set<int64_t>> expected;
    int blocks = 1 + pick(4);
    for (int b = 0; b < blocks; ++b) {
      std::vector<ByteOwners> first(isGlobal.size());
      for (auto& s : first)
        for (auto& k : s) k.fill(nullptr);
      int accesses = 1 + pick(8);
      bool ascending = pick(2) == 0;  // the usual shape: tile rows in address order
      int64_t cursor = 0;
      for (int a = 0; a < accesses; ++a) {
        const ir::StmtNode* stmt = stmts[static_cast<size_t>(pick(4))].get();
        AccessOwner who{a, Pipe::V, a, {}, stmt, b};
        AccessSet set;
        int storage = pick(3);
        bool write = pick(2) == 0;
        auto atomic = static_cast<ir::AtomicOp>(pick(3));  // none, add, max
        int64_t lo = ascending ? cursor : pick(kBytes - 1);
        int64_t hi = std::min<int64_t>(kBytes, lo + 1 + pick(12));
        if (lo >= hi) continue;
        cursor = ascending ? hi + pick(2) : cursor;
        set.add(storage, lo, hi, write);
        set.normalize();
        GlobalRaceChecker::StorageAtomics atomics;
        if (atomic != ir::AtomicOp::None) atomics.push_back({storage, atomic});
        checker.access(who, set, atomics);
        summaries.access(who, set, atomics);
        if (!isGlobal[static_cast<size_t>(storage)]) continue;
        size_t kind = atomic != ir::AtomicOp::None
                          ? size_t{GlobalRaceChecker::Atomic} + static_cast<size_t>(atomic) - 1
                          : size_t{write ? GlobalRaceChecker::Write : GlobalRaceChecker::Read};
        for (int64_t x = lo; x < hi; ++x) {
          auto& owner = first[static_cast<size_t>(storage)][kind][static_cast<size_t>(x)];
          if (!owner) owner = stmt;
        }
      }
      // The model's races of this block, then its bytes join `seen`.
      for (size_t s = 0; s < isGlobal.size(); ++s)
        for (size_t later = 0; later < kKinds; ++later)
          for (size_t earlier = 0; earlier < kKinds; ++earlier) {
            bool conflict =
                !(earlier == GlobalRaceChecker::Read && later == GlobalRaceChecker::Read) &&
                (earlier < GlobalRaceChecker::Atomic || later < GlobalRaceChecker::Atomic ||
                 earlier != later);
            if (!conflict) continue;
            for (size_t x = 0; x < kBytes; ++x)
              if (first[s][later][x] && seen[s][earlier][x])
                expected[{seen[s][earlier][x], first[s][later][x], static_cast<int>(s)}].insert(
                    static_cast<int64_t>(x));
          }
      for (size_t s = 0; s < isGlobal.size(); ++s)
        for (size_t k = 0; k < kKinds; ++k)
          for (size_t x = 0; x < kBytes; ++x)
            if (!seen[s][k][x]) seen[s][k][x] = first[s][k][x];
      // The summary: sorted, disjoint, first-touch, merged per statement.
      GlobalRaceChecker::Summary summary = summaries.takeBlock();
      for (size_t s = 0; s < isGlobal.size(); ++s)
        for (size_t k = 0; k < kKinds; ++k) {
          std::array<const ir::StmtNode*, kBytes> got{};
          const std::vector<GlobalRaceChecker::Piece>* pieces =
              s < summary.storages.size() ? &summary.storages[s][k] : nullptr;
          for (size_t i = 0; pieces && i < pieces->size(); ++i) {
            const auto& p = (*pieces)[i];
            ASSERT_LT(p.lo, p.hi);
            if (i > 0) {
              const auto& q = (*pieces)[i - 1];
              ASSERT_LE(q.hi, p.lo) << "round " << round;
              EXPECT_FALSE(q.hi == p.lo && summary.owners[static_cast<size_t>(q.owner)].stmt ==
                                               summary.owners[static_cast<size_t>(p.owner)].stmt)
                  << "touching pieces of one statement not merged, round " << round;
            }
            for (int64_t x = p.lo; x < p.hi; ++x)
              got[static_cast<size_t>(x)] = summary.owners[static_cast<size_t>(p.owner)].stmt;
          }
          for (size_t x = 0; x < kBytes; ++x)
            ASSERT_EQ(got[x], first[s][k][x]) << "round " << round << " block " << b << " storage "
                                              << s << " kind " << k << " byte " << x;
        }
      checker.endBlock();
    }
    std::set<Key> gotKeys;
    for (const Race& race : checker.races()) {
      EXPECT_TRUE(race.betweenBlocks);
      Key key{race.first.stmt, race.second.stmt, race.storage};
      gotKeys.insert(key);
      auto it = expected.find(key);
      ASSERT_NE(it, expected.end()) << "round " << round << ": a race the model does not have";
      for (int64_t x = race.lo; x < race.hi; ++x)
        EXPECT_TRUE(it->second.count(x)) << "round " << round << " byte " << x;
      EXPECT_LT(race.first.block, race.second.block);
    }
    std::set<Key> wantKeys;
    for (const auto& [key, bytes] : expected) wantKeys.insert(key);
    EXPECT_EQ(gotKeys, wantKeys) << "round " << round;
    racesSeen += static_cast<int>(wantKeys.size());
  }
  EXPECT_GT(racesSeen, 100);  // the streams do race
}

}  // namespace
}  // namespace tilesched::sim::test
