"""The web app of domino-ledger: a JSON API and pages over the ledger (web imports ledger)."""
