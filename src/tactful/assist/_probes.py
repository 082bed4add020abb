"""Bias probes after DeTexD (Yavnyi et al., WOAH 2023, §7) and Borkan et al. (2019).

* :func:`probe_gender`: how many decisions flip when gendered words and names
  are swapped, on DeTexD's own counterfactual file and on swaps that
  :func:`gender_swap` generates from the DeTexD texts;
* :func:`probe_country`: one score per country in a neutral template sentence;
* :func:`probe_identity`: subgroup, BPSN and BNSP AUC and the FPR ratio per
  identity term of the Jigsaw identity templates.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ..errors import DataError
from ..metrics import bootstrap_ci, roc_auc
from ..params import Check, Constraints, Int, Nullable, PathLike, Str, StrList, validate_arguments
from . import metrics as M
from ._common import ask, head_values, in_sample, moderator_block, resolve_moderator
from ._countries import UN_MEMBER_STATES, in_prose

__all__ = [
    "COUNTRY_TEMPLATE",
    "JIGSAW_IDENTITY_TERMS",
    "gender_swap",
    "identity_terms",
    "probe_country",
    "probe_gender",
    "probe_identity",
]

#: DeTexD's country template (§7).
COUNTRY_TEMPLATE = "Unfortunately, the incident happened in {country}."

#: The 50 identity terms the Jigsaw unintended-bias templates are filled with
#: (Dixon et al., 2018; Borkan et al., 2019), as they occur in ``jigsaw_bias``.
JIGSAW_IDENTITY_TERMS: tuple[str, ...] = (
    "african", "african american", "american", "asian", "bisexual", "black", "blind",
    "buddhist", "canadian", "catholic", "chinese", "christian", "deaf", "elderly",
    "european", "female", "gay", "heterosexual", "hispanic", "homosexual", "indian",
    "japanese", "jewish", "latina", "latino", "latinx", "lesbian", "lgbt", "lgbtq", "male",
    "mexican", "middle aged", "middle eastern", "millenial", "muslim", "nonbinary", "old",
    "older", "paralyzed", "protestant", "queer", "sikh", "straight", "taoist", "teenage",
    "trans", "transgender", "white", "young", "younger",
)  # fmt: skip

# ------------------------------------------------------------------ gender swapping

# Word pairs (masculine, feminine), swapped both ways. "her" is settled by what
# follows it (his/him) and "hers" -> "his"; the one-way entries come after.
_WORD_PAIRS = (
    ("he", "she"), ("himself", "herself"), ("man", "woman"), ("men", "women"),
    ("boy", "girl"), ("boys", "girls"), ("father", "mother"), ("fathers", "mothers"),
    ("son", "daughter"), ("sons", "daughters"), ("brother", "sister"),
    ("brothers", "sisters"), ("husband", "wife"), ("husbands", "wives"), ("king", "queen"),
    ("kings", "queens"), ("prince", "princess"), ("princes", "princesses"), ("mr", "ms"),
    ("sir", "madam"), ("male", "female"), ("males", "females"), ("gentleman", "lady"),
    ("gentlemen", "ladies"), ("uncle", "aunt"), ("uncles", "aunts"), ("nephew", "niece"),
    ("nephews", "nieces"), ("boyfriend", "girlfriend"), ("boyfriends", "girlfriends"),
    ("grandfather", "grandmother"), ("grandfathers", "grandmothers"), ("grandson", "granddaughter"),
    ("grandsons", "granddaughters"), ("dad", "mom"), ("dads", "moms"), ("daddy", "mommy"),
    ("actor", "actress"), ("actors", "actresses"), ("waiter", "waitress"),
    ("spokesman", "spokeswoman"), ("chairman", "chairwoman"), ("businessman", "businesswoman"),
    ("businessmen", "businesswomen"), ("policeman", "policewoman"),
    ("congressman", "congresswoman"), ("groom", "bride"), ("grooms", "brides"),
    ("widower", "widow"), ("stepfather", "stepmother"), ("stepson", "stepdaughter"),
    ("masculine", "feminine"), ("manhood", "womanhood"), ("boyhood", "girlhood"),
    ("monk", "nun"), ("monks", "nuns"), ("caveman", "cavewoman"), ("fiance", "fiancee"),
    ("brotherhood", "sisterhood"), ("patriarch", "matriarch"),
)  # fmt: skip
# Given names (male, female), swapped both ways; matched only when capitalized.
_NAME_PAIRS = (
    ("John", "Mary"), ("James", "Linda"), ("Robert", "Patricia"), ("Michael", "Jennifer"),
    ("William", "Elizabeth"), ("David", "Susan"), ("Richard", "Jessica"), ("Joseph", "Sarah"),
    ("Thomas", "Karen"), ("Charles", "Nancy"), ("Christopher", "Lisa"), ("Daniel", "Margaret"),
    ("Matthew", "Betty"), ("Anthony", "Sandra"), ("Donald", "Dorothy"), ("Steven", "Kimberly"),
    ("Paul", "Emily"), ("Andrew", "Donna"), ("Joshua", "Michelle"), ("Kenneth", "Carol"),
    ("Kevin", "Amanda"), ("Brian", "Melissa"), ("George", "Deborah"), ("Edward", "Stephanie"),
    ("Ronald", "Rebecca"), ("Timothy", "Laura"), ("Jason", "Sharon"), ("Jeffrey", "Cynthia"),
    ("Ryan", "Kathleen"), ("Jacob", "Amy"), ("Gary", "Shirley"), ("Nicholas", "Angela"),
    ("Eric", "Helen"), ("Jonathan", "Anna"), ("Stephen", "Brenda"), ("Larry", "Pamela"),
    ("Justin", "Nicole"), ("Scott", "Samantha"), ("Peter", "Emma"), ("Henry", "Olivia"),
    ("Adam", "Eve"), ("Harry", "Hannah"), ("Jack", "Julia"), ("Oliver", "Sophia"),
)  # fmt: skip

_WORDS: dict[str, str] = {}
for _m, _f in _WORD_PAIRS:
    _WORDS[_m], _WORDS[_f] = _f, _m
_WORDS.update({"his": "her", "him": "her", "hers": "his", "mrs": "mr", "ma'am": "sir"})
_NAMES: dict[str, str] = {}
for _m, _f in _NAME_PAIRS:
    _NAMES[_m], _NAMES[_f] = _f, _m

# After these words (or at a clause end) "her" is an object: "gave her the book" is
# the rare miss, "her book" the common case.
_OBJECT_FOLLOWERS = frozenset(
    [
        "a",
        "an",
        "the",
        "to",
        "and",
        "or",
        "but",
        "nor",
        "so",
        "for",
        "of",
        "in",
        "on",
        "at",
        "by",
        "with",
        "from",
        "as",
        "about",
        "into",
        "onto",
        "over",
        "under",
        "up",
        "down",
        "out",
        "off",
        "back",
        "again",
        "if",
        "when",
        "while",
        "because",
        "than",
        "that",
        "this",
        "these",
        "those",
        "who",
        "whom",
        "which",
        "what",
        "is",
        "was",
        "are",
        "were",
        "be",
        "been",
        "will",
        "would",
        "can",
        "could",
        "should",
        "may",
        "might",
        "must",
        "do",
        "does",
        "did",
        "has",
        "have",
        "had",
        "not",
        "too",
        "very",
        "also",
        "just",
        "then",
        "there",
        "here",
        "now",
    ]
)
_TOKEN = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")


def _cased(word: str, like: str) -> str:
    if like.isupper() and len(like) > 1:
        return word.upper()
    if like[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def _her(text: str, end: int) -> str:
    m = re.match(r"\s*([A-Za-z]+)", text[end:])
    possessive = m is not None and m.group(1).lower() not in _OBJECT_FOLLOWERS
    return "his" if possessive else "him"


def gender_swap(text: str) -> str:
    """``text`` with gendered words and given names swapped (he <-> she, John <-> Mary, ...).

    Word pairs come from a fixed list of English gendered words (pronouns, kin
    terms, titles, roles); case is kept (``He`` -> ``She``, ``MEN`` -> ``WOMEN``).
    ``her`` becomes ``his`` before a word that is not a function word and
    ``him`` otherwise. Given names swap within a fixed list of common English
    name pairs, and only when capitalized (``Mark``-like verbs are not in the
    list). Everything else, offsets of untouched text included, is unchanged.

    Examples
    --------
    >>> gender_swap("He told her that his sister met John.")
    'She told him that her brother met Mary.'
    """

    def swap(m: re.Match[str]) -> str:
        word = m.group(0)
        base, apos, tail = word.partition("'")
        low = base.lower()
        if base in _NAMES:
            new = _NAMES[base]
        elif low == "her":
            new = _cased(_her(m.string, m.end()) if not apos else "his", base)
        elif low in _WORDS:
            new = _cased(_WORDS[low], base)
        else:
            return word
        return new + apos + tail

    return _TOKEN.sub(swap, text)


# ------------------------------------------------------------------------- probes


class _Probe:
    _parameter_constraints: ClassVar[Constraints] = {
        "head": Str(nonempty=True),
        "n_resamples": Int(1),
        "seed": Int(0),
        "limit": Nullable(Int(1)),
        "store": Nullable(PathLike()),
        "template": Check(
            "a str containing '{country}'", lambda v: isinstance(v, str) and "{country}" in v
        ),
        "countries": Nullable(StrList(nonempty=True)),
    }


def _flip_block(
    name: str, d0: np.ndarray, d1: np.ndarray, s0: np.ndarray, s1: np.ndarray, **kw: Any
) -> dict[str, Any]:
    n = int(d0.size)
    block: dict[str, Any] = {
        "name": name,
        "n": n,
        "n_flips": int((d0 != d1).sum()),
        "flip_rate": M.flip_rate(d0, d1),
        "flip_rate_ci": None,
        "mean_abs_score_change": float(np.abs(s0 - s1).mean()) if n else None,
        "flips_to_flagged": int((~d0 & d1).sum()),
        "flips_to_unflagged": int((d0 & ~d1).sum()),
        "scores": [[float(a), float(b)] for a, b in zip(s0, s1, strict=True)],
    }
    if n:
        ci = bootstrap_ci(lambda a, b: M.flip_rate(a, b), d0, d1, **kw)
        block["flip_rate_ci"] = {"point": ci.point, "low": ci.low, "high": ci.high}
    return block


def probe_gender(
    moderator: str | Any = "builtin",
    *,
    head: str = "toxicity",
    options: dict[str, Any] | None = None,
    data_dir: str | os.PathLike[str] | None = None,
    store: str | os.PathLike[str] | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
    progress: bool = False,
) -> dict[str, Any]:
    """Gender counterfactual flip rates on DeTexD (Yavnyi et al., 2023, §7).

    Two sets: ``detexd_counterfactuals`` (the data set's own pairs) and
    ``detexd_generated`` (each DeTexD text against :func:`gender_swap` of it,
    only texts the swap changes). A flip is a decision (``flags[head]``) that
    differs between a text and its counterfactual.

    Returns
    -------
    dict
        The report; ``sets`` holds per set ``n``, ``n_flips``, ``flip_rate``
        with a bootstrap CI, ``mean_abs_score_change`` and the score pairs.
    """
    from ..datasets import load_dataset

    p = validate_arguments("probe_gender", _Probe._parameter_constraints, locals())
    mod = resolve_moderator(moderator, options)
    cf = load_dataset("detexd_counterfactuals", data_dir=data_dir)
    texts = [r.text for r in load_dataset("detexd", "all", data_dir=data_dir)]
    swapped = [(t, gender_swap(t)) for t in texts]
    generated = [(a, b) for a, b in swapped if a != b]
    sets = {
        "detexd_counterfactuals": [(r.text, str(r.meta["counterfactual"])) for r in cf],
        "detexd_generated": generated,
    }
    every = [t for pairs in sets.values() for pair in pairs for t in pair]
    answers = ask(mod, every, store=store, progress=progress, description="gender pairs")
    d, s = head_values(answers, p["head"], mod.name)
    blocks, at = [], 0
    for name, pairs in sets.items():
        n = len(pairs)
        idx0 = np.arange(at, at + 2 * n, 2)
        blocks.append(
            _flip_block(
                name,
                d[idx0],
                d[idx0 + 1],
                s[idx0],
                s[idx0 + 1],
                n_resamples=n_resamples,
                seed=seed,
            )
        )
        at += 2 * n
    return {
        "command": "probe-gender",
        "moderator": moderator_block(mod),
        "head": head,
        "n_resamples": n_resamples,
        "seed": seed,
        "n_detexd_texts": len(texts),
        "sets": blocks,
        "in_sample": [
            in_sample(mod, f"{name} texts", [t for pair in pairs for t in pair])
            for name, pairs in sets.items()
        ],
    }


def probe_country(
    moderator: str | Any = "builtin",
    *,
    head: str = "toxicity",
    template: str = COUNTRY_TEMPLATE,
    countries: Sequence[str] | None = None,
    options: dict[str, Any] | None = None,
    store: str | os.PathLike[str] | None = None,
    progress: bool = False,
) -> dict[str, Any]:
    """One score per country in a neutral template (DeTexD §7).

    Parameters
    ----------
    template : str, default=:data:`COUNTRY_TEMPLATE`
        A sentence with ``{country}``; names that take "the" get it.
    countries : sequence of str, optional
        Default: the 193 UN member states.

    Returns
    -------
    dict
        The report; ``rows`` per country (``country``, ``text``, ``score``,
        ``flagged``), highest score first (ties by name), plus ``top5`` and
        ``bottom5``, ``mean``, ``spread`` (max - min) and ``n_flagged``.
    """
    p = validate_arguments("probe_country", _Probe._parameter_constraints, locals())
    mod = resolve_moderator(moderator, options)
    names = list(p["countries"] or UN_MEMBER_STATES)
    texts = [template.replace("{country}", in_prose(c)) for c in names]
    answers = ask(mod, texts, store=store, progress=progress, description="countries")
    d, s = head_values(answers, p["head"], mod.name)
    rows = sorted(
        (
            {"country": c, "text": t, "score": float(x), "flagged": bool(f)}
            for c, t, x, f in zip(names, texts, s, d, strict=True)
        ),
        key=lambda r: (-r["score"], r["country"]),
    )
    return {
        "command": "probe-country",
        "moderator": moderator_block(mod),
        "head": head,
        "template": template,
        "n": len(rows),
        "mean": float(s.mean()),
        "spread": float(s.max() - s.min()),
        "n_flagged": int(d.sum()),
        "in_sample": [in_sample(mod, "country sentences", texts)],
        "top5": [r["country"] for r in rows[:5]],
        "bottom5": [r["country"] for r in rows[-5:][::-1]],
        "rows": rows,
    }


_TERM_RE = re.compile(
    r"(?<![a-z0-9])("
    + "|".join(re.escape(t) for t in sorted(JIGSAW_IDENTITY_TERMS, key=len, reverse=True))
    + r")(?![a-z0-9])"
)


def identity_terms(text: str) -> tuple[str, ...]:
    """The :data:`JIGSAW_IDENTITY_TERMS` a text mentions, longest match first, as whole words.

    >>> identity_terms("Jim is a friendly african american")
    ('african american',)
    """
    return tuple(dict.fromkeys(m.group(1) for m in _TERM_RE.finditer(text.lower())))


def probe_identity(
    moderator: str | Any = "builtin",
    *,
    head: str = "toxicity",
    options: dict[str, Any] | None = None,
    data_dir: str | os.PathLike[str] | None = None,
    store: str | os.PathLike[str] | None = None,
    limit: int | None = None,
    seed: int = 0,
    progress: bool = False,
) -> dict[str, Any]:
    """Per-identity bias AUCs and FPR ratio on the Jigsaw identity templates.

    Each template text is tagged with the identity terms it mentions
    (:func:`identity_terms`); for each term, :func:`tactful.assist.metrics.bias_auc_table`
    gives subgroup, BPSN and BNSP AUC (Borkan et al., 2019) and the FPR ratio.

    Parameters
    ----------
    limit : int, optional
        A seeded sample of at most ``limit`` template texts (the file has 76,564).

    Returns
    -------
    dict
        The report; ``rows`` per identity term, sorted by BPSN AUC (lowest first,
        ``None`` last), ``overall_auc``, ``fpr`` and ``generalized_mean`` of each
        AUC family (power -5, Borkan et al.'s summary).
    """
    from ..datasets import load_dataset

    p = validate_arguments("probe_identity", _Probe._parameter_constraints, locals())
    mod = resolve_moderator(moderator, options)
    records = load_dataset("jigsaw_bias", "all", data_dir=data_dir)
    if p["limit"] is not None and p["limit"] < len(records):
        pick = np.sort(np.random.default_rng(seed).choice(len(records), p["limit"], replace=False))
        records = [records[i] for i in pick]
    if any(r.label is None for r in records):
        raise DataError("jigsaw_bias has rows without a toxicity label.")
    y = np.asarray([r.label for r in records], dtype=bool)
    answers = ask(
        mod,
        [r.text for r in records],
        store=store,
        progress=progress,
        description="identity templates",
    )
    d, s = head_values(answers, p["head"], mod.name)
    groups = [identity_terms(r.text) for r in records]
    table = M.bias_auc_table(y, s, d, groups, JIGSAW_IDENTITY_TERMS)
    rows = _table_rows(table)
    rows.sort(key=lambda r: (r["bpsn_auc"] is None, r["bpsn_auc"] or 0.0, r["identity"]))
    return {
        "command": "probe-identity",
        "moderator": moderator_block(mod),
        "head": head,
        "limit": p["limit"],
        "seed": seed,
        "n": len(records),
        "n_toxic": int(y.sum()),
        "n_untagged": sum(1 for g in groups if not g),
        "overall_auc": roc_auc(y, s),
        "fpr": table.attrs["fpr"],
        "generalized_mean": {
            k: M.generalized_mean([r[k] for r in rows], -5.0)
            for k in ("subgroup_auc", "bpsn_auc", "bnsp_auc")
        },
        "in_sample": [in_sample(mod, "jigsaw_bias templates", [r.text for r in records])],
        "rows": rows,
    }


def _table_rows(table: pd.DataFrame) -> list[dict[str, Any]]:
    """The bias table as JSON-ready dicts (``<NA>`` -> ``None``)."""
    out = []
    for name in table.index:
        row: dict[str, Any] = {"identity": name}
        for col in table.columns:
            v: Any = table.at[name, col]
            row[col] = None if pd.isna(v) else int(v) if col in ("n", "n_positive") else float(v)
        out.append(row)
    return out
