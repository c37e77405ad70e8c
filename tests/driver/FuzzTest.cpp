// Fuzz-style robustness: every example truncated at many points, with seeded
// random byte mutations, deletions and duplicated lines, plus binary garbage
// and an empty file. Every case must end in success or in diagnostics; no
// exception, crash or internal error. A failure prints the seed and the case
// so it can be saved as a tests/diagnostics regression file.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "Version.h"
#include "frontend/Elaborator.h"
#include "ir/Printer.h"

namespace tilesched {
namespace {

namespace fs = std::filesystem;

std::string readText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::pair<std::string, std::string>> examples() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& e : fs::directory_iterator(fs::path(TILESCHED_SOURCE_DIR) / "examples"))
    if (e.path().extension() == ".py")
      out.push_back({e.path().filename().string(), readText(e.path())});
  std::sort(out.begin(), out.end());
  return out;
}

// Compiles one case; returns an empty string when it behaved, else why not.
std::string check(const std::string& text, const frontend::FrontendOptions& options = {}) {
  auto file = std::make_shared<SourceFile>("fuzz.py", text);
  DiagnosticEngine diags(file);
  try {
    auto program = frontend::compileSource(file, options, diags);
    if (program.has_value() == diags.hasErrors())
      return "a program must come back exactly when there are no errors";
    for (const auto& d : diags.all())
      if (d.message.find("internal error") != std::string::npos) return d.message;
    if (program) {
      ir::printProgram(*program);  // the printer must handle whatever elaborates
      diags.renderAll();
    } else {
      diags.renderAll();
    }
  } catch (const std::exception& e) {
    return std::string("exception: ") + e.what();
  } catch (...) {
    return "unknown exception";
  }
  return "";
}

#define EXPECT_BEHAVES(text, what)                                            \
  do {                                                                        \
    std::string why_ = check(text);                                           \
    EXPECT_EQ(why_, "") << what << "\n--- case:\n" << (text).substr(0, 4000); \
  } while (0)

TEST(Fuzz, Truncations) {
  for (const auto& [name, text] : examples()) {
    // Every line boundary, and a spread of byte offsets.
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] != '\n' && i % 37 != 0) continue;
      std::string cut = text.substr(0, i);
      EXPECT_BEHAVES(cut, name << " truncated at byte " << i);
      if (::testing::Test::HasFailure()) return;
    }
  }
}

TEST(Fuzz, RandomMutations) {
  const uint32_t seed = 20240601;
  std::mt19937 rng(seed);
  const std::string alphabet = "()[]{}:,.=+-*/%<>!#'\"\\\t \n0123456789_abcxyzTN@";
  for (const auto& [name, text] : examples()) {
    for (int round = 0; round < 150; ++round) {
      std::string t = text;
      int edits = 1 + static_cast<int>(rng() % 4);
      for (int e = 0; e < edits && !t.empty(); ++e) {
        size_t pos = rng() % t.size();
        switch (rng() % 6) {
          case 0:
            t[pos] = alphabet[rng() % alphabet.size()];
            break;  // replace a byte
          case 1:
            t.erase(pos, 1 + rng() % 8);
            break;  // delete bytes
          case 2:
            t.insert(pos, 1, alphabet[rng() % alphabet.size()]);
            break;  // insert a byte
          case 3:
            t[pos] = static_cast<char>(rng() % 256);
            break;   // any byte
          case 4: {  // duplicate a line
            size_t start = t.rfind('\n', pos);
            start = start == std::string::npos ? 0 : start + 1;
            size_t end = t.find('\n', pos);
            end = end == std::string::npos ? t.size() : end + 1;
            t.insert(end, t.substr(start, end - start));
            break;
          }
          default: {  // swap two digits/names
            size_t other = rng() % t.size();
            std::swap(t[pos], t[other]);
          }
        }
      }
      EXPECT_BEHAVES(t, name << " mutation round " << round << " (seed " << seed << ")");
      if (::testing::Test::HasFailure()) return;
    }
  }
}

TEST(Fuzz, LineLevelEdits) {
  // Whole-line deletions and duplications keep the syntax mostly intact, so
  // they reach the elaborator more often than byte mutations do.
  const uint32_t seed = 7;
  std::mt19937 rng(seed);
  for (const auto& [name, text] : examples()) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    for (int round = 0; round < 60; ++round) {
      auto ls = lines;
      size_t i = rng() % ls.size(), j = rng() % ls.size();
      switch (rng() % 4) {
        case 0:
          ls.erase(ls.begin() + static_cast<long>(i));
          break;
        case 1:
          ls.insert(ls.begin() + static_cast<long>(i), ls[j]);
          break;
        case 2:
          std::swap(ls[i], ls[j]);
          break;
        default:
          ls[i] = "    " + ls[i];
          break;
      }
      std::string t;
      for (const auto& l : ls) t += l + "\n";
      EXPECT_BEHAVES(t, name << " line edit round " << round << " (seed " << seed << ")");
      if (::testing::Test::HasFailure()) return;
    }
  }
}

TEST(Fuzz, GarbageAndEdgeInputs) {
  std::mt19937 rng(99);
  for (int i = 0; i < 50; ++i) {
    std::string t(static_cast<size_t>(rng() % 2000), '\0');
    for (auto& c : t) c = static_cast<char>(rng() % 256);
    EXPECT_BEHAVES(t, "binary garbage " << i);
  }
  EXPECT_BEHAVES(std::string(""), "empty file");
  EXPECT_BEHAVES(std::string("\n\n\n"), "blank lines");
  EXPECT_BEHAVES(std::string(10000, '('), "deep brackets");
  EXPECT_BEHAVES(std::string("x = ") + std::string(5000, '-') + "1\n", "deep unary");
  std::string deepIf;
  for (int d = 0; d < 300; ++d) deepIf += std::string(static_cast<size_t>(d), ' ') + "if True:\n";
  EXPECT_BEHAVES(deepIf, "deep blocks");
  EXPECT_BEHAVES(std::string("\xef\xbb\xbfimport tilelang.language as T\n"), "BOM");
}

TEST(Fuzz, HostileButValidKernels) {
  const std::string head =
      "import tilelang.language as T\n\n@T.prim_func\ndef main(A: T.Tensor((1024,), "
      "\"float32\")):\n    with T.Kernel(1) as bx:\n";
  for (const char* body : {
           "        a = T.alloc_shared((2 ** 40, 2 ** 40), \"float32\")\n",
           "        a = T.alloc_shared((1024,), \"float32\")\n        T.copy(A[bx * 2 ** 62:bx * 2 "
           "** 62 + 4], a[0:4])\n",
           "        a = T.alloc_shared((1024,), \"float32\")\n        T.copy(A[bx * 2 ** 62 * 4:bx "
           "* 2 ** 62 * 4 + 4], a[0:4])\n",
           "        for i in T.serial(-2 ** 63, 2 ** 63 - 1):\n            pass\n",
           "        for i in T.serial(0, 10, 2 ** 63 - 1):\n            pass\n",
           "        for t in T.Persistent([2 ** 40, 2 ** 40], 1, bx):\n            pass\n",
           "        for x in (1,) * 100000:\n            pass\n",
           "        a = T.alloc_shared(((1, 2, 3)[1::2 ** 62],), \"float32\")\n",
           "        x = T.int32(1e300)\n",
           "        x = f\"{1:>999999999}\"\n",
           "        a = T.alloc_shared((4,), \"float32\")\n        T.copy(*(A[0:4], a))\n        "
           "T.gemm(*(a,))\n        T.reduce_sum(*(a, a))\n",
           "        a = T.alloc_shared((4,), \"float32\")\n        T.set_flag(*(\"MTE2\", \"V\", "
           "9))\n",
           "        with T.Persistent(*[4]) as i:\n            pass\n",
       }) {
    EXPECT_BEHAVES(head + body, body);
  }
  // A kernel -D values that are not literals at all.
  frontend::FrontendOptions o;
  o.defines = {{"N", "((("}, {"dtype", "\xff\xfe"}};
  EXPECT_EQ(
      check("import tilelang.language as T\n\ndef f(N=4, dtype=\"float32\"):\n    @T.prim_func\n"
            "    def main(A: T.Tensor((N,), dtype)):\n        with T.Kernel(1) as bx:\n            "
            "pass\n\n    return main\n",
            o),
      "");
}

}  // namespace
}  // namespace tilesched
