"""Refit a model's harm-category heads on its frozen encoder (``tactful train category-heads``).

Each harm category is one row of the sequence head (:mod:`~tactful.train._delicatehead`
explains the layout). Refitting the 13 category rows changes the category scores and
nothing else: toxicity, the other seven heads, the spans and their operating points stay
bit-identical.

Why: a category head trained beside the toxicity heads only ever saw harm-set texts as
negatives, so ordinary toxic language (an insult, a threat at a person, an attack on a
group) had no category target, and a low operating point chosen on the harm sets' dev
parts put an insult into self-harm. The refit is a logistic regression per category on
the pooled features, from (:func:`category_head_examples`):

* ``category_examples``: the harm sets' train parts and the category templates
  (:func:`~tactful.train._categories.category_examples`, with its caps);
* ``template_categories``: the training templates of ordinary toxic language and their
  harmless contrasts, with the categories their words imply
  (:func:`~tactful.train._categories.template_category_examples`);
* ``toxicchat_weak``: ToxicChat's toxic train prompts with OpenAI's scores as soft
  targets (a row of weight ``p`` labelled 1 and one of weight ``1 - p`` labelled 0);
* ``toxicchat``: ``chat_negatives`` seeded ToxicChat train prompts labelled non-toxic,
  in no category.

Each category's point is then chosen again on the dev parts
(:func:`~tactful.train._thresholds.choose_category_thresholds`).

The threat row (``--head threat``) can be refit the same way. The threat head learned from
the ToxicSpans posts with a majority Threat span (284 of 16,100; 104 in a 6,000-post draw)
and the menace templates, and the
eight-head models call a sexual request or a person in crisis a threat (``builtin-large``
2.2.2 flags every held-out sexual-request and minors template of the category dev rows as
a threat). Its rows: the ToxicSpans rater-level posts (the threats and
:data:`THREAT_NEGATIVES` seeded others), the menace templates and their harmless
technical and contrast lookalikes, the threats and insults of the toxic-language
templates, the category templates' threat targets (a person in crisis, a sexual request, a
weapons question are no threat; a conditional threat is), every harm-set row in a
self-harm category (0) and the ToxicChat negatives (0). The category rows other than the
threats weigh :data:`THREAT_CATEGORY_WEIGHT`. Its point is chosen on the same dev rows as
the categories', and ``threat_or`` again on the held-out Jigsaw sentences.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ConfigError
from ..params import (
    Bool,
    Constraints,
    Float,
    Int,
    Nullable,
    PathLike,
    Str,
    StrList,
    validate_params,
)
from ..taxonomy import CATEGORIES, EXTRA_CATEGORIES, HARM_CATEGORIES
from ._category_templates import TEMPLATE_REVISION
from ._delicatehead import open_refit

log = logging.getLogger(__name__)

__all__ = [
    "IDENTITY_MENTIONS",
    "JAILBREAK_SETS",
    "REFIT_HEADS",
    "THREAT_CATEGORY_WEIGHT",
    "THREAT_NEGATIVES",
    "cached_pooled_features",
    "category_head_examples",
    "category_refit_texts",
    "refit_category_heads",
    "with_category_rows",
    "with_grafted_rows",
]

#: Rows of a training template at most (seeded), so that the thousand dehumanisation
#: rows do not outweigh the harm sets.
TEMPLATE_ROWS = 30
#: The data sets of jailbreak prompts (all rows; the training stages draw them too).
JAILBREAK_SETS = ("jailbreak_inthewild", "gptfuzzer", "deepset_injections")
#: The heads a refit can learn again: the 13 categories, and jailbreak (which a model
#: trained on the harm sets can learn to fire on any toxic request), the threat row, and
#: tactful's own categories (which only a refit gives a model: ``--graft --head
#: misinformation``).
REFIT_HEADS: tuple[str, ...] = (*CATEGORIES, "jailbreak", "threat", *EXTRA_CATEGORIES)
#: ToxicSpans rater-level posts without a majority Threat span drawn (seeded) for the
#: threat fit, beside all its threats.
THREAT_NEGATIVES = 3000
#: Harmless identity mentions (the training templates' HolisticBias and audit-group
#: rows, :func:`~tactful.train._suite_data.identity_negatives`) drawn (seeded) as rows in
#: no category and no threat: without them ``builtin``'s grafted hate row flagged one
#: harmless Jigsaw bias template in eight (docs/research/model-3.md).
IDENTITY_MENTIONS = 2000
#: The weight of the category rows that are no threat in the threat fit (a person in
#: crisis, a sexual request), chosen on the dev rows with ``research/threat_row.py``
#: (docs/research/model-3.md, "The threat row").
THREAT_CATEGORY_WEIGHT = 3.0


def category_head_examples(
    data_dir: str | Path | None,
    *,
    chat_negatives: int = 1500,
    seed: int = 0,
    template_revision: int = TEMPLATE_REVISION,
    origins: dict[str, str] | None = None,
) -> list[tuple[str, dict[str, float], str]]:
    """The texts a head refit learns from: ``(text, {head: target}, source)``, targets in
    [0, 1] and only for the heads of :data:`REFIT_HEADS` the source decides (train parts
    only; no text of a harm set's test part, no ToxicChat dev or test prompt).

    ``jailbreak``: 0 for every harm-set text, category template and toxic-language
    template (a plain harmful request, an insult or a threat is not an attempt to trick
    the model), 1 for the injection templates, ToxicChat's label for its prompts, and
    the jailbreak sets' labels (``jailbreak_sets``: In-the-Wild, GPTFuzzer, deepset's
    injections).

    ``threat``: the templates' threat targets, 0 for a harm-set or template row in a
    self-harm category and for the ToxicChat negatives, and the ``threat_sources``:
    ToxicSpans rater-level posts (all threats, :data:`THREAT_NEGATIVES` others) and the
    menace, technical and contrast training templates.

    ``template_revision``: the category templates' (:func:`category_examples`), so that a
    recorded refit's texts are rebuilt as it read them (:func:`category_refit_texts`);
    ``origins``, when given, gets each kept text's data set or template source (the
    ``source`` of a category example, ``toxicchat``, a jailbreak set's name)."""
    from .._heads import CATEGORY_HEADS
    from ..datasets import load_dataset
    from ..datasets._harm import harm_test_texts
    from ._categories import (
        CATEGORY_CAPS,
        category_examples,
        category_target,
        template_category_examples,
        toxicchat_weak_labels,
    )
    from ._mixture import Example, build_mixture

    jb = CATEGORY_HEADS.index("jailbreak")
    th = CATEGORY_HEADS.index("threat")
    crisis = ("self-harm", "self-harm/intent", "self-harm/instructions")

    def targets(e: Example) -> dict[str, float]:
        seq = e.seq
        out = {"jailbreak": 0.0 if np.isnan(seq[jb]) else float(seq[jb])}
        for c in HARM_CATEGORIES:
            v = category_target(e, c)
            if not np.isnan(v):
                out[c] = float(v)
        if not np.isnan(seq[th]):
            out["threat"] = float(seq[th])
        elif any(out.get(c, 0.0) >= 0.5 for c in crisis):
            out["threat"] = 0.0  # a person in crisis threatens nobody
        return out

    held = set(harm_test_texts(data_dir)) | {
        r.text for s in ("dev", "test") for r in load_dataset("toxicchat", s, data_dir=data_dir)
    }
    cats_ex = category_examples(data_dir, CATEGORY_CAPS, template_revision=template_revision)
    out = [(e.text, targets(e), "category_examples") for e in cats_ex]
    tpl_ex = template_category_examples("train", TEMPLATE_ROWS, seed)
    out += [(e.text, targets(e), "template_categories") for e in tpl_ex]
    origin = [e.source for e in cats_ex] + [e.source for e in tpl_ex]
    chat = {r.text: r for r in load_dataset("toxicchat", "train", data_dir=data_dir)}
    weak = toxicchat_weak_labels(data_dir)
    for t, scores in sorted(weak.items()):
        row = chat.get(t)
        known = None if row is None else row.labels["jailbreak"]
        jailbreak = {} if known is None else {"jailbreak": float(known)}
        out.append((t, {**scores, **jailbreak}, "toxicchat_weak"))
        origin.append("toxicchat")
    none = dict.fromkeys(HARM_CATEGORIES, 0.0)
    harmless = sorted(t for t, r in chat.items() if r.labels["toxicity"] == 0)
    picked = set(random.Random(seed).sample(harmless, min(chat_negatives, len(harmless))))
    for t in sorted(chat):
        r = chat[t]
        if t in weak or not (t in picked or r.labels["jailbreak"] == 1):
            continue
        cats: dict[str, float] = {**none, "threat": 0.0} if r.labels["toxicity"] == 0 else {}
        label = r.labels["jailbreak"]
        out.append(
            (t, {**cats, **({} if label is None else {"jailbreak": float(label)})}, "toxicchat")
        )
        origin.append("toxicchat")
    for name in JAILBREAK_SETS:
        jb_rows = [
            (r.text, {"jailbreak": float(label)}, "jailbreak_sets")
            for r in load_dataset(name, "all", data_dir=data_dir)
            if (label := r.labels["jailbreak"]) is not None
        ]
        out += jb_rows
        origin += [name] * len(jb_rows)
    from ..datasets import load_holistic_descriptors
    from ._suite_data import holistic_person_nouns, identity_negatives

    mentions = sorted(
        {
            r.text
            for r in identity_negatives(
                load_holistic_descriptors(data_dir),
                nouns=holistic_person_nouns(data_dir),
                split="train",
            )
        }
    )
    drawn_mentions = random.Random(seed).sample(mentions, min(IDENTITY_MENTIONS, len(mentions)))
    out += [(t, {**none, "threat": 0.0}, "identity_mentions") for t in drawn_mentions]
    origin += ["identity_mentions"] * len(drawn_mentions)
    rng = random.Random(seed)
    threat = [
        e
        for e in build_mixture(
            data_dir, sources=["toxicspans_raters"], menace=True, technical=True, contrast=True
        )
        if not np.isnan(e.seq[th])
    ]
    spans = [e for e in threat if e.source == "toxicspans_raters"]
    others = sorted((e for e in spans if e.seq[th] < 0.5), key=lambda e: e.text)
    drawn = {e.text for e in rng.sample(others, min(THREAT_NEGATIVES, len(others)))}
    threat_ex = [
        e
        for e in sorted(threat, key=lambda e: (e.source, e.text))
        if e.source != "toxicspans_raters" or e.seq[th] >= 0.5 or e.text in drawn
    ]
    out += [(e.text, {"threat": float(e.seq[th])}, "threat_sources") for e in threat_ex]
    origin += [e.source for e in threat_ex]
    seen: set[str] = set()
    kept = []
    for e, o in zip(out, origin, strict=True):
        if e[1] and e[0] not in held and e[0] not in seen:
            seen.add(e[0])
            kept.append(e)
            if origins is not None:
                origins[e[0]] = o
    return kept


def with_category_rows(
    model: Any, rows: dict[str, tuple[np.ndarray, float]], heads: list[str]
) -> Any:
    """A copy of an ONNX model whose logit for each head of ``rows`` (named in the
    model's ``heads``) is ``pooled @ weight + bias``; every other row, node and value is
    kept (:func:`~tactful.train._delicatehead.with_seq_rows`)."""
    from onnx import numpy_helper

    from ._delicatehead import SEQ_WEIGHT, with_seq_rows

    [weight] = [i for i in model.graph.initializer if i.name == SEQ_WEIGHT]
    n = numpy_helper.to_array(weight).shape[0]
    if n != len(heads):
        raise ConfigError(f"The model's sequence head has {n} rows, its card {len(heads)} heads.")
    return with_seq_rows(model, {heads.index(h): row for h, row in rows.items()})


def with_grafted_rows(model: Any, n: int) -> Any:
    """A copy of an ONNX model whose sequence head has ``n`` rows: its own first, then
    zero rows (a score of 0.5 until :func:`with_category_rows` fits them); the graph's
    ``seq`` output is declared ``[batch, n]``. Every score it had stays bit-identical."""
    import onnx
    from onnx import numpy_helper

    from ._delicatehead import SEQ_BIAS, SEQ_WEIGHT

    m = onnx.ModelProto()
    m.CopyFrom(model)
    for init in m.graph.initializer:
        if init.name in (SEQ_WEIGHT, SEQ_BIAS):
            values = numpy_helper.to_array(init).astype(np.float32)
            pad = np.zeros((n - values.shape[0], *values.shape[1:]), np.float32)
            init.CopyFrom(numpy_helper.from_array(np.concatenate([values, pad]), init.name))
    for out in m.graph.output:
        if out.name == "seq":
            out.type.tensor_type.shape.dim[1].dim_value = n
    return m


def _text_key(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def category_refit_texts(data_dir: str | Path | None, card: dict[str, Any]) -> dict[str, set[str]]:
    """The texts every recorded category-head refit of ``card`` learned from, by data set
    or template source (``card["category_heads"]`` and the ``earlier`` refits it keeps;
    the ``origins`` of :func:`category_head_examples`), each rebuilt with
    :func:`category_head_examples` from its ``config`` and checked against its recorded
    ``sources``. A record older than ``template_revision`` read the newest template
    revision whose rows give its recorded counts. An ``earlier`` record that no revision
    reproduces (one made before the templates' first revision) is rebuilt with the
    revision whose counts come closest, and a warning says by how much: its data set
    rows are the same, and its template rows are made texts in no data set.

    Raises
    ------
    DataError
        When the latest record's examples do not reproduce from this data folder.
    """
    from ..errors import DataError
    from ._category_templates import TEMPLATE_REVISION as newest

    out: dict[str, set[str]] = {}
    record = card.get("category_heads")
    latest = True
    while isinstance(record, dict):
        cfg = record.get("config", {})
        want = record.get("sources", {})
        revisions = (
            [int(cfg["template_revision"])]
            if "template_revision" in cfg
            else list(range(newest, 0, -1))
        )
        tried = []
        for revision in revisions:
            origins: dict[str, str] = {}
            examples = category_head_examples(
                data_dir,
                chat_negatives=int(cfg.get("chat_negatives", 1500)),
                seed=int(cfg.get("seed", 0)),
                template_revision=revision,
                origins=origins,
            )
            got = dict(Counter(s for _, _, s in examples))
            off = sum(abs(got.get(k, 0) - want.get(k, 0)) for k in set(got) | set(want))
            tried.append((off, -revision, got, examples, origins))
            if off == 0:
                break
        off, minus_revision, got, examples, origins = min(tried, key=lambda t: t[:2])
        version = record.get("from", {}).get("version", "?")
        if off and (latest or "template_revision" in cfg):
            raise DataError(
                f"the category-head refit of model {version} does not reproduce: "
                f"got sources {got}, the card says {want}."
            )
        if off:
            log.warning(
                "the category-head refit of model %s predates the template revisions and "
                "none reproduces it: read with revision %d, %d examples off (%s, the card "
                "says %s)",
                version,
                -minus_revision,
                off,
                got,
                want,
            )
        for text, _, _ in examples:
            out.setdefault(origins[text], set()).add(text)
        latest = False
        record = record.get("earlier")
    return out


def cached_pooled_features(
    model: Any, card: dict[str, Any], tok: Any, texts: list[str], cache: Path | None
) -> np.ndarray:
    """The pooled features of ``texts``; with ``cache``, those of its texts (by sha256)
    for the same ``model.onnx`` are read from it, the others computed, and the cache
    rewritten."""
    from ._delicatehead import pooled_features

    sha = str(card.get("sha256", {}).get("model.onnx"))
    known: dict[str, np.ndarray] = {}
    if cache is not None and cache.exists():
        got = np.load(cache, allow_pickle=False)
        if str(got["sha"]) == sha:
            known = dict(zip(got["keys"].tolist(), got["x"], strict=True))
    keys = [_text_key(t) for t in texts]
    todo = sorted({k: t for k, t in zip(keys, texts, strict=True) if k not in known}.items())
    if todo:
        ids = [tok.encode(t).ids for _, t in todo]
        x, _ = pooled_features(model, card.get("quantization"), ids)
        known.update(zip([k for k, _ in todo], x, strict=True))
        if cache is not None:
            cache.parent.mkdir(parents=True, exist_ok=True)
            names = sorted(known)
            with cache.open("wb") as f:
                np.savez(
                    f,
                    sha=np.array(sha),
                    keys=np.array(names),
                    x=np.stack([known[k] for k in names]),
                )
    return np.stack([known[k] for k in keys])


_REFIT_CONSTRAINTS: Constraints = {
    "model_dir": PathLike(),
    "out": PathLike(),
    "data_dir": Nullable(PathLike()),
    "version": Str(nonempty=True),
    "heads": Nullable(StrList(options=REFIT_HEADS, nonempty=True)),
    "graft": Bool(),
    "c": Float(0, None, closed="neither"),
    "chat_negatives": Int(0),
    "chat_weight": Float(0, None, closed="neither"),
    "seed": Int(0),
    "cache": Nullable(PathLike()),
    "harmless_pass": Nullable(Float(0, 1, closed="right")),
}


def refit_category_heads(
    model_dir: str | Path,
    out: str | Path,
    data_dir: str | Path | None = None,
    *,
    version: str,
    heads: Sequence[str] | None = None,
    graft: bool = False,
    c: float = 1.0,
    chat_negatives: int = 1500,
    chat_weight: float = 5.0,
    seed: int = 0,
    cache: str | Path | None = None,
    harmless_pass: float | None = None,
) -> dict[str, Any]:
    """Refit the harm-category rows (and the jailbreak row) of the sequence head of the
    model in ``model_dir``; write the model to ``out`` with each refit head's point
    chosen again on dev.

    Parameters
    ----------
    model_dir, out : path
        The model folder (one with category heads and a float head: ``builtin-large``)
        and the new one (created; its files are overwritten).
    data_dir : path, optional
        The data folder.
    version : str
        The new model's version.
    heads : sequence of str, optional
        The heads to refit, of :data:`REFIT_HEADS`. Default: all of them the model has.
        With ``graft``, the rows grafted and these.
    graft : bool
        Give the model the rows it lacks, fit on its frozen encoder
        (:func:`with_grafted_rows`): the 13 category rows to a model of the eight heads,
        and the rows of tactful's own categories (:data:`~tactful.taxonomy.EXTRA_CATEGORIES`)
        named in ``heads``; every score, span and point it had stays bit-identical (a
        dynamic int8 head is first made float to take the rows, which moves its scores a
        little: ``builtin`` 3.0.0's by at most 0.0013 on a sample).
    c : float
        The inverse L2 strength of each logistic regression (scikit-learn's ``C``).
    chat_negatives : int
        ToxicChat train prompts labelled non-toxic, in no category.
    chat_weight : float
        The weight of ToxicChat's prompts in the jailbreak fit (the other rows weigh 1):
        the jailbreak sets and the templates outnumber the chat prompts a deployed
        model sees. On ToxicChat dev, 5 raised the refit row's average precision from
        0.70 to 0.78 (both at ``c`` 1; docs/research/model-3.md).
    seed : int
        The seed of the samples.
    cache : path, optional
        A file to keep the pooled features in (reused while the model and the texts
        are the same).
    harmless_pass : float, optional
        Each category's point is chosen at or above the lowest point at which it flags
        at most ``1 - harmless_pass`` of every harmless dev set
        (:func:`~tactful.train._thresholds.choose_category_thresholds`).

    Returns
    -------
    dict
        The new card: the refit heads' thresholds and dev figures chosen again
        (categories: :func:`~tactful.train._thresholds.choose_category_thresholds`;
        jailbreak: :func:`~tactful.train._thresholds.choose_jailbreak_threshold`),
        ``category_heads`` recording what the rows were refit from, and each refit
        category's ``train_examples`` the refit's positives by source.
    """
    p = validate_params(
        "refit_category_heads",
        _REFIT_CONSTRAINTS,
        model_dir=model_dir,
        out=out,
        data_dir=data_dir,
        version=version,
        heads=None if heads is None else list(heads),
        graft=graft,
        c=c,
        chat_negatives=chat_negatives,
        chat_weight=chat_weight,
        seed=seed,
        cache=cache,
        harmless_pass=harmless_pass,
    )
    src: Path = p["model_dir"]
    dst: Path = p["out"]
    card, model, max_len = open_refit(src, dst)
    from sklearn.linear_model import LogisticRegression

    from .._heads import SEQ_HEADS
    from ..moderators.builtin import BuiltinModerator
    from ..taxonomy import TO_LLAMA_GUARD_3
    from ._config import load_tokenizer
    from ._delicatehead import float_seq_head
    from ._spanhead import refit_origin, save_refit
    from ._thresholds import choose_category_thresholds, choose_jailbreak_threshold

    model_heads = list(card.get("heads", []))
    has = set(CATEGORIES) <= set(model_heads)
    asked = list(p["heads"] or ())
    # a graft adds the rows the model lacks: the 13 categories to a model of the eight
    # heads, and each of tactful's own categories asked for
    add = ([] if has else list(CATEGORIES)) + [
        h for h in EXTRA_CATEGORIES if h in asked and h not in model_heads
    ]
    if not p["graft"] and not has:
        raise ConfigError(
            f"The model in {src} has no harm-category heads: refit them on a model "
            "trained with them (--categories), or add them with --graft."
        )
    if not p["graft"] and add:
        raise ConfigError(f"The model in {src} has no {', '.join(add)} head: add it with --graft.")
    if p["graft"] and not add:
        raise ConfigError(
            f"The model in {src} has harm-category heads already: refit them without --graft."
        )
    # a dynamically quantized head (builtin's) is dequantized first; anything else refused
    model, dequantized = float_seq_head(model, "category-heads")
    if p["graft"]:
        if not has and model_heads != list(SEQ_HEADS):
            raise ConfigError(f"The model in {src} does not have the eight heads to graft onto.")
        model_heads = model_heads + add
        model = with_grafted_rows(model, len(model_heads))
        card = {**card, "heads": model_heads}
    # a graft fits its new rows always, and any other head asked for; a refit without
    # heads named fits every refit head the model has
    wanted = set(asked or (() if p["graft"] else [h for h in REFIT_HEADS if h in model_heads]))
    wanted |= set(add)
    examples = category_head_examples(
        p["data_dir"], chat_negatives=p["chat_negatives"], seed=p["seed"]
    )
    tok = load_tokenizer(src / "tokenizer.json", max_len)
    x = cached_pooled_features(model, card, tok, [t for t, _, _ in examples], p["cache"])
    source = np.array([s for _, _, s in examples])
    refit = [h for h in REFIT_HEADS if h in wanted]
    rows: dict[str, tuple[np.ndarray, float]] = {}
    positives: dict[str, dict[str, int]] = {}
    for head in refit:
        idx = [i for i, (_, t, _) in enumerate(examples) if head in t]
        y = np.array([examples[i][1][head] for i in idx], dtype=float)
        # a soft target p is a row labelled 1 of weight p and one labelled 0 of 1 - p
        feats = np.concatenate([x[idx], x[idx]])
        labels = np.concatenate([np.ones(len(idx), int), np.zeros(len(idx), int)])
        w = np.ones(len(idx))
        if head == "jailbreak":
            w[np.isin(source[idx], ["toxicchat", "toxicchat_weak"])] = p["chat_weight"]
        if head == "threat":
            w[(source[idx] == "category_examples") & (y < 0.5)] = THREAT_CATEGORY_WEIGHT
        weights = np.concatenate([y * w, (1.0 - y) * w])
        keep = weights > 0
        fit = LogisticRegression(C=p["c"], max_iter=5000).fit(
            feats[keep], labels[keep], sample_weight=weights[keep]
        )
        rows[head] = (fit.coef_[0], float(fit.intercept_[0]))
        positives[head] = dict(sorted(Counter(source[idx][y >= 0.5].tolist()).items()))

    new = save_refit(with_category_rows(model, rows, model_heads), src, dst, card, p["version"])
    new["category_heads"] = {
        "from": refit_origin(card),
        "heads": refit,
        "grafted": p["graft"],
        "dequantized_head": dequantized,
        "sources": dict(Counter(source.tolist())),
        "positives": positives,
        "config": {
            "c": p["c"],
            "chat_negatives": p["chat_negatives"],
            "chat_weight": p["chat_weight"],
            "seed": p["seed"],
            "harmless_pass": p["harmless_pass"],
            "template_rows": TEMPLATE_ROWS,
            "template_revision": TEMPLATE_REVISION,
            "max_len": max_len,
        },
        "command": f"tactful train category-heads {src} --out {dst} --version {p['version']}"
        + (" --graft" if p["graft"] else "")
        + ("" if p["heads"] is None else "".join(f" --head {h}" for h in p["heads"]))
        + ("" if p["harmless_pass"] is None else f" --harmless-pass {p['harmless_pass']}"),
        # the refits before this one (a graft onto a grafted model keeps their record)
        **({"earlier": card["category_heads"]} if "category_heads" in card else {}),
    }
    (dst / "card.json").write_text(json.dumps(new, indent=2) + "\n")
    after = BuiltinModerator(model_dir=str(dst))
    cats = [h for h in refit if h in HARM_CATEGORIES]
    if cats:
        th, fig = choose_category_thresholds(
            after, p["data_dir"], cats, harmless_pass=p["harmless_pass"]
        )
        new["thresholds"].update(th)
        dev = new.setdefault("dev", {})
        dev["category_dev_rows"] = fig["category_dev_rows"]
        dev.setdefault("categories", {}).update(fig["categories"])
        for cat in cats:
            entry = new.setdefault("categories", {}).setdefault(cat, {})
            entry["llama_guard_3"] = list(TO_LLAMA_GUARD_3[cat])
            entry["train_examples"] = positives[cat]
            entry["dev"] = fig["categories"][cat]
    if "jailbreak" in refit:
        before = BuiltinModerator(model_dir=str(src))
        point, jfig = choose_jailbreak_threshold(
            after, p["data_dir"], before=(before, float(card["thresholds"]["jailbreak"]))
        )
        new["thresholds"]["jailbreak"] = point
        new["category_heads"]["jailbreak_dev"] = jfig
    if "threat" in refit:
        from ._devrows import offensive_dev_rows
        from ._provenance import card_stages
        from ._thresholds import or_in_threshold

        t_points, tfig = choose_category_thresholds(after, p["data_dir"], ["threat"])
        held = offensive_dev_rows(p["data_dir"], card_stages(card))
        seq_j = after.predict_arrays([r.text for r in held])[0][:, after.heads.index("threat")]
        new["thresholds"]["threat"] = t_points["threat"]
        new["thresholds"]["threat_or"] = or_in_threshold(np.array([r.label for r in held]), seq_j)
        new["category_heads"]["threat_dev"] = {
            **tfig["categories"]["threat"],
            "threat_or": new["thresholds"]["threat_or"],
            "before": {
                "threshold": card["thresholds"].get("threat", 0.5),
                "threat_or": card["thresholds"].get("threat_or"),
            },
        }
    (dst / "card.json").write_text(json.dumps(new, indent=2) + "\n")
    return new
