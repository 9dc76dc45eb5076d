"""The seat tests share the recording tests' browser pages (one context per device)."""

from tests.record.conftest import pages  # noqa: F401
