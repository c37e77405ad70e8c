// Target loader tests: the built-in files load with the SPEC §3 figures, and
// every kind of validation error names the file and the JSON path of the field.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "Version.h"
#include "target/Target.h"

using namespace tilesched;
using nlohmann::json;

namespace {

constexpr const char* kFile = "targets/x.json";

std::string builtinPath(const std::string& name) {
  return std::string(TILESCHED_SOURCE_DIR) + "/targets/" + name + ".json";
}

json builtinJson(const std::string& name) {
  std::ifstream in(builtinPath(name));
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str());
}

Target mustLoad(const std::string& nameOrPath) {
  std::string error;
  std::optional<Target> t = loadTarget(nameOrPath, error);
  EXPECT_TRUE(t.has_value()) << error;
  EXPECT_EQ(error, "");
  return t ? *t : Target{};
}

// Parses `doc` and returns the error text (empty when it loaded).
std::string errorOf(const json& doc) {
  std::string error;
  std::optional<Target> t = parseTarget(doc.dump(2), kFile, error);
  EXPECT_EQ(t.has_value(), error.empty());
  return error;
}

#define EXPECT_HAS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "in: " << (haystack)

}  // namespace

// ---------------------------------------------------------------- Hardware.h

TEST(Hardware, PipeMasksMatchTheScheduleProblemFormat) {
  EXPECT_EQ(pipeMask(Pipe::MTE1), 1u);
  EXPECT_EQ(pipeMask(Pipe::MTE2), 2u);
  EXPECT_EQ(pipeMask(Pipe::MTE3), 4u);
  EXPECT_EQ(pipeMask(Pipe::M), 8u);
  EXPECT_EQ(pipeMask(Pipe::V), 16u);
  EXPECT_EQ(pipeMask(Pipe::FIX), 32u);
  EXPECT_EQ(pipeMask(Pipe::S), 64u);
}

TEST(Hardware, NamesRoundTrip) {
  for (Pipe p : kAllPipes) EXPECT_EQ(parsePipe(pipeName(p)), p);
  for (MemScope s : kAllMemScopes) EXPECT_EQ(parseMemScope(memScopeName(s)), s);
  EXPECT_EQ(parsePipe("mte2"), std::nullopt);
  EXPECT_EQ(parseMemScope("ub"), std::nullopt);
  EXPECT_EQ(allPipeNames(), "MTE1, MTE2, MTE3, M, V, FIX, S");
  EXPECT_EQ(hardEventName(Pipe::MTE2, Pipe::V), "MTE2_V");
}

TEST(Hardware, ScopeSpellingsAreExact) {
  EXPECT_EQ(memScopeName(MemScope::Global), "global");
  EXPECT_EQ(memScopeName(MemScope::UB), "shared");
  EXPECT_EQ(memScopeName(MemScope::L1), "shared.l1");
  EXPECT_EQ(memScopeName(MemScope::L0A), "shared.l0a");
  EXPECT_EQ(memScopeName(MemScope::L0B), "shared.l0b");
  EXPECT_EQ(memScopeName(MemScope::L0C), "shared.l0c");
  EXPECT_EQ(memScopeName(MemScope::Fragment), "local.fragment");
  EXPECT_EQ(memScopeName(MemScope::LocalVar), "local.var");
  EXPECT_EQ(memScopeName(MemScope::Local), "local");
  EXPECT_TRUE(isCapacityChecked(MemScope::L0C));
  EXPECT_FALSE(isCapacityChecked(MemScope::Global));
  EXPECT_FALSE(isCapacityChecked(MemScope::Fragment));
  EXPECT_TRUE(isLocalScope(MemScope::LocalVar));
  EXPECT_FALSE(isLocalScope(MemScope::UB));
}

// ---------------------------------------------------------------- built-in files

TEST(TargetLoad, BuiltinNames) {
  std::vector<std::string> names = builtinTargetNames();
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(names[0], defaultTargetName());
  EXPECT_EQ(names[1], "ascend910b");
  for (const std::string& n : names) EXPECT_EQ(mustLoad(n).name, n);
}

TEST(TargetLoad, Ascend950Figures) {
  Target t = mustLoad("ascend950");
  EXPECT_EQ(t.name, "ascend950");
  EXPECT_FALSE(t.description.empty());
  EXPECT_EQ(t.path, builtinPath("ascend950"));

  EXPECT_EQ(t.capacity(MemScope::UB), 253952);
  EXPECT_EQ(t.capacity(MemScope::UB, /*kernelHasSimtVF=*/true), 221184);
  EXPECT_EQ(t.capacity(MemScope::L1), 524288);
  EXPECT_EQ(t.capacity(MemScope::L1, true), 524288);
  EXPECT_EQ(t.capacity(MemScope::L0A), 65536);
  EXPECT_EQ(t.capacity(MemScope::L0B), 65536);
  EXPECT_EQ(t.capacity(MemScope::L0C), 262144);
  EXPECT_EQ(t.capacity(MemScope::Global), std::nullopt);
  EXPECT_EQ(t.capacity(MemScope::Fragment), std::nullopt);

  EXPECT_EQ(t.alignment(MemScope::UB), 32);
  EXPECT_EQ(t.alignment(MemScope::L1), 32);
  EXPECT_EQ(t.alignment(MemScope::L0A), 512);
  EXPECT_EQ(t.alignment(MemScope::L0B), 512);
  EXPECT_EQ(t.alignment(MemScope::L0C), 64);
  EXPECT_EQ(t.alignment(MemScope::Global), 1);

  EXPECT_EQ(t.eventIdsPerHardEvent, 8);
  for (Pipe p : {Pipe::S, Pipe::V, Pipe::M}) {
    EXPECT_TRUE(t.completesInOrder(p)) << pipeName(p);
    EXPECT_FALSE(t.needsPipeBarrier(p)) << pipeName(p);
  }
  for (Pipe p : {Pipe::MTE1, Pipe::MTE2, Pipe::MTE3, Pipe::FIX}) {
    EXPECT_FALSE(t.completesInOrder(p)) << pipeName(p);
    EXPECT_TRUE(t.needsPipeBarrier(p)) << pipeName(p);
  }
  for (Pipe p : kAllPipes) EXPECT_EQ(t.queueDepth(p), 32);

  EXPECT_EQ(t.cost.scalar.cyclesPerStatement, 1);
  EXPECT_EQ(t.cost.scalar.loopOverheadCycles, 2);
  EXPECT_EQ(t.cost.scalar.issueCycles, 1);
  EXPECT_EQ(t.cost.path(CopyPath::GmToUb).byteScale, 2);
  EXPECT_EQ(t.cost.path(CopyPath::UbToGm).byteScale, 2);
  EXPECT_EQ(t.cost.path(CopyPath::GmToL1).byteScale, 1);
  EXPECT_EQ(t.cost.path(CopyPath::GmToUb).rowStrided.size(), 5u);
  EXPECT_EQ(t.cost.vector.bytesPerCycle, Rate::perCycle(256));
  EXPECT_EQ(t.cost.vector.elementsPerCycle[vectorOpClassIndex(VectorOpClass::Simple)],
            Rate::perCycle(51));
}

TEST(TargetLoad, CopyPipesFollowSpec) {
  for (const std::string& name : builtinTargetNames()) {
    Target t = mustLoad(name);
    EXPECT_EQ(t.copyPipe(CopyPath::GmToUb), Pipe::MTE2);
    EXPECT_EQ(t.copyPipe(CopyPath::GmToL1), Pipe::MTE2);
    EXPECT_EQ(t.copyPipe(CopyPath::UbToGm), Pipe::MTE3);
    EXPECT_EQ(t.copyPipe(CopyPath::UbToL1), Pipe::MTE3);
    EXPECT_EQ(t.copyPipe(CopyPath::L1ToL0A), Pipe::MTE1);
    EXPECT_EQ(t.copyPipe(CopyPath::L1ToL0B), Pipe::MTE1);
    EXPECT_EQ(t.copyPipe(CopyPath::L0cToUb), Pipe::FIX);
    EXPECT_EQ(t.copyPipe(CopyPath::L0cToGm), Pipe::FIX);
    EXPECT_EQ(t.copyPipe(CopyPath::VectorMove), Pipe::V);
  }
}

TEST(TargetLoad, Ascend910bFigures) {
  Target t = mustLoad("ascend910b");
  EXPECT_EQ(t.capacity(MemScope::UB), 196608);
  EXPECT_EQ(t.capacity(MemScope::UB, true), 196608);  // no SimtVF reduction on 910B
  EXPECT_EQ(t.capacity(MemScope::L1), 524288);
  EXPECT_EQ(t.capacity(MemScope::L0A), 65536);
  EXPECT_EQ(t.capacity(MemScope::L0B), 65536);
  EXPECT_EQ(t.capacity(MemScope::L0C), 131072);
  EXPECT_EQ(t.alignment(MemScope::L0A), 512);
  EXPECT_EQ(t.eventIdsPerHardEvent, 8);

  EXPECT_EQ(t.cost.path(CopyPath::GmToUb).byteScale, 1);
  EXPECT_EQ(t.cost.path(CopyPath::GmToUb).latencyRate.milli, 58600);
  EXPECT_EQ(t.cost.path(CopyPath::GmToL1).latencyRate.milli, 78400);
  EXPECT_EQ(t.cost.path(CopyPath::UbToGm).latencyRate.milli, 109400);
  EXPECT_EQ(t.cost.path(CopyPath::L1ToL0A).latencyRate.milli, 256000);
  EXPECT_EQ(t.cost.path(CopyPath::L1ToL0B).latencyRate.milli, 128000);
  EXPECT_EQ(t.cost.path(CopyPath::L0cToGm).latencyRate.milli, 40600);
  EXPECT_EQ(t.cost.gemmFor(DTypeClass::F16).latencyRate, Rate::perCycle(8192));  // 4096 MACs
  EXPECT_EQ(t.cost.vector.bytesPerCycle, Rate::perCycle(128));  // 256 B per 2-cycle repeat
}

TEST(TargetLoad, AcceptsAPathToAnyJsonFile) {
  json doc = builtinJson("ascend950");
  doc["name"] = "my950";
  doc["capacity"]["shared"] = 1024;
  std::string path = ::testing::TempDir() + "/tilesched_my950.json";
  {
    std::ofstream out(path);
    out << doc.dump(2);
  }
  Target t = mustLoad(path);
  EXPECT_EQ(t.name, "my950");
  EXPECT_EQ(t.path, path);
  EXPECT_EQ(t.capacity(MemScope::UB), 1024);
  // The full path of a built-in file works too.
  EXPECT_EQ(mustLoad(builtinPath("ascend910b")).name, "ascend910b");
}

TEST(TargetLoad, TargetsDirectoryCanBeOverridden) {
  json doc = builtinJson("ascend910b");
  doc["name"] = "elsewhere";
  std::string dir = ::testing::TempDir();
  {
    std::ofstream out(dir + "/tilesched_env_target.json");
    out << doc.dump();
  }
  ASSERT_EQ(setenv("TILESCHED_TARGETS_DIR", dir.c_str(), 1), 0);
  EXPECT_EQ(targetsDirectory(), dir);
  std::string error;
  std::optional<Target> t = loadTarget("tilesched_env_target", error);
  unsetenv("TILESCHED_TARGETS_DIR");
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->name, "elsewhere");
  EXPECT_EQ(targetsDirectory(), std::string(TILESCHED_SOURCE_DIR) + "/targets");
}

TEST(TargetLoad, CommentKeysAreIgnored) {
  json doc = builtinJson("ascend950");
  doc["_note"] = "anything";
  doc["capacity"]["_why"] = {1, 2, 3};
  doc["cost_model"]["copy"]["gm_to_ub"]["_x"] = nullptr;
  EXPECT_EQ(errorOf(doc), "");
}

TEST(TargetLoad, RowStridedIsOptional) {
  json doc = builtinJson("ascend950");
  doc["cost_model"]["copy"]["gm_to_ub"].erase("row_strided");
  doc["cost_model"]["copy"]["ub_to_gm"]["row_strided"] = json::array();
  std::string error;
  std::optional<Target> t = parseTarget(doc.dump(), kFile, error);
  ASSERT_TRUE(t) << error;
  EXPECT_TRUE(t->cost.path(CopyPath::GmToUb).rowStrided.empty());
  EXPECT_TRUE(t->cost.path(CopyPath::UbToGm).rowStrided.empty());
}

// ---------------------------------------------------------------- validation errors

TEST(TargetValidation, UnknownTargetName) {
  std::string error;
  EXPECT_FALSE(loadTarget("ascend999", error));
  EXPECT_HAS(error, "unknown target 'ascend999'");
  EXPECT_HAS(error, "ascend950, ascend910b");
  EXPECT_FALSE(loadTarget("", error));
  EXPECT_HAS(error, "empty target name");
}

TEST(TargetValidation, MissingFile) {
  std::string error;
  EXPECT_FALSE(loadTarget("/nonexistent/dir/t.json", error));
  EXPECT_HAS(error, "/nonexistent/dir/t.json: cannot open target file");
}

TEST(TargetValidation, MalformedJsonGivesPosition) {
  std::string error;
  EXPECT_FALSE(parseTarget("{\n  \"name\": \"x\",\n  \"pipes\": }\n", kFile, error));
  EXPECT_HAS(error, "targets/x.json: malformed JSON: parse error at line 3, column");
  EXPECT_EQ(error.find("[json.exception"), std::string::npos) << error;
}

TEST(TargetValidation, TopLevelMustBeAnObject) {
  std::string error;
  EXPECT_FALSE(parseTarget("[1, 2]", kFile, error));
  EXPECT_HAS(error, "targets/x.json: the top level must be a JSON object, got array");
}

TEST(TargetValidation, MissingField) {
  json doc = builtinJson("ascend950");
  doc["capacity"].erase("shared");
  EXPECT_EQ(errorOf(doc), "targets/x.json: missing field 'capacity.shared'");

  doc = builtinJson("ascend950");
  doc["pipes"].erase("FIX");
  EXPECT_EQ(errorOf(doc), "targets/x.json: missing field 'pipes.FIX'");

  doc = builtinJson("ascend950");
  doc["cost_model"]["copy"]["l1_to_l0b"]["ii"].erase("min");
  EXPECT_EQ(errorOf(doc), "targets/x.json: missing field 'cost_model.copy.l1_to_l0b.ii.min'");

  doc = builtinJson("ascend950");
  doc.erase("sync");
  EXPECT_EQ(errorOf(doc), "targets/x.json: missing field 'sync'");

  doc = builtinJson("ascend950");
  doc["cost_model"]["gemm"].erase("hf32");
  EXPECT_EQ(errorOf(doc), "targets/x.json: missing field 'cost_model.gemm.hf32'");
}

TEST(TargetValidation, WrongType) {
  json doc = builtinJson("ascend950");
  doc["capacity"]["shared"] = "big";
  EXPECT_EQ(errorOf(doc),
            "targets/x.json: field 'capacity.shared' must be a positive integer, got string");

  doc = builtinJson("ascend950");
  doc["capacity"]["shared.l1"] = 1.5;
  EXPECT_EQ(errorOf(doc),
            "targets/x.json: field 'capacity.shared.l1' must be a positive integer, got number");

  doc = builtinJson("ascend950");
  doc["pipes"]["V"]["in_order_completion"] = 1;
  EXPECT_EQ(errorOf(doc),
            "targets/x.json: field 'pipes.V.in_order_completion' must be a boolean "
            "(true or false), got number");

  doc = builtinJson("ascend950");
  doc["cost_model"]["vector"] = json::array();
  EXPECT_EQ(errorOf(doc), "targets/x.json: field 'cost_model.vector' must be an object, got array");

  doc = builtinJson("ascend950");
  doc["cost_model"]["copy"]["gm_to_ub"]["latency"]["bytes_per_cycle"] = "fast";
  EXPECT_HAS(errorOf(doc),
             "field 'cost_model.copy.gm_to_ub.latency.bytes_per_cycle' must be a "
             "positive number with at most 3 decimals, got string");

  doc = builtinJson("ascend950");
  doc["name"] = 950;
  EXPECT_EQ(errorOf(doc), "targets/x.json: field 'name' must be a string, got number");

  doc = builtinJson("ascend950");
  doc["cost_model"]["copy"]["gm_to_ub"]["row_strided"] = 3;
  EXPECT_EQ(errorOf(doc),
            "targets/x.json: field 'cost_model.copy.gm_to_ub.row_strided' must be "
            "an array, got number");
}

TEST(TargetValidation, NegativeAndZeroNumbers) {
  json doc = builtinJson("ascend950");
  doc["capacity"]["shared"] = -1;
  EXPECT_EQ(errorOf(doc),
            "targets/x.json: field 'capacity.shared' must be a positive integer, got -1");

  doc = builtinJson("ascend950");
  doc["sync"]["event_ids_per_hard_event"] = 0;
  EXPECT_EQ(errorOf(doc),
            "targets/x.json: field 'sync.event_ids_per_hard_event' must be a "
            "positive integer, got 0");

  doc = builtinJson("ascend950");
  doc["cost_model"]["copy"]["gm_to_l1"]["latency"]["base"] = -190;
  EXPECT_EQ(errorOf(doc),
            "targets/x.json: field 'cost_model.copy.gm_to_l1.latency.base' must be "
            "a non-negative integer, got -190");

  doc = builtinJson("ascend950");
  doc["cost_model"]["gemm"]["fp16"]["ii"]["ops_per_cycle"] = 0;
  EXPECT_HAS(errorOf(doc),
             "field 'cost_model.gemm.fp16.ii.ops_per_cycle' must be a positive "
             "number");

  doc = builtinJson("ascend950");
  doc["cost_model"]["vector"]["elements_per_cycle"]["div_mod"] = -13;
  EXPECT_HAS(errorOf(doc),
             "field 'cost_model.vector.elements_per_cycle.div_mod' must be a "
             "positive number");

  doc = builtinJson("ascend950");
  doc["cost_model"]["scalar"]["loop_overhead_cycles"] = 0;  // zero is allowed here
  EXPECT_EQ(errorOf(doc), "");
}

TEST(TargetValidation, RatesHaveAtMostThreeDecimals) {
  json doc = builtinJson("ascend910b");
  doc["cost_model"]["copy"]["gm_to_ub"]["ii"]["bytes_per_cycle"] = 58.6001;
  EXPECT_HAS(errorOf(doc),
             "field 'cost_model.copy.gm_to_ub.ii.bytes_per_cycle' must be a "
             "positive number with at most 3 decimals, got 58.6001");
  doc["cost_model"]["copy"]["gm_to_ub"]["ii"]["bytes_per_cycle"] = 58.625;
  EXPECT_EQ(errorOf(doc), "");
}

TEST(TargetValidation, UnknownPipe) {
  json doc = builtinJson("ascend950");
  doc["pipes"]["MTE9"] = {{"in_order_completion", true}, {"queue_depth", 4}};
  EXPECT_EQ(errorOf(doc),
            "targets/x.json: field 'pipes.MTE9' names an unknown pipe 'MTE9'; "
            "expected one of: MTE1, MTE2, MTE3, M, V, FIX, S");

  doc = builtinJson("ascend950");
  doc["cost_model"]["copy"]["gm_to_ub"]["pipe"] = "VEC";
  EXPECT_EQ(errorOf(doc),
            "targets/x.json: field 'cost_model.copy.gm_to_ub.pipe' names an "
            "unknown pipe 'VEC'; expected one of: MTE1, MTE2, MTE3, M, V, FIX, S");
}

TEST(TargetValidation, UnknownScope) {
  json doc = builtinJson("ascend950");
  doc["capacity"]["shared.l2"] = 4096;
  EXPECT_EQ(errorOf(doc),
            "targets/x.json: field 'capacity.shared.l2' names an unknown scope "
            "'shared.l2'; expected one of: shared, shared.l1, shared.l0a, "
            "shared.l0b, shared.l0c");

  doc = builtinJson("ascend950");
  doc["capacity_with_simt_vf"]["global"] = 4096;
  EXPECT_HAS(errorOf(doc),
             "field 'capacity_with_simt_vf.global' names scope 'global', which has "
             "no capacity");
}

TEST(TargetValidation, UnknownFieldIsATypo) {
  json doc = builtinJson("ascend950");
  doc["cost_model"]["vectr"] = json::object();
  EXPECT_EQ(errorOf(doc),
            "targets/x.json: unknown field 'cost_model.vectr'; expected one of: "
            "copy, gemm, vector, scalar");

  doc = builtinJson("ascend950");
  doc["cost_model"]["copy"]["gm_to_l0a"] = json::object();
  EXPECT_HAS(errorOf(doc), "field 'cost_model.copy.gm_to_l0a' names an unknown copy path");
}

TEST(TargetValidation, AlignmentMustBeAPowerOfTwo) {
  json doc = builtinJson("ascend950");
  doc["alignment"]["shared.l0c"] = 48;
  EXPECT_EQ(errorOf(doc),
            "targets/x.json: field 'alignment.shared.l0c' must be a power of two, got 48");
}

TEST(TargetValidation, RowStridedBands) {
  json doc = builtinJson("ascend950");
  doc["cost_model"]["copy"]["gm_to_ub"]["row_strided"][0]["min_row_bytes"] = 8;
  EXPECT_HAS(errorOf(doc),
             "field 'cost_model.copy.gm_to_ub.row_strided[0].min_row_bytes' must be "
             "0 in the first band");

  doc = builtinJson("ascend950");
  doc["cost_model"]["copy"]["gm_to_ub"]["row_strided"][2]["min_row_bytes"] = 32;
  EXPECT_HAS(errorOf(doc),
             "field 'cost_model.copy.gm_to_ub.row_strided[2].min_row_bytes' must be "
             "greater than the previous band's (32), got 32");

  doc = builtinJson("ascend950");
  doc["cost_model"]["copy"]["ub_to_gm"]["row_strided"][1].erase("latency_base");
  EXPECT_EQ(errorOf(doc),
            "targets/x.json: missing field "
            "'cost_model.copy.ub_to_gm.row_strided[1].latency_base'");

  doc = builtinJson("ascend950");
  doc["cost_model"]["copy"]["ub_to_gm"]["row_strided"][1] = 7;
  EXPECT_EQ(errorOf(doc),
            "targets/x.json: field 'cost_model.copy.ub_to_gm.row_strided[1]' must "
            "be an object, got number");
}

TEST(TargetValidation, FormatVersion) {
  json doc = builtinJson("ascend950");
  doc["format_version"] = 2;
  EXPECT_HAS(errorOf(doc), "field 'format_version' must be 1");
}

TEST(TargetValidation, ReportsEveryErrorOnItsOwnLine) {
  json doc = builtinJson("ascend950");
  doc["capacity"]["shared"] = -1;
  doc["pipes"]["S"]["queue_depth"] = "deep";
  doc["cost_model"]["scalar"].erase("issue_cycles");
  std::string error = errorOf(doc);
  EXPECT_EQ(std::count(error.begin(), error.end(), '\n'), 2) << error;
  EXPECT_HAS(error, "'capacity.shared'");
  EXPECT_HAS(error, "'pipes.S.queue_depth'");
  EXPECT_HAS(error, "'cost_model.scalar.issue_cycles'");
}

TEST(TargetValidation, ErrorsFromAFileNameThatFile) {
  json doc = builtinJson("ascend950");
  doc["capacity"]["shared"] = -5;
  std::string path = ::testing::TempDir() + "/tilesched_bad_target.json";
  {
    std::ofstream out(path);
    out << doc.dump(2);
  }
  std::string error;
  EXPECT_FALSE(loadTarget(path, error));
  EXPECT_EQ(error, path + ": field 'capacity.shared' must be a positive integer, got -5");
}

TEST(TargetValidation, CoreGroup) {
  json doc = builtinJson("ascend950");
  doc["core_group"]["vector"]["pipes"].push_back("M");
  EXPECT_EQ(errorOf(doc),
            "targets/x.json: field 'core_group' must put pipe M on exactly one core kind");

  doc = builtinJson("ascend950");
  doc["core_group"]["cube"]["pipes"] = {"MTE1", "M", "FIX", "S"};
  EXPECT_EQ(errorOf(doc),
            "targets/x.json: field 'core_group' must put pipe MTE2 on both core kinds (cube and "
            "vector)");

  doc = builtinJson("ascend950");
  doc["core_group"]["cube"]["pipes"].push_back("VEC");
  EXPECT_EQ(errorOf(doc),
            "targets/x.json: field 'core_group.cube.pipes[5]' must name a pipe (MTE1, MTE2, "
            "MTE3, M, V, FIX, S), got \"VEC\"");

  doc = builtinJson("ascend950");
  doc["core_group"]["cube"]["scopes"].push_back("shared");
  EXPECT_EQ(errorOf(doc),
            "targets/x.json: field 'core_group' must not list scope shared under both cube and "
            "vector");

  doc = builtinJson("ascend950");
  doc["core_group"]["cube"]["scopes"] = {"shared.l0a", "shared.l0b", "shared.l0c"};
  EXPECT_EQ(errorOf(doc),
            "targets/x.json: field 'core_group' must list scope shared.l1 under cube or vector");

  doc = builtinJson("ascend950");
  doc["core_group"]["vector"]["scopes"].push_back("global");
  EXPECT_HAS(errorOf(doc), "field 'core_group.vector.scopes[2]' must name an on-chip scope");

  doc = builtinJson("ascend950");
  doc["core_group"]["cross_core_flags"] = 0;
  EXPECT_HAS(errorOf(doc), "field 'core_group.cross_core_flags' must be a positive integer");

  // A misspelt pipe is one error, not also a missing one.
  doc = builtinJson("ascend950");
  doc["core_group"]["cube"]["pipes"] = {"MTE2", "MTE1", "MM", "FIX", "S"};
  EXPECT_EQ(errorOf(doc),
            "targets/x.json: field 'core_group.cube.pipes[2]' must name a pipe (MTE1, MTE2, "
            "MTE3, M, V, FIX, S), got \"MM\"");

  // Without core_group (a target file written before it): the Ascend split.
  doc = builtinJson("ascend950");
  doc.erase("core_group");
  std::string error;
  auto t = parseTarget(doc.dump(2), kFile, error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->coreGroup.cubePipes, mustLoad("ascend950").coreGroup.cubePipes);
  EXPECT_EQ(t->coreGroup.vectorScopes, mustLoad("ascend950").coreGroup.vectorScopes);
}

TEST(TargetLoad, CoreGroupFigures) {
  for (const char* name : {"ascend950", "ascend910b"}) {
    Target t = mustLoad(name);
    EXPECT_EQ(t.coreGroup.aivPerAic, 2) << name;
    EXPECT_EQ(t.coreGroup.crossCoreFlags, 16) << name;
    EXPECT_EQ(t.coreGroup.crossCoreFlagLatency, 0) << name;
    EXPECT_EQ(t.coreGroup.cubePipes, pipeMask(Pipe::MTE2) | pipeMask(Pipe::MTE1) |
                                         pipeMask(Pipe::M) | pipeMask(Pipe::FIX) |
                                         pipeMask(Pipe::S));
    EXPECT_TRUE(t.coreGroup.vectorHas(MemScope::Fragment));
  }
}
