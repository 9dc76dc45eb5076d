"""The ledger: an append-only, hash-chained event store with read models rebuilt from it."""
