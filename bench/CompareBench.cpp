// One command, one table (issue 10): every bundled example and the larger
// configurations, each in auto, none, double and serial (driver/Compare.h,
// the code of `tilesched run --compare`), as one Markdown table.
//
//   build/bench/compare_bench                          # prints the table
//   build/bench/compare_bench --write docs/performance.md
//       # also replaces the text between the compare-bench markers of that file
//   build/bench/compare_bench --filter vec_add         # only cases whose name contains it
//
// Not a test: it asserts nothing; the goals are read off the table.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "driver/Compare.h"
#include "target/Target.h"

using namespace tilesched;

namespace {

struct Case {
  std::string name;     // a short label for the table
  std::string example;  // examples/<example>.py, or a path relative to the source tree
  std::vector<std::pair<std::string, std::string>> defines;
  std::string why;  // which configuration it stands for
};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const char* e :
       {"vec_add", "softmax", "rms_norm", "gemm_l1", "gemm_l0", "ring_buffer", "annotate_versions",
        "manual_flat_ring", "persistent_tiles", "vf_region", "unlimit_memory"})
    out.push_back({e, e, {}, "example, default sizes"});
  // Long streams: tiles per core = block_N / sub_N (4 blocks).
  for (int tiles : {16, 64, 256})
    out.push_back({fmt::format("vec_add {} tiles/core", tiles),
                   "vec_add",
                   {{"N", std::to_string(4 * tiles * 1024)},
                    {"block_N", std::to_string(tiles * 1024)},
                    {"sub_N", "1024"}},
                   "streaming"});
  // UB binds: three 48 KiB tiles; six do not fit UB (248 KiB), five do.
  out.push_back({"vec_add UB-bound",
                 "vec_add",
                 {{"N", std::to_string(4 * 16 * 12288)},
                  {"block_N", std::to_string(16 * 12288)},
                  {"sub_N", "12288"}},
                 "UB binds"});
  // Softmax / RMSNorm: 16 row blocks per core over several row widths (the
  // widest do not fit UB twice).
  for (const char* k : {"softmax", "rms_norm"})
    for (int n : {256, 1024, 4096})
      out.push_back({fmt::format("{} N={}", k, n),
                     k,
                     {{"M", "256"}, {"N", std::to_string(n)}},
                     n == 4096 ? "rows, UB binds" : "rows"});
  out.push_back({"softmax N=1024 64 blocks/core",
                 "softmax",
                 {{"M", "1024"}, {"N", "1024"}},
                 "rows, 64 per core"});
  out.push_back({"rms_norm N=1024 64 blocks/core",
                 "rms_norm",
                 {{"M", "1024"}, {"N", "1024"}},
                 "rows, 64 per core"});
  // GEMM: long K; L1 tiles that do not all fit twice (160 KiB each, L1 512 KiB).
  out.push_back({"gemm_l1 K=1024",
                 "gemm_l1",
                 {{"M", "256"}, {"N", "256"}, {"K", "1024"}},
                 "gemm, 32 k tiles"});
  out.push_back({"gemm_l1 L1-bound",
                 "gemm_l1",
                 {{"M", "256"},
                  {"N", "256"},
                  {"K", "2560"},
                  {"block_M", "128"},
                  {"block_N", "128"},
                  {"block_K", "640"}},
                 "L1 binds"});
  out.push_back({"gemm_l1 1024^3",
                 "gemm_l1",
                 {{"M", "1024"},
                  {"N", "1024"},
                  {"K", "1024"},
                  {"block_M", "128"},
                  {"block_N", "128"},
                  {"block_K", "64"}},
                 "gemm 1024^3"});
  // The same GEMMs with num_stages=3 (-D num_stages=3 of examples/gemm_l1.py): a
  // third L1 version takes the load → gemm → reload recurrence off the II.
  out.push_back({"gemm_l1 num_stages=3 K=1024",
                 "gemm_l1",
                 {{"M", "256"}, {"N", "256"}, {"K", "1024"}, {"num_stages", "3"}},
                 "gemm, 32 k tiles, num_stages 3"});
  out.push_back({"gemm_l1 num_stages=3 1024^3",
                 "gemm_l1",
                 {{"M", "1024"},
                  {"N", "1024"},
                  {"K", "1024"},
                  {"block_M", "128"},
                  {"block_N", "128"},
                  {"block_K", "64"},
                  {"num_stages", "3"}},
                 "gemm 1024^3, num_stages 3"});
  // Kernels written the way upstream authors write them (bench/kernels): named
  // offsets, tails, nested and guarded loops (issue 17 §4). Default sizes.
  std::vector<std::string> files;
  for (const auto& e :
       std::filesystem::directory_iterator(std::string(TILESCHED_SOURCE_DIR) + "/bench/kernels"))
    if (e.path().extension() == ".py") files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  for (const auto& f : files)
    out.push_back({"kernels/" + f.substr(0, f.size() - 3),
                   "bench/kernels/" + f,
                   {},
                   "bench/kernels, default sizes"});
  return out;
}

std::string kernelPath(const Case& c) {
  std::string root = std::string(TILESCHED_SOURCE_DIR) + "/";
  if (c.example.find('/') != std::string::npos) return root + c.example;
  return root + "examples/" + c.example + ".py";
}

std::string definesText(const Case& c) {
  std::string s;
  for (const auto& [k, v] : c.defines) s += fmt::format("{}-D {}={}", s.empty() ? "" : " ", k, v);
  return s.empty() ? "(defaults)" : s;
}

std::string pct(double v) { return fmt::format("{:.2f}", v); }

}  // namespace

int main(int argc, char** argv) {
  std::string writePath, filter;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--write") && i + 1 < argc)
      writePath = argv[++i];
    else if (!std::strcmp(argv[i], "--filter") && i + 1 < argc)
      filter = argv[++i];
    else {
      std::cerr << "usage: compare_bench [--write FILE.md] [--filter TEXT]\n";
      return 2;
    }
  }
  std::string error;
  auto target = loadTarget("ascend950", error);
  if (!target) {
    std::cerr << error << "\n";
    return 2;
  }
  std::ostringstream table, notes;
  table << "| kernel | -D | mode | result | cycles | eff | eff f/d | auto × | versions | II/bound "
           "| compile ms | solve ms |\n";
  table << "|---|---|---|---|---:|---:|---:|---:|---|---|---:|---:|\n";
  int failures = 0;
  for (const Case& c : cases()) {
    if (!filter.empty() && c.name.find(filter) == std::string::npos) continue;
    driver::CompareOptions options;
    options.file = kernelPath(c);
    options.defines = c.defines;
    driver::Comparison cmp = driver::compareSchedules(options, *target);
    std::cerr << c.name << ": " << (cmp.compiled ? "done" : "does not compile") << "\n";
    if (!cmp.compiled) {
      table << fmt::format("| {} | {} | all | does not compile | | | | | | | | |\n", c.name,
                           definesText(c));
      ++failures;
      continue;
    }
    const driver::CompareRow* a = cmp.row("auto");
    for (const auto& r : cmp.rows) {
      bool first = &r == &cmp.rows.front();
      std::string versions;
      for (const auto& [name, n] : r.versions)
        versions += fmt::format("{}{} {}", versions.empty() ? "" : ", ", name, n);
      if (r.mode == "serial") versions = "all 1";
      std::string loops;
      for (const auto& l : r.loops)
        loops += fmt::format("{}{} {}/{}", loops.empty() ? "" : ", ", l.var, l.ii, l.iiLowerBound);
      if (!r.compiled) {
        table << fmt::format("| {} | {} | {} | does not compile: {} | | | | | | | {:.1f} | |\n",
                             first ? c.name : "", first ? definesText(c) : "", r.mode, r.error,
                             r.compileMs);
        continue;
      }
      failures += r.pass ? 0 : 1;
      std::string speedup = a && a->compiled && a->cycles
                                ? fmt::format("{:.2f}", static_cast<double>(r.cycles) /
                                                            static_cast<double>(a->cycles))
                                : "-";
      table << fmt::format(
          "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.1f} | {:.1f} |\n",
          first ? c.name : "", first ? definesText(c) : "", r.mode,
          r.pass ? "PASS" : "FAIL " + r.error, r.cycles, pct(r.efficiency),
          pct(r.fillDrainEfficiency), r.mode == "auto" ? "1.00" : speedup,
          versions.empty() ? "-" : versions, loops.empty() ? "-" : loops,
          r.compileMs + (r.mode == "auto" ? cmp.frontendMs : 0.0), r.solveMs);
    }
    // Goal: auto never slower than the best of none and double.
    if (a && a->compiled)
      for (const char* peer : {"none", "double"}) {
        const driver::CompareRow* p = cmp.row(peer);
        if (p && p->compiled && p->pass && p->cycles < a->cycles)
          notes << fmt::format("- {} ({}): auto {} cycles > {} {} cycles\n", c.name, definesText(c),
                               a->cycles, peer, p->cycles);
      }
  }
  std::string text = table.str();
  if (!notes.str().empty()) text += "\nauto slower than a peer:\n\n" + notes.str();
  std::cout << text;
  if (!writePath.empty()) {
    std::ifstream in(writePath);
    std::stringstream doc;
    doc << in.rdbuf();
    std::string s = doc.str();
    const std::string begin = "<!-- compare-bench:begin -->", end = "<!-- compare-bench:end -->";
    auto b = s.find(begin), e = s.find(end);
    if (b == std::string::npos || e == std::string::npos || e < b) {
      std::cerr << "compare_bench: " << writePath << " has no " << begin << " ... " << end
                << " markers\n";
      return 2;
    }
    s = s.substr(0, b + begin.size()) + "\n" + text + s.substr(e);
    std::ofstream out(writePath);
    out << s;
    std::cerr << "table written to " << writePath << "\n";
  }
  return failures ? 1 : 0;
}
