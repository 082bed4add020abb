"""Plug-ins: moderators and data sets of another distribution, found through entry points.

One throw-away package is built and installed (with pip, into a fresh virtual
environment that sees tactful) once per module; the duplicate and broken entry
points are distributions' metadata folders put on ``sys.path``, which
``importlib.metadata`` reads as it reads any installed distribution.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from importlib.metadata import version
from pathlib import Path

import pytest

import tactful
from tactful.datasets import dataset_names, get_spec
from tactful.errors import ConfigError

PYPROJECT = """\
[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "tactful-echo-plugin"
version = "0.1.0"

[project.entry-points."tactful.moderators"]
echo-plugin = "tactful_echo_plugin:EchoModerator"

[project.entry-points."tactful.datasets"]
echo_set = "tactful_echo_plugin.data:load_echo"

[tool.setuptools]
packages = ["tactful_echo_plugin"]
"""

MODERATOR = '''\
"""A moderator from another package: flags texts that contain a word."""

import tactful


class EchoModerator:
    name = "echo-plugin"
    version = "0.1.0"

    def __init__(self, word="idiot"):
        self.word = word

    def config(self):
        return {"word": self.word}

    def analyze(self, texts):
        out = []
        for text in texts:
            hit = self.word in text
            out.append(
                tactful.Analysis(
                    flagged=hit, scores={"toxicity": float(hit)}, flags={"toxicity": hit}
                )
            )
        return out
'''

DATASET = '''\
"""A data set from another package: two labelled rows of one csv file."""

from tactful.datasets import DatasetSpec, Table, register_dataset

ECHO_FILE = "echo/echo.csv"


@register_dataset(DatasetSpec.single("echo_set", "toxicity", ECHO_FILE, 2, "Two rows."))
def load_echo(src):
    return Table.all_rows(src.label_records(ECHO_FILE, "text", "label", "toxicity"))
'''


@pytest.fixture(scope="module")
def plugin_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The python of a fresh virtual environment holding tactful and the plug-in."""
    root = tmp_path_factory.mktemp("plugin")
    pkg = root / "tactful-echo-plugin"
    (pkg / "tactful_echo_plugin").mkdir(parents=True)
    (pkg / "pyproject.toml").write_text(PYPROJECT)
    (pkg / "tactful_echo_plugin" / "__init__.py").write_text(MODERATOR)
    (pkg / "tactful_echo_plugin" / "data.py").write_text(DATASET)
    venv = root / "venv"
    # --system-site-packages: the environment sees tactful (and its dependencies).
    subprocess.run(
        [sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)],
        check=True,
    )
    python = venv / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q"]
        + ["--no-deps", "--no-build-isolation", "--no-index", str(pkg)],
        check=True,
    )
    return python


def _run(python: Path | str, *args: str) -> str:
    done = subprocess.run(
        [str(python), *args], check=False, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_an_installed_plugin_moderator_is_listed_and_passes_the_checks(plugin_python):
    names = _run(plugin_python, "-m", "tactful", "moderators").split()
    assert "echo-plugin" in names and {"builtin", "lexicon", "random"} <= set(names)
    assert "echo-plugin" not in tactful.available()  # only where it is installed
    script = """
        import tactful
        from tactful.testing import check_moderator
        mod = tactful.load("echo-plugin", word="stupid")
        check_moderator(mod)
        print(type(mod).__module__, mod.config(), mod.analyze(["so stupid"])[0].flagged)
    """
    out = _run(plugin_python, "-c", textwrap.dedent(script))
    assert out == "tactful_echo_plugin {'word': 'stupid'} True\n"


def test_an_installed_plugin_data_set_is_listed_and_loaded(plugin_python, tmp_path):
    (tmp_path / "echo").mkdir()
    (tmp_path / "echo" / "echo.csv").write_text("text,label\nyou idiot,1\nhello,0\n")
    listed = json.loads(
        _run(plugin_python, "-m", "tactful", "datasets", "--json", "--data-dir", str(tmp_path))
    )
    echo = [d for d in listed if d["name"] == "echo_set"]
    assert echo == [
        {
            "name": "echo_set",
            "task": "toxicity",
            "present": True,
            "default_split": "all",
            "rows": {"all": 2},
            "expected_rows": {"all": 2},
        }
    ]
    assert {"toxicchat", "functional"} <= {d["name"] for d in listed}
    assert "echo_set" not in dataset_names()


def test_listing_imports_no_backend_and_loading_imports_one():
    script = """
        import sys, tactful, tactful.datasets
        names = tactful.available()
        sets = tactful.datasets.dataset_names()
        print(len(names) > 10, len(sets) > 20)
        print(sorted(m for m in sys.modules if m.startswith("tactful.moderators")))
        print(sorted(m for m in sys.modules if m.startswith(("tactful.functional", "tactful.store"))))
        tactful.load("random")
        tactful.datasets.get_spec("toxicchat")
        print(sorted(m for m in sys.modules if m.startswith("tactful.moderators")))
        print("tactful.datasets._toxicspans" in sys.modules, "tactful.functional" in sys.modules)
    """
    out = _run(sys.executable, "-c", textwrap.dedent(script)).splitlines()
    assert out == [
        "True True",
        "[]",
        "[]",
        "['tactful.moderators', 'tactful.moderators._random', 'tactful.moderators._texts']",
        "False False",
    ]


def _distribution(site: Path, name: str, version: str, entry_points: str) -> None:
    """An installed distribution's metadata folder (what pip writes), without code."""
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text(textwrap.dedent(entry_points))


def test_two_distributions_declaring_one_name_is_a_one_line_error(tmp_path, monkeypatch):
    _distribution(
        tmp_path,
        "tactful-dup-plugin",
        "1.0",
        """
        [tactful.moderators]
        lexicon = tactful_dup:Lexicon

        [tactful.datasets]
        toxicchat = tactful_dup.data
        """,
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    moderator = (
        "[T010] The moderator 'lexicon' is declared by 2 distributions, 'tactful' and "
        "'tactful-dup-plugin': uninstall all but one."
    )
    for call in (lambda: tactful.load("lexicon"), tactful.available):
        with pytest.raises(ConfigError) as info:
            call()
        assert str(info.value) == moderator
    data_set = moderator.replace("moderator 'lexicon'", "data set 'toxicchat'")
    with pytest.raises(ConfigError) as info:
        dataset_names()
    assert str(info.value) == data_set
    monkeypatch.undo()
    assert tactful.load("lexicon").name == "lexicon"  # as before, once it is gone


def test_a_broken_entry_point_is_a_one_line_error_naming_its_distribution(tmp_path, monkeypatch):
    _distribution(
        tmp_path,
        "tactful-broken-plugin",
        "0.3",
        """
        [tactful.moderators]
        broken = tactful_no_such_module:Thing

        [tactful.datasets]
        broken_set = tactful.datasets._spec:no_such_loader
        """,
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "broken" in tactful.available()  # listing imports nothing, so it cannot fail
    with pytest.raises(ConfigError) as info:
        tactful.load("broken")
    assert str(info.value) == (
        "[T010] The moderator 'broken' of the distribution tactful-broken-plugin 0.3 failed "
        "to load: ModuleNotFoundError: No module named 'tactful_no_such_module'."
    )
    with pytest.raises(ConfigError) as info:
        get_spec("broken_set")
    assert str(info.value) == (
        "[T010] The data set 'broken_set' of the distribution tactful-broken-plugin 0.3 "
        "failed to load: AttributeError: module 'tactful.datasets._spec' has no attribute "
        "'no_such_loader'."
    )


def test_a_name_an_entry_point_declares_cannot_be_registered_again():
    def other(**config):
        return tactful.load("random", **config)

    with pytest.raises(ConfigError) as info:
        tactful.register("random")(other)
    assert str(info.value) == (
        "[T010] A moderator named 'random' is already registered (entry point "
        f"'tactful.moderators._random:RandomModerator' of tactful {version('tactful')})."
    )
    taken = pytest.raises(ConfigError, match="A moderator named 'random' is already registered")
    with taken, tactful.temporary_registration("random", other):
        pass
    assert type(tactful.load("random")).__name__ == "RandomModerator"
