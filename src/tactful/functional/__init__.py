"""tactful's own functional test suite (issue 11).

The suite follows functional testing (Ribeiro et al., 2020, "Beyond Accuracy:
Behavioral Testing of NLP Models with CheckList"): one row per case, each with a
functionality and an expected decision, generated from templates written for
tactful × fillers with a fixed seed.

>>> from tactful.functional import FUNCTIONALITIES, build_suite, score_functional
>>> cases = build_suite()                 # the built-in descriptors: no data folder needed
>>> len(cases), len(FUNCTIONALITIES)
(3710, 41)

Scoring a moderator (``load_dataset("functional")`` gives the same rows with the
data folder's HolisticBias descriptors)::

    import tactful
    from tactful.datasets import load_dataset
    records = load_dataset("functional")
    analyses = tactful.load("builtin").analyze([r.text for r in records])
    score_functional(records, analyses)   # one row per functionality

The training data built with this machinery (issue 11 item 2: templates disjoint
from :data:`SUITE_TEMPLATES`, and :func:`tactful.train.training_records`) lives in
:mod:`tactful.train`; this package never reads it.

The ``functional`` data set is declared as an entry point of group
``tactful.datasets`` (:mod:`tactful.functional._dataset`), so that
:mod:`tactful.datasets` does not import this package.
"""

from ._dataset import load_suite_records
from ._fillers import (
    BUILTIN_DESCRIPTORS,
    EXCLUDED_DESCRIPTORS,
    FAMILIES,
    PERSON_NOUNS,
    SLOT_FAMILY,
    SUITE_AXES,
    descriptor_entries,
)
from ._generate import DEFAULT_MAX_PER_TEMPLATE, Case, build_suite, case_records, generate
from ._render import functional_table
from ._score import SCORE_COLUMNS, functional_rows, score_functional
from ._suite import FUNCTIONALITIES, SUITE_TEMPLATES
from ._swap import SWAP_CLASSES, SwapClass, Swapped, swap_identity_terms
from ._templates import (
    SPAN_CHECKS,
    TEMPLATE_SPLITS,
    Filled,
    Functionality,
    Template,
    fill,
    normalized_text,
)

__all__ = [  # noqa: RUF022  (kept in sorted() order; a test checks it)
    "BUILTIN_DESCRIPTORS",
    "Case",
    "DEFAULT_MAX_PER_TEMPLATE",
    "EXCLUDED_DESCRIPTORS",
    "FAMILIES",
    "FUNCTIONALITIES",
    "Filled",
    "Functionality",
    "PERSON_NOUNS",
    "SCORE_COLUMNS",
    "SLOT_FAMILY",
    "SPAN_CHECKS",
    "SUITE_AXES",
    "SUITE_TEMPLATES",
    "SWAP_CLASSES",
    "SwapClass",
    "Swapped",
    "TEMPLATE_SPLITS",
    "Template",
    "build_suite",
    "case_records",
    "descriptor_entries",
    "fill",
    "functional_rows",
    "functional_table",
    "generate",
    "load_suite_records",
    "normalized_text",
    "score_functional",
    "swap_identity_terms",
]
