// Helpers for the simulator tests: compile a kernel snippet, set and read
// global tensors, run the reference interpreter or the simulator on it.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "frontend/Elaborator.h"
#include "ir/IROperator.h"
#include "sim/Machine.h"
#include "sim/Run.h"
#include "sim/Simulator.h"
#include "target/Target.h"
#include "transform/SerialLowering.h"

namespace tilesched::sim::test {

inline std::optional<ir::Program> compileText(const std::string& text,
                                              std::string* errors = nullptr) {
  auto file = std::make_shared<SourceFile>("snippet.py", text);
  DiagnosticEngine diags(file);
  auto p = frontend::compileSource(file, {}, diags);
  if (errors) *errors = diags.renderAll();
  return p;
}

// Kernel text with the usual header: `body` is indented under T.Kernel.
inline std::string kernelText(const std::string& params, const std::string& body, int grid = 1) {
  std::string text = "import tilelang.language as T\n\n@T.prim_func\ndef main(" + params + "):\n";
  text += "    with T.Kernel(" + std::to_string(grid) + ") as bx:\n";
  std::string line;
  for (char c : body + "\n") {
    if (c == '\n') {
      if (!line.empty()) text += "        " + line + "\n";
      line.clear();
    } else {
      line += c;
    }
  }
  return text;
}

inline const Target& testTarget() {
  static const Target target = [] {
    std::string error;
    auto t = loadTarget("ascend950", error);
    if (!t) throw std::runtime_error(error);
    return *t;
  }();
  return target;
}

// A compiled kernel with its memory, for reference-semantics tests.
struct Harness {
  ir::Program program;
  std::unique_ptr<Memory> memory;
  const ir::Kernel& kernel() const { return program.kernels.front(); }

  explicit Harness(const std::string& text) {
    std::string errors;
    auto p = compileText(text, &errors);
    if (!p) throw std::runtime_error("snippet does not compile:\n" + errors);
    program = std::move(*p);
    memory = std::make_unique<Memory>(kernel());
  }
  const ir::Buffer& buffer(const std::string& name) const { return *kernel().findBuffer(name); }
  void set(const std::string& name, const std::vector<double>& values) {
    const auto& b = buffer(name);
    auto& raw = memory->raw(memory->index(b->storage));
    int eb = ir::dtypeBytes(b->dtype);
    for (size_t i = 0; i < values.size(); ++i) {
      Scalar v = ir::isFloat(b->dtype) ? Scalar::ofFloat(values[i])
                                       : Scalar::ofInt(static_cast<int64_t>(values[i]));
      storeElement(raw.data() + i * static_cast<size_t>(eb), b->dtype, v);
    }
  }
  std::vector<double> get(const std::string& name) const {
    const auto& b = buffer(name);
    int idx = memory->index(b->storage);
    int eb = ir::dtypeBytes(b->dtype);
    std::vector<double> out;
    for (int64_t off = 0; off + eb <= memory->size(idx); off += eb)
      out.push_back(loadElement(memory->data(idx) + off, b->dtype).asDouble());
    return out;
  }
  // Runs the reference semantics of every block; returns the error text, if any.
  std::string runReference() {
    Machine m(kernel(), *memory);
    try {
      for (int64_t b = 0; b < kernel().grid; ++b) {
        memory->resetOnChip();
        m.bindBlock(b);
        m.exec(kernel().body);
      }
    } catch (const ExecError& e) {
      return "line " + std::to_string(e.loc.line) + ": " + e.message;
    }
    return "";
  }
  // Simulates the kernel exactly as written (no lowering).
  SimResult simulate() {
    SimOptions o;
    return sim::simulate(kernel(), testTarget(), *memory, o);
  }
};

}  // namespace tilesched::sim::test

namespace tilesched::sim::test {

// Reference run + simulation of the kernel exactly as written + comparison.
inline KernelRun runAsWritten(const std::string& text) {
  std::string errors;
  auto p = compileText(text, &errors);
  if (!p) throw std::runtime_error("snippet does not compile:\n" + errors);
  static std::vector<ir::Program> keep;  // the results point into the IR
  keep.push_back(std::move(*p));
  const ir::Kernel& k = keep.back().kernels.front();
  RunOptions o;
  RunRefusal refusal;
  auto run = runKernel(k, k, testTarget(), o, refusal);
  if (!run) throw std::runtime_error(refusal.message());
  return std::move(*run);
}

// Reference run + simulation of the `--schedule serial` lowering + comparison.
inline KernelRun runSerial(const std::string& text, RunOptions o = {}) {
  std::string errors;
  auto p = compileText(text, &errors);
  if (!p) throw std::runtime_error("snippet does not compile:\n" + errors);
  static std::vector<std::pair<ir::Program, ir::Kernel>> keep;  // the results point into the IR
  keep.emplace_back(std::move(*p), ir::Kernel{});
  const ir::Kernel& k = keep.back().first.kernels.front();
  keep.back().second = transform::lowerSerial(k);
  RunRefusal refusal;
  auto run = runKernel(k, keep.back().second, testTarget(), o, refusal);
  if (!run) throw std::runtime_error(refusal.message());
  return std::move(*run);
}

// The final contents of global tensor `name` of a run, as doubles.
inline std::vector<double> finalValues(const KernelRun& run, const std::string& name,
                                       ir::DType dtype) {
  for (const auto& [n, arr] : run.finalTensors)
    if (n == name) {
      std::vector<double> out;
      int eb = ir::dtypeBytes(dtype);
      const std::vector<uint8_t>& data = run.simulatedGlobals.at(name);
      for (size_t off = 0; off + static_cast<size_t>(eb) <= data.size();
           off += static_cast<size_t>(eb))
        out.push_back(loadElement(data.data() + off, dtype).asDouble());
      return out;
    }
  throw std::runtime_error("no tensor " + name);
}

inline bool hasIssue(const SimResult& r, SimIssue::Kind kind, const std::string& text) {
  for (const auto& i : r.issues)
    if (i.kind == kind && i.message.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace tilesched::sim::test
