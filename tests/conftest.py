"""Fixtures shared by every test folder.

One Playwright session for the whole run: two sync_playwright sessions alive at
once (one per folder) make the second refuse to start ("Sync API inside the
asyncio loop"), so the browser is launched once here.

Knowledge reviews in the tests draw ``TEST_SAMPLES`` deals per decision, through the
web's settings (``$DOMINO_LEDGER_KNOWLEDGE_SAMPLES``, read by ``Settings.from_env``;
the servers and workers the tests start inherit it): a review takes seconds, not the
half minute of a table's own K = 200. Set the variable to run them at another K.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ledger.jobs.service import ENV_SAMPLES

TEST_SAMPLES = 8
os.environ.setdefault(ENV_SAMPLES, str(TEST_SAMPLES))

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium (scripts/test.sh does)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()
