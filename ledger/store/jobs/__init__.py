"""The job tables: analyses and knowledge reviews kept per head and version, the
PostgreSQL job queue (jobqueue) and the claims of a SQLite server's processes
(job_claims). The service that fills them is ``ledger.jobs``."""
