"""The ``functional`` data set: the suite as rows that ``tactful eval`` scores.

Declared as an entry point of group ``tactful.datasets`` (this module), and
registered through the public :func:`tactful.datasets.register_dataset` when it is
imported. Like every data set it reads its file
from the data folder (the HolisticBias descriptors); without the folder,
:func:`tactful.functional.build_suite` still builds the suite from the built-in
descriptor list.
"""

from __future__ import annotations

import os

from ..datasets import (
    DatasetSpec,
    Record,
    Source,
    Table,
    load_holistic_descriptors,
    register_breakdown,
    register_dataset,
)
from ._generate import DEFAULT_MAX_PER_TEMPLATE, build_suite, case_records
from ._score import functional_rows, score_functional

__all__ = ["HOLISTIC_DESCRIPTORS_FILE", "load_suite_records"]

#: The file the data set reads, relative to the data folder.
HOLISTIC_DESCRIPTORS_FILE = "holistic_bias/descriptors.json"

#: Rows the shipped HolisticBias file gives (checked by ``test_functional.py``).
SUITE_ROWS = 3710


def load_suite_records(data_dir: str | os.PathLike[str] | None = None) -> list[Record]:
    """The suite's rows, with the HolisticBias descriptors of the data folder.

    Raises
    ------
    MissingDataError
        When the descriptors file is not in the data folder (the message names
        both); :func:`build_suite` without arguments needs no data.
    """
    descriptors = load_holistic_descriptors(data_dir)
    return case_records(build_suite(descriptors), descriptors="holistic_bias")


@register_dataset(
    DatasetSpec(
        name="functional",
        task="toxicity",
        splits=("test",),
        default_split="test",
        files=(HOLISTIC_DESCRIPTORS_FILE,),
        description=(
            "tactful's functional test suite (tactful.functional): one row per case, generated "
            "with a fixed seed from templates written for tactful (none from a published suite) "
            "x fillers, with HolisticBias descriptors from the data folder. label = the expected "
            "toxicity decision; labels: toxicity, and jailbreak / delicate where tested, the "
            "expected harm category (1) and the heads it must not get (0) where tested; spans = () "
            "for harmless identity texts (a pass is no predicted span), None otherwise; "
            "meta: functionality, template_id, span_check, targets, group, fillers. "
            f"At most {DEFAULT_MAX_PER_TEMPLATE} cases per template. "
            "Per-functionality pass rates: tactful.functional.score_functional."
        ),
        expected_rows={"test": SUITE_ROWS},
    )
)
def _functional(src: Source) -> Table:
    records = load_suite_records(src.root)
    return Table(records, {"test": range(len(records))})


# `tactful eval functional` reports a pass rate per functionality beside P/R/F1.
register_breakdown(
    "functional", "functionalities", lambda rows, got: functional_rows(score_functional(rows, got))
)
