#!/usr/bin/env bash
# test-spank-env-user.sh BASE: test-spank-env.sh as the non-root lab user.
exec "$(dirname "${BASH_SOURCE[0]}")/test-spank-env.sh" "${1:-}" "${LAB_USER:-srtlab}"
