// A scheduling problem from outside a kernel (TileLang's solver arguments):
// the reader's field errors, the problem-level checker, the standalone
// solve's answers on problems whose optimum is known in closed form, the
// caller's stage and phase constraints, and the infeasible problems that
// must be errors rather than a sequential fallback.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "schedule/ProblemCheck.h"
#include "schedule/ProblemReader.h"
#include "schedule/StandaloneSolve.h"

using namespace tilesched::schedule;
using nlohmann::json;

namespace {

// Load (MTE2, ii 4) -> compute (V, ii 6), latency 10 each way: the compute
// frees the buffer for the load `v` iterations later, so the cycle of
// latency 20 and distance v needs II >= 20 / v. With room for two versions
// II = 10; with room for one, II = 20.
json twoTaskLoop(int64_t capacity) {
  return json{{"num_stages", 2},
              {"latencies", {10, 10}},
              {"iis", {4, 6}},
              {"resource_flags", {2, 16}},
              {"data_deps", {{0, 1, 0, 10}, {1, 0, -1, 10}}},
              {"resource_deps", json::array()},
              {"buffer_sizes", {100}},
              {"memory_groups", {{capacity, 0}}}};
}

SchedulingProblem problemOf(const json& j, ProblemShape shape = ProblemShape::FromInput) {
  ReadProblem r = readProblem(j, shape);
  EXPECT_TRUE(r.problem) << r.field << ": " << r.message;
  return r.problem ? *r.problem : SchedulingProblem{};
}

std::string fieldError(const json& j, ProblemShape shape = ProblemShape::Loop) {
  ReadProblem r = readProblem(j, shape);
  return r.problem ? std::string("(accepted)") : r.field + ": " + r.message;
}

}  // namespace

TEST(StandaloneSolve, TwoVersionsHalveTheII) {
  SchedulingProblem p = problemOf(twoTaskLoop(200));
  StandaloneResult r = solveStandalone(p, 2000);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.solution.ii, 10);
  EXPECT_EQ(r.solution.versions, std::vector<int64_t>{2});
  EXPECT_TRUE(r.solution.provenOptimal);
  json out = standaloneResultJson(p, r);
  EXPECT_EQ(out["ii"], 10);
  EXPECT_EQ(out["buffer_versions"], json::array({2}));
  EXPECT_EQ(out["tilesched"]["checker"], "accepted");
  EXPECT_EQ(out["tilesched"]["ii_lower_bound"], 10);
}

TEST(StandaloneSolve, OneVersionOfRoomDoublesTheII) {
  SchedulingProblem p = problemOf(twoTaskLoop(199));
  StandaloneResult r = solveStandalone(p, 2000);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.solution.ii, 20);
  EXPECT_EQ(r.solution.versions, std::vector<int64_t>{1});
}

TEST(StandaloneSolve, StraightLineTakesUpstreamTriples) {
  // Two loads on MTE2 (ii 5, latency 8) then a compute after both: the
  // loads serialise (5 apart), the compute starts 8 after the second.
  json j = {{"latencies", {8, 8, 3}},
            {"iis", {5, 5, 3}},
            {"resource_flags", {2, 2, 16}},
            {"data_deps", {{0, 2, 8}, {1, 2, 8}}},
            {"resource_deps", {{0, 1}}}};
  SchedulingProblem p = problemOf(j, ProblemShape::StraightLine);
  EXPECT_FALSE(p.isLoop);
  StandaloneResult r = solveStandalone(p, 2000);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.solution.ii, 5 + 8 + 3);
  json out = standaloneResultJson(p, r);
  EXPECT_EQ(out["makespan"], 16);
  EXPECT_EQ(out["sorted_indices"].back(), 2);
}

TEST(StandaloneSolve, PipeOrderKeepsSourceOrderOnAStraightLine) {
  // Without the order the solver may start the long load 1 first (task 2
  // needs only it); with pipe_order_deps (0, 1) task 0 must go first.
  json j = {{"latencies", {2, 20, 1}},      {"iis", {2, 20, 1}},
            {"resource_flags", {2, 2, 16}}, {"data_deps", {{1, 2, 20}}},
            {"resource_deps", {{0, 1}}},    {"pipe_order_deps", {{0, 1}}}};
  SchedulingProblem p = problemOf(j, ProblemShape::StraightLine);
  StandaloneResult r = solveStandalone(p, 2000);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_LE(r.solution.start[0], r.solution.start[1]);
  EXPECT_EQ(r.solution.ii, 2 + 20 + 1);
}

TEST(StandaloneSolve, StageOrderAndFixedStagesHold) {
  json j = twoTaskLoop(200);
  j["enable_offset"] = true;
  // The unconstrained answer (II 10) puts the compute a stage after the
  // load; in one stage the compute (10 after the load) needs II >= 11.
  j["stage_order_deps"] = {{1, 0}};
  SchedulingProblem p = problemOf(j);
  StandaloneResult r = solveStandalone(p, 2000);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_LE(r.solution.start[1] / r.solution.ii, r.solution.start[0] / r.solution.ii);
  EXPECT_EQ(r.solution.ii, 11);
  EXPECT_TRUE(checkProblemSolution(p, r.solution).empty());

  json manual = twoTaskLoop(200);
  manual["enable_offset"] = true;
  manual["manual_schedule"] = true;
  // Stage 2 for the compute: with two versions s1 - s0 <= 2·II - 10 and
  // s1 >= 2·II, so s0 >= 10 and II >= 11.
  manual["manual_stages"] = {0, 2};
  SchedulingProblem q = problemOf(manual);
  StandaloneResult m = solveStandalone(q, 2000);
  ASSERT_TRUE(m.ok) << m.error;
  EXPECT_EQ(m.solution.ii, 11);
  EXPECT_EQ(m.solution.start[0] / m.solution.ii, 0);
  EXPECT_EQ(m.solution.start[1] / m.solution.ii, 2);
}

TEST(StandaloneSolve, InfeasibleProblemsAreErrorsNotFallbacks) {
  StandaloneResult memory = solveStandalone(problemOf(twoTaskLoop(99)), 2000);
  EXPECT_FALSE(memory.ok);
  EXPECT_EQ(memory.error,
            "no schedule exists: memory_groups[0] has capacity 99 bytes, below the 100 bytes of "
            "the fewest versions its buffers may have");
  json cycle = twoTaskLoop(200);
  cycle["data_deps"] = {{0, 1, 0, 10}, {1, 0, 0, 1}};
  StandaloneResult c = solveStandalone(problemOf(cycle), 2000);
  EXPECT_FALSE(c.ok);
  EXPECT_NE(c.error.find("cycle with a positive total latency"), std::string::npos) << c.error;
}

TEST(ProblemCheck, NamesTheFieldOfEachViolation) {
  SchedulingProblem p = problemOf(twoTaskLoop(200));
  ProblemSolution s;
  s.ii = 10;
  s.start = {0, 5};  // the compute 5 after the load: latency 10 needed
  s.versions = {3};  // above num_stages, and 300 bytes of 200
  auto errors = checkProblemSolution(p, s);
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0], "buffer 0: 3 versions, outside 1..2");
  EXPECT_EQ(errors[1], "memory_groups[0]: the versions use 300 bytes of 200");
  EXPECT_EQ(errors[2],
            "data_deps[0] (0 -> 1, distance 0): s1 - s0 = 5 but it must be >= 10 - 10·0");
  s.start = {0, 10};
  s.versions = {2};
  EXPECT_TRUE(checkProblemSolution(p, s).empty());
  s.start = {0, 9};
  EXPECT_EQ(checkProblemSolution(p, s).size(), 1u);
}

TEST(ProblemCheck, SharedPipesMayNotOverlapModuloII) {
  json j = twoTaskLoop(200);
  j["resource_flags"] = {2, 2};
  j["resource_deps"] = {{0, 1}};
  SchedulingProblem p = problemOf(j);
  ProblemSolution s;
  s.ii = 10;
  s.start = {0, 10};  // the same phase on one pipe
  s.versions = {2};
  auto errors = checkProblemSolution(p, s);
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors[0], "tasks 0 [0, +4) and 1 [10, +6) share pipe mask 2 and overlap modulo II 10");
}

TEST(ProblemReader, EveryBadFieldIsNamed) {
  json j = twoTaskLoop(200);
  EXPECT_EQ(fieldError(j), "(accepted)");
  json missing = j;
  missing.erase("iis");
  EXPECT_EQ(fieldError(missing), "iis: missing");
  json type = j;
  type["latencies"] = "10, 10";
  EXPECT_EQ(fieldError(type), "latencies: must be a list of integers");
  json floating = j;
  floating["latencies"] = {10, 2.5};
  EXPECT_EQ(fieldError(floating), "latencies[1]: must be an integer");
  json negative = j;
  negative["data_deps"] = {{0, 1, 0, -3}};
  EXPECT_EQ(fieldError(negative), "data_deps[0][3]: latency -3 is negative");
  json nowhere = j;
  nowhere["data_deps"] = {{0, 7, 0, 3}};
  EXPECT_EQ(fieldError(nowhere), "data_deps[0][1]: task 7 does not exist (2 tasks)");
  json buffer = j;
  buffer["data_deps"] = {{0, 1, -2, 3}};
  EXPECT_EQ(fieldError(buffer),
            "data_deps[0][2]: distance -2 names buffer 1, but there are 1 buffers");
  json empty = j;
  empty["latencies"] = json::array();
  EXPECT_EQ(fieldError(empty), "latencies: the task list is empty: nothing to schedule");
  json arity = j;
  arity["data_deps"] = {{0, 1, 3}};
  EXPECT_EQ(fieldError(arity), "data_deps[0]: has 3 entries, expected 4");
  json typo = j;
  typo["latency"] = {1};
  EXPECT_EQ(fieldError(typo), "latency: unknown field (docs/solver-interface.md lists the fields)");
  json group = j;
  group["memory_groups"] = {{200, 3}};
  EXPECT_EQ(fieldError(group), "memory_groups[0][1]: buffer 3 does not exist (1 buffers)");
  json pipes = j;
  pipes["resource_deps"] = {{0, 1}};
  EXPECT_NE(
      fieldError(pipes).find("resource_deps[0]: not supported yet: tasks 0 and 1 share no pipe"),
      std::string::npos);
  json manual = j;
  manual["manual_schedule"] = true;
  manual["manual_stages"] = {0, 1};
  EXPECT_EQ(fieldError(manual), "manual_stages: non-zero stages need enable_offset=True");
  EXPECT_EQ(fieldError(json::array()), "(input): the problem must be an object of named fields");
  json stages = j;
  stages.erase("num_stages");
  EXPECT_EQ(fieldError(stages), "num_stages: missing");
  // A straight-line list needs no loop fields.
  json line = {{"latencies", {1}},
               {"iis", {1}},
               {"resource_flags", {16}},
               {"data_deps", json::array()},
               {"resource_deps", json::array()}};
  EXPECT_EQ(fieldError(line, ProblemShape::StraightLine), "(accepted)");
}

TEST(ProblemReader, HugeNumbersAreRefusedBeforeTheyOverflow) {
  json j = twoTaskLoop(200);
  j["latencies"] = {int64_t{1} << 40, 10};
  EXPECT_EQ(fieldError(j), "latencies[0]: 1099511627776 is above the limit of 1000000000");
  json big = twoTaskLoop(200);
  big["data_deps"] = {{0, 1, 0, 4'000'000'000}};
  EXPECT_EQ(fieldError(big),
            "data_deps[0][3]: latency 4000000000 is above the limit of 1000000000");
  json huge = twoTaskLoop(200);
  huge["latencies"] = json::array();
  for (int i = 0; i < 5000; ++i) huge["latencies"].push_back(1);
  EXPECT_EQ(fieldError(huge), "latencies: 5000 tasks, above the limit of 4096");
  json stages = twoTaskLoop(200);
  stages["num_stages"] = 100000;
  EXPECT_EQ(fieldError(stages), "num_stages: 100000 is above the limit of 256");
  json unsignedBig = twoTaskLoop(200);
  unsignedBig["iis"] = {uint64_t{1} << 63, 1};
  EXPECT_EQ(fieldError(unsignedBig), "iis[0]: is too large");
}
