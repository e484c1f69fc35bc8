// Definitions of the SPANK and logging functions the implementation calls, with Slurm's
// documented return codes per context (reference/spank-api.md 1.4, 1.5), so the implementation
// is exercised against the same refusals a real srun or slurmstepd would give it.
#include "fake_spank.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>

// spank.h only declares the handle; the fake has no per-handle state (process() holds it).
struct spank_handle {
  int unused = 0;
};

namespace srt::fake {

namespace {
Process g_process;
spank_handle g_handle;

bool is_remote() { return g_process.context == S_CTX_REMOTE; }

__attribute__((format(printf, 1, 0))) std::string vformat(const char* fmt, va_list ap) {
  va_list copy;
  va_copy(copy, ap);
  const int n = std::vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  if (n < 0) return "(bad format)";
  std::string out(std::size_t(n) + 1, '\0');
  std::vsnprintf(&out[0], out.size(), fmt, ap);
  out.resize(std::size_t(n));
  return out;
}
}  // namespace

Process& process() { return g_process; }
void reset(spank_context_t context) {
  g_process = Process{};
  g_process.context = context;
}
spank_t handle() { return &g_handle; }

}  // namespace srt::fake

using srt::fake::g_process;

// ESPANK_SUCCESS is slurm.h's plain int SLURM_SUCCESS, not a spank_err_t enumerator.
constexpr spank_err_t kSuccess = static_cast<spank_err_t>(ESPANK_SUCCESS);

extern "C" {

spank_context_t spank_context(void) {
  g_process.calls.emplace_back("spank_context");
  return g_process.context;
}

int spank_remote(spank_t) { return g_process.context == S_CTX_REMOTE; }

const char* spank_strerror(spank_err_t err) {
  switch (static_cast<int>(err)) {
    case ESPANK_SUCCESS: return "Success";
    case ESPANK_BAD_ARG: return "Bad argument";
    case ESPANK_NOT_AVAIL: return "Item not available from this callback";
    case ESPANK_ENV_EXISTS: return "Environment variable exists";
    case ESPANK_ENV_NOEXIST: return "No such environment variable";
    case ESPANK_NOSPACE: return "Buffer too small";
    case ESPANK_NOT_REMOTE: return "Valid only in remote context";
    case ESPANK_NOT_LOCAL: return "Valid only in local or allocator context";
    default: return "Generic error";
  }
}

spank_err_t spank_get_item(spank_t sp, spank_item_t item, ...) {
  g_process.calls.emplace_back("spank_get_item");
  if (!sp) return ESPANK_BAD_ARG;
  auto it = g_process.items.find(item);
  if (it == g_process.items.end()) return ESPANK_NOT_AVAIL;
  va_list ap;
  // spank.h puts an enum before the ellipsis, as Slurm's own definition has it; clang calls
  // va_start on a parameter whose type is promoted undefined behaviour (the x86-64 and aarch64
  // ABIs pass it as the int it promotes to, which is what Slurm relies on too).
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wvarargs"
#endif
  va_start(ap, item);
#if defined(__clang__)
#pragma clang diagnostic pop
#endif
  // Every item the fake serves is a uint32_t * (the job, step and node ids).
  *va_arg(ap, std::uint32_t*) = it->second;
  va_end(ap);
  return kSuccess;
}

// As Slurm: ENV_NOEXIST when absent, NOSPACE when the value (and its NUL) does not fit.
spank_err_t spank_getenv(spank_t sp, const char* var, char* buf, int len) {
  g_process.calls.emplace_back(std::string("spank_getenv ") + (var ? var : "(null)"));
  if (!sp || !var || !buf || len < 0) return ESPANK_BAD_ARG;
  if (!srt::fake::is_remote()) return ESPANK_NOT_REMOTE;
  auto it = g_process.job_env.find(var);
  if (it == g_process.job_env.end()) return ESPANK_ENV_NOEXIST;
  if (len == 0) return ESPANK_NOSPACE;
  const std::size_t n = std::min(it->second.size(), std::size_t(len) - 1);
  std::memcpy(buf, it->second.data(), n);
  buf[n] = '\0';
  return it->second.size() >= std::size_t(len) ? ESPANK_NOSPACE : kSuccess;
}

spank_err_t spank_setenv(spank_t sp, const char* var, const char* val, int overwrite) {
  g_process.calls.emplace_back(std::string("spank_setenv ") + (var ? var : "(null)"));
  if (!sp || !var || !val) return ESPANK_BAD_ARG;
  if (!srt::fake::is_remote()) return ESPANK_NOT_REMOTE;
  if (g_process.setenv_fails_with) return *g_process.setenv_fails_with;
  if (!overwrite && g_process.job_env.count(var)) return ESPANK_ENV_EXISTS;
  g_process.job_env[var] = val;
  return kSuccess;
}

spank_err_t spank_unsetenv(spank_t sp, const char* var) {
  g_process.calls.emplace_back(std::string("spank_unsetenv ") + (var ? var : "(null)"));
  if (!sp || !var) return ESPANK_BAD_ARG;
  if (!srt::fake::is_remote()) return ESPANK_NOT_REMOTE;
  g_process.job_env.erase(var);
  return kSuccess;
}

spank_err_t spank_job_control_setenv(spank_t sp, const char* name, const char* value, int overwrite) {
  g_process.calls.emplace_back(std::string("spank_job_control_setenv ") + (name ? name : "(null)"));
  if (!sp || !name || !value) return ESPANK_BAD_ARG;
  if (g_process.context != S_CTX_LOCAL && g_process.context != S_CTX_ALLOCATOR) return ESPANK_NOT_LOCAL;
  if (!overwrite && g_process.job_control.count(name)) return ESPANK_ENV_EXISTS;
  g_process.job_control[name] = value;
  return kSuccess;
}

#define SRT_FAKE_LOG(fn, level)                       \
  void fn(const char* fmt, ...) {                     \
    va_list ap;                                       \
    va_start(ap, fmt);                                \
    g_process.log.push_back(std::string(level) + srt::fake::vformat(fmt, ap)); \
    va_end(ap);                                       \
  }
SRT_FAKE_LOG(slurm_error, "error: ")
SRT_FAKE_LOG(slurm_info, "info: ")
SRT_FAKE_LOG(slurm_verbose, "verbose: ")
SRT_FAKE_LOG(slurm_debug, "debug: ")
#undef SRT_FAKE_LOG

}  // extern "C"
