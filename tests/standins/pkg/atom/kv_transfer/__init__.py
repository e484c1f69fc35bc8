"""Stand-in ``atom.kv_transfer``: only what preflight inspects."""
