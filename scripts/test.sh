#!/usr/bin/env bash
# The whole suite, as CI runs it: lint, types, the import contracts, tests.
#   bash scripts/test.sh            everything, the tests on every core (pytest-xdist)
#   bash scripts/test.sh --fast     lint, types, contracts and the tests that need no
#                                   browser, no PostgreSQL and no long run (under 3 min)
# Any other arguments go to pytest (with --fast: after it).
source "$(dirname "$0")/env.sh"
fast=""
if [ "${1:-}" = "--fast" ]; then
  fast=1
  shift
fi
if [ -z "$fast" ]; then
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
fi
ruff check ledger tests benchmarks web
mypy --strict ledger web
lint-imports  # the layers as contracts: [tool.importlinter] in pyproject.toml
# One process per core, each test file whole on one of them (--dist loadfile): a file's
# module fixtures (a served app, a ledger, a review) are made once. Each process has its
# own PostgreSQL schemas (tests/store/conftest.py), ports and browser (tests/conftest.py).
if [ -n "$fast" ]; then
  pytest -n auto --dist loadfile -m "not browser and not postgres and not slow" "$@"
else
  pytest -n auto --dist loadfile "$@"
fi
