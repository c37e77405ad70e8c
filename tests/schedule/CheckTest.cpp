// The independent checker rejects hand-broken schedules, one test per
// constraint kind (SPEC §5; STYLE "a checker that shares no code with the
// solver"). Each test starts from a schedule the checker accepts and breaks
// exactly one thing.
#include <gtest/gtest.h>

#include "../analysis/TestUtil.h"
#include "schedule/Check.h"
#include "schedule/Scheduler.h"

using namespace tilesched;
using namespace tilesched::schedule;
using tilesched::testing::Analyzed;
using tilesched::testing::analyzeKernelBody;

namespace {

const char* kParams = "A: T.Tensor((1024,), \"float32\"), B: T.Tensor((1024,), \"float32\")";

// Two MTE2 copies, one V task, one MTE3 copy (vec_add in small).
const char* kTwoLoads =
    "a = T.alloc_ub((128,), \"float32\")\n"
    "b = T.alloc_ub((128,), \"float32\")\n"
    "c = T.alloc_ub((128,), \"float32\")\n"
    "for s in T.Pipelined(4, num_stages=2):\n"
    "    T.copy(A[s * 128:s * 128 + 128], a)\n"
    "    T.copy(A[512 + s * 128:512 + s * 128 + 128], b)\n"
    "    for i in T.Parallel(128):\n"
    "        c[i] = a[i] + b[i]\n"
    "    T.copy(c, B[s * 128:s * 128 + 128])\n";

struct Fixture {
  Analyzed a;
  KernelSchedule s;
  const Target& target = tilesched::testing::ascend950();
  explicit Fixture(const std::string& body) : a(analyzeKernelBody(kParams, body)) {
    s = scheduleKernel(a.ka, a.program->kernels.at(0), target, {}, *a.diags);
  }
  std::vector<ScheduleError> check() const {
    return checkSchedule(s, a.ka, a.program->kernels.at(0), target);
  }
  ListSchedule& loop(int index = 0) {
    const ir::ForStmt* f = a.loop(index).loop();
    for (auto& l : s.lists)
      if (l.loop == f) return l;
    throw std::runtime_error("no loop schedule");
  }
  StorageDecision& storage(const std::string& name) {
    for (auto& d : s.storages)
      if (d.storage->name == name) return d;
    throw std::runtime_error("no storage " + name);
  }
};

bool has(const std::vector<ScheduleError>& errors, ScheduleErrorKind kind) {
  for (const auto& e : errors)
    if (e.kind == kind) return true;
  return false;
}

void setStart(ListSchedule& l, int unit, int64_t start) {
  l.start[unit] = start;
  l.stage[unit] = start / l.ii;
  int64_t first = *std::min_element(l.start.begin(), l.start.end()), last = 0;
  (void)first;
  for (size_t i = 0; i < l.start.size(); ++i) last = std::max(last, l.start[i]);
  l.makespan = std::max<int64_t>(l.makespan, last + 100000);  // keep the shape legal
}

}  // namespace

TEST(Checker, AcceptsTheSolverSchedule) {
  Fixture f(kTwoLoads);
  auto errors = f.check();
  EXPECT_TRUE(errors.empty()) << formatScheduleErrors(errors);
}

TEST(Checker, RejectsABrokenDependency) {
  Fixture f(kTwoLoads);
  auto& l = f.loop();
  setStart(l, 2, l.start[0]);  // the add starts with the load of a
  EXPECT_TRUE(has(f.check(), ScheduleErrorKind::Dependency)) << formatScheduleErrors(f.check());
}

TEST(Checker, RejectsOverlappingBusyIntervalsOnOnePipe) {
  Fixture f(kTwoLoads);
  auto& l = f.loop();
  setStart(l, 1, l.start[0] + 1);  // two MTE2 copies one cycle apart
  EXPECT_TRUE(has(f.check(), ScheduleErrorKind::PipeOverlap)) << formatScheduleErrors(f.check());
}

TEST(Checker, RejectsOverlapModuloII) {
  Fixture f(kTwoLoads);
  auto& l = f.loop();
  setStart(l, 1, l.start[0] + l.ii);  // same phase, one II later: overlaps the next iteration's
  EXPECT_TRUE(has(f.check(), ScheduleErrorKind::PipeOverlap)) << formatScheduleErrors(f.check());
}

TEST(Checker, RejectsSamePipeTasksOutsideOneIIWindow) {
  Fixture f(kTwoLoads);
  auto& l = f.loop();
  ASSERT_FALSE(l.enableOffset);
  // Move the second load a whole II later: same phase on the circle as a
  // schedule the checker accepted, but two windows apart from the first.
  int64_t gap = l.start[1] - l.start[0];
  setStart(l, 1, l.start[1] + 2 * l.ii);
  ASSERT_LT(gap, l.ii);
  auto errors = f.check();
  EXPECT_TRUE(has(errors, ScheduleErrorKind::Window)) << formatScheduleErrors(errors);
}

TEST(Checker, RejectsSamePipeTasksOutOfProgramOrderInAFlatBody) {
  // The lowering issues a flat body in program order: a schedule that starts
  // the second load before the first cannot be realised (issue 17 §2).
  Fixture f(kTwoLoads);
  auto& l = f.loop();
  ASSERT_FALSE(l.enableOffset);
  int64_t first = l.start[0], second = l.start[1];
  ASSERT_GE(second - first, 1);
  l.start[0] = second;
  l.start[1] = first;
  auto errors = f.check();
  EXPECT_TRUE(has(errors, ScheduleErrorKind::PipeOrder)) << formatScheduleErrors(errors);
}

TEST(Checker, RejectsOverCapacityVersions) {
  Fixture f(kTwoLoads);
  f.storage("a").versions = 1000;  // 1000 · 512 bytes > 248 KiB
  auto errors = f.check();
  EXPECT_TRUE(has(errors, ScheduleErrorKind::Capacity)) << formatScheduleErrors(errors);
}

TEST(Checker, RejectsSolverVersionsAboveTheBound) {
  Fixture f(kTwoLoads);
  ASSERT_EQ(f.storage("a").source, VersionSource::Solver);
  f.storage("a").versions = 3;  // num_stages=2
  auto errors = f.check();
  EXPECT_TRUE(has(errors, ScheduleErrorKind::Versions)) << formatScheduleErrors(errors);
  EXPECT_FALSE(has(errors, ScheduleErrorKind::Capacity));
}

TEST(Checker, RejectsTooFewVersionsForTheSchedule) {
  Fixture f(kTwoLoads);
  ASSERT_EQ(f.storage("a").versions, 2);
  f.storage("a").versions = 1;  // the schedule overlaps a's producer with its last reader
  auto errors = f.check();
  EXPECT_TRUE(has(errors, ScheduleErrorKind::Dependency)) << formatScheduleErrors(errors);
}

TEST(Checker, RejectsAStageThatDoesNotMatchTheStart) {
  Fixture f(kTwoLoads);
  auto& l = f.loop();
  l.stage[0] += 1;
  EXPECT_TRUE(has(f.check(), ScheduleErrorKind::Shape));
}

TEST(Checker, RejectsOverlappingOwners) {
  Fixture f(
      "t = T.alloc_ub((128,), \"float32\")\n"
      "for o in T.serial(2):\n"
      "    for p in T.Pipelined(2, num_stages=2):\n"
      "        T.copy(A[o * 512 + p * 128:o * 512 + p * 128 + 128], t)\n"
      "        T.copy(t, B[o * 512 + p * 128:o * 512 + p * 128 + 128])\n"
      "    for q in T.Pipelined(2, num_stages=2):\n"
      "        T.copy(A[o * 512 + 256 + q * 128:o * 512 + 384 + q * 128], t)\n"
      "        T.copy(t, B[o * 512 + 256 + q * 128:o * 512 + 384 + q * 128])\n");
  ASSERT_TRUE(f.check().empty()) << formatScheduleErrors(f.check());
  auto& outer = f.loop(0);
  ASSERT_EQ(f.a.loop(0).exclusions.size(), 1u);
  // Both owner loops start together; give the outer loop room so only the
  // exclusion is violated (pipes of the two loops overlap too: also reported).
  outer.start[1] = outer.start[0];
  outer.stage[1] = outer.stage[0];
  auto errors = f.check();
  EXPECT_TRUE(has(errors, ScheduleErrorKind::OwnerExclusion)) << formatScheduleErrors(errors);
}

// SPEC §6.1: a legal schedule of the loop with `a` in iteration mode (its
// load and its reader at different stages) breaks only the counter-stage rule
// when `a` is in counter mode instead.
TEST(Checker, RejectsACounterModeStorageAcrossStages) {
  auto body = [](const std::string& mode) {
    return "a = T.alloc_ub((8192,), \"float32\")\n"
           "b = T.alloc_ub((8192,), \"float32\")\n"
           "T.annotate_buffer_versions({a: (2, \"" +
           mode +
           "\"), b: 2})\n"
           "for s in T.Pipelined(4, num_stages=3, annotations={\"enable_offset\": True}):\n"
           "    T.copy(A[s * 8192:s * 8192 + 8192], a)\n"
           "    for i in T.Parallel(8192):\n"
           "        b[i] = a[i] * 2.0\n"
           "    T.copy(b, B[s * 8192:s * 8192 + 8192])\n";
  };
  const char* big = "A: T.Tensor((32768,), \"float32\"), B: T.Tensor((32768,), \"float32\")";
  Analyzed it = analyzeKernelBody(big, body("iteration"));
  Analyzed ct = analyzeKernelBody(big, body("counter"));
  const Target& target = tilesched::testing::ascend950();
  KernelSchedule si = scheduleKernel(it.ka, it.program->kernels.at(0), target, {}, *it.diags);
  KernelSchedule sc = scheduleKernel(ct.ka, ct.program->kernels.at(0), target, {}, *ct.diags);
  EXPECT_TRUE(checkSchedule(sc, ct.ka, ct.program->kernels.at(0), target).empty());
  const ListSchedule* legal = si.find(it.loop(0).loop());
  ASSERT_NE(legal, nullptr);
  ASSERT_NE(legal->stage[0], legal->stage[1]);
  // The kernel root takes the iteration-mode root schedule too (same units,
  // its latency follows the loop's schedule).
  for (auto& l : sc.lists) {
    if (!l.loop) {
      l = *si.find(nullptr);
      continue;
    }
    l.start = legal->start;
    l.stage = legal->stage;
    l.ii = legal->ii;
    l.maxStage = legal->maxStage;
    l.makespan = legal->makespan;
  }
  auto errors = checkSchedule(sc, ct.ka, ct.program->kernels.at(0), target);
  ASSERT_EQ(errors.size(), 1u) << formatScheduleErrors(errors);
  EXPECT_EQ(errors[0].kind, ScheduleErrorKind::CounterStage);
  EXPECT_NE(errors[0].message.find("a has 2 versions clocked by a counter"), std::string::npos)
      << errors[0].message;
}
