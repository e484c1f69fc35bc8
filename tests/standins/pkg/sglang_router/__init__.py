"""The stand-in's ``sglang_router`` package: ``python -m sglang_router.launch_router`` runs
tests/standins/sglang_router.py. __version__ is sglang-router 0.3.2's, the build whose command
line the stand-in follows (SRT_STANDIN_SGLANG_ROUTER_VERSION overrides it)."""

import os

__version__ = os.environ.get("SRT_STANDIN_SGLANG_ROUTER_VERSION", "0.3.2")
