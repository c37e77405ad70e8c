// Fill versions (issue 17 §4): versions the machine uses before the modulo
// schedule's steady state, which the schedule itself does not need.
//
// The lowering does not enforce the schedule's start times: it issues a flat
// loop body in program order and every pipe starts an instruction as soon as
// its flags and its predecessor allow. In the first iterations producers
// then run ahead of the steady-state pace (the recurrence that sets II has
// not built up yet), and a storage with the fewest versions the modulo
// schedule needs holds them back: `tile_decode_bias` loads its bias row one
// version late in every run, 44 cycles that double buffering does not pay,
// at the same II.
//
// This step replays K iterations of the list as the machine runs them
// (program-order issue, in-order pipes busy for each unit's II, dependencies
// at their latencies and distances; versioned dependencies at the distance
// the candidate version counts give) and raises a storage's count by one
// while that shortens the replay by at least 1% (less is within the model's
// error), within its version bound and every memory group's capacity. The steady state is unchanged
// (more versions only relax constraints), so the II and its proof stand.
//
// Expects: a loop problem and its solved versions; not enable_offset (a
// staged body issues in another order).
// Guarantees: versions[k] >= the input's, <= maxVersions, every memory group
// within capacity; deterministic; changes nothing when no raise helps.
#pragma once

#include <cstdint>
#include <vector>

#include "schedule/Problem.h"

namespace tilesched::schedule {

// Iterations replayed (fewer when the loop has fewer trips).
inline constexpr int64_t kFillIterations = 16;

// When a unit uses each pipe, relative to its start: a task holds its pipes
// for its II from its start; a nested loop uses a pipe from its first
// instruction there to the end of its last one's II, and leaves the pipe's
// gaps in between to nobody (in-order issue: what follows the loop in the
// body enters the pipe's queue after the loop's last instruction). Empty:
// every unit as a task (problem.ii).
struct PipeUse {
  uint32_t mask = 0;
  int64_t first[32] = {};  // offset of the first use of pipe bit q
  int64_t last[32] = {};   // offset at which pipe bit q is free again
};
PipeUse taskUse(uint32_t mask, int64_t ii);

// The replay's makespan of `trips` iterations with `versions`.
int64_t replayMakespan(const SchedulingProblem& problem, const std::vector<int64_t>& versions,
                       int64_t trips, const std::vector<PipeUse>& uses = {});

std::vector<int64_t> fillVersions(const SchedulingProblem& problem, std::vector<int64_t> versions,
                                  int64_t trips, const std::vector<PipeUse>& uses = {});

}  // namespace tilesched::schedule
