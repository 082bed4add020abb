"""The pass-rate table as people read it (the ``tactful`` command and ``python -m``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich import box
from rich.table import Table

__all__ = ["functional_table"]

_COLUMNS = (
    ("functionality", "functionality"),
    ("n", "n"),
    ("expected", "expected"),
    ("pass", "pass_rate"),
    ("span", "span_pass_rate"),
    ("jailbreak", "jailbreak_pass_rate"),
    ("delicate", "delicate_pass_rate"),
    ("harm", "category_pass_rate"),
)


def _cell(key: str, value: Any) -> str:
    if value is None:
        return "—"
    if key.endswith("_rate"):
        return f"{100 * value:.1f}"
    return str(value)


def functional_table(rows: Sequence[Mapping[str, Any]], title: str | None = None) -> Table:
    """A rich table of :func:`~tactful.functional.functional_rows`.

    Rates in percent; ``span`` is the no-span rate of harmless identity texts or
    the target-hit rate of toxic ones; ``harm`` the share flagged with the expected
    harm category and none of the forbidden heads; ``—`` where a check does not apply. Drawn
    without vertical rules so that every column fits an 80-column terminal.
    """
    table = Table(
        title=title or "pass rate per functionality (%)",
        title_justify="left",
        caption_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        show_edge=False,
        padding=0,
    )
    for header, key in _COLUMNS:
        left = key in ("functionality", "expected")
        table.add_column(
            header, justify="left" if left else "right", no_wrap=left, min_width=len(header)
        )
    for row in rows:
        table.add_row(*(_cell(key, row[key]) for _, key in _COLUMNS))
    return table
