// Smallest use of Z3, proving the solver is linked and answers. The modulo
// scheduler of SPEC §5 replaces this with the real problem.
#pragma once

#include <cstdint>
#include <optional>

namespace tilesched::schedule {

// The smallest x >= lo with x % modulus == residue and x <= hi, found by Z3;
// nullopt when unsatisfiable.
std::optional<int64_t> smallestCongruent(int64_t lo, int64_t hi, int64_t modulus, int64_t residue);

}  // namespace tilesched::schedule
