"""Stand-in ``atom.kv_transfer.disaggregation.mooncake``: only what preflight inspects."""
