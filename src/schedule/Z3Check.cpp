#include "schedule/Z3Check.h"

#include <z3++.h>

namespace tilesched::schedule {

std::optional<int64_t> smallestCongruent(int64_t lo, int64_t hi, int64_t modulus, int64_t residue) {
  z3::context ctx;
  z3::optimize opt(ctx);
  z3::expr x = ctx.int_const("x");
  z3::expr k = ctx.int_const("k");
  opt.add(x >= ctx.int_val(lo) && x <= ctx.int_val(hi));
  opt.add(x == k * ctx.int_val(modulus) + ctx.int_val(residue));
  opt.minimize(x);
  if (opt.check() != z3::sat) return std::nullopt;
  return opt.get_model().eval(x).get_numeral_int64();
}

}  // namespace tilesched::schedule
