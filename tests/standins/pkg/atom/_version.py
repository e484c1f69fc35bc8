"""Identity of the stand-in ATOM, in setuptools_scm's format as a real install writes it
(e.g. "0.1.4.dev113+g5837907f3", the InferenceX recipes' frameworks.atom value).

SRT_STANDIN_ATOM_VERSION replaces the whole string; SRT_STANDIN_ATOM_COMMIT replaces only the
commit after "+g", so a test can make a worker report a different build."""

import os

_BASE = "0.1.4.dev113"
_COMMIT = os.environ.get("SRT_STANDIN_ATOM_COMMIT", "5837907f3")

__version__ = os.environ.get("SRT_STANDIN_ATOM_VERSION", f"{_BASE}+g{_COMMIT}")
__git_commit__ = __version__.rpartition("+g")[2] if "+g" in __version__ else ""
