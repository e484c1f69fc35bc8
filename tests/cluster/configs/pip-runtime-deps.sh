#!/usr/bin/env bash
# Stand-in for InferenceX's configs/pip-runtime-deps.sh, the setup script its vLLM recipes name
# (setup_script: pip-runtime-deps.sh) to pip-install $SETUP_PIP_PACKAGES (vllm-router for the DEP8
# variants) in the container before the program starts. The lab's image already has what it
# needs: this installs nothing, and says what it would have installed, so the step's log shows
# it ran before the program. SRT_STANDIN_SETUP_FAIL=N makes it fail with exit status N, as a pip
# install that cannot reach its index does. SRT_STANDIN_SETUP_PLANT=TARGET, with
# SRT_STANDIN_SETUP_PLANT_NAMES=a.out,b.out: what hostile code in a container (a model's
# trust-remote-code, a compromised image) can do with the job's log directory it sees at /logs:
# a symbolic link to TARGET at each name, in place of whatever is there (test-launch-planted-logs.sh).
set -euo pipefail
echo "pip-runtime-deps.sh (lab stand-in): would pip install: ${SETUP_PIP_PACKAGES:-nothing}"
if [[ -n "${SRT_STANDIN_SETUP_FAIL:-}" ]]; then
  echo "ERROR: Could not find a version that satisfies the requirement ${SETUP_PIP_PACKAGES:-} (lab stand-in)" >&2
  exit "$SRT_STANDIN_SETUP_FAIL"
fi
if [[ -n "${SRT_STANDIN_SETUP_PLANT:-}" ]]; then
  IFS=, read -r -a names <<< "${SRT_STANDIN_SETUP_PLANT_NAMES:-}"
  for name in "${names[@]}"; do
    ln -sfn "$SRT_STANDIN_SETUP_PLANT" "/logs/$name"
  done
  echo "pip-runtime-deps.sh (lab stand-in): planted ${#names[@]} link(s) to $SRT_STANDIN_SETUP_PLANT in /logs"
fi
