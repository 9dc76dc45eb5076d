"""The event log: rows and their hash chain (hashing, heads), domain values to rows
(mapper), the seals of the rows the pages trust beside it (seals, sealed), the fold's
snapshots (a cache), and ``verify``, which re-hashes and re-folds it all."""
