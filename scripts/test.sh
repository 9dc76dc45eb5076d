#!/usr/bin/env bash
# The whole suite, as CI runs it: lint, types, tests.
source "$(dirname "$0")/env.sh"
# The browser tests drive Debian's chromium through Playwright (never a downloaded build).
# The PDF tests read Arabic text and pages back with poppler's pdftotext and pdftoppm.
missing=""
[ -x /usr/bin/chromium ] || missing="$missing chromium"
command -v pdftotext >/dev/null && command -v pdftoppm >/dev/null || missing="$missing poppler-utils"
if [ -n "$missing" ]; then
  sudo_=""; [ "$(id -u)" -eq 0 ] || sudo_="sudo"
  $sudo_ apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq $missing
fi
bash scripts/postgres.sh  # the store tests run against the local PostgreSQL too
ruff check ledger tests benchmarks web
mypy --strict ledger
pytest "$@"
