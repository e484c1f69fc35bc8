"""Identity of the stand-in vLLM, where a real install keeps it: vllm/_version.py (setuptools_scm's
write_to), which preflight's probe reads without importing the package. SRT_STANDIN_VLLM_VERSION
replaces the default so a test can make a worker report another build."""

import os

__version__ = version = os.environ.get("SRT_STANDIN_VLLM_VERSION", "0.11.2")
__version_tuple__ = version_tuple = tuple(int(p) if p.isdigit() else p for p in __version__.split("."))
