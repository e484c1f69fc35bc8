// The power scrape's parse (srt/power.hpp read_power_scrape) on exporter pages of growing size:
// the time per GPU must stay flat (one pass per metric), not grow with the page as a parse of the
// whole page per GPU did. Prints one line per size; exits 1 when the time per GPU at the largest
// page is more than kMaxGrowth times that at the smallest (a quadratic parse grows 64 times).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "srt/power.hpp"

namespace {

constexpr double kMaxGrowth = 8;

// A DCGM exporter's page for `gpus` GPUs: power, utilisation, SM activity and temperature, each
// with the labels DCGM's exporter writes, plus a few other metrics between them.
std::string page(int gpus) {
  std::string out;
  for (const char* metric : {"DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_MEM_COPY_UTIL",
                             "DCGM_FI_PROF_SM_ACTIVE", "DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_FB_USED"}) {
    out += std::string("# HELP ") + metric + " a reading\n# TYPE " + metric + " gauge\n";
    for (int g = 0; g < gpus; ++g)
      out += std::string(metric) + "{gpu=\"" + std::to_string(g) + "\",UUID=\"GPU-" + std::to_string(100000 + g) +
             "\",device=\"nvidia" + std::to_string(g) + "\",modelName=\"B200\",Hostname=\"node-01\"} " +
             std::to_string(g % 90 + 0.5) + "\n";
  }
  return out;
}

double micros_per_gpu(int gpus) {
  const std::string text = page(gpus);
  const srt::GpuExporter e;
  const int rounds = gpus >= 4096 ? 3 : 20;
  const auto t0 = std::chrono::steady_clock::now();
  std::size_t rows = 0;
  for (int i = 0; i < rounds; ++i) rows += srt::read_power_scrape(text, e).rows.size();
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  if (rows != std::size_t(gpus) * std::size_t(rounds)) {
    std::fprintf(stderr, "bench_power: %zu rows for %d GPUs x %d rounds\n", rows, gpus, rounds);
    std::exit(2);
  }
  const double per = us / rounds / gpus;
  std::printf("power scrape: %5d GPUs, %8zu bytes: %8.3f ms a scrape, %6.2f us a GPU\n", gpus, text.size(),
              us / rounds / 1000, per);
  return per;
}

}  // namespace

int main() {
  const double small = micros_per_gpu(64);
  micros_per_gpu(512);
  const double large = micros_per_gpu(4096);
  std::printf("power scrape: time per GPU grew %.1fx from 64 to 4096 GPUs (limit %.0fx)\n", large / small, kMaxGrowth);
  return large / small > kMaxGrowth ? 1 : 0;
}
