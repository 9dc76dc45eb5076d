"""The analysis settings read from the environment: the deals per decision of a knowledge
review among them (what the tests set low, tests/conftest.py)."""

from __future__ import annotations

from ledger.jobs.service import ENV_SAMPLES, Settings


def test_knowledge_samples_come_from_the_environment() -> None:
    assert Settings.from_env({ENV_SAMPLES: "12"}).knowledge_samples == 12
    assert Settings.from_env({ENV_SAMPLES: "0"}).knowledge_samples == 1  # one at least


def test_without_it_each_table_keeps_its_own_samples() -> None:
    assert Settings.from_env({}).knowledge_samples is None
    assert Settings.from_env({ENV_SAMPLES: ""}).knowledge_samples is None
    assert Settings().knowledge_samples is None
