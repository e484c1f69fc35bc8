"""The stand-in's ``sglang_router`` package: ``python -m sglang_router.launch_router`` runs
tests/standins/sglang_router.py; its identity is in version.py, as the real package's is."""

from sglang_router.version import __version__  # noqa: F401
