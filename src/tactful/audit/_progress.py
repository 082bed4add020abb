"""Progress bars of the audit on stderr: one live display, one bar per stage, or nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Self

__all__ = ["Advance", "Progress"]

#: Called with the number of items just completed.
Advance = Callable[[int], None]


def _nothing(n: int) -> None:
    """The bar of a disabled :class:`Progress`."""


class Progress:
    """Rich progress bars on stderr when ``enabled``, else bars that do nothing.

    Rich allows one live display at a time: open one ``Progress`` per stage
    and never nest them (moderator calls show their own bar in between).
    """

    def __init__(self, enabled: bool) -> None:
        self._bars: Any = None
        if enabled:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TextColumn,
                TimeElapsedColumn,
            )
            from rich.progress import Progress as RichProgress

            self._bars = RichProgress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=Console(stderr=True),
            )

    def __enter__(self) -> Self:
        if self._bars is not None:
            self._bars.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bars is not None:
            self._bars.stop()

    def task(self, description: str, total: int) -> Advance:
        """A new bar; the returned function advances it."""
        bars = self._bars
        if bars is None:
            return _nothing
        tid = bars.add_task(description, total=total)

        def advance(n: int) -> None:
            bars.advance(tid, n)

        return advance
