"""``python3 -m sglang.launch_server``: delegates to tests/standins/sglang_server.py.

The main() call stays under the __main__ guard: the server spawns its schedulers with the
"spawn" start method, which re-imports this module in every child."""

import os
import sys

_STANDINS = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if _STANDINS not in sys.path:
    sys.path.insert(0, _STANDINS)

if __name__ == "__main__":
    from sglang_server import main

    sys.exit(main())
