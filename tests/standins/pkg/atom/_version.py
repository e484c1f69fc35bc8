"""Identity of the stand-in ATOM, in setuptools_scm's format as a real install writes it
(e.g. "0.1.4.dev113+g5837907f3", an InferenceX recipe's frameworks.atom value). The default
commit is the one the srt-spank recipes name in identity.frameworks.atom (the audited image
rocm/atom-dev:nightly_202608251555 at ATOM 4e0848dcdf94f3d4be0c1e3ce51db99bc93f8b8c), in
setuptools_scm's short form; the "dev113" distance is made up.

SRT_STANDIN_ATOM_VERSION replaces the whole string; SRT_STANDIN_ATOM_COMMIT replaces only the
commit after "+g", so a test can make a worker report a different build."""

import os

_BASE = "0.1.4.dev113"
_COMMIT = os.environ.get("SRT_STANDIN_ATOM_COMMIT", "4e0848dcd")

__version__ = os.environ.get("SRT_STANDIN_ATOM_VERSION", f"{_BASE}+g{_COMMIT}")
__git_commit__ = __version__.rpartition("+g")[2] if "+g" in __version__ else ""
