"""Identity tagging: which of the speech-suppression paper's nine groups a text is about.

The tagger follows Anigboro et al. (2024), "Identity-related Speech Suppression in
Generative AI Content Moderation": a text belongs to a group when it contains one of
the group's terms, from a neutral-term list and a slur/slang list. tactful ships its
own copy of those lists (``tactful/data/identity/terms.csv``, rebuilt by
``scripts/build_identity_lexicon.py`` from the paper's files and HolisticBias
descriptors (:func:`tactful.datasets.load_holistic_buckets`); ``manifest.json`` beside
it records the sources' sha256, and ``tactful/data/manifest.json`` pins the file itself,
see :mod:`tactful.wordlists`).

The vocabulary of group names lives here too, and the data-set loaders, the audit and
the scripts use it: :data:`GROUPS`, their spellings :data:`GROUP_ALIASES` (one rule,
:func:`normalize_group`, one error, :class:`~tactful.errors.UnknownNameError`),
:data:`TOXIGEN_GROUPS`, the paper's ``Big_identity`` cells (:func:`parse_paper_groups`)
and the per-text group column check (:func:`group_lists`).

>>> from tactful.identity import tag
>>> t = tag("Gay-rights groups met Muslim women's leaders in Manchester.")
>>> sorted(t.groups)
['lgbt', 'non-christian', 'women']
>>> sorted(t.sub_identities), t.has_slur
(['female', 'gay', 'muslim'], False)

Matching rules
--------------
* Case-insensitive; accents are ignored (``Sapatão`` = ``sapatao``); curly and straight
  apostrophes are the same.
* Whole words only, by tactful's one word rule (:func:`tactful.align.word_spans`):
  letters and digits, joined by apostrophes, asterisks and invisible format
  characters, so punctuation, hyphens and underscores separate words: ``gay-rights``
  contains ``gay``, ``anti-Muslim`` contains ``muslim``, ``African-American`` matches
  ``african american``, ``wo\u200bmen`` is ``women``; ``Manchester`` does not contain
  ``man`` and ``whitewash`` does not contain ``white``.
* Multi-word terms match across any run of spaces, hyphens or punctuation between their
  words (``non-binary`` = ``non binary``).
* An apostrophe suffix is dropped before matching: ``women's``, ``she's``, ``he'll``,
  ``Muslims'`` match ``women``, ``she``, ``he``, ``muslim``; ``don't`` stays one word.
* Plurals of a term's last word: ``+s`` always, ``+es`` after s/x/z/ch/sh, ``y → ies``
  after a consonant, ``man → men`` (``white man → white men``), ``child → children``,
  ``wife → wives``, ``person → people``. A form that is itself a listed term keeps
  that term's meaning.
* Each term has one sub-identity and group (the lexicon builder's rule 4 settles terms
  the source lists give to several); ``has_slur`` is true when a term from the slur
  list occurs.

The paper's own tagger matched padded substrings (``" term "``, ``" terms "``,
``" termes "``) after replacing a few punctuation marks by spaces, so it missed terms
at the very start or end of a text, before ``?``/``!``/newlines, and in ``he's`` or
``his/her``. This tagger finds those too; that is where most disagreements with the
paper's tags come from (``scripts/identity_agreement.py`` measures them).
"""

from __future__ import annotations

import csv
import hashlib
import math
import re
import threading
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from .align import strip_format, words
from .errors import ConfigError, DataError, MissingDataError, UnknownNameError
from .wordlists import read_bytes

__all__ = [
    "GROUPS",
    "GROUP_ALIASES",
    "TOXIGEN_GROUPS",
    "IdentityTagger",
    "IdentityTags",
    "agreement",
    "group_lists",
    "normalize_group",
    "normalize_groups",
    "parse_paper_groups",
    "tag",
    "term_forms",
    "term_key",
]

#: The paper's nine general identity groups, in the paper's order.
GROUPS: tuple[str, ...] = (
    "men",
    "women",
    "white",
    "non-white",
    "christian",
    "non-christian",
    "lgbt",
    "straight",
    "disability",
)

#: Every accepted spelling of a group (lower-cased, stripped) → the group. Besides the
#: nine names: ``lgbt-related`` (the paper's csv files and its ``identity_tags``
#: folders), ``lgbtq`` (ToxiGen), and the unhyphenated ``nonwhite``/``non white``,
#: ``nonchristian``/``non christian``.
GROUP_ALIASES: dict[str, str] = {
    **{g: g for g in GROUPS},
    "lgbt-related": "lgbt",
    "lgbtq": "lgbt",
    "nonwhite": "non-white",
    "non white": "non-white",
    "nonchristian": "non-christian",
    "non christian": "non-christian",
}

#: ToxiGen ``target_group`` → group. ToxiGen covers 13 minority groups; each falls in
#: one of the paper's groups (loaders keep the original value as a sub-identity).
TOXIGEN_GROUPS: dict[str, str] = {
    "asian": "non-white",
    "black": "non-white",
    "chinese": "non-white",
    "jewish": "non-christian",
    "latino": "non-white",
    "lgbtq": "lgbt",
    "mental_dis": "disability",
    "mexican": "non-white",
    "middle_east": "non-white",
    "muslim": "non-christian",
    "native_american": "non-white",
    "physical_dis": "disability",
    "women": "women",
}

LEXICON_FILE = "terms.csv"
_LEXICON_FIELDS = ("term", "group", "sub_identity", "kind", "source")
_KINDS = ("neutral", "slur")

_APOSTROPHE_SUFFIX = re.compile(r"'(?:s|ll|d|re|ve|m)$")
_COMBINING = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
_ES_AFTER = re.compile(r"(?:s|x|z|ch|sh)$")
_Y_TO_IES = re.compile(r"[^aeiou]y$")
_IRREGULAR = {"child": "children", "wife": "wives", "person": "people"}


@dataclass(frozen=True, slots=True)
class IdentityTags:
    """The identity tags of one text.

    Attributes
    ----------
    groups : frozenset of str
        General groups, each one of :data:`GROUPS`.
    sub_identities : frozenset of str
        The paper's finer identities (``"female"``, ``"muslim"``, ``"asian"``, ...).
    has_slur : bool
        Whether a term of the slur/slang list occurs.
    """

    groups: frozenset[str]
    sub_identities: frozenset[str]
    has_slur: bool


_EMPTY = IdentityTags(frozenset(), frozenset(), False)


def _lower(text: str) -> str:
    """Lower case, one apostrophe, no accents: the form texts and terms are matched in."""
    text = text.lower()
    if not text.isascii():
        text = text.replace("\u2019", "'").replace("\u02bc", "'")
        text = _COMBINING.sub("", unicodedata.normalize("NFKD", text))
    return text


def _words(lowered: str) -> list[str]:
    """The match keys of the words of a :func:`_lower` text: format characters and an
    apostrophe suffix removed."""
    found = words(lowered)
    if not lowered.isascii():
        found = [w if w.isascii() else strip_format(w) for w in found]
    if "'" in lowered:
        found = [_APOSTROPHE_SUFFIX.sub("", w) if "'" in w else w for w in found]
    return found


def term_key(term: str, *, fold_accents: bool = False) -> str:
    """The normalized form of a lexicon term: its lower-case words, space-separated.

    The lexicon file stores terms with their accents (``fold_accents=False``) so that
    it stays readable; matching folds them (``fold_accents=True``).

    >>> term_key("Burr-head"), term_key("Jehovah's  Witness"), term_key("LGBTQ+")
    ('burr head', 'jehovah witness', 'lgbtq')
    >>> term_key("Sapatão"), term_key("Sapatão", fold_accents=True)
    ('sapatão', 'sapatao')
    """
    if fold_accents:
        return " ".join(_words(_lower(term)))
    return " ".join(_words(term.lower().replace("\u2019", "'")))


def _plural_forms(last: str) -> set[str]:
    forms = {last + "s"}
    if _ES_AFTER.search(last):
        forms.add(last + "es")
    if _Y_TO_IES.search(last):
        forms.add(last[:-1] + "ies")
    if last.endswith("man"):
        forms.add(last[:-3] + "men")
    if last in _IRREGULAR:
        forms.add(_IRREGULAR[last])
    return forms


def term_forms(term: str) -> frozenset[str]:
    """Every word sequence the tagger matches for a lexicon term, accents removed.

    >>> sorted(term_forms("white man"))
    ['white man', 'white mans', 'white men']
    """
    words = tuple(_words(_lower(term)))
    if not words:
        return frozenset()
    return frozenset(" ".join(words[:-1] + (f,)) for f in _plural_forms(words[-1]) | {words[-1]})


def normalize_group(name: str) -> str:
    """Map a spelling of a group (:data:`GROUP_ALIASES`) to one of :data:`GROUPS`.

    This is the one rule for group names, used by the data-set loaders, the tagger's
    lexicon builder, the audit and :func:`agreement`. A loader that meets an unknown
    name in a file reports it as that file's :class:`~tactful.errors.DataError`.

    >>> normalize_group("Non-White"), normalize_group("lgbt-related")
    ('non-white', 'lgbt')

    Raises
    ------
    UnknownNameError
        For a name that is not a group or a known spelling of one; the message
        lists the groups.
    ConfigError
        If ``name`` is not a str.
    """
    if not isinstance(name, str):
        raise ConfigError(
            f"An identity group name must be a str. Got {type(name).__name__} instead."
        )
    try:
        return GROUP_ALIASES[name.strip().lower()]
    except KeyError:
        raise UnknownNameError("identity group", name, GROUPS) from None


def normalize_groups(names: Iterable[str]) -> tuple[str, ...]:
    """Map spellings of groups to :data:`GROUPS`, dropping blanks and repeats.

    >>> normalize_groups(["Non-White", "lgbt-related", "", "women", "non-white"])
    ('women', 'non-white', 'lgbt')

    Returns
    -------
    tuple of str
        The groups, in :data:`GROUPS` order.

    Raises
    ------
    UnknownNameError
        For a name :func:`normalize_group` does not know (a new spelling is
        noticed, never dropped).
    """
    found = {normalize_group(n) for n in names if not isinstance(n, str) or n.strip()}
    return tuple(g for g in GROUPS if g in found)


def parse_paper_groups(value: Any) -> frozenset[str]:
    """The groups of one ``Big_identity`` cell of the paper's csv files.

    ``"women;lgbt-related"`` → ``{"women", "lgbt"}``; an empty cell (``""``, ``None``,
    NaN) → the empty set.
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return frozenset()
    if not isinstance(value, str):
        raise ConfigError(f"A Big_identity cell must be a str or empty. Got {value!r} instead.")
    return frozenset(normalize_groups(value.split(";")))


def group_lists(values: Sequence[Iterable[str]], name: str = "groups") -> list[list[str]]:
    """Check that ``values`` holds one collection of group names per text; return them as lists.

    The one shape check for a per-text group column (``[{"men"}, set(), ...]``), for
    :func:`agreement` and the audit's suppression tables. Names are returned as given:
    the caller decides how to map them (:func:`normalize_group`).

    Parameters
    ----------
    values : sequence of iterables of str
        One collection of group names per text.
    name : str, default "groups"
        The parameter name used in error messages.

    Raises
    ------
    ConfigError
        If ``values`` is a str, or an item is a str (a ``"men;women"`` cell must be
        split with :func:`parse_paper_groups` first) or not iterable.
    """
    if isinstance(values, str):
        raise ConfigError(
            f"The {name!r} parameter must be a sequence of group collections, not a str."
        )
    out = []
    for i, row in enumerate(values):
        if isinstance(row, str):
            raise ConfigError(
                f"The {name!r} parameter must hold collections of group names; got the str "
                f"{row!r} at position {i} (split a 'men;women' cell with parse_paper_groups "
                "first)."
            )
        try:
            out.append(list(row))
        except TypeError:
            raise ConfigError(
                f"The {name!r} parameter must hold collections of group names. "
                f"Got {type(row).__name__} at position {i}."
            ) from None
    return out


class _Index:
    """The compiled lexicon: word n-gram → entry, with plural forms expanded."""

    __slots__ = ("entries", "multi", "multi_len", "sha256", "single")

    def __init__(self, rows: list[dict[str, str]], sha256: str) -> None:
        self.sha256 = sha256
        entry_ids: dict[tuple[str, str, bool], int] = {}
        self.entries: list[tuple[str, str, bool]] = []
        exact: dict[tuple[str, ...], int] = {}
        derived: dict[tuple[str, ...], int] = {}
        for row in rows:
            entry = (row["group"], row["sub_identity"], row["kind"] == "slur")
            if entry not in entry_ids:
                entry_ids[entry] = len(self.entries)
                self.entries.append(entry)
            eid = entry_ids[entry]
            words = tuple(_words(_lower(row["term"])))
            if not words:
                continue
            exact[words] = eid
            for form in _plural_forms(words[-1]):
                derived.setdefault(words[:-1] + (form,), eid)
        surface = derived | exact  # a listed term keeps its own meaning over a plural form
        self.single: dict[str, int] = {}
        self.multi: dict[tuple[str, ...], int] = {}
        self.multi_len: dict[str, int] = {}
        for words, eid in surface.items():
            if len(words) == 1:
                self.single[words[0]] = eid
            else:
                self.multi[words] = eid
                self.multi_len[words[0]] = max(self.multi_len.get(words[0], 0), len(words))

    def match(self, text: str) -> frozenset[int]:
        words = _words(_lower(text))
        found = {self.single[w] for w in self.single.keys() & words}
        if not self.multi_len.keys().isdisjoint(words):
            multi, multi_len = self.multi, self.multi_len
            for i, w in enumerate(words):
                n = multi_len.get(w)
                if n:
                    for k in range(2, n + 1):
                        eid = multi.get(tuple(words[i : i + k]))
                        if eid is not None:
                            found.add(eid)
        return frozenset(found)


def _read_lexicon(lexicon_dir: str | Path | None) -> _Index:
    if lexicon_dir is None:
        where = "tactful/data/identity"
        raw = read_bytes(f"identity/{LEXICON_FILE}")  # pinned: a changed file is a ModelError
    else:
        where = str(lexicon_dir)
        path = Path(lexicon_dir).expanduser() / LEXICON_FILE
        if not path.is_file():
            raise MissingDataError(f"Looked in {where} for {LEXICON_FILE}: not found.")
        raw = path.read_bytes()
    try:
        lines = raw.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        raise DataError(f"{where}/{LEXICON_FILE} is not UTF-8 text.") from None
    reader = csv.DictReader(lines)
    if reader.fieldnames is None or not set(_LEXICON_FIELDS) <= set(reader.fieldnames):
        raise DataError(
            f"{where}/{LEXICON_FILE} must have the columns {', '.join(_LEXICON_FIELDS)}; "
            f"found {', '.join(reader.fieldnames or ()) or 'none'}."
        )
    rows = []
    for line, row in enumerate(reader, start=2):
        if row["group"] not in GROUPS:
            raise DataError(f"{where}/{LEXICON_FILE}:{line}: unknown group {row['group']!r}.")
        if row["kind"] not in _KINDS:
            raise DataError(
                f"{where}/{LEXICON_FILE}:{line}: kind must be neutral or slur, not {row['kind']!r}."
            )
        if not row["term"] or not row["sub_identity"]:
            raise DataError(f"{where}/{LEXICON_FILE}:{line}: empty term or sub_identity.")
        rows.append(row)
    return _Index(rows, hashlib.sha256(raw).hexdigest())


class IdentityTagger:
    """Tag texts with the paper's identity groups, sub-identities and ``has_slur``.

    Parameters
    ----------
    lexicon_dir : str or Path, optional
        A folder holding a ``terms.csv`` in the format the lexicon builder writes
        (columns ``term, group, sub_identity, kind, source``). Default: the lexicon
        shipped with tactful.

    Notes
    -----
    The constructor only stores its argument; the lexicon is read and compiled on the
    first call to :meth:`tag` or :meth:`tag_many`. Tagging is a dictionary lookup per
    word (one set intersection per text, plus a scan for texts holding the first word
    of a multi-word term): about 19,000 texts per second on the Stormfront sentences
    and 2,300-2,700 on the longer OpenAI moderation prompts (best of five ``tag_many`` runs,
    one process on this 2-core machine).

    Examples
    --------
    >>> tagger = IdentityTagger()
    >>> [sorted(t.groups) for t in tagger.tag_many(["my sister", "Manchester", ""])]
    [['women'], [], []]
    """

    def __init__(self, *, lexicon_dir: str | Path | None = None) -> None:
        self.lexicon_dir = lexicon_dir
        self._index: _Index | None = None
        self._lock = threading.Lock()
        self._cache: dict[frozenset[int], IdentityTags] = {}

    def __repr__(self) -> str:
        return f"IdentityTagger(lexicon_dir={self.lexicon_dir!r})"

    def _compiled(self) -> _Index:
        if self._index is None:
            with self._lock:
                if self._index is None:
                    self._index = _read_lexicon(self.lexicon_dir)
        return self._index

    @property
    def lexicon_sha256(self) -> str:
        """sha256 of the lexicon file in use: changes whenever the tags could change."""
        return self._compiled().sha256

    def _tags(self, index: _Index, ids: frozenset[int]) -> IdentityTags:
        if not ids:
            return _EMPTY
        tags = self._cache.get(ids)
        if tags is None:
            entries = [index.entries[i] for i in ids]
            tags = IdentityTags(
                groups=frozenset(e[0] for e in entries),
                sub_identities=frozenset(e[1] for e in entries),
                has_slur=any(e[2] for e in entries),
            )
            if len(self._cache) < 65536:  # combinations are few; the cap only bounds memory
                self._cache[ids] = tags
        return tags

    def tag(self, text: str) -> IdentityTags:
        """The identity tags of one text.

        Raises
        ------
        ConfigError
            If ``text`` is not a str.
        """
        if not isinstance(text, str):
            raise ConfigError(
                f"The 'text' parameter of IdentityTagger.tag must be a str. Got {type(text).__name__} instead."
            )
        index = self._compiled()
        return self._tags(index, index.match(text))

    def tag_many(self, texts: Sequence[str]) -> list[IdentityTags]:
        """The identity tags of each text, in order (one result per text, always a list).

        Raises
        ------
        ConfigError
            If ``texts`` is a single str, or holds something other than str.
        """
        if isinstance(texts, str):
            raise ConfigError(
                "The 'texts' parameter of IdentityTagger.tag_many must be a sequence of str, "
                "not a single str; use tag() for one text."
            )
        index = self._compiled()
        out = []
        for i, text in enumerate(texts):
            if not isinstance(text, str):
                raise ConfigError(
                    f"The 'texts' parameter of IdentityTagger.tag_many must hold only str. "
                    f"Got {type(text).__name__} at position {i}."
                )
            out.append(self._tags(index, index.match(text)))
        return out


_default: IdentityTagger | None = None


def tag(text: str) -> IdentityTags:
    """Tag one text with a shared tagger that uses the shipped lexicon.

    See :class:`IdentityTagger` for the matching rules.
    """
    global _default
    if _default is None:
        _default = IdentityTagger()
    return _default.tag(text)


def _group_sets(
    name: str, values: Sequence[Iterable[str]], groups: tuple[str, ...]
) -> list[frozenset[str]]:
    keep = set(groups)
    return [frozenset(normalize_group(g) for g in row) & keep for row in group_lists(values, name)]


def agreement(
    pred: Sequence[Iterable[str]],
    gold: Sequence[Iterable[str]],
    groups: Sequence[str] = GROUPS,
) -> pd.DataFrame:
    """Per-group agreement of predicted identity tags with reference tags.

    Each group is scored as a binary label per text: for group :math:`g`, with
    :math:`\\hat y_t = [g \\in pred_t]` and :math:`y_t = [g \\in gold_t]`,

    .. math::

        \\mathrm{accuracy} = \\frac{TP + TN}{n},\\quad
        \\mathrm{precision} = \\frac{TP}{TP + FP},\\quad
        \\mathrm{recall} = \\frac{TP}{TP + FN}.

    Parameters
    ----------
    pred, gold : sequence of iterables of str
        One collection of group names per text (e.g. ``IdentityTags.groups`` and the
        parsed ``Big_identity`` column). Names may use the paper's spellings
        (``"lgbt-related"``, ``"Non-White"``); names of groups not in ``groups`` are
        ignored.
    groups : sequence of str, default GROUPS
        The groups to score, one row each, in this order.

    Returns
    -------
    pandas.DataFrame
        One row per group with the columns ``group, n, n_gold, n_pred, tp, fp, fn,
        accuracy, precision, recall``. ``n_gold`` is the support (texts the reference
        puts in the group), ``n_pred`` the texts the prediction puts there. Policy for
        empty denominators: precision is ``<NA>`` when ``n_pred == 0``, recall when
        ``n_gold == 0``, accuracy when ``n == 0`` (nullable ``Float64`` columns; never
        a sentinel number).

    Raises
    ------
    ConfigError
        If the two sequences differ in length or hold something other than
        collections of names; :class:`~tactful.errors.UnknownNameError` for a name
        that is not a group.

    Examples
    --------
    >>> float(agreement([{"men"}, set()], [{"men"}, {"men"}], groups=["men"]).loc[0, "recall"])
    0.5
    """
    groups = tuple(normalize_group(g) for g in groups)
    p = _group_sets("pred", pred, groups)
    g_ = _group_sets("gold", gold, groups)
    if len(p) != len(g_):
        raise ConfigError(
            f"The 'pred' and 'gold' parameters must have the same length. Got {len(p)} and {len(g_)}."
        )
    n = len(p)
    rows = []
    for group in groups:
        tp = sum(1 for a, b in zip(p, g_) if group in a and group in b)
        n_pred = sum(1 for a in p if group in a)
        n_gold = sum(1 for b in g_ if group in b)
        fp, fn = n_pred - tp, n_gold - tp
        rows.append(
            {
                "group": group,
                "n": n,
                "n_gold": n_gold,
                "n_pred": n_pred,
                "tp": tp,
                "fp": fp,
                "fn": fn,
                "accuracy": (n - fp - fn) / n if n else pd.NA,
                "precision": tp / n_pred if n_pred else pd.NA,
                "recall": tp / n_gold if n_gold else pd.NA,
            }
        )
    frame = pd.DataFrame(
        rows,
        columns=[
            "group",
            "n",
            "n_gold",
            "n_pred",
            "tp",
            "fp",
            "fn",
            "accuracy",
            "precision",
            "recall",
        ],
    )
    ints = ["n", "n_gold", "n_pred", "tp", "fp", "fn"]
    frame[ints] = frame[ints].astype("Int64")
    for col in ("accuracy", "precision", "recall"):
        frame[col] = pd.array(frame[col].tolist(), dtype="Float64")
    return frame
