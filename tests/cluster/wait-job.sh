#!/usr/bin/env bash
# wait-job.sh JOBID [TIMEOUT]: wait for a lab job to end, polling squeue ten times a second
# (sbatch --wait polls far slower). Prints "JobId=N JobState=S ExitCode=A:B".
# Exit status: 0 the job COMPLETED with ExitCode 0:0; 1 it ended any other way; 124 it was still
# queued or running after TIMEOUT seconds (default 60); 2 usage.
# Talks to the lab named by SLURM_CONF (source BASE/env.sh first) or by LAB_BASE.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$HERE/lib.sh"

if [[ $# -lt 1 || $# -gt 2 || ! "$1" =~ ^[0-9]+$ || ! "${2:-1}" =~ ^[0-9]+$ ]]; then
  echo "usage: wait-job.sh JOBID [TIMEOUT_SECONDS]" >&2
  exit 2
fi
[[ -n "${SLURM_CONF:-}" ]] || lab_use "${LAB_BASE:-}"
lab_wait_job "$1" "${2:-60}"
