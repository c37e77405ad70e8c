// Reference run, simulation and comparison (see Run.h).
#include "sim/Run.h"

#include "sim/IndexText.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <exception>
#include <limits>
#include <optional>
#include <thread>
#include <type_traits>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ir/Functor.h"
#include "ir/IROperator.h"
#include "ir/Printer.h"
#include "sim/GroupReference.h"
#include "sim/Machine.h"

namespace tilesched::sim {

using namespace ir;

namespace {

uint64_t splitmix(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint64_t hashName(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string valueText(const uint8_t* p, DType t) {
  Scalar v = loadElement(p, t);
  uint64_t bits = 0;
  std::memcpy(&bits, p, static_cast<size_t>(dtypeBytes(t)));
  std::string value = v.isFloat ? fmt::format("{}", v.f) : fmt::format("{}", v.i);
  return fmt::format("{} (0x{:0{}x})", value, bits, dtypeBytes(t) * 2);
}

using Bindings = std::vector<std::pair<std::string, Scalar>>;

// Binds the scalar parameters --input gives and reads the .npy files it gives
// for tensors; refuses --input names the kernel has no parameter of.
bool readInputs(const Kernel& kernel, const RunOptions& options, Bindings& bindings,
                std::map<std::string, NpyArray>& files, std::string& error) {
  for (const auto& p : kernel.params) {
    auto it = options.inputs.find(p.name);
    if (it == options.inputs.end()) continue;
    if (p.var) {
      try {
        size_t used = 0;
        double v = std::stod(it->second, &used);
        if (used != it->second.size()) throw std::invalid_argument("");
        bindings.push_back({p.name, isFloat(p.var->dtype)
                                        ? Scalar::ofFloat(roundToFloat(v, p.var->dtype))
                                        : Scalar::ofInt(static_cast<int64_t>(v))});
      } catch (const std::exception&) {
        error = fmt::format("--input {}={}: '{}' is a scalar parameter and needs a number", p.name,
                            it->second, p.name);
        return false;
      }
      continue;
    }
    auto a = readNpy(it->second, error);
    if (!a) {
      error = fmt::format("--input {}={}: {}", p.name, it->second, error);
      return false;
    }
    files[p.name] = std::move(*a);
  }
  for (const auto& [name, value] : options.inputs) {
    bool known = false;
    for (const auto& p : kernel.params) known |= p.name == name;
    if (!known) {
      std::string names;
      for (const auto& p : kernel.params) names += (names.empty() ? "" : ", ") + p.name;
      error = fmt::format("--input {}: the kernel has no parameter '{}' (parameters: {})", name,
                          name, names);
      return false;
    }
  }
  return true;
}

// A T.dynamic size that is a T.StridedTensor's stride: without a value it
// takes the dense stride (bindDenseStrides).
const KernelParam* stridedBy(const Kernel& kernel, const Var& dv, size_t& dim) {
  for (const auto& p : kernel.params)
    for (size_t d = 0; p.buffer && d < p.buffer->strides.size(); ++d) {
      const Expr& e = p.buffer->strides[d];
      if (e->kind == ExprKind::VarRef && e->var == dv) {
        dim = d;
        return &p;
      }
    }
  return nullptr;
}

bool isDenseStrideDefault(const Kernel& kernel, const Var& dv) {
  size_t dim = 0;
  return stridedBy(kernel, dv, dim) != nullptr;
}

// Binds each stride variable still without a value to the stride a dense
// tensor of the parameter's shape has in that dimension (what a torch tensor
// made by torch.* has), once the shape's own sizes are bound.
bool bindDenseStrides(const Kernel& kernel, Bindings& bindings, std::string& error) {
  auto value = [&](const Expr& e) -> std::optional<int64_t> {
    if (auto c = asConstInt(e)) return c;
    if (e->kind == ExprKind::VarRef)
      for (const auto& b : bindings)
        if (b.first == e->var->name) return b.second.asInt();
    return std::nullopt;
  };
  for (const auto& dv : kernel.dynamicVars) {
    bool bound = false;
    for (const auto& b : bindings) bound |= b.first == dv->name;
    size_t dim = 0;
    const KernelParam* p = bound ? nullptr : stridedBy(kernel, dv, dim);
    if (!p) continue;
    int64_t stride = 1;
    for (size_t d = dim + 1; d < p->buffer->shape.size(); ++d) {
      auto n = value(p->buffer->shape[d]);
      if (!n || __builtin_mul_overflow(stride, *n, &stride)) {
        error = fmt::format(
            "the stride '{}' of '{}' needs a value: pass -D {}=VALUE (its dense value needs "
            "dimension {} of the tensor)",
            dv->name, p->name, dv->name, d);
        return false;
      }
    }
    bindings.push_back({dv->name, Scalar::ofInt(stride)});
  }
  return true;
}

// Refuses T.StridedTensor parameters whose strides, now known, make two
// elements share an address: the simulator keeps every tensor in logical
// order, which is only the same tensor when the layout is one-to-one.
bool checkStrides(const Kernel& kernel, Machine& machine, std::string& error) {
  for (const auto& p : kernel.params) {
    if (!p.buffer || p.buffer->strides.empty()) continue;
    std::vector<int64_t> strides;
    for (const auto& e : p.buffer->strides) strides.push_back(machine.eval(e).asInt());
    const auto& shape = machine.shapeOf(p.buffer);
    if (ir::stridesMayOverlap(shape, strides)) {
      error = fmt::format(
          "'{}' has strides ({}) for its shape ({}): two elements share an address; "
          "overlapping strides are not supported yet",
          p.name, fmt::join(strides, ", "), fmt::join(shape, ", "));
      return false;
    }
  }
  return true;
}

// Scalar parameters without --input get 1 (documented in docs/simulator.md);
// dynamic sizes are taken from the shape of an --input file that uses them.
bool bindDefaults(const Kernel& kernel, std::map<std::string, NpyArray>& files, Bindings& bindings,
                  std::string& error) {
  for (const auto& p : kernel.params) {
    if (!p.var) continue;
    bool bound = false;
    for (const auto& b : bindings) bound |= b.first == p.name;
    if (!bound)
      bindings.push_back({p.name, isFloat(p.var->dtype) ? Scalar::ofFloat(1.0) : Scalar::ofInt(1)});
  }
  for (const auto& dv : kernel.dynamicVars) {
    bool bound = false;
    for (const auto& b : bindings) bound |= b.first == dv->name;
    for (const auto& p : kernel.params) {
      if (bound || !p.buffer || !files.count(p.name)) continue;
      const auto& shape = files[p.name].shape;
      for (size_t d = 0; d < p.buffer->shape.size() && d < shape.size(); ++d) {
        const Expr& e = p.buffer->shape[d];
        if (e->kind == ExprKind::VarRef && e->var == dv) {
          bindings.push_back({dv->name, Scalar::ofInt(shape[d])});
          bound = true;
          break;
        }
      }
    }
    if (!bound && !isDenseStrideDefault(kernel, dv)) {
      error = fmt::format(
          "the dynamic size '{}' needs a value: pass --input with a tensor whose shape uses it",
          dv->name);
      return false;
    }
  }
  return bindDenseStrides(kernel, bindings, error);
}

// Sets the scalar parameters and dynamic sizes of `bindings` in `machine`'s
// environment.
void bindEnv(Machine& machine, const Kernel& kernel, const Bindings& bindings) {
  for (const auto& [name, value] : bindings) {
    for (const auto& p : kernel.params)
      if (p.var && p.name == name) machine.env[static_cast<size_t>(p.var->id)] = value;
    for (const auto& dv : kernel.dynamicVars)
      if (dv->name == name) machine.env[static_cast<size_t>(dv->id)] = value;
  }
}

// Refuses global tensors beyond the simulator's memory, once the dynamic
// shapes are known and before they are allocated.
// A sampled run's global tensors are only reserved (filled on demand, within
// the budget): they count against kMaxSampledGlobalBytes instead.
bool checkGlobalSizes(const Kernel& kernel, Memory& memory, Machine& machine, std::string& error) {
  int64_t total = 0, reserved = 0;
  for (int i = 0; i < memory.numStorages(); ++i)
    (memory.isPaged(i) ? reserved : total) += memory.size(i);
  for (const auto& p : kernel.params) {
    if (!p.buffer) continue;
    int idx = memory.index(p.buffer->storage);
    bool paged = memory.isPaged(idx);
    int64_t bytes = dtypeBytes(p.buffer->dtype);
    bool overflow = false;
    for (int64_t d : machine.shapeOf(p.buffer))
      overflow |= d < 0 || __builtin_mul_overflow(bytes, d, &bytes);
    int64_t& sum = paged ? reserved : total;
    if (!overflow && memory.size(idx) != bytes) sum += bytes - memory.size(idx);
    int64_t limit = paged ? kMaxSampledGlobalBytes : kMaxSimulatedBytes;
    if (overflow || sum > limit) {
      error = fmt::format(
          "'{}' of shape ({}) needs {} bytes with the dynamic sizes of the --input files; the "
          "simulator holds at most {} bytes ({}) per kernel",
          p.name, fmt::join(machine.shapeOf(p.buffer), ", "),
          overflow ? std::string("more than 2^63") : std::to_string(bytes), limit,
          paged ? "64 GiB of global tensors in a sampled run" : "1 GiB");
      return false;
    }
  }
  return true;
}

// Sizes the global tensors and fills them from their --input file or with
// generated inputs (a demand-paged one gets a chunk fill in `pagedFills`).
bool fillGlobals(const Kernel& kernel, Memory& memory, Machine& machine, const RunOptions& options,
                 std::map<std::string, NpyArray>& files,
                 std::map<std::string, Memory::ChunkFill>& pagedFills, std::string& error) {
  for (const auto& p : kernel.params) {
    if (!p.buffer) continue;
    int idx = memory.index(p.buffer->storage);
    int64_t elements = product(machine.shapeOf(p.buffer));
    int64_t bytes = elements * dtypeBytes(p.buffer->dtype);
    if (memory.size(idx) != bytes) memory.resize(idx, bytes);
    auto f = files.find(p.name);
    if (f == files.end() && memory.isPaged(idx)) {
      DType t = p.buffer->dtype;
      uint64_t seed = options.seed;
      std::string name = p.name;
      pagedFills[p.name] = [t, seed, name](int64_t offset, uint8_t* out, int64_t size) {
        generateInputElements(out, t, seed, name, offset / dtypeBytes(t), size / dtypeBytes(t));
      };
      memory.setChunkFill(idx, pagedFills[p.name]);
      continue;
    }
    if (f == files.end() && p.fromFile) {  // the kind of values the file's own call passes
      generateFromRecipe(memory.raw(idx), p.buffer->dtype, *p.fromFile, options.seed, p.name);
      continue;
    }
    if (f == files.end()) {
      generateInput(memory.raw(idx), p.buffer->dtype, options.seed, p.name);
      continue;
    }
    std::string want = npyDescr(p.buffer->dtype);
    if (f->second.descr != want) {
      error = fmt::format("--input {}: the file holds '{}' data, but '{}' is {} (numpy '{}')",
                          p.name, f->second.descr, p.name, dtypeName(p.buffer->dtype), want);
      return false;
    }
    int64_t have = 1;
    for (int64_t d : f->second.shape) have *= d;
    if (have != elements || static_cast<int64_t>(f->second.data.size()) < bytes) {
      error = fmt::format("--input {}: the file holds {} elements, but '{}' has {}", p.name, have,
                          p.name, elements);
      return false;
    }
    if (memory.isPaged(idx)) {
      auto data = std::make_shared<const std::vector<uint8_t>>(std::move(f->second.data));
      pagedFills[p.name] = [data](int64_t offset, uint8_t* out, int64_t size) {
        std::memcpy(out, data->data() + offset, static_cast<size_t>(size));
      };
      memory.setChunkFill(idx, pagedFills[p.name]);
      continue;
    }
    if (static_cast<int64_t>(f->second.data.size()) == bytes)
      memory.raw(idx) = std::move(f->second.data);  // the file's bytes, without a copy
    else
      std::memcpy(memory.data(idx), f->second.data.data(), static_cast<size_t>(bytes));
  }
  return true;
}

// Binds scalar parameters and dynamic sizes from --input, sizes and fills the
// global tensors of `kernel` in `memory`.
bool prepareGlobals(const Kernel& kernel, Memory& memory, const RunOptions& options,
                    Bindings& bindings, std::map<std::string, Memory::ChunkFill>& pagedFills,
                    std::string& error) {
  std::map<std::string, NpyArray> files;
  if (!readInputs(kernel, options, bindings, files, error)) return false;
  if (!bindDefaults(kernel, files, bindings, error)) return false;
  Machine machine(kernel, memory);
  bindEnv(machine, kernel, bindings);
  machine.resolveShapes();
  if (!checkStrides(kernel, machine, error)) return false;
  if (!checkGlobalSizes(kernel, memory, machine, error)) return false;
  return fillGlobals(kernel, memory, machine, options, files, pagedFills, error);
}

// The first loop whose iterations, over all blocks and enclosing loops,
// exceed kMaxSimulatedIterations. Loops of non-constant extent count once.
class IterationCounter : public IRVisitor {
 public:
  explicit IterationCounter(int64_t grid) : times_(grid) {}
  const ForStmt* tooMany = nullptr;
  int64_t iterations = 0;

  void visitFor(const ForStmt& s) override {
    if (tooMany) return;
    int64_t trips = std::max<int64_t>(asConstInt(s.extent).value_or(1), 0);
    int64_t outer = times_;
    if (__builtin_mul_overflow(outer, trips, &times_) || times_ > kMaxSimulatedIterations) {
      tooMany = &s;
      iterations = times_ > kMaxSimulatedIterations ? times_ : INT64_MAX;
      return;
    }
    visitStmt(s.body);
    times_ = outer;
  }

 private:
  int64_t times_;
};

}  // namespace

void generateInputElements(uint8_t* out, DType t, uint64_t seed, const std::string& name,
                           int64_t first, int64_t count) {
  // splitmix64 is a counter generator: element k is mix(state0 + (k + 1) * gamma),
  // so any range is generated as the whole tensor would have it.
  uint64_t state = (seed ^ hashName(name)) + static_cast<uint64_t>(first) * 0x9e3779b97f4a7c15ull;
  // An element takes one of at most 512 values (r % 512 for floats, r % 16 or
  // r & 1 otherwise): their encodings once, then a copy per element.
  int eb = dtypeBytes(t);
  int64_t kinds = isFloat(t) ? 512 : t == DType::Bool ? 2 : 16;
  std::vector<uint8_t> encoded(static_cast<size_t>(kinds * eb));
  for (int64_t c = 0; c < kinds; ++c) {
    Scalar v;
    if (isFloat(t))
      v = Scalar::ofFloat(static_cast<double>(c - 256) / 128.0);
    else if (t == DType::Bool || !isSigned(t))
      v = Scalar::ofInt(c);
    else
      v = Scalar::ofInt(c - 8);
    storeElement(encoded.data() + c * eb, t, v);
  }
  const auto n = static_cast<uint64_t>(kinds);
  auto fill = [&](auto width) {  // a constant-size copy per element (no memcpy call)
    constexpr size_t w = decltype(width)::value;
    for (int64_t k = 0; k < count; ++k) {
      uint64_t r = splitmix(state);
      std::memcpy(out + k * static_cast<int64_t>(w), encoded.data() + (r % n) * w, w);
    }
  };
  switch (eb) {
    case 1:
      fill(std::integral_constant<size_t, 1>{});
      break;
    case 2:
      fill(std::integral_constant<size_t, 2>{});
      break;
    case 4:
      fill(std::integral_constant<size_t, 4>{});
      break;
    default:
      fill(std::integral_constant<size_t, 8>{});
      break;
  }
}

void generateInput(std::vector<uint8_t>& bytes, DType t, uint64_t seed, const std::string& name) {
  int64_t count = static_cast<int64_t>(bytes.size()) / dtypeBytes(t);
  // The generator is counter-based, so the halves can be made on two threads
  // (the same bytes): worth it from a million elements on.
  if (count < (int64_t{1} << 20)) {
    generateInputElements(bytes.data(), t, seed, name, 0, count);
    return;
  }
  int64_t half = count / 2;
  std::thread second([&] {
    generateInputElements(bytes.data() + half * dtypeBytes(t), t, seed, name, half, count - half);
  });
  generateInputElements(bytes.data(), t, seed, name, 0, half);
  second.join();
}

void generateFromRecipe(std::vector<uint8_t>& bytes, DType t, const InputRecipe& recipe,
                        uint64_t seed, const std::string& name) {
  using RK = InputRecipe::Kind;
  int eb = dtypeBytes(t);
  auto count = static_cast<int64_t>(bytes.size()) / eb;
  uint64_t state = seed ^ hashName(name);
  auto put = [&](int64_t k, double v) {
    storeElement(bytes.data() + k * eb, t,
                 isFloat(t) ? Scalar::ofFloat(v) : Scalar::ofInt(static_cast<int64_t>(v)));
  };
  if (recipe.kind == RK::Randperm) {
    // The first `count` elements of a seeded Fisher-Yates shuffle of 0..n-1,
    // drawn without building the whole permutation (n may be far larger).
    int64_t n = std::max<int64_t>(recipe.high, 0);
    std::unordered_map<int64_t, int64_t> moved;  // position -> value, where not the identity
    auto valueAt = [&](int64_t i) {
      auto it = moved.find(i);
      return it == moved.end() ? i : it->second;
    };
    for (int64_t k = 0; k < count; ++k) {
      if (k >= n) {
        put(k, 0);
        continue;
      }
      int64_t j = k + static_cast<int64_t>(splitmix(state) % static_cast<uint64_t>(n - k));
      int64_t vk = valueAt(k), vj = valueAt(j);
      moved[j] = vk;
      put(k, static_cast<double>(vj));
    }
    return;
  }
  for (int64_t k = 0; k < count; ++k) {
    switch (recipe.kind) {
      case RK::Zeros:
        put(k, 0);
        break;
      case RK::Ones:
        put(k, 1);
        break;
      case RK::Full:
        put(k, recipe.value);
        break;
      case RK::Arange:
        put(k, recipe.value + recipe.step * static_cast<double>(k));
        break;
      case RK::Randint: {
        auto span = static_cast<uint64_t>(std::max<int64_t>(recipe.high - recipe.low, 1));
        put(k, static_cast<double>(recipe.low + static_cast<int64_t>(splitmix(state) % span)));
        break;
      }
      case RK::Randperm:
        break;
    }
  }
}

std::vector<int64_t> sampledBlocks(int64_t grid) {
  if (grid <= 1) return {0};
  return {0, grid - 1};
}

std::optional<Diagnostic> checkSimulationLimits(const Kernel& kernel, bool sampled) {
  auto issue = [](SourceLoc loc, std::string message) {
    return std::optional<Diagnostic>(Diagnostic{Severity::Error, loc, std::move(message), {}});
  };
  if (!sampled && kernel.grid > kMaxSimulatedBlocks)
    return issue(kernel.gridLoc.valid() ? kernel.gridLoc : kernel.kernelLoc,
                 fmt::format("a grid of {} blocks is beyond the simulator, which runs at most {} "
                             "blocks per kernel; use a smaller grid to run it",
                             kernel.grid, kMaxSimulatedBlocks));
  IterationCounter loops(sampled ? static_cast<int64_t>(sampledBlocks(kernel.grid).size())
                                 : kernel.grid);
  if (kernel.body) loops.visitStmt(kernel.body);
  if (loops.tooMany)
    return issue(loops.tooMany->loc,
                 fmt::format("this loop runs {} times over the grid and the enclosing loops, "
                             "beyond the simulator, which runs at most {} loop iterations per "
                             "kernel; use smaller trip counts to run it",
                             loops.iterations == INT64_MAX ? std::string("more than 2^63")
                                                           : std::to_string(loops.iterations),
                             kMaxSimulatedIterations));
  // Every storage once, in declaration order (as Memory allocates them).
  std::vector<Storage> storages = storageOrder(kernel);
  int64_t total = 0;
  for (const auto& s : storages) {
    if (sampled && s->scope == MemScope::Global) continue;  // filled on demand, within budget
    int64_t bytes = std::max<int64_t>(s->bytes, 0);         // at most 2^40 elements of 8 bytes
    total += bytes;
    if (total <= kMaxSimulatedBytes) continue;
    std::string shape;
    for (const auto& b : kernel.buffers)
      if (b->storage == s && !b->isAlias) {
        std::vector<std::string> dims;
        for (const auto& d : b->shape) {
          auto c = asConstInt(d);
          dims.push_back(c ? std::to_string(*c) : printExpr(d));
        }
        shape = fmt::format(" of shape ({}{}) {}", fmt::join(dims, ", "),
                            dims.size() == 1 ? "," : "", dtypeName(b->dtype));
        break;
      }
    return issue(
        s->loc, bytes > kMaxSimulatedBytes
                    ? fmt::format("'{}'{} needs {} bytes, beyond the simulator, which holds at "
                                  "most {} bytes (1 GiB) per kernel; use a smaller shape to run it",
                                  s->name, shape, bytes, kMaxSimulatedBytes)
                    : fmt::format("'{}'{} brings the kernel to {} bytes, beyond the simulator, "
                                  "which holds at most {} bytes (1 GiB) per kernel; use smaller "
                                  "shapes to run it",
                                  s->name, shape, total, kMaxSimulatedBytes));
  }
  return std::nullopt;
}

bool needsSampling(const Kernel& kernel) {
  int64_t global = 0;
  for (const auto& s : storageOrder(kernel))
    if (s->scope == MemScope::Global) global += std::max<int64_t>(s->bytes, 0);
  return global > kMaxSimulatedBytes && global <= kMaxSampledGlobalBytes &&
         !checkSimulationLimits(kernel, true);
}

namespace {

// Gives the lowered kernel's global tensors in `simMem` the inputs the
// reference's have in `refMem` (a demand-paged one: the same chunk fill).
bool copyInputs(const Kernel& reference, const Kernel& lowered, Memory& refMem, Memory& simMem,
                const std::map<std::string, Memory::ChunkFill>& pagedFills, KernelRun& run,
                std::string& error) {
  for (const auto& p : lowered.params) {
    if (!p.buffer) continue;
    const KernelParam* rp = nullptr;
    for (const auto& q : reference.params)
      if (q.name == p.name && q.buffer) rp = &q;
    if (!rp) {
      error = fmt::format("internal: lowered kernel parameter '{}' is not in the reference kernel",
                          p.name);
      return false;
    }
    // resize() also sizes the shadow bytes: a tensor with a T.dynamic shape has
    // no bytes until its size is known (copying only the data overran them).
    int si = simMem.index(p.buffer->storage), ri = refMem.index(rp->buffer->storage);
    if (simMem.size(si) != refMem.size(ri)) simMem.resize(si, refMem.size(ri));
    if (simMem.isPaged(si)) {
      run.globalBytes += simMem.size(si);
      if (auto fill = pagedFills.find(p.name); fill != pagedFills.end())
        simMem.setChunkFill(si, fill->second);
      continue;
    }
    simMem.raw(si) = refMem.raw(ri);
  }
  return true;
}

// A later launch: each chain continues from its own previous result.
bool carryGlobals(const Kernel& k, Memory& mem,
                  const std::map<std::string, std::vector<uint8_t>>& carried, std::string& error) {
  for (const auto& p : k.params) {
    auto it = p.buffer ? carried.find(p.name) : carried.end();
    if (it == carried.end()) continue;
    int idx = mem.index(p.buffer->storage);
    if (static_cast<int64_t>(it->second.size()) != mem.size(idx)) {
      error = fmt::format(
          "tensor '{}' has {} bytes in this launch but {} in the previous one of the same "
          "prim_func",
          p.name, mem.size(idx), it->second.size());
      return false;
    }
    mem.raw(idx) = it->second;
  }
  return true;
}

// Bit-exact comparison of every global tensor; keeps the final tensors in
// `run` (to carry to the next launch and to write), taking them out of the
// two memories, which are not used afterwards.
void compareGlobals(const Kernel& reference, const Kernel& lowered, Machine& ref, Memory& refMem,
                    Memory& simMem, KernelRun& run) {
  run.outputsMatch = !run.referenceError && !run.sim.aborted;
  for (const auto& p : reference.params) {
    if (!p.buffer) continue;
    const KernelParam* lp = nullptr;
    for (const auto& q : lowered.params)
      if (q.name == p.name && q.buffer) lp = &q;
    int ri = refMem.index(p.buffer->storage);
    int si = simMem.index(lp->buffer->storage);
    TensorCheck check;
    check.name = p.name;
    check.written = ref.written[static_cast<size_t>(ri)] != 0;
    int eb = dtypeBytes(p.buffer->dtype);
    check.elements = refMem.size(ri) / eb;
    const auto& shape = ref.shapeOf(p.buffer);
    auto compare = [&](int64_t first, int64_t count) {
      const uint8_t* ra = refMem.bytesAt(ri, first * eb, count * eb);
      const uint8_t* sa = simMem.bytesAt(si, first * eb, count * eb);
      check.compared += count;
      if (std::memcmp(ra, sa, static_cast<size_t>(count * eb)) == 0) return;  // the common case
      for (int64_t e = first; e < first + count; ++e) {
        const uint8_t* a = ra + (e - first) * eb;
        const uint8_t* b = sa + (e - first) * eb;
        if (std::memcmp(a, b, static_cast<size_t>(eb)) == 0) continue;
        if (check.mismatches++ < 5)
          check.firstMismatches.push_back(
              fmt::format("{}[{}]: reference {}, simulated {}", p.name, indexText(e, shape),
                          valueText(a, p.buffer->dtype), valueText(b, p.buffer->dtype)));
      }
    };
    if (!refMem.isPaged(ri)) {
      compare(0, check.elements);
    } else {
      // The chunks either run touched; the other run fills what it did not
      // touch with the same inputs (beyond the budget: both ran the same blocks).
      refMem.setPagedBudget(INT64_MAX);
      simMem.setPagedBudget(INT64_MAX);
      int64_t chunks = (refMem.size(ri) + Memory::kPageChunk - 1) / Memory::kPageChunk;
      for (int64_t c = 0; c < chunks; ++c)
        if (refMem.chunkFilled(ri, c) || simMem.chunkFilled(si, c)) {
          int64_t first = c * Memory::kPageChunk / eb;
          compare(first, std::min(Memory::kPageChunk / eb, check.elements - first));
        }
    }
    if (check.mismatches) run.outputsMatch = false;
    if (refMem.isPaged(ri)) {  // a sampled run is one launch: nothing to carry or write
      run.tensors.push_back(std::move(check));
      continue;
    }
    // Moved, not copied: both memories end with this launch (copies of every
    // tensor cost the run a third of its time on big ones, in page faults).
    run.referenceGlobals[p.name] = std::move(refMem.raw(ri));
    run.simulatedGlobals[p.name] = std::move(simMem.raw(si));
    if (check.written) {
      NpyArray arr;
      arr.descr = npyDescr(p.buffer->dtype);
      arr.shape = shape;
      run.finalTensors.push_back({p.name, std::move(arr)});
    }
    run.tensors.push_back(std::move(check));
  }
}

// runKernel of a launch within the simulator's limits (the caller checked
// them); a later launch of a prim_func starts from the global tensors of
// `previous`, the launch before it.
std::optional<KernelRun> runLaunch(const Kernel& reference, const Kernel& lowered,
                                   const Target& target, const RunOptions& options,
                                   const KernelRun* previous, bool sampled, std::string& error) {
  KernelRun run;
  run.name = reference.factory.empty() ? reference.name : reference.factory;
  std::vector<int64_t> blocks;
  if (sampled)
    run.sampledBlocks = blocks = sampledBlocks(reference.grid);
  else
    for (int64_t b = 0; b < reference.grid; ++b) blocks.push_back(b);

  // 1. Inputs, identical for both runs.
  Memory refMem(reference, sampled);
  Bindings bindings;
  std::map<std::string, Memory::ChunkFill> pagedFills;
  if (!prepareGlobals(reference, refMem, options, bindings, pagedFills, error)) return std::nullopt;
  Memory simMem(lowered, sampled);
  refMem.setPagedBudget(kMaxSimulatedBytes);
  simMem.setPagedBudget(kMaxSimulatedBytes);
  if (!copyInputs(reference, lowered, refMem, simMem, pagedFills, run, error)) return std::nullopt;
  if (previous && (!carryGlobals(reference, refMem, previous->referenceGlobals, error) ||
                   !carryGlobals(lowered, simMem, previous->simulatedGlobals, error)))
    return std::nullopt;

  // Progress: blocks done by the reference and by the simulation.
  const auto total = static_cast<int64_t>(blocks.size());
  std::atomic<int64_t> referenceDone{0}, simulatedDone{0};
  auto report = [&] {
    if (options.progress)
      options.progress(run.name, referenceDone.load(), std::min(total, simulatedDone.load()),
                       total);
  };
  report();

  // 2. Reference: every block in order, on the original kernel.
  Machine ref(reference, refMem);
  bindEnv(ref, reference, bindings);
  ref.resolveShapes();
  // The reference runs on a second thread while the simulation runs here:
  // the two share nothing mutable (own Machine, own Memory, immutable IR),
  // and their results are read only after the join, so the outcome does not
  // depend on the interleaving.
  std::exception_ptr referenceFailure;
  // A manual-form core group: one more Machine per AIV (GroupReference.h).
  std::vector<std::unique_ptr<Machine>> aivs;
  std::vector<Machine*> group{&ref};
  if (reference.manualCores) {
    bindGroupCore(reference, ref, 0);
    for (int core = 1; core < groupCores(reference); ++core) {
      aivs.push_back(std::make_unique<Machine>(reference, refMem));
      bindEnv(*aivs.back(), reference, bindings);
      aivs.back()->resolveShapes();
      bindGroupCore(reference, *aivs.back(), core);
      group.push_back(aivs.back().get());
    }
  }
  std::thread referenceThread([&] {
    try {
      for (int64_t b : blocks) {
        refMem.resetOnChip();
        for (Machine* m : group) m->bindBlock(b);
        checkAssumptions(reference, ref, b);
        if (reference.manualCores)
          runGroupReference(reference, group);
        else
          ref.exec(reference.body);
        ++referenceDone;
        report();
      }
    } catch (const ExecError& e) {
      SimIssue issue;
      issue.kind = SimIssue::Runtime;
      issue.loc = e.loc;
      issue.message = e.message;
      run.referenceError = issue;
    } catch (...) {
      referenceFailure = std::current_exception();
    }
  });

  // 3. Simulation of the lowered kernel.
  SimOptions so;
  so.cores = options.cores;
  so.recordTrace = options.recordTrace;
  so.bindings = bindings;
  so.blocks = run.sampledBlocks;
  if (options.progress)
    so.blockDone = [&] {
      ++simulatedDone;
      report();
    };
  try {
    run.sim = simulate(lowered, target, simMem, so);
  } catch (...) {
    referenceThread.join();
    throw;
  }
  referenceThread.join();
  for (const auto& m : aivs)
    for (size_t i = 0; i < ref.written.size(); ++i) ref.written[i] |= m->written[i];
  if (options.progress) options.progress(run.name, total, total, total);
  if (referenceFailure) std::rethrow_exception(referenceFailure);

  // 4. Bit-exact comparison of every global tensor.
  compareGlobals(reference, lowered, ref, refMem, simMem, run);
  return run;
}

// The first limit either kernel of `launch` exceeds.
std::optional<Diagnostic> launchBeyondLimits(const Launch& launch, bool sampled) {
  for (const Kernel* k : {launch.reference, launch.lowered})
    if (auto limit = checkSimulationLimits(*k, sampled)) return limit;
  return std::nullopt;
}

// Only a prim_func of one launch is sampled: later launches would start from
// global tensors the skipped blocks never wrote.
bool sampleLaunch(const Launch& launch, bool onlyLaunch) {
  return onlyLaunch && needsSampling(*launch.reference) && needsSampling(*launch.lowered);
}

RunRefusal usageRefusal(std::string message) {
  return {false, {Diagnostic{Severity::Error, SourceLoc{}, std::move(message), {}}}};
}

}  // namespace

std::optional<KernelRun> runKernel(const Kernel& reference, const Kernel& lowered,
                                   const Target& target, const RunOptions& options,
                                   RunRefusal& refusal) {
  bool sampled = sampleLaunch({&reference, &lowered}, true);
  if (auto limit = launchBeyondLimits({&reference, &lowered}, sampled)) {
    refusal = {true, {std::move(*limit)}};
    return std::nullopt;
  }
  std::string error;
  auto run = runLaunch(reference, lowered, target, options, nullptr, sampled, error);
  if (!run) refusal = usageRefusal(std::move(error));
  return run;
}

std::optional<ProgramRun> runLaunches(const std::vector<Launch>& launches, const Target& target,
                                      const RunOptions& options, RunRefusal& refusal) {
  refusal = {true, {}};
  std::vector<bool> sampled;
  for (size_t i = 0; i < launches.size(); ++i) {
    bool onlyLaunch = launches[i].reference->launch == 0 &&
                      (i + 1 == launches.size() || launches[i + 1].reference->launch == 0);
    sampled.push_back(sampleLaunch(launches[i], onlyLaunch));
    if (auto limit = launchBeyondLimits(launches[i], sampled.back()))
      refusal.errors.push_back(std::move(*limit));
  }
  if (!refusal.errors.empty()) return std::nullopt;
  ProgramRun program;
  for (size_t i = 0; i < launches.size(); ++i) {
    const Kernel& reference = *launches[i].reference;
    const KernelRun* previous = nullptr;
    if (reference.launch > 0) {
      TS_INTERNAL(i > 0 && launches[i - 1].reference->launch + 1 == reference.launch,
                  "the launches of a prim_func must be consecutive kernels");
      previous = &program.launches.back();
    }
    auto start = std::chrono::steady_clock::now();
    std::string error;
    auto run =
        runLaunch(reference, *launches[i].lowered, target, options, previous, sampled[i], error);
    if (!run) {
      refusal = usageRefusal(std::move(error));
      return std::nullopt;
    }
    run->wallMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (previous) run->startCycle = previous->startCycle + previous->sim.cycles;
    program.cycles += run->sim.cycles;
    program.launches.push_back(std::move(*run));
  }
  return program;
}

}  // namespace tilesched::sim
