"""vllm/version.py as vLLM ships it: re-exports the setuptools_scm version."""

try:
    from vllm._version import __version__, __version_tuple__  # noqa: F401
except ImportError:  # run by path (runpy), outside the package
    import os

    __version__ = os.environ.get("SRT_STANDIN_VLLM_VERSION", "0.11.2")
