"""What the pages read: the read models (readmodels, computed from derived events), the
matches list, a match's page, the JSON queries, the players' plays and the versions a
kept page is keyed by; ``reading`` opens the ledger for readers outside the store."""
