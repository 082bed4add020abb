"""Shared fixtures."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

#: The shared data folder beside the repository checkout (``<repo>/../shared/data``).
SHARED_DATA_DIR = Path(__file__).resolve().parents[2] / "shared" / "data"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The shared data folder: ``$TACTFUL_DATA`` if set, else ``../shared/data``.

    Skips the test, with the path in the reason, when the folder is not there.
    """
    env = os.environ.get("TACTFUL_DATA")
    path = Path(env).expanduser() if env else SHARED_DATA_DIR
    if not path.is_dir():
        pytest.skip(f"shared data folder not found at {path}")
    return path
