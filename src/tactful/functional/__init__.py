"""tactful's own functional test suite, and targeted training data (issue 11).

The suite follows functional testing (Ribeiro et al., 2020, "Beyond Accuracy:
Behavioral Testing of NLP Models with CheckList"): one row per case, each with a
functionality and an expected decision, generated from templates written for
tactful × fillers with a fixed seed.

>>> from tactful.functional import FUNCTIONALITIES, build_suite, score_functional
>>> cases = build_suite()                 # the built-in descriptors: no data folder needed
>>> len(cases), len(FUNCTIONALITIES)
(2796, 19)

Scoring a moderator (``load_dataset("functional")`` gives the same rows with the
data folder's HolisticBias descriptors)::

    import tactful
    from tactful.datasets import load_dataset
    records = load_dataset("functional")
    analyses = tactful.load("builtin").analyze([r.text for r in records])
    score_functional(records, analyses)   # one row per functionality

Training data (issue 11 item 2) comes from :data:`TRAINING_TEMPLATES`, disjoint
from :data:`SUITE_TEMPLATES` by template, and from the shared data folder only:
:func:`training_records` and the builders it combines.

Importing this package registers the ``functional`` data set with
:func:`tactful.datasets.register_dataset`.
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
from ._training import (
    AUDIT_ONLY,
    HELD_OUT_SOURCES,
    THREAT_PATTERN,
    TRAINING_SOURCES,
    contrast_template_records,
    counterfactual_records,
    delicate_template_records,
    derogation_template_records,
    exclusion_template_records,
    harm_template_records,
    holistic_person_nouns,
    identity_negatives,
    injection_template_records,
    keyword_threats,
    menace_template_records,
    technical_template_records,
    threat_template_records,
    toxicspans_threats,
    toxigen_benign,
    training_records,
)
from ._training_templates import TRAINING_FUNCTIONALITIES, TRAINING_TEMPLATES

__all__ = [  # noqa: RUF022  (kept in sorted() order; a test checks it)
    "AUDIT_ONLY",
    "BUILTIN_DESCRIPTORS",
    "Case",
    "DEFAULT_MAX_PER_TEMPLATE",
    "EXCLUDED_DESCRIPTORS",
    "FAMILIES",
    "FUNCTIONALITIES",
    "Filled",
    "Functionality",
    "HELD_OUT_SOURCES",
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
    "THREAT_PATTERN",
    "TRAINING_FUNCTIONALITIES",
    "TRAINING_SOURCES",
    "TRAINING_TEMPLATES",
    "Template",
    "build_suite",
    "case_records",
    "contrast_template_records",
    "counterfactual_records",
    "delicate_template_records",
    "derogation_template_records",
    "descriptor_entries",
    "exclusion_template_records",
    "fill",
    "functional_rows",
    "functional_table",
    "generate",
    "harm_template_records",
    "holistic_person_nouns",
    "identity_negatives",
    "injection_template_records",
    "keyword_threats",
    "load_suite_records",
    "menace_template_records",
    "normalized_text",
    "score_functional",
    "swap_identity_terms",
    "technical_template_records",
    "threat_template_records",
    "toxicspans_threats",
    "toxigen_benign",
    "training_records",
]
