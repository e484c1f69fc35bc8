// Two small spellings a recipe check meets on every load, matched directly: Slurm's time limit
// and srtctl's x-joined concurrencies. Each was a std::regex; one regex_match cost more than the
// whole engine-flag check of a recipe (about 30k instructions and a dozen allocations, 0.5 % of a
// load, issue 20), for a grammar of a few digits and separators.
#pragma once
#include <string_view>

namespace srt::schema {

// Slurm's --time formats (sbatch(1)): M, M:S, H:M:S, D-H, D-H:M, D-H:M:S (the parts after the
// first at most two digits), and UNLIMITED/INFINITE in upper or lower case.
bool is_slurm_time_limit(std::string_view s);

// srtctl's concurrency string "4x8x16": positive numbers without leading zeros, joined by 'x'.
bool is_x_joined_counts(std::string_view s);

}  // namespace srt::schema
