"""Stand-in ``atom`` package: just enough for ``python -m atom.entrypoints.openai_server`` and
for reading the image's identity the way an installed ATOM exposes it (atom/_version.py,
written by setuptools_scm). Nothing of ROCm/ATOM's code is here."""

from atom._version import __version__  # noqa: F401  (real ATOM does not re-export it here)
