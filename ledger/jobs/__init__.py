"""The analysis job service: a deal's analysis and a match's review by knowledge worked
out off the request, one job per key, their answers kept in the store.

- ``service``: the one interface (``AnalysisJobs``: ask, progress, answer) and the
  in-process backend of a SQLite ledger, fair and bounded per client;
- ``queue``: the PostgreSQL backend (pgqueuer), ``worker`` and ``analyse --all``;
- ``worker``: the solver process each job runs in (killed at its time limit);
- ``deal_analysis`` and ``knowledge_report``: what a job builds and how it is kept;
- ``backends``: which backend a ledger gets; ``cli``: the commands.

``web/`` only asks (enqueue, read the answer) through ``service``'s interface.
"""
