#!/usr/bin/env bash
# The whole suite, as CI runs it: lint, types, tests.
source "$(dirname "$0")/env.sh"
ruff check ledger tests benchmarks
mypy --strict ledger
pytest "$@"
