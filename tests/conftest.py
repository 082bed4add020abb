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


def missing_model(name: str) -> str | None:
    """Why the model ``name`` cannot be used here (its package is not installed), or None.

    The reason is tactful's own one-line error, which names the package to install.
    """
    from tactful._models import model_dir
    from tactful.errors import TactfulError

    try:
        model_dir(name)
    except TactfulError as exc:
        return str(exc)
    return None


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "needs_model(name): skip, with the install command as the reason, unless the model "
        "package of `name` is installed (e.g. builtin-large: models/tactful-builtin-large)",
    )


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip the tests marked ``needs_model(NAME)`` when that model is not installed."""
    for mark in item.iter_markers("needs_model"):
        reason = missing_model(*mark.args)
        if reason is not None:
            pytest.skip(reason)
