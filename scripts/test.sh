#!/usr/bin/env bash
# The whole suite, as CI runs it: lint, types, tests.
source "$(dirname "$0")/env.sh"
# The browser tests drive Debian's chromium through Playwright (never a downloaded build).
if [ ! -x /usr/bin/chromium ]; then
  sudo_=""; [ "$(id -u)" -eq 0 ] || sudo_="sudo"
  $sudo_ apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq chromium
fi
bash scripts/postgres.sh  # the store tests run against the local PostgreSQL too
ruff check ledger tests benchmarks web
mypy --strict ledger
pytest "$@"
