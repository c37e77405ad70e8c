// The tile-at-a-time paths of the Machine (Machine::fastPaths: T.Parallel
// bodies compiled to column evaluators, row-wise copies and fills, the i-k-j
// gemm) against the element-at-a-time paths on randomized kernels: random
// expression trees over float32/float16/bfloat16/int32/int8 with casts,
// arithmetic, floor division, min/max, transcendental functions, selects and
// comparisons; broadcast and offset indices; uninitialised (poison) reads.
// Both runs must leave bit-identical memory, the same errors, the same
// poison reports and (simulated) the same races, issues and cycles.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "SimTestUtil.h"

namespace tilesched::sim::test {
namespace {

struct ExprGen {
  std::mt19937_64 rng;
  int lastShape = 0;  // the body shape randomKernel made
  explicit ExprGen(uint64_t seed) : rng(seed) {}
  int pick(int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); }

  // A leaf of working dtype `w`.
  std::string leaf(const std::string& w, bool allowLoads) {
    bool isInt = w == "int32" || w == "int8";
    int k = pick(allowLoads ? 8 : 3);
    switch (k) {
      case 0:
        return isInt ? std::to_string(pick(7) + 1)
                     : "T.cast(" + std::to_string(pick(9) - 4) + ".25, \"" + w + "\")";
      case 1:
        return "T.cast(i, \"" + w + "\")";
      case 2:
        return "T.cast(j, \"" + w + "\")";
      case 3:
        return "T.cast(a[i, j], \"" + w + "\")";
      case 4:
        return "T.cast(b[i, j], \"" + w + "\")";
      case 5:
        return "T.cast(b[i, 0], \"" + w + "\")";
      case 6:
        return "T.cast(a[1, j + 2], \"" + w + "\")";
      default:  // a clamped index, as the SIMD lowering writes lane reads
        return "T.cast(b[i, T.min(j + " + std::to_string(pick(4)) + ", " +
               std::to_string(pick(10) + 14) + ")], \"" + w + "\")";
    }
  }

  std::string expr(const std::string& w, int depth, bool allowLoads = true) {
    bool isInt = w == "int32" || w == "int8";
    if (depth == 0 || pick(4) == 0) return leaf(w, allowLoads);
    std::string x = expr(w, depth - 1, allowLoads), y = expr(w, depth - 1, allowLoads);
    int k = pick(isInt ? 10 : 14);
    if (pick(8) == 0) {  // and / or whose right operand loads (evaluated only where needed)
      std::string cut = "j " + std::string(pick(2) ? "<" : ">=") + " " + std::to_string(pick(21));
      return "T.if_then_else(" + cut + (pick(2) ? " and " : " or ") + x + " > " + y + ", " +
             expr(w, depth - 1, allowLoads) + ", " + expr(w, depth - 1, allowLoads) + ")";
    }
    switch (k) {
      case 0:
        return "(" + x + " + " + y + ")";
      case 1:
        return "(" + x + " - " + y + ")";
      case 2:
        return "(" + x + " * " + y + ")";
      case 3:
        return "T.max(" + x + ", " + y + ")";
      case 4:
        return "T.min(" + x + ", " + y + ")";
      case 5:
        // Branches with loads take the general path; without, the fast one.
        return "T.if_then_else(" + x + " > " + y + ", " + expr(w, depth - 1, pick(2) == 0) + ", " +
               expr(w, depth - 1, pick(2) == 0) + ")";
      case 6:
        return "T.cast(" + x + ", \"" + std::string(isInt ? "float32" : "int32") + "\")" +
               "";  // a cast to the other kind, then back
      case 7:
        return isInt ? "(" + x + " // " + std::to_string(pick(5) - 2 == 0 ? 3 : pick(5) - 2) + ")"
                     : "(" + x + " / " + y + ")";
      case 8:
        return isInt ? "(" + x + " % " + (pick(3) == 0 ? y : std::to_string(pick(4) + 2)) + ")"
                     : "T.exp(" + x + ")";
      case 9:
        return isInt ? "T.abs(" + x + ")" : "T.abs(" + x + ")";
      case 10:
        return "T.sqrt(T.abs(" + x + "))";
      case 11:
        return "T.cast(" + x + ", \"" + std::string(w == "float16" ? "bfloat16" : "float16") +
               "\")";
      case 12:
        return "T.sigmoid(" + x + ")";
      default:
        return "(-" + x + ")";
    }
  }
};

struct Outcome {
  std::vector<std::vector<uint8_t>> memory;
  std::string error;
  std::vector<std::string> poison;
  std::string sim;            // simulated: issues, races, cycles
  std::string accesses;       // reference: every byte range read and written
  int64_t parallelTiles = 0;  // T.Parallel statements the fast path took (not compared)
};

const char* kDtypes[] = {"float32", "float16", "bfloat16", "int32", "int8"};

std::string randomKernel(ExprGen& g) {
  std::string da = kDtypes[g.pick(5)], db = kDtypes[g.pick(5)], dout = kDtypes[g.pick(5)];
  std::string w = kDtypes[g.pick(5)];
  std::string body = "a = T.alloc_ub((4, 24), \"" + da + "\")\n" + "b = T.alloc_ub((4, 24), \"" +
                     db + "\")\n" + "o = T.alloc_ub((4, 24), \"" + dout + "\")\n" +
                     "t = T.alloc_ub((4, 24), \"" + w + "\")\n" + "T.copy(A, a)\n" +
                     "T.copy(B, b)\n";
  int shape = g.lastShape = g.pick(6);
  // A fold reads its element: defined mostly, so the fast path is tried.
  if (g.pick(3) == 0 || (shape == 5 && g.pick(4) != 0)) body += "T.fill(o, 0)\n";
  body += "for i, j in T.Parallel(4, 20):\n";
  if (shape == 4) {  // a guard: upper bounds clamp the walk (or it holds nowhere)
    std::string bound = g.pick(2) == 0 ? "j < " + std::to_string(g.pick(23) - 1)
                                       : std::to_string(g.pick(22)) + " >= j";
    if (g.pick(2) == 0) bound += " and i <= " + std::to_string(g.pick(5) - 1);
    body += "    if " + bound + ":\n";
    body += "        o[i, j] = " + g.expr(w, 3) + "\n";
  } else if (shape == 5) {  // a fold into one element, in index order
    const char* ops[] = {"o[1, 3] + ", "o[1, 3] - ", "o[1, 3] * ", "T.max(o[1, 3], ",
                         "T.min(o[1, 3], "};
    int op = g.pick(5);
    // Scaled by an inexact constant, so a float fold in another order would
    // round differently (the inputs are multiples of 1/128: sums are exact).
    bool isInt = w == "int32" || w == "int8";
    std::string x = isInt ? g.expr(w, 2) : "(" + g.expr(w, 2) + ") * T.cast(0.3, \"" + w + "\")";
    body += "    o[1, 3] = " + std::string(ops[op]) + x + (op >= 3 ? ")" : "") + "\n";
  } else if (g.pick(2) == 0) {
    body += "    t[i, j] = " + g.expr(w, 3) + "\n";
    body += "    o[i, j] = t[i, j] + " + g.leaf(w, true) + "\n";
  } else {
    body += "    o[i, j] = " + g.expr(w, 4) + "\n";
  }
  body += "T.copy(o, O)\n";
  return kernelText("A: T.Tensor((4, 24), \"" + da + "\"), B: T.Tensor((4, 24), \"" + db +
                        "\"), O: T.Tensor((4, 24), \"" + dout + "\")",
                    body);
}

void fillInputs(Memory& mem, const ir::Kernel& k, uint64_t seed) {
  for (const auto& p : k.params)
    if (p.buffer)
      generateInput(mem.raw(mem.index(p.buffer->storage)), p.buffer->dtype, seed, p.name);
}

std::vector<std::vector<uint8_t>> snapshot(Memory& mem) {
  std::vector<std::vector<uint8_t>> out;
  for (int s = 0; s < mem.numStorages(); ++s)
    if (mem.storage(s)->scope == ir::MemScope::Global) out.push_back(mem.raw(s));
  return out;
}

Outcome reference(const ir::Kernel& k, uint64_t seed, bool fast) {
  Memory mem(k);
  fillInputs(mem, k, seed);
  Machine m(k, mem);
  m.fastPaths = fast;
  m.trackPoison = true;  // also exercised in the reference walk
  AccessSet accesses;
  m.access = &accesses;
  Outcome out;
  try {
    for (int64_t b = 0; b < k.grid; ++b) {
      mem.resetOnChip();
      m.bindBlock(b);
      m.exec(k.body);
    }
  } catch (const ExecError& e) {
    out.error = std::to_string(e.loc.line) + ": " + e.message;
  }
  for (const auto& p : m.poisonUses) out.poison.push_back(std::to_string(p.loc.line) + p.message);
  out.memory = snapshot(mem);
  out.parallelTiles = m.parallelTiles;
  accesses.normalize();
  for (const auto& e : accesses.entries) {
    out.accesses += "storage " + std::to_string(e.storage) + " reads";
    for (const auto& r : e.reads)
      out.accesses += " " + std::to_string(r.lo) + "-" + std::to_string(r.hi);
    out.accesses += " writes";
    for (const auto& r : e.writes)
      out.accesses += " " + std::to_string(r.lo) + "-" + std::to_string(r.hi);
    out.accesses += "\n";
  }
  return out;
}

Outcome simulated(const ir::Kernel& lowered, uint64_t seed, bool fast) {
  Memory mem(lowered);
  fillInputs(mem, lowered, seed);
  SimOptions o;
  o.recordTrace = false;
  o.fastPaths = fast;
  SimResult r = sim::simulate(lowered, testTarget(), mem, o);
  Outcome out;
  out.memory = snapshot(mem);
  out.sim = "cycles " + std::to_string(r.cycles) + " races " + std::to_string(r.races.size()) +
            " aborted " + std::to_string(r.aborted);
  for (const auto& i : r.issues) out.sim += "\n" + std::to_string(i.loc.line) + i.message;
  for (const auto& race : r.races)
    out.sim += "\nrace " + std::to_string(race.storage) + " " + std::to_string(race.lo) + " " +
               std::to_string(race.hi) + " " + std::to_string(race.occurrences);
  return out;
}

void expectSame(const Outcome& fast, const Outcome& plain, const std::string& text) {
  EXPECT_EQ(fast.error, plain.error) << text;
  EXPECT_EQ(fast.poison, plain.poison) << text;
  EXPECT_EQ(fast.sim, plain.sim) << text;
  EXPECT_EQ(fast.accesses, plain.accesses) << text;
  EXPECT_TRUE(fast.memory == plain.memory) << "memory differs for\n" << text;
}

TEST(FastPath, RandomParallelBodiesMatchTheElementWalk) {
  ExprGen g(12345);
  int compiled = 0;
  int guardsFast = 0, foldsFast = 0;    // guarded / folding bodies the fast path took
  int selectsFast = 0, clampsFast = 0;  // loads under T.if_then_else; T.min indices
  for (int sample = 0; sample < 400; ++sample) {
    std::string text = randomKernel(g);
    auto p = compileText(text);
    if (!p) continue;  // e.g. a cast the front end rejects: not this test's subject
    ++compiled;
    const ir::Kernel& k = p->kernels.front();
    uint64_t seed = static_cast<uint64_t>(sample);
    Outcome fast = reference(k, seed, true);
    expectSame(fast, reference(k, seed, false), text);
    if (fast.parallelTiles > 0) {
      guardsFast += g.lastShape == 4;
      foldsFast += g.lastShape == 5;
      selectsFast += text.find("T.if_then_else(") != std::string::npos;
      clampsFast += text.find("T.min(j + ") != std::string::npos;
    }
    ir::Kernel lowered = transform::lowerSerial(k);
    expectSame(simulated(lowered, seed, true), simulated(lowered, seed, false), text);
    if (HasFailure()) return;
  }
  EXPECT_GT(compiled, 260);
  EXPECT_GT(guardsFast, 20);
  EXPECT_GT(foldsFast, 20);
  EXPECT_GT(selectsFast, 40);
  EXPECT_GT(clampsFast, 40);
}

// Hand-written cases for the rules that make a body take the general path
// (or not): aliasing, non-injective stores, poison, shifted reads, gemm.
TEST(FastPath, EdgeCasesMatchTheElementWalk) {
  const char* bodies[] = {
      // Reads the storage it writes, shifted by one: element order matters.
      "a = T.alloc_ub((4, 24), \"float32\")\nT.copy(A, a)\n"
      "for i, j in T.Parallel(4, 23):\n    a[i, j + 1] = a[i, j] + 1.0\nT.copy(a, O)",
      // Non-injective store: the last element wins.
      "a = T.alloc_ub((4, 24), \"float32\")\no = T.alloc_ub((4, 24), \"float32\")\n"
      "T.copy(A, a)\nT.fill(o, 0)\n"
      "for i, j in T.Parallel(4, 24):\n    o[i, 0] = a[i, j]\nT.copy(o, O)",
      // Poison: half of t is never written.
      "a = T.alloc_ub((4, 24), \"float32\")\nt = T.alloc_ub((4, 24), \"float32\")\n"
      "T.copy(A, a)\nfor i, j in T.Parallel(2, 24):\n    t[i, j] = a[i, j]\n"
      "for i, j in T.Parallel(4, 24):\n    a[i, j] = t[i, j] * 2.0\nT.copy(a, O)",
      // Poison through a copy and a fill of a poison-free value.
      "t = T.alloc_ub((4, 24), \"float32\")\nu = T.alloc_ub((4, 24), \"float32\")\n"
      "T.fill(u[0:2, 0:24], 1.5)\nT.copy(u, t)\nT.copy(t, O)",
      // Two statements through a temporary, then a self update.
      "a = T.alloc_ub((4, 24), \"float32\")\nt = T.alloc_ub((4, 24), \"float16\")\n"
      "T.copy(A, a)\nfor i, j in T.Parallel(4, 24):\n    t[i, j] = a[i, j] * 3.0\n"
      "    a[i, j] = t[i, j] - a[i, j]\n    a[i, j] = a[i, j] * a[i, j]\nT.copy(a, O)",
      // Out of bounds in the body: the same error from both paths.
      "a = T.alloc_ub((4, 24), \"float32\")\nT.copy(A, a)\n"
      "for i, j in T.Parallel(4, 24):\n    a[i, j] = a[i, max(j + 1, 0)]\nT.copy(a, O)",
      // Plain copies of partly undefined sources carry their poison (SIMT
      // fragments loaded past the written end), then poison reaches global.
      "t = T.alloc_ub((4, 24), \"float32\")\nu = T.alloc_ub((4, 24), \"float16\")\n"
      "v = T.alloc_ub((4, 24), \"float32\")\nw = T.alloc_ub((4, 24), \"float32\")\n"
      "T.copy(A[0:2, 0:24], t[0:2, 0:24])\nT.copy(A[0:4, 0:5], v[0:4, 0:5])\n"
      "for i, j in T.Parallel(4, 24):\n    u[i, j] = t[i, j]\n    w[i, j] = v[i, j]\n"
      "for i, j in T.Parallel(4, 24):\n    if j < 5:\n        t[i, j] = w[i, j] + u[i, j]\n"
      "T.copy(t, O)",
      // Two poison sources, the first in walk order wholly undefined (the root).
      "t = T.alloc_ub((4, 24), \"float32\")\nu = T.alloc_ub((4, 24), \"float32\")\n"
      "v = T.alloc_ub((4, 24), \"float32\")\nw = T.alloc_ub((4, 24), \"float32\")\n"
      "T.copy(A[0:4, 0:5], v[0:4, 0:5])\n"
      "for i, j in T.Parallel(4, 24):\n    u[i, j] = t[i, j]\n    w[i, j] = v[i, j]\n"
      "T.copy(w, O)",
      // A wholly undefined source: the first poison storage is the root.
      "t = T.alloc_ub((4, 24), \"float32\")\nu = T.alloc_ub((4, 24), \"float32\")\n"
      "for i, j in T.Parallel(4, 24):\n    u[i, j] = t[i, j]\nT.copy(u, O)",
      // Folds in float32 (kept in a register) and float16, in index order, under a guard.
      "a = T.alloc_ub((4, 24), \"float32\")\no = T.alloc_ub((4, 24), \"float32\")\n"
      "h = T.alloc_ub((4, 24), \"float16\")\nT.copy(A, a)\nT.fill(o, 0.5)\nT.fill(h, 0)\n"
      "for i, j in T.Parallel(4, 24):\n    o[1, 3] = o[1, 3] - a[i, j] * 0.3\n"
      "for i, j in T.Parallel(4, 24):\n    if j < 17:\n        h[2, 5] = h[2, 5] + a[i, j] * 0.3\n"
      "o[2, 5] = h[2, 5]\nT.copy(o, O)",
      // Gemm with float16 operands, accumulating twice.
      "a = T.alloc_l1((4, 24), \"float16\")\nb = T.alloc_l1((24, 4), \"float16\")\n"
      "c = T.alloc_l0c((4, 4), \"float32\")\no = T.alloc_ub((4, 24), \"float32\")\n"
      "T.copy(A, a)\nT.copy(A, b)\nT.gemm(a, b, c, clear_accum=True)\nT.gemm(a, b, c)\n"
      "T.fill(o, 0)\nT.copy(c, o[0:4, 0:4])\nT.copy(o, O)",
      // Gemm on a partly uninitialised operand: poison in C.
      "a = T.alloc_l1((4, 24), \"float16\")\nb = T.alloc_l1((24, 4), \"float16\")\n"
      "c = T.alloc_l0c((4, 4), \"float32\")\no = T.alloc_ub((4, 24), \"float32\")\n"
      "T.copy(A[0:2, 0:24], a[0:2, 0:24])\nT.copy(A, b)\nT.gemm(a, b, c, clear_accum=True)\n"
      "T.fill(o, 0)\nT.copy(c, o[0:4, 0:4])\nT.copy(o, O)",
  };
  // Reductions: float16 and int sources, along either dimension, with and
  // without clear, over a partly uninitialised source and over a sub-region.
  std::vector<std::string> reductions = {
      "a = T.alloc_ub((4, 24), \"float16\")\nr = T.alloc_ub((4,), \"float32\")\n"
      "o = T.alloc_ub((4, 24), \"float32\")\nT.copy(A, a)\nT.fill(r, 0.5)\n"
      "T.reduce_sum(a, r, dim=-1, clear=False)\nT.fill(o, 0)\nT.copy(r, o[0, 0:4])\n"
      "T.copy(o, O)",
      "a = T.alloc_ub((4, 24), \"int32\")\nr = T.alloc_ub((24,), \"int32\")\n"
      "o = T.alloc_ub((4, 24), \"float32\")\nT.copy(A, a)\nT.reduce_max(a, r, dim=0)\n"
      "T.fill(o, 0)\nT.copy(r, o[1, 0:24])\nT.copy(o, O)",
      "a = T.alloc_ub((4, 24), \"float32\")\nr = T.alloc_ub((4,), \"float32\")\n"
      "o = T.alloc_ub((4, 24), \"float32\")\nT.copy(A[0:3, 0:24], a[0:3, 0:24])\n"
      "T.reduce_min(a, r, dim=-1)\nT.fill(o, 0)\nT.copy(r, o[0, 0:4])\nT.copy(o, O)",
      "a = T.alloc_ub((4, 24), \"float32\")\nr = T.alloc_ub((4,), \"float32\")\n"
      "T.copy(A, a)\nT.reduce_sum(a[0:4, 4:12], r, dim=-1)\nT.copy(r, a[0, 0:4])\n"
      "T.copy(a, O)",
  };
  int errors = 0, poisoned = 0;
  std::vector<std::string> all(std::begin(bodies), std::end(bodies));
  all.insert(all.end(), reductions.begin(), reductions.end());
  for (const std::string& body : all) {
    std::string text =
        kernelText("A: T.Tensor((4, 24), \"float32\"), O: T.Tensor((4, 24), \"float32\")", body);
    auto p = compileText(text);
    ASSERT_TRUE(p) << text;
    const ir::Kernel& k = p->kernels.front();
    Outcome fast = reference(k, 7, true);
    expectSame(fast, reference(k, 7, false), text);
    errors += !fast.error.empty();
    poisoned += !fast.poison.empty();
    ir::Kernel lowered = transform::lowerSerial(k);
    expectSame(simulated(lowered, 7, true), simulated(lowered, 7, false), text);
  }
  EXPECT_EQ(errors, 1);    // the out-of-bounds body
  EXPECT_GE(poisoned, 7);  // the uninitialised reads
}

// Copies bit-copy equal dtypes except NaNs, which the element path
// canonicalises: special bit patterns (NaN payloads and signs, signalling
// NaN, -0, infinities, subnormals) through same- and cross-dtype copies and
// a T.Parallel pass-through.
TEST(FastPath, SpecialBitPatternsCopyLikeTheElementWalk) {
  const uint32_t f32[] = {0x7fc00000u, 0xffc00001u, 0x7f800001u, 0x80000000u, 0x7f800000u,
                          0xff800000u, 0x00000001u, 0x807fffffu, 0x3f800000u, 0x7fffffffu};
  const uint16_t f16[] = {0x7e00u, 0xfe01u, 0x7c01u, 0x8000u, 0x7c00u,
                          0xfc00u, 0x0001u, 0x83ffu, 0x3c00u, 0x7fffu};
  const char* dtypes[] = {"float32", "float16", "bfloat16"};
  for (const char* from : dtypes)
    for (const char* to : dtypes) {
      std::string text =
          kernelText(std::string("A: T.Tensor((10,), \"") + from + "\"), O: T.Tensor((10,), \"" +
                         to + "\"), P: T.Tensor((10,), \"" + from + "\")",
                     std::string("a = T.alloc_ub((10,), \"") + from + "\")\n" +
                         "b = T.alloc_ub((10,), \"" + to + "\")\n" + "p = T.alloc_ub((10,), \"" +
                         from + "\")\n" + "T.copy(A, a)\nT.copy(a, b)\nT.copy(b, O)\n" +
                         "for i in T.Parallel(10):\n    p[i] = a[i]\nT.copy(p, P)");
      auto p = compileText(text);
      ASSERT_TRUE(p) << text;
      const ir::Kernel& k = p->kernels.front();
      auto run = [&](bool fast) {
        Memory mem(k);
        auto& a = mem.raw(mem.index((*k.findBuffer("A"))->storage));
        for (size_t i = 0; i < 10; ++i) {
          if (std::string(from) == "float32")
            std::memcpy(a.data() + 4 * i, &f32[i], 4);
          else
            std::memcpy(a.data() + 2 * i, &f16[i], 2);
        }
        Machine m(k, mem);
        m.fastPaths = fast;
        mem.resetOnChip();
        m.bindBlock(0);
        m.exec(k.body);
        return snapshot(mem);
      };
      EXPECT_TRUE(run(true) == run(false)) << text;
    }
}

// The 8-bit floats: every code through a same-dtype copy (NaN codes
// canonicalise), and float32 specials, ties and out-of-range values to both.
TEST(FastPath, Float8CopiesLikeTheElementWalk) {
  std::vector<uint32_t> f32 = {0x7fc00000u, 0xffc00001u, 0x7f800000u, 0xff800000u, 0x80000000u,
                               0x00000001u, 0x3f800000u, 0x43e00000u, 0x43e80000u, 0x47800000u,
                               0x3b000000u, 0x3b100000u, 0xc3df0000u, 0x3f880000u, 0x3f980000u};
  for (uint32_t k = 0; k < 241; ++k) f32.push_back(0x3a000000u + k * 0x0011f3a7u);  // a spread
  for (const char* to : {"float8_e4m3fn", "float8_e5m2"})
    for (bool fromFloat8 : {false, true}) {
      std::string from = fromFloat8 ? to : "float32";
      std::string text =
          kernelText("A: T.Tensor((256,), \"" + from + "\"), O: T.Tensor((256,), \"" + to + "\")",
                     "a = T.alloc_ub((256,), \"" + from + "\")\nb = T.alloc_ub((256,), \"" +
                         std::string(to) + "\")\nT.copy(A, a)\nT.copy(a, b)\nT.copy(b, O)");
      auto p = compileText(text);
      ASSERT_TRUE(p) << text;
      const ir::Kernel& k = p->kernels.front();
      auto run = [&](bool fast) {
        Memory mem(k);
        auto& a = mem.raw(mem.index((*k.findBuffer("A"))->storage));
        for (size_t i = 0; i < 256; ++i) {
          if (fromFloat8)
            a[i] = static_cast<uint8_t>(i);
          else
            std::memcpy(a.data() + 4 * i, &f32[i], 4);
        }
        Machine m(k, mem);
        m.fastPaths = fast;
        mem.resetOnChip();
        m.bindBlock(0);
        m.exec(k.body);
        return snapshot(mem);
      };
      EXPECT_TRUE(run(true) == run(false)) << text;
    }
}

}  // namespace
}  // namespace tilesched::sim::test
