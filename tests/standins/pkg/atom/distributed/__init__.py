"""Stand-in ``atom.distributed``: only what preflight inspects (kv_events.py)."""
