// Every bundled example through the analyses: owners, distances and costs
// that are right by inspection (docs/examples.md describes each kernel).
// `PRINT_TASKS=1 analysis_tests --gtest_filter=Examples.*` prints the graphs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "TestUtil.h"

using namespace tilesched;
using namespace tilesched::analysis;
using tilesched::testing::Analyzed;
using tilesched::testing::analyzeExample;

namespace {

std::vector<std::string> owners(const Analyzed& a, const std::string& storage) {
  std::vector<std::string> out;
  for (const auto& o : a.storage(storage).owners) out.push_back(ir::as<ir::ForStmt>(o)->var->name);
  return out;
}

const Dependency* dep(const UnitList& list, DepKind kind, int from, int to,
                      const std::string& storage) {
  for (const auto& d : list.deps)
    if (d.kind == kind && d.from == from && d.to == to && d.storage && d.storage->name == storage)
      return &d;
  return nullptr;
}

void expectTask(const Unit& u, uint32_t mask, int64_t latency, int64_t ii) {
  EXPECT_EQ(u.pipeMask, mask) << "unit #" << u.index << " line " << u.loc.line;
  EXPECT_EQ(u.latency, latency) << "unit #" << u.index << " line " << u.loc.line;
  EXPECT_EQ(u.ii, ii) << "unit #" << u.index << " line " << u.loc.line;
}

// Every loop list: only cross-iteration dependencies of storages the loop owns
// are "versioned"; manual storages only get exact distances within the ring.
void expectConsistent(const Analyzed& a) {
  forEachList(a.ka.root, [&](const UnitList& list) {
    for (const auto& d : list.deps) {
      if (!d.storage) continue;
      const StorageOwnership* so = a.ka.ownership.find(d.storage);
      ASSERT_NE(so, nullptr);
      if (d.distanceKind == DistanceKind::Versioned) {
        EXPECT_TRUE(a.ka.ownership.isOwner(list.loop(), d.storage));
      }
      if (so->manual && d.distanceKind != DistanceKind::Same) {
        EXPECT_EQ(d.distanceKind, DistanceKind::Exact);
        EXPECT_GE(d.distance, 1);
        EXPECT_LE(d.distance, so->ring);
      }
      if (d.distanceKind == DistanceKind::Same) {
        EXPECT_LT(d.from, d.to);
      }
      EXPECT_GE(d.latency, 0);
    }
  });
}

const uint32_t kMte2 = pipeMask(Pipe::MTE2), kMte3 = pipeMask(Pipe::MTE3), kV = pipeMask(Pipe::V),
               kMte1 = pipeMask(Pipe::MTE1), kM = pipeMask(Pipe::M), kFix = pipeMask(Pipe::FIX);

}  // namespace

TEST(Examples, EveryExampleAnalysesAndPrints) {
  for (const char* f : {"vec_add.py", "rms_norm.py", "softmax.py", "gemm_l1.py", "gemm_l0.py",
                        "ring_buffer.py", "annotate_versions.py", "manual_flat_ring.py",
                        "persistent_tiles.py", "vf_region.py", "unlimit_memory.py"}) {
    SCOPED_TRACE(f);
    auto a = analyzeExample(f);
    std::string text = printTaskGraph(a.ka);
    EXPECT_NE(text.find("tasks:"), std::string::npos);
    expectConsistent(a);
    EXPECT_FALSE(a.diags->hasErrors());
    // No example triggers an analysis warning.
    EXPECT_TRUE(a.warnings().empty()) << a.diags->renderAll();
    // Every owner in the examples is a pipelined loop with constant bounds:
    // the bound is its num_stages, the nest is affine; no example fills an
    // eligible storage outside its loops.
    for (const auto& so : a.ka.ownership.storages) {
      SCOPED_TRACE(so.storage->name);
      EXPECT_FALSE(so.nonAffineNest);
      EXPECT_TRUE(so.broadcastFills.empty());
      if (!so.eligible) {
        EXPECT_EQ(so.versionBound, 1);
        continue;
      }
      int64_t stages = 0;
      for (const auto& o : so.owners) {
        const auto* f = ir::as<ir::ForStmt>(o);
        EXPECT_TRUE(f->isPipelined());
        stages = std::max(stages, f->numStages);
      }
      EXPECT_EQ(so.versionBound, stages);
    }
    if (std::getenv("PRINT_TASKS")) std::cout << "=== " << f << "\n" << text;
  }
}

TEST(Examples, VecAdd) {
  auto a = analyzeExample("vec_add.py");
  for (const char* b : {"a_ub", "b_ub", "c_ub"})
    EXPECT_EQ(owners(a, b), std::vector<std::string>{"s"}) << b;
  const UnitList& s = a.loop();
  ASSERT_EQ(s.units.size(), 4u);
  // 1024 fp32 = 4096 bytes per core, doubled: (90 + 82, 82); the add is
  // bytes-bound (3 x 4096 / 256); the store (180 + 72, 72).
  expectTask(s.units[0], kMte2, 172, 82);
  expectTask(s.units[1], kMte2, 172, 82);
  expectTask(s.units[2], kV, 48, 48);
  expectTask(s.units[3], kMte3, 252, 72);
  EXPECT_EQ(dep(s, DepKind::RAW, 0, 2, "a_ub")->distanceKind, DistanceKind::Same);
  EXPECT_EQ(dep(s, DepKind::RAW, 0, 2, "a_ub")->latency, 172);
  EXPECT_EQ(dep(s, DepKind::RAW, 2, 3, "c_ub")->latency, 48);
  EXPECT_EQ(dep(s, DepKind::WAR, 2, 0, "a_ub")->distanceKind, DistanceKind::Versioned);
  EXPECT_EQ(dep(s, DepKind::WAR, 3, 2, "c_ub")->distanceKind, DistanceKind::Versioned);
  EXPECT_EQ(dep(s, DepKind::WAR, 3, 2, "c_ub")->latency, 252);
  EXPECT_EQ(s.deps.size(), 9u);  // 3 WAW self, 3 RAW, 3 WAR; nothing on GM
}

TEST(Examples, RmsNormWeightsStaySingle) {
  auto a = analyzeExample("rms_norm.py");
  EXPECT_FALSE(a.storage("w_ub").eligible);
  EXPECT_FALSE(a.storage("wf").eligible);
  for (const char* b : {"x_ub", "xf", "sq", "ssum", "rstd", "y_ub"})
    EXPECT_EQ(owners(a, b), std::vector<std::string>{"rt"}) << b;
  // The weight hand-off is at the kernel root.
  EXPECT_NE(dep(a.ka.root, DepKind::RAW, 0, 1, "w_ub"), nullptr);
  EXPECT_NE(dep(a.ka.root, DepKind::RAW, 1, 2, "wf"), nullptr);
}

TEST(Examples, Softmax) {
  auto a = analyzeExample("softmax.py");
  for (const char* b : {"x_ub", "row_max", "e_ub", "row_sum", "y_ub"})
    EXPECT_EQ(owners(a, b), std::vector<std::string>{"rb"}) << b;
  const UnitList& rb = a.loop();
  ASSERT_EQ(rb.units.size(), 6u);
  for (int i = 1; i <= 4; ++i) EXPECT_EQ(rb.units[i].pipeMask, kV);
}

TEST(Examples, GemmL1) {
  auto a = analyzeExample("gemm_l1.py");
  EXPECT_EQ(owners(a, "a_l1"), std::vector<std::string>{"k"});
  EXPECT_EQ(owners(a, "b_l1"), std::vector<std::string>{"k"});
  EXPECT_FALSE(a.storage("c_l0c").eligible);
  const UnitList& k = a.loop();
  ASSERT_EQ(k.units.size(), 3u);
  // gemm on L1 operands: MTE1 + M; fp16 64x64x32: ops 262144 → M (8 + 32, 32);
  // MTE1: two 4096-byte loads (5 + 16, 3 + 16) → (40, 38).
  const Unit& g = k.units[2];
  EXPECT_EQ(g.pipeMask, kMte1 | kM);
  EXPECT_EQ(g.cost.latency, 40);
  EXPECT_EQ(g.cost.secondLatency, 40);
  EXPECT_EQ(g.cost.secondIi, 38);
  EXPECT_EQ(g.latency, 80);
  // The accumulator is carried from one k to the next.
  EXPECT_EQ(dep(k, DepKind::RAW, 2, 2, "c_l0c")->distanceKind, DistanceKind::Carried);
  EXPECT_EQ(dep(k, DepKind::WAR, 2, 0, "a_l1")->distanceKind, DistanceKind::Versioned);
  // After the loop, the fixpipe store.
  EXPECT_EQ(a.ka.root.units.back().pipeMask, kFix);
}

TEST(Examples, GemmL0OwnersAtTwoLevels) {
  auto a = analyzeExample("gemm_l0.py");
  EXPECT_EQ(owners(a, "a_l1"), std::vector<std::string>{"k"});
  EXPECT_EQ(owners(a, "b_l1"), std::vector<std::string>{"k"});
  EXPECT_EQ(owners(a, "a_l0"), std::vector<std::string>{"sk"});
  EXPECT_EQ(owners(a, "b_l0"), std::vector<std::string>{"sk"});
  EXPECT_FALSE(a.storage("c_l0c").eligible);
  EXPECT_FALSE(a.storage("c_ub").eligible);
  const UnitList& k = a.loop(0);
  ASSERT_TRUE(k.units[2].isLoop());
  EXPECT_EQ(k.units[2].pipeMask, kMte1 | kM);
  // In k, the L0 tiles are owned below: ordinary distances there.
  EXPECT_EQ(dep(k, DepKind::WAR, 2, 2, "a_l0")->distanceKind, DistanceKind::Carried);
  EXPECT_EQ(dep(k, DepKind::WAR, 2, 0, "a_l1")->distanceKind, DistanceKind::Versioned);
  const UnitList& sk = a.loop(1);
  EXPECT_EQ(dep(sk, DepKind::WAR, 2, 0, "a_l0")->distanceKind, DistanceKind::Versioned);
  EXPECT_EQ(sk.units[0].pipeMask, kMte1);
  EXPECT_EQ(sk.units[2].pipeMask, kM);
}

TEST(Examples, RingBuffer) {
  auto a = analyzeExample("ring_buffer.py");
  EXPECT_TRUE(a.storage("buf").manual);
  EXPECT_EQ(a.storage("buf").ring, 2);
  EXPECT_FALSE(a.storage("buf").eligible);
  EXPECT_TRUE(a.storage("y_ub").eligible);
  EXPECT_TRUE(a.storage("y_ub").guardedEpoch);  // counter mode under "auto"
  const UnitList& l = a.loop();
  const auto* raw = dep(l, DepKind::RAW, 0, 1, "buf");
  ASSERT_NE(raw, nullptr);
  EXPECT_EQ(raw->distanceKind, DistanceKind::Exact);
  EXPECT_EQ(raw->distance, 1);
  const auto* war = dep(l, DepKind::WAR, 1, 0, "buf");
  ASSERT_NE(war, nullptr);
  EXPECT_EQ(war->distance, 1);
}

TEST(Examples, AnnotateVersions) {
  auto a = analyzeExample("annotate_versions.py");
  EXPECT_EQ(owners(a, "fixed"), std::vector<std::string>{"i"});
  EXPECT_EQ(owners(a, "inferred"), std::vector<std::string>{"i"});
  EXPECT_EQ(a.loop().loop()->numStages, 4);
  EXPECT_EQ(a.storage("inferred").versionBound, 4);
}

TEST(Examples, ManualFlatRing) {
  auto a = analyzeExample("manual_flat_ring.py");
  EXPECT_EQ(a.storage("flat").ring, 3);
  const UnitList& l = a.loop();
  EXPECT_EQ(dep(l, DepKind::RAW, 0, 1, "flat")->distanceKind, DistanceKind::Same);
  EXPECT_EQ(dep(l, DepKind::WAR, 1, 0, "flat")->distance, 2);
  EXPECT_EQ(dep(l, DepKind::WAR, 1, 0, "flat")->distanceKind, DistanceKind::Exact);
  // The clear before the loop feeds it.
  EXPECT_NE(dep(a.ka.root, DepKind::WAW, 0, 1, "flat"), nullptr);
}

TEST(Examples, PersistentTiles) {
  auto a = analyzeExample("persistent_tiles.py");
  for (const char* b : {"x_ub", "y_ub", "z_ub"}) {
    EXPECT_TRUE(a.storage(b).eligible) << b;
    EXPECT_TRUE(a.storage(b).guardedEpoch) << b;  // the last trip is guarded
  }
  const UnitList& t = a.loop();
  // 32 x 32 fp32 head-address tiles of a wider GM tensor: row-strided, 128-byte
  // rows → band 90 B/cycle: (75 + ceil(8192 / 90), 92).
  expectTask(t.units[0], kMte2, 167, 92);
  for (const auto& u : t.units) EXPECT_FALSE(u.guard.empty());
}

TEST(Examples, VfRegion) {
  auto a = analyzeExample("vf_region.py");
  for (const char* b : {"x_ub", "r_ub", "g_ub", "y_ub"}) EXPECT_TRUE(a.storage(b).eligible) << b;
  EXPECT_FALSE(a.storage("x_frag").eligible);
  const UnitList& t = a.loop();
  ASSERT_EQ(t.units.size(), 5u);
  EXPECT_EQ(t.units[2].pipeMask, kV);
  // Fragments private to one region are not dependencies.
  for (const auto& d : t.deps) EXPECT_TRUE(!d.storage || d.storage->scope != MemScope::Fragment);
  EXPECT_NE(dep(t, DepKind::RAW, 2, 3, "g_ub"), nullptr);
  const auto* vf = ir::as<ir::VFRegionStmt>(t.units[2].stmt);
  ASSERT_NE(vf, nullptr);
  ASSERT_TRUE(vf->latency);
  EXPECT_EQ(t.units[2].latency, *vf->latency);
}

TEST(Examples, UnlimitMemory) {
  auto a = analyzeExample("unlimit_memory.py");
  EXPECT_EQ(owners(a, "x_ub"), std::vector<std::string>{"r"});
  EXPECT_EQ(owners(a, "y_ub"), std::vector<std::string>{"r"});
  // 16384 fp32 = 64 KiB per row: (90 + 1311, 1311).
  expectTask(a.loop().units[0], kMte2, 1401, 1311);
}

// Whatever the front end accepts, the analyses accept: every kernel of every
// kernel file in the tree that compiles (the diagnostics corpus included)
// runs through them without an exception, and prints.
TEST(Examples, AnalysesAcceptEveryCompilingKernelInTheTree) {
  namespace fs = std::filesystem;
  int analysed = 0;
  for (const char* dir : {"examples", "tests/diagnostics"}) {
    fs::path root = fs::path(TILESCHED_SOURCE_DIR) / dir;
    if (!fs::exists(root)) continue;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(root))
      if (e.path().extension() == ".py") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& path : files) {
      SCOPED_TRACE(path.string());
      std::ifstream in(path);
      std::stringstream ss;
      ss << in.rdbuf();
      auto file = std::make_shared<SourceFile>(path.string(), ss.str());
      DiagnosticEngine diags(file);
      auto program = frontend::compileSource(file, {}, diags);
      if (!program) continue;
      for (const auto& k : program->kernels) {
        EXPECT_NO_THROW({
          auto ka = analyzeKernel(k, tilesched::testing::ascend950(), diags);
          EXPECT_FALSE(printTaskGraph(ka).empty());
        });
        ++analysed;
      }
    }
  }
  EXPECT_GE(analysed, 11);
}

namespace {

// Compares a printed task graph with tests/analysis/golden/<name>, byte for
// byte. Regenerate with UPDATE_GOLDEN=1 after an intended change, and review
// the diff.
void expectGolden(const std::string& text, const std::string& name) {
  std::string path = std::string(TILESCHED_TEST_DATA_DIR) + "/golden/" + name;
  if (std::getenv("UPDATE_GOLDEN")) {
    std::ofstream(path) << text;
    GTEST_SKIP() << "golden updated";
  }
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << "missing " << path;
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(text, expected.str());
}

}  // namespace

// The printed task graph of vec_add.
TEST(Examples, VecAddTaskGraphGolden) {
  auto a = analyzeExample("vec_add.py");
  expectGolden(printTaskGraph(a.ka), "vec_add.tasks");
}

// The revised ownership rules on one kernel (tests/diagnostics/ownership_rules.py):
// a serial owner reached through a one-trip loop, complementary guarded
// writes, a broadcast fill, and the storages that stay single.
TEST(Examples, OwnershipRulesTaskGraphGolden) {
  std::string path = std::string(TILESCHED_SOURCE_DIR) + "/tests/diagnostics/ownership_rules.py";
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << "missing " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  auto a = tilesched::testing::analyzeText("ownership_rules.py", ss.str());
  for (const char* b : {"x", "y", "z"}) EXPECT_EQ(owners(a, b), std::vector<std::string>{"i"}) << b;
  EXPECT_FALSE(a.storage("p").eligible);
  EXPECT_FALSE(a.storage("acc").eligible);
  EXPECT_EQ(a.storage("z").broadcastFills.size(), 1u);
  expectGolden(printTaskGraph(a.ka), "ownership_rules.tasks");
}
