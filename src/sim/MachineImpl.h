// Internal: what the files of the Machine share. Machine.cpp holds the
// state, expressions, regions, reductions and statements; MachineMemory.cpp
// the byte arrays, loads and stores, poison and deferred writes;
// MachineCopy.cpp T.copy and T.fill; MachineGemm.cpp T.gemm; ParallelFast.cpp
// T.Parallel a tile at a time. Not part of the simulator's interface.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "sim/Machine.h"

namespace tilesched::sim {

namespace detail {

// The per-element functions of `eval`, shared by the tile-at-a-time paths so
// both give the same bits (Machine.cpp).

// `op a` with the result in dtype `t`.
Scalar unaryValue(ir::UnOp op, ir::DType t, const Scalar& a);
// The comparison `a op b` (in double when either side is a float).
bool compareValues(ir::BinOp op, const Scalar& a, const Scalar& b);
// Float `a op b`: binary32 arithmetic, then the expression's dtype `t`
// (fp16/bf16: RNE).
double floatBinary(ir::BinOp op, double a, double b, ir::DType t);
// Integer `x op y` wrapped to `t`; the caller rejects division by zero.
int64_t intBinary(ir::BinOp op, int64_t x, int64_t y, ir::DType t);

// Where a box's significant extents start: its leading 1s dropped (the last
// extent kept), so boxes of different ranks line up from the right.
size_t significantFrom(const std::vector<int64_t>& extents);

// fp16 bits -> value, as decodeHalf.
const std::vector<double>& halfTable();

}  // namespace detail

// The region walkers every tile operation uses (declared in Machine.h).

// Calls fn(byteOffset) for every element of `r` in row-major order.
template <class F>
void Machine::forEachElement(const ResolvedRegion& r, F&& fn) {
  const auto& bi = info(r.buffer);
  size_t rank = r.extents.size();
  if (r.numElements() == 0) return;
  std::vector<int64_t> idx(rank, 0);
  int64_t base = 0;
  for (size_t d = 0; d < rank; ++d) base += r.mins[d] * bi.strides[d];
  int64_t inner = rank ? r.extents[rank - 1] : 1;
  int64_t innerStride = rank ? bi.strides[rank - 1] : 1;
  if (rank == 0) {
    fn(base * bi.elemBytes);
    return;
  }
  while (true) {
    int64_t off = base;
    for (size_t d = 0; d + 1 < rank; ++d) off += idx[d] * bi.strides[d];
    for (int64_t i = 0; i < inner; ++i) fn((off + i * innerStride) * bi.elemBytes);
    // Odometer over the outer dimensions.
    size_t d = rank - 1;
    while (d > 0) {
      --d;
      if (++idx[d] < r.extents[d]) break;
      idx[d] = 0;
      if (d == 0) return;
    }
    if (rank == 1) return;
  }
}

template <class F>
void Machine::forEachRow(const ResolvedRegion& r, F&& fn) {
  const auto& bi = info(r.buffer);
  size_t rank = r.extents.size();
  if (r.numElements() == 0) return;
  int64_t base = 0;
  for (size_t d = 0; d < rank; ++d) base += r.mins[d] * bi.strides[d];
  if (rank == 0) {
    fn(base * bi.elemBytes, int64_t{1});
    return;
  }
  int64_t inner = r.extents[rank - 1];  // the innermost stride is 1 (row-major)
  std::vector<int64_t> idx(rank, 0);
  while (true) {
    int64_t off = base;
    for (size_t d = 0; d + 1 < rank; ++d) off += idx[d] * bi.strides[d];
    fn(off * bi.elemBytes, inner);
    if (rank == 1) return;
    size_t d = rank - 1;
    while (true) {
      --d;
      if (++idx[d] < r.extents[d]) break;
      idx[d] = 0;
      if (d == 0) return;
    }
  }
}

template <class F>
void Machine::readRowWise(const ResolvedRegion& r, F&& fn) {
  const auto& bi = info(r.buffer);
  ir::DType dt = r.buffer->dtype;
  const double* half = dt == ir::DType::Float16 ? detail::halfTable().data() : nullptr;
  forEachRow(r, [&](int64_t off, int64_t len) {
    if (access) access->add(bi.storage, off, off + len * bi.elemBytes, false);
    const uint8_t* row = bytesOf(bi.storage, off, len * bi.elemBytes);
    for (int64_t k = 0; k < len; ++k) {
      const uint8_t* p = row + k * bi.elemBytes;
      if (!half) {
        fn(loadElement(p, dt));
        continue;
      }
      uint16_t h;
      std::memcpy(&h, p, 2);
      fn(Scalar::ofFloat(half[h]));
    }
  });
}

}  // namespace tilesched::sim
