// Golden printed IR of every example: `tilesched compile examples/X.py --emit ir`
// (run from the repository root) must equal tests/golden/X.ir byte for byte.
// TILESCHED_UPDATE_GOLDEN=1 rewrites the goldens instead; review the diff
// against the kernel source before committing it (tests/README.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "Version.h"
#include "frontend/Elaborator.h"
#include "ir/Printer.h"

namespace tilesched {
namespace {

namespace fs = std::filesystem;

const fs::path kRoot = TILESCHED_SOURCE_DIR;

std::string readText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> examples() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(kRoot / "examples"))
    if (e.path().extension() == ".py") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

bool updating() {
  const char* v = std::getenv("TILESCHED_UPDATE_GOLDEN");
  return v && std::string(v) == "1";
}

class Golden : public ::testing::TestWithParam<std::string> {};

TEST_P(Golden, PrintedIRMatches) {
  std::string rel = "examples/" + GetParam() + ".py";
  auto file = std::make_shared<SourceFile>(rel, readText(kRoot / rel));
  DiagnosticEngine diags(file);
  auto program = frontend::compileSource(file, {}, diags);
  ASSERT_TRUE(program) << diags.renderAll();
  EXPECT_TRUE(diags.all().empty()) << diags.renderAll();
  std::string actual = ir::printProgram(*program);
  fs::path golden = kRoot / "tests" / "golden" / (GetParam() + ".ir");
  if (updating()) {
    std::ofstream(golden, std::ios::binary) << actual;
    GTEST_SKIP() << "rewrote " << golden;
  }
  ASSERT_TRUE(fs::exists(golden))
      << golden << " is missing; run with TILESCHED_UPDATE_GOLDEN=1 and review it";
  EXPECT_EQ(readText(golden), actual)
      << "printed IR of " << rel << " differs from " << golden
      << "; if the change is intended, regenerate with TILESCHED_UPDATE_GOLDEN=1";
}

INSTANTIATE_TEST_SUITE_P(Examples, Golden, ::testing::ValuesIn(examples()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

// Every golden belongs to an example (a renamed example must not leave a stale golden).
TEST(Golden, NoOrphans) {
  auto names = examples();
  for (const auto& e : fs::directory_iterator(kRoot / "tests" / "golden")) {
    if (e.path().extension() != ".ir") continue;
    EXPECT_TRUE(std::find(names.begin(), names.end(), e.path().stem().string()) != names.end())
        << e.path() << " has no examples/" << e.path().stem().string() << ".py";
  }
}

}  // namespace
}  // namespace tilesched
