"""Stand-in ``mooncake`` package (kvcache-ai/Mooncake's Python wheel, mooncake-transfer-engine):
only importable, as preflight checks it (``import mooncake.engine``, what ATOM's Mooncake
connector imports). The ATOM stand-in simulates the transfer itself and never calls this.
SRT_STANDIN_MOONCAKE_VERSION sets the version it reports (the real wheel's comes from its
distribution metadata)."""

import os

__version__ = os.environ.get("SRT_STANDIN_MOONCAKE_VERSION", "0.3.6")
