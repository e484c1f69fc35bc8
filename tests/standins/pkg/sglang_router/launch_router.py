"""``python -m sglang_router.launch_router``: runs tests/standins/sglang_router.py.

That file shares its name with this package, so it is loaded by path (as ``_sglang_router_standin``)
rather than imported by name."""

import importlib.util
import os
import sys

_STANDINS = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _standin():
    spec = importlib.util.spec_from_file_location(
        "_sglang_router_standin", os.path.join(_STANDINS, "sglang_router.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv=None):
    return _standin().main(argv)


if __name__ == "__main__":
    sys.exit(main())
