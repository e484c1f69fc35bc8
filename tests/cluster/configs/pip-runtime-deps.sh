#!/usr/bin/env bash
# Stand-in for InferenceX's configs/pip-runtime-deps.sh, the setup script its vLLM recipes name
# (setup_script: pip-runtime-deps.sh) to pip-install $SETUP_PIP_PACKAGES (vllm-router for the DEP8
# variants) in the container before the program starts. The lab's image already has what it
# needs: this installs nothing, and says what it would have installed, so the step's log shows
# it ran before the program. SRT_STANDIN_SETUP_FAIL=N makes it fail with exit status N, as a pip
# install that cannot reach its index does.
set -euo pipefail
echo "pip-runtime-deps.sh (lab stand-in): would pip install: ${SETUP_PIP_PACKAGES:-nothing}"
if [[ -n "${SRT_STANDIN_SETUP_FAIL:-}" ]]; then
  echo "ERROR: Could not find a version that satisfies the requirement ${SETUP_PIP_PACKAGES:-} (lab stand-in)" >&2
  exit "$SRT_STANDIN_SETUP_FAIL"
fi
