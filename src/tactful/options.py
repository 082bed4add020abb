"""The command line's shared options: ``-O KEY=VALUE``, ``--store``, ``--engine``...

Every face that builds moderators (``check``, ``eval``, ``audit``, ``serve``...)
reads its ``-O`` values with :func:`parse_options` and builds each moderator
with ``tactful.load(name, **options[name])``. The option types
(``ModeratorOpt``, ``OptionOpt``, ``StoreOpt``, ``EngineOpt``...) are declared
here once, so that the commands defined beside their libraries
(``audit/_cli.py``, ``train/_cli.py``...) share them with ``tactful.cli``
without importing it (it imports them).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import click
import typer

from .errors import ConfigError

if TYPE_CHECKING:
    from .store import ResultStore

__all__ = [
    "AMBIGUOUS_OPTION_MESSAGE",
    "DUPLICATE_OPTION_MESSAGE",
    "MALFORMED_OPTION_MESSAGE",
    "NO_MODERATOR_MESSAGE",
    "UNKNOWN_PREFIX_MESSAGE",
    "BatchSizeOpt",
    "DataDirOpt",
    "EngineOpt",
    "JsonOpt",
    "ModeratorOpt",
    "ModeratorsOpt",
    "OptionOpt",
    "StoreOpt",
    "moderators_option",
    "opened_store",
    "parse_option_value",
    "parse_options",
]

ModeratorOpt = Annotated[
    str,
    typer.Option("--moderator", "-m", help="Registered moderator name (see `tactful moderators`)."),
]


def moderators_option(help: str) -> Any:
    """A repeatable ``--moderator/-m NAME`` option (a list of names) with ``help``."""
    return typer.Option("--moderator", "-m", metavar="NAME", help=help)


ModeratorsOpt = Annotated[
    list[str], moderators_option("Registered moderator name; repeat for several.")
]
DataDirOpt = Annotated[
    Path | None,
    typer.Option(
        "--data-dir",
        help="Data folder. Default: $TACTFUL_DATA, else ../shared/data from the working directory.",
        file_okay=False,
        show_default=False,
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON on stdout instead of a table.")]
StoreOpt = Annotated[
    Path | None,
    typer.Option(
        "--store",
        help="Result store (SQLite file): answers it holds are reused, new ones are kept there.",
        dir_okay=False,
        show_default=False,
    ),
]
OptionOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--option",
        "-O",
        metavar="KEY=VALUE",
        help="Moderator option, repeatable; VALUE is read as JSON when it parses. "
        "With several -m: NAME.KEY=VALUE.",
        show_default=False,
    ),
]
EngineOpt = Annotated[
    Literal["local", "ray"],
    typer.Option(
        "--engine",
        help="Where the moderator runs: local, or ray (the scale extra; needs --store).",
    ),
]
BatchSizeOpt = Annotated[
    int | None,
    typer.Option(
        "--batch-size",
        min=1,
        help="Texts per moderator call. Default: the moderator's own, else 64.",
        show_default=False,
    ),
]


@contextlib.contextmanager
def opened_store(path: Path | None) -> Iterator[ResultStore | None]:
    """The result store at ``path`` (``None`` without one), closed afterwards.

    A store of an older format is upgraded in place; say so on stderr in one line.
    """
    if path is None:
        yield None
        return
    from .store import SCHEMA_VERSION, ResultStore

    with ResultStore(path) as store:
        if store.migrated_from is not None:
            click.echo(
                f"note: upgraded the result store {path} from schema version "
                f"{store.migrated_from} to {SCHEMA_VERSION}.",
                err=True,
            )
        yield store


MALFORMED_OPTION_MESSAGE = "-O {item!r} is not KEY=VALUE (e.g. -O timeout=30)."
AMBIGUOUS_OPTION_MESSAGE = (
    "-O {key}={value} is ambiguous with several moderators; write -O NAME.{key}={value} "
    "(NAME one of {names})."
)
UNKNOWN_PREFIX_MESSAGE = "-O {item!r} names moderator {prefix!r}, which is not one of {names}."
DUPLICATE_OPTION_MESSAGE = "-O gives {key!r} of moderator {name!r} twice."
NO_MODERATOR_MESSAGE = "-O {item!r} has no moderator to go to; name one with -m NAME."


def _reject_constant(name: str) -> Any:
    # NaN and Infinity are not JSON; read them as the strings they are.
    raise ValueError(name)


def parse_option_value(text: str) -> Any:
    """``text`` read as JSON when it parses (``30`` → 30, ``true`` → True, ``[1, 2]``),
    else the string itself (``gpt-4o`` → ``"gpt-4o"``)."""
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except ValueError:
        return text


def parse_options(values: Sequence[str], moderators: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Keyword options per moderator from ``-O`` values.

    Parameters
    ----------
    values : sequence of str
        Each ``KEY=VALUE`` or ``NAME.KEY=VALUE``. The value is read as JSON when
        it parses, else kept as a string (:func:`parse_option_value`).
    moderators : sequence of str
        The moderator names of the command (``-m``), in order.

    Returns
    -------
    dict of str to dict
        Moderator name → its keyword options (``{}`` for a moderator without
        any), for ``tactful.load(name, **options[name])``.

    Raises
    ------
    ConfigError
        A value without ``=`` or without a key; a bare ``KEY`` with several
        moderators; a ``NAME.`` prefix that is not one of ``moderators``; the same
        key given twice for one moderator.

    Examples
    --------
    >>> parse_options(["timeout=30", "model=omni"], ["openai"])
    {'openai': {'timeout': 30, 'model': 'omni'}}
    >>> parse_options(["openai.qps=2"], ["openai", "perspective"])
    {'openai': {'qps': 2}, 'perspective': {}}
    """
    names = list(dict.fromkeys(moderators))
    out: dict[str, dict[str, Any]] = {name: {} for name in names}
    # Longest first, so that "guard.v2.key" finds moderator "guard.v2" before "guard".
    by_length = sorted(names, key=len, reverse=True)
    for item in values:
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ConfigError(MALFORMED_OPTION_MESSAGE.format(item=item))
        name = next((n for n in by_length if key.startswith(n + ".")), None)
        if name is not None:
            key = key[len(name) + 1 :]
            if not key:
                raise ConfigError(MALFORMED_OPTION_MESSAGE.format(item=item))
        elif "." in key:
            raise ConfigError(
                UNKNOWN_PREFIX_MESSAGE.format(
                    item=item, prefix=key.rsplit(".", 1)[0], names=", ".join(names) or "(none)"
                )
            )
        elif len(names) == 1:
            name = names[0]
        elif not names:
            raise ConfigError(NO_MODERATOR_MESSAGE.format(item=item))
        else:
            raise ConfigError(
                AMBIGUOUS_OPTION_MESSAGE.format(key=key, value=raw, names=", ".join(names))
            )
        if key in out[name]:
            raise ConfigError(DUPLICATE_OPTION_MESSAGE.format(key=key, name=name))
        out[name][key] = parse_option_value(raw)
    return out
