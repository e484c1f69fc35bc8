// Two small spellings a recipe check meets on every load, matched directly: Slurm's time limit
// and srtctl's x-joined concurrencies. Each was a std::regex, compiled on a process's first load
// (the time limit's alone about 3M instructions, half of a whole load, paid by every sbatch) and
// run with allocations on every load (docs/performance.md), for a grammar of a few digits and
// separators.
#pragma once
#include <string_view>

namespace srt::schema {

// Slurm's --time formats (sbatch(1)): M, M:S, H:M:S, D-H, D-H:M, D-H:M:S (the parts after the
// first at most two digits), and UNLIMITED/INFINITE in upper or lower case.
bool is_slurm_time_limit(std::string_view s);

// srtctl's concurrency string "4x8x16": positive numbers without leading zeros, joined by 'x'.
bool is_x_joined_counts(std::string_view s);

}  // namespace srt::schema
