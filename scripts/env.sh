# Sourced by the other scripts: a project virtualenv with the project installed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
stamp=.venv/.installed
# Reinstall when the project's description or its C part (built at install) changed.
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || [ setup.py -nt "$stamp" ] \
    || [ ledger/analysis/_maxn.c -nt "$stamp" ]; then
  .venv/bin/python -m pip install -q --upgrade pip >/dev/null
  .venv/bin/python -m pip install -q -e ".[dev]"
  touch "$stamp"
fi
export PATH="$PWD/.venv/bin:$PATH"
