"""Identity of the stand-in SGLang, as ``sglang/version.py`` of a real install gives it. The
default follows the lmsysorg/sglang-rocm images the MI355X recipes use (v0.5.19/v0.5.20);
SRT_STANDIN_SGLANG_VERSION replaces it so a test can make a worker report another build."""

import os

__version__ = os.environ.get("SRT_STANDIN_SGLANG_VERSION", "0.5.20")
