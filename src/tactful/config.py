"""Where tactful finds its data."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["DATA_ENV", "DEFAULT_DATA_DIR", "resolve_data_dir"]

#: Environment variable naming the data folder.
DATA_ENV = "TACTFUL_DATA"
#: Default data folder, relative to the working directory: the ``shared/data``
#: folder that sits beside a checkout of the repository.
DEFAULT_DATA_DIR = Path("..") / "shared" / "data"


def resolve_data_dir(data_dir: str | os.PathLike[str] | None = None) -> Path:
    """The data folder: ``data_dir``, else ``$TACTFUL_DATA``, else ``../shared/data``."""
    if data_dir is not None and str(data_dir) != "":
        return Path(data_dir).expanduser()
    env = os.environ.get(DATA_ENV)
    if env:
        return Path(env).expanduser()
    return DEFAULT_DATA_DIR
