"""Packaging: models found by their ``tactful.models`` entry points, one version source,
and builtin-large in its own distribution (``.ci/wheels.sh`` builds and installs the wheels)."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

import tactful
from tactful._models import installed_models, model_dir
from tactful.moderators.builtin import default_model_dir

REPO = Path(__file__).resolve().parents[1]
LARGE_PROJECT = REPO / "models" / "tactful-builtin-large"


def test_builtin_is_found_by_its_entry_point_in_the_tactful_package():
    assert installed_models()["builtin"] == "tactful"
    folder = model_dir("builtin")
    assert folder == Path(tactful.__file__).parent / "models" / "builtin"
    assert default_model_dir() == folder
    assert json.loads((folder / "card.json").read_text(encoding="utf-8"))["name"] == "builtin"
    # the tactful wheel's package data: builtin only, builtin-large ships on its own
    assert sorted(p.name for p in folder.parent.iterdir()) == ["builtin"]


@pytest.mark.needs_model("builtin-large")
def test_builtin_large_is_found_by_its_entry_point_in_its_own_distribution():
    assert installed_models()["builtin-large"] == "tactful-builtin-large"
    folder = model_dir("builtin-large")
    assert default_model_dir("builtin-large") == folder
    assert Path(tactful.__file__).parent not in folder.parents
    assert json.loads((folder / "card.json").read_text(encoding="utf-8"))["name"] == (
        "builtin-large"
    )
    assert metadata.version("tactful-builtin-large") == tactful.__version__
    assert metadata.requires("tactful-builtin-large") == [f"tactful=={tactful.__version__}"]


def test_a_model_that_is_not_installed_names_the_package_to_install():
    # A Python that sees tactful's source and no installed distribution.
    code = (
        "from tactful._models import model_dir\n"
        "for name in ('builtin-large', 'huge'):\n"
        "    try:\n"
        "        model_dir(name)\n"
        "    except Exception as exc:\n"
        "        print(type(exc).__name__, exc)\n"
    )
    out = subprocess.run(
        [sys.executable, "-S", "-c", code],
        env={"PYTHONPATH": str(REPO / "src")},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert out[0] == (
        "ModelError [T030] The model 'builtin-large' is not installed: pip install "
        "tactful-builtin-large (or pip install -e models/tactful-builtin-large from a checkout)."
    )
    assert out[1].startswith("UnknownNameError [T011] Unknown model 'huge'. Known models: ")


def test_one_version_for_tactful_its_model_distribution_and_the_changelog():
    version = tactful.__version__
    assert metadata.version("tactful") == version
    project = tomllib.loads((LARGE_PROJECT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["version"] == version
    assert project["project"]["dependencies"] == [f"tactful=={version}"]
    assert project["project"]["entry-points"]["tactful.models"] == {
        "builtin-large": "tactful_builtin_large:model_dir"
    }
    root = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert root["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "tactful.__version__"}
    headings = [
        line
        for line in (REPO / "CHANGELOG.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("## ")
    ]
    assert headings[0].split()[1] == version
