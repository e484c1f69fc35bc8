#!/usr/bin/env bash
# expected-files.sh rpm|deb SRCDIR: the exact list of paths the package must hold, sorted.
# rpm: files and the directories the package owns (rpm -qlp); deb: files only (dpkg-deb -c).
# The recipes come from SRCDIR/recipes and the guides from SRCDIR/docs/*.md (INSTALL.md and the
# others, beside it in the package's doc directory), so adding either needs no change here.
set -euo pipefail
kind=${1:?usage: expected-files.sh rpm|deb SRCDIR}
src=${2:?usage: expected-files.sh rpm|deb SRCDIR}
name=slurm-spank-srt
launch=0
grep -qs 'add_executable(srt-exec' "$src"/*/CMakeLists.txt "$src"/*/*/CMakeLists.txt && launch=1
recipes=$(cd "$src/recipes" && find . -name '*.yaml' | sed 's|^\./||' | sort)
guides=$(cd "$src/docs" && find . -maxdepth 1 -name '*.md' | sed 's|^\./||' | sort)
{
  echo /etc/slurm/plugstack.conf.d/srt.conf
  echo /etc/srt/cluster.yaml
  echo /usr/bin/srt-helper
  echo /usr/libexec/srt-helper-jobstep.so
  echo /usr/libexec/srt-epilog
  echo /usr/libexec/srt-spank/bin/srtctl
  echo /usr/lib/systemd/system/srt-topology-cache.path
  echo /usr/lib/systemd/system/srt-topology-cache.service
  echo /usr/share/man/man1/srt-helper.1.gz
  echo /usr/share/man/man5/srt-recipe.5.gz
  echo /usr/share/man/man8/spank_srt.8.gz
  for r in $recipes; do echo "/usr/share/srt/recipes/$r"; done
  if (( launch )); then
    echo /usr/bin/srt-job
    echo /usr/libexec/srt-exec
  fi
  if [[ "$kind" == rpm ]]; then
    echo /usr/lib64/slurm/spank_srt.so
    echo /usr/lib64/slurm/srt_spank_impl.so
    echo /usr/lib64/slurm/srt_spank_node.so
    echo /etc/slurm/plugstack.conf.d
    echo /etc/srt
    echo /usr/share/doc/$name
    for g in $guides; do echo "/usr/share/doc/$name/$g"; done
    echo /usr/share/licenses/$name
    echo /usr/share/licenses/$name/LICENSE
    echo /usr/libexec/srt-spank
    echo /usr/libexec/srt-spank/bin
    echo /usr/share/srt
    echo /usr/share/srt/recipes
    echo /var/cache/srt
    for r in $recipes; do
      d=$(dirname "$r")
      while [[ "$d" != . ]]; do echo "/usr/share/srt/recipes/$d"; d=$(dirname "$d"); done
    done
  else
    multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
    echo "/usr/lib/$multiarch/slurm-wlm/spank_srt.so"
    echo "/usr/lib/$multiarch/slurm-wlm/srt_spank_impl.so"
    echo "/usr/lib/$multiarch/slurm-wlm/srt_spank_node.so"
    for g in $guides; do echo "/usr/share/doc/$name/$g"; done
    echo /usr/share/doc/$name/copyright
  fi
} | sort -u
