"""Stand-in ``atom.kv_transfer.disaggregation``: only what preflight inspects."""
