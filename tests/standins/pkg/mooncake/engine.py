"""Stand-in ``mooncake.engine`` (a compiled module in the real wheel): the class name ATOM
imports, and nothing behind it."""


class TransferEngine:
    def initialize(self, *args, **kwargs):
        raise NotImplementedError("stand-in mooncake: the ATOM stand-in simulates KV transfer itself")
