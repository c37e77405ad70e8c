// Every synchronisation rule of SPEC §3.3 and every error the simulator must
// report, on kernels with hand-written flags and barriers simulated exactly
// as written. Each detector is shown to fire on the broken kernel and to stay
// quiet on the fixed one.
#include <gtest/gtest.h>

#include <limits>

#include "SimTestUtil.h"
#include "ir/Printer.h"

namespace tilesched::sim::test {
namespace {

const char* kVecParams = "A: T.Tensor((256,), \"float32\"), B: T.Tensor((256,), \"float32\")";

std::string loadScaleStore(const std::string& afterLoad, const std::string& afterCompute) {
  return kernelText(kVecParams,
                    "a = T.alloc_shared((256,), \"float32\")\n"
                    "b = T.alloc_shared((256,), \"float32\")\n"
                    "T.copy(A, a)\n" +
                        afterLoad +
                        "for i in T.Parallel(256):\n"
                        "    b[i] = a[i] * 2.0\n" +
                        afterCompute + "T.copy(b, B)");
}

TEST(Sync, MissingFlagIsARaceAndGivesWrongValues) {
  auto run = runAsWritten(loadScaleStore("", ""));
  ASSERT_EQ(run.sim.races.size(), 2u);
  const Race& r = run.sim.races[0];
  EXPECT_EQ(r.first.pipe, Pipe::MTE2);
  EXPECT_EQ(r.second.pipe, Pipe::V);
  EXPECT_TRUE(r.firstWrites);
  EXPECT_FALSE(r.secondWrites);
  EXPECT_EQ(r.first.stmt->loc.line, 8u);
  EXPECT_EQ(r.second.stmt->loc.line, 9u);
  EXPECT_EQ(r.lo, 0);
  EXPECT_EQ(r.hi, 1024);
  EXPECT_FALSE(run.outputsMatch);  // V read `a` before the load landed
  EXPECT_FALSE(run.ok());
}

TEST(Sync, AVectorBodyTakesATAllocVarScalarAtIssue) {
  // The vector unit has no access to scalar registers: a T.alloc_var a
  // T.Parallel body only reads is handed over when the instruction issues,
  // so the scalar unit's update right after it needs no flag (issue 17 §1/§2).
  auto run = runAsWritten(kernelText(kVecParams,
                                     "a = T.alloc_shared((256,), \"float32\")\n"
                                     "b = T.alloc_shared((256,), \"float32\")\n"
                                     "n = T.alloc_var(\"float32\", 2.0)\n"
                                     "T.copy(A, a)\n"
                                     "T.set_flag(\"MTE2\", \"V\", 0)\n"
                                     "T.wait_flag(\"MTE2\", \"V\", 0)\n"
                                     "for i in T.Parallel(256):\n"
                                     "    b[i] = a[i] * n\n"
                                     "n = n + 1.0\n"
                                     "T.set_flag(\"V\", \"MTE3\", 0)\n"
                                     "T.wait_flag(\"V\", \"MTE3\", 0)\n"
                                     "T.copy(b, B)"));
  EXPECT_TRUE(run.sim.races.empty());
  EXPECT_TRUE(run.sim.issues.empty());
  EXPECT_TRUE(run.outputsMatch);  // B = 2 A, as the sequential program computes
  EXPECT_TRUE(run.ok());
}

TEST(Sync, FlagsOrderProducerAndConsumer) {
  auto run = runAsWritten(
      loadScaleStore("T.set_flag(\"MTE2\", \"V\", 0)\nT.wait_flag(\"MTE2\", \"V\", 0)\n",
                     "T.set_flag(\"V\", \"MTE3\", 3)\nT.wait_flag(\"V\", \"MTE3\", 3)\n"));
  EXPECT_TRUE(run.sim.races.empty());
  EXPECT_TRUE(run.sim.issues.empty());
  EXPECT_TRUE(run.outputsMatch);
  EXPECT_TRUE(run.ok());
  EXPECT_GT(run.sim.blocks[0].pipes[pipeIndex(Pipe::V)].flagStall, 0);
}

TEST(Sync, RaceIsFoundEvenWhenTimingHidesIt) {
  // The second V instruction waits behind a long V instruction, so the load
  // has landed when it starts: values are right, the race is still there.
  auto run =
      runAsWritten(kernelText("A: T.Tensor((256,), \"float32\"), B: T.Tensor((256,), \"float32\"), "
                              "C: T.Tensor((16384,), \"float32\")",
                              "a = T.alloc_shared((256,), \"float32\")\n"
                              "b = T.alloc_shared((256,), \"float32\")\n"
                              "c = T.alloc_shared((16384,), \"float32\")\n"
                              "for i in T.Parallel(16384):\n"
                              "    c[i] = T.exp(T.exp(T.exp(1.0)))\n"
                              "T.copy(A, a)\n"
                              "for i in T.Parallel(256):\n"
                              "    b[i] = a[i] * 2.0\n"
                              "T.set_flag(\"V\", \"MTE3\", 0)\n"
                              "T.wait_flag(\"V\", \"MTE3\", 0)\n"
                              "T.copy(b, B)\n"
                              "T.copy(c, C)"));
  EXPECT_TRUE(run.outputsMatch);
  ASSERT_EQ(run.sim.races.size(), 1u);
  EXPECT_EQ(run.sim.races[0].first.pipe, Pipe::MTE2);
  EXPECT_EQ(run.sim.races[0].second.pipe, Pipe::V);
}

TEST(Sync, DoubleSetIsAnError) {
  auto run = runAsWritten(
      loadScaleStore("T.set_flag(\"MTE2\", \"V\", 1)\nT.set_flag(\"MTE2\", \"V\", 1)\n"
                     "T.wait_flag(\"MTE2\", \"V\", 1)\n",
                     "T.set_flag(\"V\", \"MTE3\", 0)\nT.wait_flag(\"V\", \"MTE3\", 0)\n"));
  EXPECT_TRUE(hasIssue(run.sim, SimIssue::Flag, "already set"))
      << (run.sim.issues.empty() ? "" : run.sim.issues[0].message);
  EXPECT_EQ(run.sim.issues.front().loc.line, 10u);
  EXPECT_FALSE(run.ok());
}

TEST(Sync, WaitWithoutSetDeadlocks) {
  auto run = runAsWritten(loadScaleStore("T.wait_flag(\"MTE2\", \"V\", 0)\n", ""));
  ASSERT_TRUE(hasIssue(run.sim, SimIssue::Deadlock, "deadlock"));
  const SimIssue* d = nullptr;
  for (const auto& i : run.sim.issues)
    if (i.kind == SimIssue::Deadlock) d = &i;
  ASSERT_NE(d, nullptr);
  bool mentionsV = false;
  for (const auto& [loc, msg] : d->notes)
    mentionsV |= msg.find("pipe V") != std::string::npos &&
                 msg.find("never set") != std::string::npos && loc.line == 9;
  EXPECT_TRUE(mentionsV);
  EXPECT_TRUE(run.sim.aborted);
  EXPECT_EQ(run.sim.flagErrors(), 1);
}

TEST(Sync, DeadlockPointsAtTheWaitNobodySets) {
  // V waits for a flag nothing sets; MTE3's wait is only stuck because its
  // set_flag is queued on V behind that wait. The error points at the root
  // cause, and the MTE3 note says where its set_flag is, not "never set".
  auto run = runAsWritten(
      loadScaleStore("T.wait_flag(\"MTE2\", \"V\", 0)\n",
                     "T.set_flag(\"V\", \"MTE3\", 1)\nT.wait_flag(\"V\", \"MTE3\", 1)\n"));
  const SimIssue* d = nullptr;
  for (const auto& i : run.sim.issues)
    if (i.kind == SimIssue::Deadlock) d = &i;
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->loc.line, 9u);  // the wait on MTE2 -> V
  bool mte3Explained = false;
  for (const auto& [loc, msg] : d->notes)
    if (msg.find("pipe MTE3") != std::string::npos) {
      EXPECT_EQ(msg.find("never set"), std::string::npos) << msg;
      mte3Explained = msg.find("set_flag at line 12, which is queued on V") != std::string::npos;
    }
  EXPECT_TRUE(mte3Explained);
}

TEST(Sync, ScalarWaitWithoutSetDeadlocks) {
  auto run = runAsWritten(loadScaleStore("T.wait_flag(\"MTE2\", \"S\", 2)\n", ""));
  ASSERT_FALSE(run.sim.issues.empty());
  const SimIssue& d = run.sim.issues.front();
  EXPECT_EQ(d.kind, SimIssue::Deadlock);
  ASSERT_FALSE(d.notes.empty());
  EXPECT_NE(d.notes[0].second.find("scalar unit"), std::string::npos);
  EXPECT_EQ(d.notes[0].first.line, 9u);
}

TEST(Sync, FlagsLeftSetAreAnError) {
  auto run = runAsWritten(
      loadScaleStore("T.set_flag(\"MTE2\", \"V\", 0)\nT.wait_flag(\"MTE2\", \"V\", 0)\n"
                     "T.set_flag(\"MTE2\", \"MTE3\", 5)\n",
                     "T.set_flag(\"V\", \"MTE3\", 0)\nT.wait_flag(\"V\", \"MTE3\", 0)\n"));
  EXPECT_TRUE(run.sim.races.empty());
  ASSERT_TRUE(hasIssue(run.sim, SimIssue::Flag, "still set"));
  EXPECT_EQ(run.sim.issues.front().loc.line, 11u);
}

TEST(Sync, EventIdOutOfRangeIsAnError) {
  // A constant id is rejected by the front end; a computed one is caught at run time.
  auto run = runAsWritten(
      loadScaleStore("T.set_flag(\"MTE2\", \"V\", bx + 8)\nT.wait_flag(\"MTE2\", \"V\", bx + 8)\n",
                     "T.pipe_barrier(\"ALL\")\n"));
  EXPECT_TRUE(hasIssue(run.sim, SimIssue::Flag, "ids 0 to 7"));
}

std::string twoLoads(const std::string& between) {
  return kernelText(kVecParams,
                    "a = T.alloc_shared((256,), \"float32\")\n"
                    "T.copy(A, a)\n" +
                        between +
                        "T.copy(B, a)\n"
                        "T.pipe_barrier(\"ALL\")\n"
                        "T.copy(a, B)");
}

TEST(Sync, Mte2InstructionsOverlapWithoutABarrier) {
  auto run = runAsWritten(twoLoads(""));
  ASSERT_EQ(run.sim.races.size(), 1u);
  EXPECT_EQ(run.sim.races[0].first.pipe, Pipe::MTE2);
  EXPECT_EQ(run.sim.races[0].second.pipe, Pipe::MTE2);
  EXPECT_TRUE(run.sim.races[0].firstWrites && run.sim.races[0].secondWrites);
}

TEST(Sync, PipeBarrierOrdersTwoMte2Instructions) {
  auto run = runAsWritten(twoLoads("T.pipe_barrier(\"MTE2\")\n"));
  EXPECT_TRUE(run.sim.races.empty());
  EXPECT_TRUE(run.ok());
}

TEST(Sync, InOrderVectorPipeNeedsNoSync) {
  auto run = runAsWritten(kernelText(kVecParams,
                                     "a = T.alloc_shared((256,), \"float32\")\n"
                                     "b = T.alloc_shared((256,), \"float32\")\n"
                                     "T.fill(a, 3.0)\n"
                                     "for i in T.Parallel(256):\n"
                                     "    b[i] = a[i] + 1.0\n"
                                     "for i in T.Parallel(256):\n"
                                     "    a[i] = b[i] * b[i]\n"
                                     "T.set_flag(\"V\", \"MTE3\", 0)\n"
                                     "T.wait_flag(\"V\", \"MTE3\", 0)\n"
                                     "T.copy(a, B)"));
  EXPECT_TRUE(run.sim.races.empty());
  EXPECT_TRUE(run.ok());
}

TEST(Sync, FlagChainsAreTransitive) {
  // MTE2 writes `a`; MTE3 reads it. No direct flag, but MTE2 -> V -> MTE3.
  auto run = runAsWritten(kernelText(kVecParams,
                                     "a = T.alloc_shared((256,), \"float32\")\n"
                                     "b = T.alloc_shared((256,), \"float32\")\n"
                                     "T.copy(A, a)\n"
                                     "T.set_flag(\"MTE2\", \"V\", 0)\n"
                                     "T.wait_flag(\"MTE2\", \"V\", 0)\n"
                                     "T.fill(b, 1.0)\n"
                                     "T.set_flag(\"V\", \"MTE3\", 0)\n"
                                     "T.wait_flag(\"V\", \"MTE3\", 0)\n"
                                     "T.copy(a, B)"));
  EXPECT_TRUE(run.sim.races.empty());
  EXPECT_TRUE(run.ok());
}

// The scalar unit cannot issue past a wait_flag(X, S) before X's earlier work
// is done, so what it issues afterwards is ordered after that work; its own
// scalar stores still are not (issuing is not an ordering).
TEST(Sync, AScalarWaitOrdersWhatIsIssuedAfterIt) {
  auto viaScalar = runAsWritten(
      loadScaleStore("T.set_flag(\"MTE2\", \"S\", 0)\nT.wait_flag(\"MTE2\", \"S\", 0)\n",
                     "T.set_flag(\"V\", \"MTE3\", 3)\nT.wait_flag(\"V\", \"MTE3\", 3)\n"));
  EXPECT_TRUE(viaScalar.sim.races.empty());
  EXPECT_TRUE(viaScalar.ok());

  auto scalarStore = runAsWritten(kernelText(kVecParams,
                                             "a = T.alloc_shared((256,), \"float32\")\n"
                                             "T.copy(A, a)\n"
                                             "T.set_flag(\"MTE2\", \"S\", 0)\n"
                                             "T.wait_flag(\"MTE2\", \"S\", 0)\n"
                                             "a[0] = 1.0\n"
                                             "T.copy(a, B)"));
  ASSERT_EQ(scalarStore.sim.races.size(), 1u);
  EXPECT_EQ(scalarStore.sim.races[0].first.pipe, Pipe::S);
  EXPECT_EQ(scalarStore.sim.races[0].second.pipe, Pipe::MTE3);
}

TEST(Sync, WriteAfterReadNeedsAFlagToo) {
  // V reads `a`, then MTE2 overwrites it with no V -> MTE2 flag (the MTE2
  // barrier orders the two loads, so the read is the only conflict).
  auto run = runAsWritten(kernelText(kVecParams,
                                     "a = T.alloc_shared((256,), \"float32\")\n"
                                     "b = T.alloc_shared((256,), \"float32\")\n"
                                     "T.copy(A, a)\n"
                                     "T.set_flag(\"MTE2\", \"V\", 0)\n"
                                     "T.wait_flag(\"MTE2\", \"V\", 0)\n"
                                     "for i in T.Parallel(256):\n"
                                     "    b[i] = a[i]\n"
                                     "T.pipe_barrier(\"MTE2\")\n"
                                     "T.copy(B, a)\n"
                                     "T.pipe_barrier(\"ALL\")\n"
                                     "T.copy(b, B)"));
  ASSERT_EQ(run.sim.races.size(), 1u);
  EXPECT_EQ(run.sim.races[0].first.pipe, Pipe::V);
  EXPECT_EQ(run.sim.races[0].second.pipe, Pipe::MTE2);
  EXPECT_FALSE(run.sim.races[0].firstWrites);
}

std::string l1Gemm(const std::string& waitPipe) {
  return kernelText(
      "A: T.Tensor((16, 16), \"float16\"), B: T.Tensor((16, 16), \"float16\"), C: T.Tensor((16, "
      "16), \"float32\")",
      "a = T.alloc_l1((16, 16), \"float16\")\n"
      "b = T.alloc_l1((16, 16), \"float16\")\n"
      "c = T.alloc_l0c((16, 16), \"float32\")\n"
      "T.copy(A, a)\n"
      "T.copy(B, b)\n"
      "T.set_flag(\"MTE2\", \"" +
          waitPipe +
          "\", 0)\n"
          "T.wait_flag(\"MTE2\", \"" +
          waitPipe +
          "\", 0)\n"
          "T.gemm(a, b, c, clear_accum=True)\n"
          "T.set_flag(\"M\", \"FIX\", 0)\n"
          "T.wait_flag(\"M\", \"FIX\", 0)\n"
          "T.copy(c, C)");
}

TEST(Sync, GemmOnL1OperandsIsSynchronisedOnMte1) {
  auto good = runAsWritten(l1Gemm("MTE1"));
  EXPECT_TRUE(good.sim.races.empty());
  EXPECT_TRUE(good.ok());
  // Waiting on M is not enough: the L1 operands are read by the MTE1 part.
  auto bad = runAsWritten(l1Gemm("M"));
  ASSERT_FALSE(bad.sim.races.empty());
  EXPECT_EQ(bad.sim.races[0].second.pipe, Pipe::MTE1);
}

TEST(Sync, CapacityOverflowNamesTheBuffer) {
  auto run = runAsWritten(kernelText(kVecParams,
                                     "big = T.alloc_shared((40000,), \"float32\")\n"
                                     "more = T.alloc_shared((30001,), \"float32\")\n"
                                     "T.copy(A, big[0:256])\n"
                                     "T.pipe_barrier(\"ALL\")\n"
                                     "T.copy(big[0:256], B)"));
  ASSERT_EQ(run.sim.count(SimIssue::Capacity), 1);
  EXPECT_TRUE(hasIssue(run.sim, SimIssue::Capacity, "'more'"));
  EXPECT_TRUE(hasIssue(run.sim, SimIssue::Capacity, "253952"));
  EXPECT_TRUE(run.outputsMatch);  // the values are still computed
  EXPECT_FALSE(run.ok());
}

TEST(Sync, AllocatorAppliesAlignment) {
  // 100 float16 = 200 bytes, rounded to 224 by the 32-byte UB alignment.
  auto run = runAsWritten(kernelText(kVecParams,
                                     "x = T.alloc_shared((100,), \"float16\")\n"
                                     "y = T.alloc_shared((256,), \"float32\")\n"
                                     "T.copy(A, y)\n"
                                     "T.pipe_barrier(\"ALL\")\n"
                                     "T.copy(y, B)"));
  ASSERT_GE(run.sim.allocations.size(), 2u);
  EXPECT_EQ(run.sim.allocations[1].name, "y");
  EXPECT_EQ(run.sim.allocations[1].offset, 224);
  EXPECT_TRUE(run.ok());
}

// Issue 7: under --schedule serial, an `if` whose condition reads UB (or a
// loop whose bound does) followed by a vector write of that buffer raced
// whenever the branch was not taken. The default inputs lie in [-2, 2), so
// neither the branch nor the loop runs: O = (A + 1) * 2, exactly.
TEST(Sync, SerialIsRaceFreeWhenAMemoryConditionIsFalse) {
  auto run =
      runSerial(kernelText("A: T.Tensor((64,), \"float32\"), O: T.Tensor((64,), \"float32\")",
                           "a = T.alloc_shared((64,), \"float32\")\n"
                           "T.copy(A, a)\n"
                           "if a[0] > 100.0:\n"
                           "    a[1] = 5.0\n"
                           "for i in T.Parallel(64):\n"
                           "    a[i] = a[i] + 1.0\n"
                           "for k in T.serial(T.cast(a[2], \"int32\") - 100):\n"
                           "    a[3] = 7.0\n"
                           "for i in T.Parallel(64):\n"
                           "    a[i] = a[i] * 2.0\n"
                           "T.copy(a, O)"));
  EXPECT_TRUE(run.sim.races.empty()) << run.sim.races.size() << " races";
  EXPECT_TRUE(run.ok());
  std::vector<uint8_t> bytes(64 * 4);
  generateInput(bytes, ir::DType::Float32, 0, "A");  // the run's input (seed 0)
  std::vector<double> a;
  for (size_t i = 0; i < 64; ++i) a.push_back(loadElement(&bytes[i * 4], ir::DType::Float32).f);
  auto o = finalValues(run, "O", ir::DType::Float32);
  ASSERT_EQ(o.size(), 64u);
  for (size_t i = 0; i < 64; ++i) EXPECT_EQ(o[i], (a[i] + 1.0) * 2.0) << i;
}

// Issue 7: the race detector's history is indexed by address (linear time),
// without losing any race: 4096 scalar reads of distinct elements followed by
// a vector write of all of them. The write races with exactly the reads whose
// completion its clock does not know, each counted once.
TEST(RaceDetectorHistory, EveryUnorderedOldReadIsStillReported) {
  const int64_t n = 4096;
  for (int64_t known : {int64_t{0}, n / 2, n}) {
    RaceDetector d;
    ir::Stmt readStmt = std::make_shared<ir::BarrierStmt>(false, Pipe::S, SourceLoc{});
    ir::Stmt writeStmt = std::make_shared<ir::BarrierStmt>(false, Pipe::V, SourceLoc{});
    for (int64_t i = 0; i < n; ++i) {
      AccessOwner r{i, Pipe::S, i, {}, readStmt.get()};
      r.clock[pipeIndex(Pipe::S)] = i;  // S knows its own earlier statements
      AccessSet set;
      set.add(0, 4 * i, 4 * i + 4, false);
      d.access(r, set);
    }
    AccessOwner w{n, Pipe::V, 0, {}, writeStmt.get()};
    w.clock[pipeIndex(Pipe::S)] = known;  // the first `known` reads are ordered before it
    AccessSet set;
    set.add(0, 0, 4 * n, true);
    d.access(w, set);
    if (known == n) {
      EXPECT_TRUE(d.races().empty());
      continue;
    }
    ASSERT_EQ(d.races().size(), 1u) << known;
    EXPECT_EQ(d.races()[0].occurrences, n - known);
    EXPECT_EQ(d.totalOccurrences(), n - known);
    EXPECT_EQ(d.races()[0].lo, 4 * known);  // the first unordered read's bytes
    EXPECT_EQ(d.races()[0].hi, 4 * known + 4);
    EXPECT_EQ(d.races()[0].first.pipe, Pipe::S);
    EXPECT_TRUE(d.races()[0].secondWrites);
    // The write covered (and raced with) every read: a second unordered read
    // of any element now races with the write only, once.
    AccessOwner late{n + 1, Pipe::S, n, {}, readStmt.get()};
    late.clock[pipeIndex(Pipe::S)] = n;
    AccessSet again;
    again.add(0, 40, 44, false);
    d.access(late, again);
    EXPECT_EQ(d.totalOccurrences(), n - known + 1);
  }
}

// Issue 7: the simulator applies pad_value too (not only the reference), and
// the printed IR keeps it as an operand: print -> compile -> print is stable.
TEST(Sync, SerialCopyWithPadValueMatchesClosedForm) {
  std::string text = kernelText("A: T.Tensor((48,), \"float32\"), O: T.Tensor((64,), \"float32\")",
                                "a = T.alloc_shared((64,), \"float32\")\n"
                                "T.copy(A[0:40], a, pad_value=-T.infinity(\"float32\"))\n"
                                "T.copy(a, O)");
  auto run = runSerial(text);
  EXPECT_TRUE(run.ok());
  std::vector<uint8_t> bytes(48 * 4);
  generateInput(bytes, ir::DType::Float32, 0, "A");
  auto o = finalValues(run, "O", ir::DType::Float32);
  ASSERT_EQ(o.size(), 64u);
  for (size_t i = 0; i < 64; ++i)
    EXPECT_EQ(o[i], i < 40 ? loadElement(&bytes[i * 4], ir::DType::Float32).f
                           : -std::numeric_limits<double>::infinity())
        << i;
  auto p = compileText(text);
  ASSERT_TRUE(p);
  std::string printed = ir::printKernel(p->kernels.front());
  EXPECT_NE(printed.find("pad_value=-T.infinity(\"float32\")"), std::string::npos) << printed;
  std::string errors;
  auto again = compileText("import tilelang.language as T\n\n" + printed, &errors);
  ASSERT_TRUE(again) << errors << printed;
  EXPECT_EQ(ir::printKernel(again->kernels.front()), printed);
}

// Issue 7 (b): on-chip memory that nothing wrote is poison in the simulator.
// It propagates through vector work and copies; reaching global memory it is
// a run-time error naming the instruction and its line. (The padding bug left
// exactly such a tail behind.)
const char* kPoisonParams = "A: T.Tensor((64,), \"float32\"), O: T.Tensor((64,), \"float32\")";

const SimIssue* runtimeIssue(const KernelRun& run) {
  for (const auto& i : run.sim.issues)
    if (i.kind == SimIssue::Runtime) return &i;
  return nullptr;
}

TEST(Poison, ReachingGlobalMemoryThroughVectorWorkIsAnError) {
  auto run = runSerial(kernelText(kPoisonParams,
                                  "a = T.alloc_shared((64,), \"float32\")\n"
                                  "b = T.alloc_shared((64,), \"float32\")\n"
                                  "T.copy(A[0:48], a[0:48])\n"
                                  "for i in T.Parallel(64):\n"
                                  "    b[i] = a[i] * 2.0\n"
                                  "T.copy(b, O)"));
  const SimIssue* e = runtimeIssue(run);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->loc.line, 11u);  // the copy to O
  EXPECT_NE(e->message.find("T.copy b -> O writes poison to global memory 'O' (bytes [192, 196))"),
            std::string::npos)
      << e->message;
  EXPECT_FALSE(run.ok());
  EXPECT_FALSE(run.sim.aborted);  // the block ran to its end: races would still be found
}

TEST(Poison, ConditionOnUnwrittenMemoryIsAnError) {
  auto run = runSerial(kernelText(kPoisonParams,
                                  "a = T.alloc_shared((64,), \"float32\")\n"
                                  "T.copy(A[0:8], a[0:8])\n"
                                  "if a[9] > 0.0:\n"
                                  "    a[0] = 1.0\n"
                                  "T.copy(a[0:8], O[0:8])"));
  const SimIssue* e = runtimeIssue(run);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->loc.line, 8u);
  EXPECT_NE(e->message.find("the condition of this if is poison, derived from 'a' bytes [36, 40)"),
            std::string::npos)
      << e->message;
}

TEST(Poison, LoopBoundAndIndexFromUnwrittenMemoryAreErrors) {
  auto run = runAsWritten(kernelText("A: T.Tensor((64,), \"int32\"), O: T.Tensor((64,), \"int32\")",
                                     "a = T.alloc_shared((64,), \"int32\")\n"
                                     "T.fill(a[0:4], 1)\n"
                                     "T.pipe_barrier(\"ALL\")\n"
                                     "for k in T.serial(a[5]):\n"
                                     "    a[0] = 2\n"
                                     "for i in T.Parallel(4):\n"
                                     "    a[a[i + 6] % 4] = 3\n"
                                     "T.pipe_barrier(\"ALL\")\n"
                                     "T.copy(a[0:4], O[0:4])"));
  bool loop = false, index = false;
  for (const auto& i : run.sim.issues) {
    loop |= i.loc.line == 9 &&
            i.message.find("the trip count of loop 'k' is poison") != std::string::npos;
    index |= i.loc.line == 12 && i.message.find("an index is poison") != std::string::npos;
  }
  EXPECT_TRUE(loop);
  EXPECT_TRUE(index);
}

// Element granularity: writing some elements defines exactly those bytes.
TEST(Poison, PartialWritesAreTrackedPerElement) {
  std::string body =
      "a = T.alloc_shared((64,), \"float32\")\n"
      "T.copy(A[0:32], a[0:32])\n"
      "a[40] = 1.5\n"
      "T.copy(a[0:32], O[0:32])\n"
      "T.copy(a[40:41], O[40:41])\n";
  auto good = runSerial(kernelText(kPoisonParams, body));
  EXPECT_TRUE(good.ok()) << (good.sim.issues.empty() ? "" : good.sim.issues[0].message);
  auto bad = runSerial(kernelText(kPoisonParams, body + "T.copy(a[39:41], O[39:41])"));
  const SimIssue* e = runtimeIssue(bad);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->loc.line, 11u);
  EXPECT_NE(e->message.find("(bytes [156, 160))"), std::string::npos) << e->message;
}

// A race that reads not-yet-landed data is still reported as a race: poison
// errors do not stop the block.
TEST(Poison, RacesAreStillReported) {
  auto run = runAsWritten(kernelText(kPoisonParams,
                                     "a = T.alloc_shared((64,), \"float32\")\n"
                                     "T.copy(A, a)\n"
                                     "T.copy(a, O)"));
  EXPECT_FALSE(run.sim.races.empty());
}

}  // namespace
}  // namespace tilesched::sim::test

namespace tilesched::sim::test {
namespace {

// Integer bitwise operators against their closed forms, and a negative shift
// count (known only at run time) is a run-time error at its statement.
TEST(Bitwise, ClosedFormsAndNegativeShift) {
  auto run = runSerial(kernelText("I: T.Tensor((8,), \"int32\"), O: T.Tensor((8,), \"int32\")",
                                  "n = T.alloc_shared((8,), \"int32\")\n"
                                  "T.copy(I, n)\n"
                                  "for i in T.Parallel(8):\n"
                                  "    n[i] = ((i & 6) | (i << 3)) ^ (-i >> 1)\n"
                                  "T.copy(n, O)"));
  ASSERT_TRUE(run.ok());
  auto o = finalValues(run, "O", ir::DType::Int32);
  ASSERT_EQ(o.size(), 8u);
  for (int64_t i = 0; i < 8; ++i)
    EXPECT_EQ(o[static_cast<size_t>(i)], static_cast<double>(((i & 6) | (i << 3)) ^ (-i >> 1)))
        << i;
  auto bad = runSerial(kernelText("I: T.Tensor((8,), \"int32\"), O: T.Tensor((8,), \"int32\")",
                                  "n = T.alloc_shared((8,), \"int32\")\n"
                                  "T.copy(I, n)\n"
                                  "s = T.alloc_var(\"int32\")\n"
                                  "s = -2\n"
                                  "for i in T.Parallel(8):\n"
                                  "    n[i] = i << s\n"
                                  "T.copy(n, O)"));
  const SimIssue* e = runtimeIssue(bad);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->loc.line, 11u);  // the store that shifts
  EXPECT_NE(e->message.find("negative shift count -2"), std::string::npos) << e->message;
}

}  // namespace
}  // namespace tilesched::sim::test
