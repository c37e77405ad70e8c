// T.gemm (see Machine.h): reading the A and B operands (transposes applied,
// row by row when they hold no poison) and the accumulation into C, by the
// plain k-innermost loop or the cache-friendly i-k-j loop.
// Assumes: regions resolved by Machine::resolve; binary32 without FMA
// contraction (-ffp-contract=off, see Numerics.h).
// Guarantees: every C[m, n] adds its products in increasing k, one binary32
// (int64) product and add at a time, on both loops: bit-identical results,
// accesses and shadow bytes.
#include "sim/Machine.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "sim/MachineImpl.h"

namespace tilesched::sim {

using namespace ir;

namespace {

// (rows, cols) of a gemm operand: leading 1s dropped, at most two dimensions.
bool matrixShape(const ResolvedRegion& r, int64_t& rows, int64_t& cols) {
  std::vector<int64_t> e = r.extents;
  size_t i = 0;
  while (i + 1 < e.size() && e[i] == 1) ++i;
  e.erase(e.begin(), e.begin() + static_cast<long>(i));
  if (e.size() > 2 || e.empty()) return false;
  rows = e.size() == 2 ? e[0] : 1;
  cols = e.back();
  return true;
}

}  // namespace

GemmOperands Machine::readGemmOperands(const GemmStmt& g, const ResolvedRegion& a,
                                       const ResolvedRegion& b) {
  loc = g.loc;
  int64_t ar = 0, ac = 0, br = 0, bc = 0;
  if (!matrixShape(a, ar, ac) || !matrixShape(b, br, bc))
    fail("T.gemm operands must be at most 2-D");
  GemmOperands ops;
  ops.m = g.transA ? ac : ar;
  ops.k = g.transA ? ar : ac;
  int64_t kb = g.transB ? bc : br;
  ops.n = g.transB ? br : bc;
  if (kb != ops.k)
    fail(fmt::format("T.gemm reduction extents differ: A gives K = {}, B gives K = {}", ops.k, kb));
  ops.integer = isInt(a.buffer->dtype);
  std::vector<double> am, bm;
  const auto& ai = info(a.buffer);
  const auto& bi = info(b.buffer);
  std::vector<uint8_t> ap, bp;  // poison, when tracked
  // Operands without poison: read row by row (same values and accesses).
  auto readRows = [&](const ResolvedRegion& r, std::vector<double>& out) {
    if (!fastPaths || (trackPoison && !regionDefined(r))) return false;
    out.reserve(static_cast<size_t>(r.numElements()));
    readRowWise(r, [&](const Scalar& v) { out.push_back(v.asDouble()); });
    return true;
  };
  bool fastA = readRows(a, am);
  bool fastB = readRows(b, bm);
  if (trackPoison && fastA) ap.assign(am.size(), 0);
  if (trackPoison && fastB) bp.assign(bm.size(), 0);
  if (!fastA)
    forEachElement(a, [&](int64_t off) {
      Scalar v = loadAt(ai.storage, off, a.buffer->dtype, ai.elemBytes);
      am.push_back(v.asDouble());
      if (trackPoison) ap.push_back(v.poison);
    });
  if (!fastB)
    forEachElement(b, [&](int64_t off) {
      Scalar v = loadAt(bi.storage, off, b.buffer->dtype, bi.elemBytes);
      bm.push_back(v.asDouble());
      if (trackPoison) bp.push_back(v.poison);
    });
  ops.a.resize(static_cast<size_t>(ops.m * ops.k));
  ops.b.resize(static_cast<size_t>(ops.k * ops.n));
  for (int64_t m = 0; m < ops.m; ++m)
    for (int64_t k = 0; k < ops.k; ++k)
      ops.a[static_cast<size_t>(m * ops.k + k)] =
          g.transA ? am[static_cast<size_t>(k * ac + m)] : am[static_cast<size_t>(m * ac + k)];
  for (int64_t k = 0; k < ops.k; ++k)
    for (int64_t n = 0; n < ops.n; ++n)
      ops.b[static_cast<size_t>(k * ops.n + n)] =
          g.transB ? bm[static_cast<size_t>(n * bc + k)] : bm[static_cast<size_t>(k * bc + n)];
  if (trackPoison) {
    ops.aPoison.resize(ops.a.size());
    ops.bPoison.resize(ops.b.size());
    for (int64_t m = 0; m < ops.m; ++m)
      for (int64_t k = 0; k < ops.k; ++k)
        ops.aPoison[static_cast<size_t>(m * ops.k + k)] =
            g.transA ? ap[static_cast<size_t>(k * ac + m)] : ap[static_cast<size_t>(m * ac + k)];
    for (int64_t k = 0; k < ops.k; ++k)
      for (int64_t n = 0; n < ops.n; ++n)
        ops.bPoison[static_cast<size_t>(k * ops.n + n)] =
            g.transB ? bp[static_cast<size_t>(n * bc + k)] : bp[static_cast<size_t>(k * bc + n)];
  }
  return ops;
}

void Machine::finishGemm(const GemmOperands& ops, const ResolvedRegion& c, bool clear,
                         SourceLoc where) {
  loc = where;
  int64_t cr = 0, cc = 0;
  if (!matrixShape(c, cr, cc) || cr * cc != ops.m * ops.n || cc != ops.n)
    fail(fmt::format("T.gemm accumulator has {} elements, but A and B give a {} x {} result",
                     c.numElements(), ops.m, ops.n));
  const auto& ci = info(c.buffer);
  std::vector<int64_t> offs;
  offs.reserve(static_cast<size_t>(ops.m * ops.n));
  forEachElement(c, [&](int64_t off) { offs.push_back(off); });
  if (!fastPaths) {
    // Element by element, k innermost: the definition the fast loop keeps.
    for (int64_t m = 0; m < ops.m; ++m) {
      for (int64_t n = 0; n < ops.n; ++n) {
        int64_t off = offs[static_cast<size_t>(m * ops.n + n)];
        Scalar old = clear ? Scalar{} : loadAt(ci.storage, off, c.buffer->dtype, ci.elemBytes);
        bool poison = old.poison;
        for (int64_t k = 0; !poison && k < ops.k && !ops.aPoison.empty(); ++k)
          poison = ops.aPoison[static_cast<size_t>(m * ops.k + k)] ||
                   ops.bPoison[static_cast<size_t>(k * ops.n + n)];
        Scalar result;
        if (ops.integer) {
          int64_t acc = clear ? 0 : old.asInt();
          for (int64_t k = 0; k < ops.k; ++k)
            acc += static_cast<int64_t>(ops.a[static_cast<size_t>(m * ops.k + k)]) *
                   static_cast<int64_t>(ops.b[static_cast<size_t>(k * ops.n + n)]);
          result = Scalar::ofInt(acc);
        } else {
          float acc = clear ? 0.0f : static_cast<float>(old.asDouble());
          for (int64_t k = 0; k < ops.k; ++k) {
            float prod = static_cast<float>(ops.a[static_cast<size_t>(m * ops.k + k)]) *
                         static_cast<float>(ops.b[static_cast<size_t>(k * ops.n + n)]);
            acc = acc + prod;
          }
          result = Scalar::ofFloat(acc);
        }
        result.poison = poison;
        storeAt(ci.storage, off, c.buffer->dtype, ci.elemBytes, result);
      }
    }
    return;
  }
  // C[m, n] is poison when its old value or any A[m, k] or B[k, n] is: the
  // OR over k splits into "row m of A has poison" or "column n of B has".
  std::vector<uint8_t> rowPoison(static_cast<size_t>(ops.m), 0);
  std::vector<uint8_t> colPoison(static_cast<size_t>(ops.n), 0);
  if (!ops.aPoison.empty()) {
    for (int64_t m = 0; m < ops.m; ++m)
      for (int64_t k = 0; k < ops.k; ++k)
        rowPoison[static_cast<size_t>(m)] |= ops.aPoison[static_cast<size_t>(m * ops.k + k)];
    for (int64_t k = 0; k < ops.k; ++k)
      for (int64_t n = 0; n < ops.n; ++n)
        colPoison[static_cast<size_t>(n)] |= ops.bPoison[static_cast<size_t>(k * ops.n + n)];
  }
  // A row of accumulators per output row, walked k-major (i-k-j): each
  // C[m, n] still sums its products in increasing k, one binary32 (int64)
  // product and add at a time, so the values are those of the plain loop.
  size_t N = static_cast<size_t>(ops.n);
  std::vector<float> af, bf, accF;
  std::vector<int64_t> ai, bi, accI;
  if (ops.integer) {
    ai.assign(ops.a.size(), 0);
    bi.assign(ops.b.size(), 0);
    for (size_t x = 0; x < ops.a.size(); ++x) ai[x] = static_cast<int64_t>(ops.a[x]);
    for (size_t x = 0; x < ops.b.size(); ++x) bi[x] = static_cast<int64_t>(ops.b[x]);
    accI.resize(N);
  } else {
    af.assign(ops.a.size(), 0);
    bf.assign(ops.b.size(), 0);
    for (size_t x = 0; x < ops.a.size(); ++x) af[x] = static_cast<float>(ops.a[x]);
    for (size_t x = 0; x < ops.b.size(); ++x) bf[x] = static_cast<float>(ops.b[x]);
    accF.resize(N);
  }
  const uint8_t* cBytes = memory_.data(ci.storage);
  bool rowsFast = std::none_of(rowPoison.begin(), rowPoison.end(), [](uint8_t x) { return x; }) &&
                  std::none_of(colPoison.begin(), colPoison.end(), [](uint8_t x) { return x; }) &&
                  (clear || !trackPoison || regionDefined(c));
  for (size_t x = 0; rowsFast && x < offs.size(); ++x)  // rows of N contiguous elements
    rowsFast = x % N == 0 || offs[x] == offs[x - 1] + ci.elemBytes;
  for (int64_t m = 0; m < ops.m; ++m) {
    const int64_t* rowOffs = offs.data() + m * ops.n;
    if (ops.integer) {
      int64_t* acc = accI.data();
      for (size_t n = 0; n < N; ++n)
        acc[n] = clear ? 0 : loadElement(cBytes + rowOffs[n], c.buffer->dtype).asInt();
      for (int64_t k = 0; k < ops.k; ++k) {
        int64_t x = ai[static_cast<size_t>(m * ops.k + k)];
        const int64_t* brow = bi.data() + k * ops.n;
        for (size_t n = 0; n < N; ++n) acc[n] += x * brow[n];
      }
    } else {
      float* acc = accF.data();
      for (size_t n = 0; n < N; ++n)
        acc[n] =
            clear
                ? 0.0f
                : static_cast<float>(loadElement(cBytes + rowOffs[n], c.buffer->dtype).asDouble());
      for (int64_t k = 0; k < ops.k; ++k) {
        float x = af[static_cast<size_t>(m * ops.k + k)];
        const float* __restrict brow = bf.data() + k * ops.n;
        float* __restrict out = acc;
        for (size_t n = 0; n < N; ++n) {
          float prod = x * brow[n];
          out[n] = out[n] + prod;
        }
      }
    }
    // Without poison, a whole (contiguous) row at once: the same accesses,
    // bytes and shadow bytes as the element loop below.
    if (rowsFast && N > 0) {
      int64_t off = rowOffs[0], bytes = static_cast<int64_t>(N) * ci.elemBytes;
      if (access && !clear) access->add(ci.storage, off, off + bytes, false);
      if (access) access->add(ci.storage, off, off + bytes, true);
      written[static_cast<size_t>(ci.storage)] = 1;
      if (deferring_) logOld(ci.storage, off, bytes);
      uint8_t* p = memory_.data(ci.storage) + off;
      if (!ops.integer && c.buffer->dtype == DType::Float32) {
        std::memcpy(p, accF.data(), static_cast<size_t>(bytes));  // float -> float32: as is
      } else {
        for (size_t n = 0; n < N; ++n)
          storeElement(
              p + static_cast<int64_t>(n) * ci.elemBytes, c.buffer->dtype,
              ops.integer ? Scalar::ofInt(accI[n]) : Scalar::ofFloat(static_cast<double>(accF[n])));
      }
      memory_.setDefined(ci.storage, off, bytes);
      continue;
    }
    // Element by element: the old value's load (access, poison) and the store.
    for (size_t n = 0; n < N; ++n) {
      int64_t off = rowOffs[n];
      Scalar old = clear ? Scalar{} : loadAt(ci.storage, off, c.buffer->dtype, ci.elemBytes);
      Scalar result =
          ops.integer ? Scalar::ofInt(accI[n]) : Scalar::ofFloat(static_cast<double>(accF[n]));
      result.poison = old.poison || rowPoison[static_cast<size_t>(m)] || colPoison[n];
      storeAt(ci.storage, off, c.buffer->dtype, ci.elemBytes, result);
    }
  }
}

}  // namespace tilesched::sim
