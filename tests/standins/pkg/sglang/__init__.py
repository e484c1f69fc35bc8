"""Stand-in ``sglang`` package: just enough for ``python3 -m sglang.launch_server`` and for reading
the installed SGLang's identity (``sglang.version.__version__``, which the real package re-exports
as ``sglang.__version__``). Nothing of SGLang's code is here."""

from sglang.version import __version__  # noqa: F401
