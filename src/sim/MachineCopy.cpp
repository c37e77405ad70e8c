// T.copy and T.fill (see Machine.h): the general element-at-a-time copy
// (dtype conversion, pad_value=, transpose, atomic stores) and the fill, each
// with a row-at-a-time fast path.
// Assumes: regions resolved by Machine::resolve / resolveCopy.
// Guarantees: the fast paths give the same bytes, shadow bytes and accesses
// as the general ones, and decline (changing nothing) when they cannot.
#include "sim/Machine.h"

#include <cstring>

#include <fmt/format.h>

#include "sim/MachineImpl.h"

namespace tilesched::sim {

using namespace ir;

// Converts `n` elements of dtype `from` at `in` to dtype `to` at `out`, as
// storeElement(loadElement()) does one by one.
static void convertElements(const uint8_t* in, DType from, uint8_t* out, DType to, int64_t n) {
  int fb = dtypeBytes(from), tb = dtypeBytes(to);
  if (from == to && isInt(from) && from != DType::Bool) {
    if (out != in) std::memcpy(out, in, static_cast<size_t>(n * fb));
    return;
  }
  if (from == to && (from == DType::Float32 || from == DType::Float16 || from == DType::BFloat16)) {
    // Bit copy, except NaNs, which the load/store pair canonicalises.
    if (out != in) std::memcpy(out, in, static_cast<size_t>(n * fb));
    bool anyNan = false;
    if (fb == 4) {
      uint32_t found = 0;
      for (int64_t k = 0; k < n; ++k) {
        uint32_t u;
        std::memcpy(&u, in + k * 4, 4);
        found |= static_cast<uint32_t>((u & 0x7fffffffu) > 0x7f800000u);
      }
      anyNan = found != 0;
    } else {
      uint32_t found = 0;
      uint32_t inf = from == DType::Float16 ? 0x7c00u : 0x7f80u;
      for (int64_t k = 0; k < n; ++k) {
        uint16_t u;
        std::memcpy(&u, in + k * 2, 2);
        found |= static_cast<uint32_t>((u & 0x7fffu) > inf);
      }
      anyNan = found != 0;
    }
    for (int64_t k = 0; anyNan && k < n; ++k) {
      bool nan = false;
      if (fb == 4) {
        uint32_t u;
        std::memcpy(&u, in + k * 4, 4);
        nan = (u & 0x7f800000u) == 0x7f800000u && (u & 0x7fffffu);
      } else {
        uint16_t u;
        std::memcpy(&u, in + k * 2, 2);
        nan = from == DType::Float16 ? (u & 0x7c00u) == 0x7c00u && (u & 0x3ffu)
                                     : (u & 0x7f80u) == 0x7f80u && (u & 0x7fu);
      }
      if (nan) storeElement(out + k * tb, to, loadElement(in + k * fb, from));
    }
    return;
  }
  bool toFloat8 = to == DType::Float8E4M3FN || to == DType::Float8E5M2;
  if (from == to && toFloat8) {
    // Bit copy; NaN codes canonicalise as decode + encode does (0x7f / 0x7e).
    if (out != in) std::memcpy(out, in, static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) {
      uint8_t c = out[k] & 0x7f;
      if (to == DType::Float8E4M3FN ? c == 0x7f : c > 0x7c)
        out[k] = to == DType::Float8E4M3FN ? 0x7f : 0x7e;
    }
    return;
  }
  if (from == DType::Float32 && toFloat8) {  // storeElement's rounding and encoding, directly
    for (int64_t k = 0; k < n; ++k) {
      float f;
      std::memcpy(&f, in + k * 4, 4);
      out[k] = encodeFloat8(roundToFloat(f, to), to);
    }
    return;
  }
  for (int64_t k = 0; k < n; ++k) storeElement(out + k * tb, to, loadElement(in + k * fb, from));
}

bool Machine::copyFast(const ResolvedRegion& src, const ResolvedRegion& dst) {
  if (trackPoison && !regionDefined(src)) return false;  // the general path reports it
  const auto& s = info(src.buffer);
  const auto& d = info(dst.buffer);
  int64_t n = src.numElements();
  if (n == 0) return true;
  // Every source element is read before any is written (as the general path).
  std::vector<uint8_t> raw(static_cast<size_t>(n * s.elemBytes));
  size_t at = 0;
  forEachRow(src, [&](int64_t off, int64_t len) {
    size_t bytes = static_cast<size_t>(len * s.elemBytes);
    if (access) access->add(s.storage, off, off + static_cast<int64_t>(bytes), false);
    std::memcpy(raw.data() + at, bytesOf(s.storage, off, static_cast<int64_t>(bytes)), bytes);
    at += bytes;
  });
  std::vector<uint8_t> convertedBytes;
  const uint8_t* converted = raw.data();
  if (src.buffer->dtype == dst.buffer->dtype) {
    convertElements(raw.data(), src.buffer->dtype, raw.data(), dst.buffer->dtype, n);
  } else {
    convertedBytes.resize(static_cast<size_t>(n * d.elemBytes));
    convertElements(raw.data(), src.buffer->dtype, convertedBytes.data(), dst.buffer->dtype, n);
    converted = convertedBytes.data();
  }
  written[static_cast<size_t>(d.storage)] = 1;
  at = 0;
  forEachRow(dst, [&](int64_t off, int64_t len) {
    int64_t bytes = len * d.elemBytes;
    if (access) access->add(d.storage, off, off + bytes, true);
    if (deferring_) {
      direct_.ranges.push_back({d.storage, off, bytes, direct_.bytes.size()});
      direct_.bytes.insert(direct_.bytes.end(), converted + at, converted + at + bytes);
      direct_.defined.resize(direct_.defined.size() + static_cast<size_t>(bytes), 1);
    } else {
      std::memcpy(bytesOf(d.storage, off, bytes), converted + at, static_cast<size_t>(bytes));
      memory_.setDefined(d.storage, off, bytes);
    }
    at += static_cast<size_t>(bytes);
  });
  return true;
}

void Machine::copy(const ResolvedRegion& src, const ResolvedRegion& dst, SourceLoc where,
                   const Scalar* pad, AtomicOp atomic, bool transpose) {
  loc = where;
  // The source box as the destination sees it: rows and columns swapped by
  // transpose=True (a (rows, cols) box read column by column).
  std::vector<int64_t> se(
      src.extents.begin() + static_cast<long>(detail::significantFrom(src.extents)),
      src.extents.end());
  int64_t cols = se.back(), rows = cols ? src.numElements() / cols : 0;
  if (transpose) se = {cols, rows};
  // With a pad value, the source's extents lined up from the right under the
  // destination's (leading 1s of the source dropped, missing ones are 1).
  std::vector<int64_t> inside;
  if (src.numElements() != dst.numElements()) {
    bool fits = pad && se.size() <= dst.extents.size();
    inside.assign(dst.extents.size(), 1);
    for (size_t i = 0; fits && i < se.size(); ++i) {
      size_t dd = dst.extents.size() - 1 - i;
      inside[dd] = se[se.size() - 1 - i];
      fits = inside[dd] <= dst.extents[dd];
    }
    if (!fits)
      fail(fmt::format("T.copy between regions of {} and {} elements", src.numElements(),
                       dst.numElements()));
  }
  if (fastPaths && inside.empty() && atomic == AtomicOp::None && !transpose && copyFast(src, dst))
    return;
  const auto& s = info(src.buffer);
  const auto& d = info(dst.buffer);
  // The value an element of the destination receives: with an atomic op, the
  // old value combined with the new one in the destination dtype.
  DType dt = dst.buffer->dtype;
  auto store = [&](int64_t off, const Scalar& v) {
    if (atomic == AtomicOp::None) return storeAt(d.storage, off, dt, d.elemBytes, v);
    Scalar old = loadAt(d.storage, off, dt, d.elemBytes);
    Scalar value = convert(v, dt);
    BinOp op = atomicBinOp(atomic);
    Scalar r = isFloat(dt) ? Scalar::ofFloat(detail::floatBinary(op, old.f, value.f, dt))
                           : Scalar::ofInt(detail::intBinary(op, old.i, value.i, dt));
    r.poison = old.poison || value.poison;
    storeAt(d.storage, off, dt, d.elemBytes, r);
  };
  std::vector<Scalar> values;
  std::vector<int64_t> srcOffs;  // for poison messages: where each value came from
  values.reserve(static_cast<size_t>(src.numElements()));
  forEachElement(src, [&](int64_t off) {
    values.push_back(loadAt(s.storage, off, src.buffer->dtype, s.elemBytes));
    if (trackPoison) srcOffs.push_back(off);
  });
  if (transpose) {
    // Row-major over the transposed box: element (j, i) is source (i, j).
    std::vector<Scalar> t(values.size());
    std::vector<int64_t> tOffs(srcOffs.size());
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        t[j * rows + i] = values[i * cols + j];
        if (trackPoison) tOffs[j * rows + i] = srcOffs[i * cols + j];
      }
    values = std::move(t);
    srcOffs = std::move(tOffs);
  }
  auto origin = [&](size_t i) {
    if (!trackPoison || !values[i].poison) return;
    notePoisonLoad(s.storage, srcOffs[i], srcOffs[i] + s.elemBytes);
  };
  size_t k = 0;
  if (inside.empty()) {
    forEachElement(dst, [&](int64_t off) {
      origin(k);
      store(off, values[k++]);
    });
    return;
  }
  // Row-major walk of the destination with its multi-index; the source
  // elements come in the same order, one per inside position.
  std::vector<int64_t> idx(dst.extents.size(), 0);
  forEachElement(dst, [&](int64_t off) {
    bool in = true;
    for (size_t i = 0; in && i < idx.size(); ++i) in = idx[i] < inside[i];
    if (in) origin(k);
    store(off, in ? values[k++] : *pad);
    for (size_t i = idx.size(); i-- > 0;) {
      if (++idx[i] < dst.extents[i]) break;
      idx[i] = 0;
    }
  });
}

void Machine::fill(const ResolvedRegion& dst, const Scalar& value) {
  const auto& d = info(dst.buffer);
  Scalar v = convert(value, dst.buffer->dtype);
  if (fastPaths && !v.poison) {
    // One encoded element, copied row by row.
    if (dst.numElements() == 0) return;
    uint8_t one[8] = {};
    storeElement(one, dst.buffer->dtype, v);
    written[static_cast<size_t>(d.storage)] = 1;
    std::vector<uint8_t> row;
    forEachRow(dst, [&](int64_t off, int64_t len) {
      int64_t bytes = len * d.elemBytes;
      if (access) access->add(d.storage, off, off + bytes, true);
      if (deferring_) logOld(d.storage, off, bytes);
      if (row.size() < static_cast<size_t>(bytes))
        for (int64_t k = static_cast<int64_t>(row.size()) / d.elemBytes; k < len; ++k)
          row.insert(row.end(), one, one + d.elemBytes);
      std::memcpy(bytesOf(d.storage, off, bytes), row.data(), static_cast<size_t>(bytes));
      memory_.setDefined(d.storage, off, bytes);
    });
    return;
  }
  forEachElement(dst,
                 [&](int64_t off) { storeAt(d.storage, off, dst.buffer->dtype, d.elemBytes, v); });
}

}  // namespace tilesched::sim
