"""Identity of the stand-in router, as ``sglang_router/version.py`` of a real install gives it:
sglang-router 0.3.2's, the build whose command line the stand-in follows
(SRT_STANDIN_SGLANG_ROUTER_VERSION replaces it)."""

import os

__version__ = os.environ.get("SRT_STANDIN_SGLANG_ROUTER_VERSION", "0.3.2")
