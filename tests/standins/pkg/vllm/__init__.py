"""Stand-in ``vllm`` package: only the installed vLLM's identity (``vllm.__version__``,
``vllm/_version.py``, ``vllm/version.py``) for preflight. Nothing of vLLM's code is here; the
server is tests/standins/bin/vllm (vllm_server.py)."""

from vllm._version import __version__, __version_tuple__  # noqa: F401
