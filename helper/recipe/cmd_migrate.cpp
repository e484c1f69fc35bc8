// srt-helper migrate FILE [--in-place | -o OUT]: a v1 recipe rewritten in srt-slurm 2.x's
// `schema: 2` layout, as `srtctl migrate -f FILE [--in-place | --output PATH]` does
// (NVIDIA/srt-slurm src/srtctl/core/migrate.py). The v1 recipe must load first; the result is read
// back and loaded too (srtctl migrate --verify's idea), so a migration never writes a recipe that
// fails. Exit 0 written, 1 the input cannot be migrated (or is invalid), 2 usage or a write
// failure.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "commands.hpp"
#include "srt/migrate.hpp"
#include "srt/recipe.hpp"
#include "srt/files.hpp"

namespace srt::helper {
namespace {

struct MigrateArgs {
  std::string file, output;
  bool in_place = false;
};

bool print_problems(const Error& e, const std::string& what) {
  for (const auto& d : e.diagnostics()) std::fprintf(stderr, "%s\n", d.str().c_str());
  std::fprintf(stderr, "srt-helper migrate: %s\n", what.c_str());
  exit_code = 1;
  return false;
}

// Writes `text` to `target` through a temporary file in the same directory and rename(2), so a
// reader (or a crash) sees the old file or the new one, never half of either. `mode` for the new file.
bool write_replacing(const std::string& target, const std::string& text, mode_t mode) {
  const auto slash = target.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : target.substr(0, slash));
  std::string tmpl = dir + "/.srt-migrate.XXXXXX";
  const int fd = mkstemp(tmpl.data());
  auto fail_io = [&](const std::string& what) {
    std::fprintf(stderr, "srt-helper migrate: %s: %s\n", what.c_str(), std::strerror(errno));
    exit_code = 2;
    return false;
  };
  if (fd < 0) return fail_io("cannot create a temporary file in " + dir);
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int e = errno;
      ::close(fd), ::unlink(tmpl.c_str()), errno = e;
      return fail_io("cannot write " + tmpl);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fchmod(fd, mode) != 0 || ::fsync(fd) != 0 || ::close(fd) != 0) {
    const int e = errno;
    ::unlink(tmpl.c_str()), errno = e;
    return fail_io("cannot finish " + tmpl);
  }
  if (::rename(tmpl.c_str(), target.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmpl.c_str()), errno = e;
    return fail_io("cannot replace " + target);
  }
  return true;
}

void run(const MigrateArgs& a) {
  Document doc;
  std::string text;
  try {
    doc = parse_yaml(read_text_file(a.file, LoadLimits{}.max_bytes), a.file);
    text = migrate_to_schema2_yaml(doc, a.file);  // refuses schema 2 and variants files first
  } catch (const Error& e) {
    print_problems(e, a.file + ": not migrated");
    return;
  }
  try {
    recipe_from_document(doc);
  } catch (const Error& e) {
    print_problems(e, a.file + ": not migrated: the v1 recipe is invalid (srt-helper validate " + a.file + " shows why); fix it first");
    return;
  }
  try {
    // Read back: the same values (the emitter's quoting) and a recipe that loads.
    Document back = parse_yaml(text, a.file + " (migrated)");
    if (back.root != migrate_to_schema2(doc)) fail("the migrated text does not read back as written (a bug: please report it)");
    recipe_from_document(std::move(back));
  } catch (const Error& e) {
    print_problems(e, a.file + ": not migrated: the schema-2 result does not load (a bug: please report it with the file)");
    return;
  }
  if (a.in_place || !a.output.empty()) {
    const std::string target = a.in_place ? a.file : a.output;
    struct stat st {};
    mode_t mode = 0644;
    if (::stat(target.c_str(), &st) == 0) mode = st.st_mode & 07777;  // keep the file's permissions
    else {
      const mode_t mask = ::umask(0);
      ::umask(mask);
      mode = 0666 & ~mask;
    }
    if (!write_replacing(target, text, mode)) return;
    std::fprintf(stderr, "srt-helper migrate: wrote %s (schema 2)\n", target.c_str());
  } else {
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
  exit_code = 0;
}

}  // namespace

void add_migrate(CLI::App& app) {
  auto args = std::make_shared<MigrateArgs>();
  CLI::App* cmd = app.add_subcommand("migrate", "rewrite a v1 recipe in srt-slurm 2.x's schema 2 layout (as srtctl migrate)");
  cmd->add_option("FILE", args->file, "the v1 recipe")->required();
  auto* in_place = cmd->add_flag("--in-place", args->in_place, "replace FILE (through a temporary file and rename)");
  auto* out = cmd->add_option("-o,--output", args->output, "write to OUT instead of stdout");
  in_place->excludes(out);
  cmd->callback([args] { run(*args); });
}

}  // namespace srt::helper
