"""``detox_eval``: toxic-to-civil evaluation after the ToxicSpans paper (Pavlopoulos et al., 2022, §7).

For (toxic source, civil rewrite) pairs: ACC, ACC2, ACC3, ACC4
(:func:`tactful.assist.metrics.detox_accuracy`), with the sources' toxic spans
taken from gold spans when the pairs carry them and from the moderator
otherwise, and self-SIM / ref-SIM as the cosine of MiniLM sentence embeddings.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .._types import Span
from ..errors import ConfigError, DataError
from ..metrics import bootstrap_ci
from ..params import Bool, Constraints, Int, Nullable, PathLike, Str, validate_arguments
from . import metrics as M
from ._common import ask, head_values, in_sample, moderator_block, resolve_moderator
from ._rows import FORMATS, read_rows

__all__ = ["Pair", "detox_eval", "load_pairs"]


@dataclass(frozen=True, slots=True)
class Pair:
    """A toxic source and one civil rewrite of it.

    ``spans`` are the source's gold toxic spans (``None`` when the pair has no
    gold: the moderator's spans are used); ``references`` are other civil
    rewrites of the same source that ref-SIM compares with.
    """

    id: str
    source: str
    rewrite: str
    spans: tuple[Span, ...] | None = None
    references: tuple[str, ...] = ()


class _Detox:
    _parameter_constraints: ClassVar[Constraints] = {
        "pairs": PathLike(),
        "head": Str(nonempty=True),
        "sim": Bool(),
        "limit": Nullable(Int(1)),
        "n_resamples": Int(1),
        "seed": Int(0),
        "store": Nullable(PathLike()),
    }


def _paradetox(data_dir: Any) -> list[Pair]:
    from ..datasets import load_dataset

    by_pair: dict[int, dict[int, str]] = {}
    for r in load_dataset("paradetox", "all", data_dir=data_dir):
        by_pair.setdefault(int(r.meta["pair"]), {})[int(r.meta["rewrite"])] = r.text
    pairs = []
    for k, texts in by_pair.items():
        rewrites = {i: t for i, t in texts.items() if i > 0}
        for i, rewrite in rewrites.items():
            others = tuple(t for j, t in rewrites.items() if j != i)
            pairs.append(Pair(f"{k}-{i}", texts[0], rewrite, None, others))
    return pairs


def _file_spans(path: str, i: int, value: Any, source: str) -> tuple[Span, ...] | None:
    if value is None or value == "":
        return None
    try:
        items = json.loads(value) if isinstance(value, str) else value
        spans = tuple(Span(int(a), int(b)) for a, b in items if int(a) < int(b))
    except (ValueError, TypeError, ConfigError):
        raise DataError(
            f"{path}: row {i}: spans must be a JSON list of [start, end] pairs. Got {value!r}."
        ) from None
    if any(s.end > len(source) for s in spans):
        raise DataError(
            f"{path}: row {i}: a span ends after the source's {len(source)} characters."
        )
    return spans


def load_pairs(
    pairs: str | os.PathLike[str], *, data_dir: str | os.PathLike[str] | None = None
) -> list[Pair]:
    """(source, rewrite) pairs from ``"paradetox"`` or a CSV/JSONL file.

    A file has the columns ``source`` and ``rewrite``, and optionally
    ``reference`` (a human rewrite for ref-SIM), ``spans`` (the source's gold
    toxic spans, a JSON list of ``[start, end]``) and ``id``. ``"paradetox"``
    gives one pair per human rewrite; each rewrite's references are the other
    rewrites of the same sentence.
    """
    if str(pairs) == "paradetox":
        return _paradetox(data_dir)
    if os.path.splitext(str(pairs))[1].lower() not in FORMATS and not os.path.exists(pairs):
        raise ConfigError(f"{pairs!s} is neither 'paradetox' nor a CSV/JSONL file of pairs.")
    rows = read_rows(pairs, text_column="source")
    out = []
    for i, (rid, raw) in enumerate(zip(rows.ids, rows.raw, strict=True)):
        rewrite, ref = raw.get("rewrite"), raw.get("reference")
        if not isinstance(rewrite, str):
            raise DataError(f"{rows.source}: row {i} has no text in column 'rewrite'.")
        source = str(raw["source"])
        refs = (ref,) if isinstance(ref, str) and ref else ()
        out.append(
            Pair(rid, source, rewrite, _file_spans(rows.source, i, raw.get("spans"), source), refs)
        )
    return out


def _sample(pairs: list[Pair], limit: int | None, seed: int) -> list[Pair]:
    """At most ``limit`` sources (seeded), each with all its rewrites."""
    sources = list(dict.fromkeys(p.source for p in pairs))
    if limit is None or limit >= len(sources):
        return pairs
    keep = set(np.random.default_rng(seed).choice(len(sources), limit, replace=False).tolist())
    chosen = {sources[i] for i in keep}
    return [p for p in pairs if p.source in chosen]


def _point_ci(metric: Any, *arrays: Any, n_resamples: int, seed: int) -> dict[str, float] | None:
    try:
        ci = bootstrap_ci(metric, *arrays, n_resamples=n_resamples, seed=seed)
    except ConfigError:  # undefined on the data (no pair with spans): no interval
        return None
    return {"point": ci.point, "low": ci.low, "high": ci.high}


def _sim(pairs: Sequence[Pair], progress: bool) -> dict[str, Any]:
    from ._sim import embed

    texts = [t for p in pairs for t in (p.source, p.rewrite, *p.references)]
    vectors = dict(zip(texts, embed(texts, progress=progress), strict=True))
    self_sim = M.cosine_similarity(
        [vectors[p.source] for p in pairs], [vectors[p.rewrite] for p in pairs]
    )
    ref_sim = []
    for p in pairs:
        if p.references:
            sims = M.cosine_similarity(
                [vectors[p.rewrite]] * len(p.references), [vectors[r] for r in p.references]
            )
            ref_sim.append(float(sims.mean()))
    return {"self": self_sim, "ref": np.asarray(ref_sim, dtype=np.float64)}


def detox_eval(
    moderator: str | Any = "builtin",
    *,
    pairs: str | os.PathLike[str] = "paradetox",
    head: str = "toxicity",
    sim: bool = True,
    options: dict[str, Any] | None = None,
    data_dir: str | os.PathLike[str] | None = None,
    store: str | os.PathLike[str] | None = None,
    limit: int | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
    progress: bool = False,
) -> dict[str, Any]:
    """ACC–ACC4 and SIM of civil rewrites judged by a moderator.

    Parameters
    ----------
    moderator : str or Moderator, default="builtin"
        The classifier that judges rewrites (``flags[head]``) and, for pairs
        without gold spans, points at the sources' toxic spans.
    pairs : ``"paradetox"`` or path, default="paradetox"
        See :func:`load_pairs`.
    head : str, default="toxicity"
        The decision that counts as "judged toxic".
    sim : bool, default=True
        Compute self-SIM and ref-SIM (needs the train extra).
    options, data_dir, store, progress
        As in :func:`tactful.assist.triage`.
    limit : int, optional
        Evaluate a seeded sample of at most ``limit`` sources, each with all its rewrites.
    n_resamples : int, default=1000
        Bootstrap resamples (pairs resampled) per 95 % interval.
    seed : int, default=0
        Seed of the sample and of the bootstrap.

    Returns
    -------
    dict
        The report: ``acc`` … ``acc4`` and ``self_sim``/``ref_sim`` as
        ``{"point", "low", "high"}`` (``None`` when undefined), counts,
        ``span_source`` (``"gold"``, ``"moderator"`` or ``"mixed"``) and the
        share of sources the moderator itself flags.
    """
    p = validate_arguments("detox_eval", _Detox._parameter_constraints, locals())
    mod = resolve_moderator(moderator, options)
    chosen = _sample(load_pairs(pairs, data_dir=data_dir), p["limit"], seed)
    if not chosen:
        raise DataError(f"No (source, rewrite) pair in {pairs!s}.")
    sources = list(dict.fromkeys(x.source for x in chosen))
    answers = ask(
        mod, [x.rewrite for x in chosen], store=store, progress=progress, description="rewrites"
    )
    rewrite_toxic, _ = head_values(answers, head, mod.name)
    gold = [x.spans is not None for x in chosen]
    # The sources are asked even when every pair has gold spans: the share the
    # moderator flags is the sanity check that the "toxic" sources are toxic to it.
    src_answers = ask(mod, sources, store=store, progress=progress, description="sources")
    source_flagged, _ = head_values(src_answers, head, mod.name)
    spans_of = {s: a.spans for s, a in zip(sources, src_answers, strict=True)}
    spans = [x.spans if x.spans is not None else spans_of[x.source] for x in chosen]
    has = np.asarray([bool(s) for s in spans])
    changed = np.asarray(
        [M.all_spans_changed(x.source, s, x.rewrite) for x, s in zip(chosen, spans, strict=True)]
    )
    acc = M.detox_accuracy(rewrite_toxic, has, changed)
    kw = {"n_resamples": n_resamples, "seed": seed}
    report: dict[str, Any] = {
        "command": "detox-eval",
        "moderator": moderator_block(mod),
        "head": head,
        "pairs": str(pairs),
        "limit": p["limit"],
        "seed": seed,
        "n_resamples": n_resamples,
        "n_pairs": len(chosen),
        "n_sources": len(sources),
        "n_with_spans": acc.n_with_spans,
        "span_source": "gold" if all(gold) else "moderator" if not any(gold) else "mixed",
        "source_flagged_rate": float(source_flagged.mean()),
        "span_policy": (
            "a span is kept when its text (case and whitespace runs ignored) occurs in the "
            "rewrite as a whole piece; ACC3 counts a source when none of its spans is kept"
        ),
    }
    for name in ("acc", "acc2", "acc3", "acc4"):
        report[name] = _point_ci(
            lambda t, h, c, name=name: getattr(M.detox_accuracy(t, h, c), name),
            rewrite_toxic,
            has,
            changed,
            **kw,
        )
    report["in_sample"] = [
        in_sample(mod, f"rewrites of {pairs!s}", [x.rewrite for x in chosen]),
        in_sample(mod, f"sources of {pairs!s}", sources),
    ]
    report["self_sim"] = report["ref_sim"] = None
    report["n_ref"] = 0
    if p["sim"]:
        sims = _sim(chosen, progress)
        report["self_sim"] = _point_ci(lambda x: float(x.mean()), sims["self"], **kw)
        report["n_ref"] = int(sims["ref"].size)
        if sims["ref"].size:
            report["ref_sim"] = _point_ci(lambda x: float(x.mean()), sims["ref"], **kw)
    return report
