"""Compare training runs on ToxicChat the way the shipped model is chosen.

For each run folder (its ``export/model.onnx`` and ``export/tokenizer.json``, as
written by ``tactful train run`` or ``tactful train soup``), the int8 export is loaded by the builtin
moderator and its toxicity head scored on ToxicChat dev (average precision: the
selection criterion, no threshold in it) and test (average precision; F1 and
jailbreak recall at the threshold the card would choose: the best mean dev F1 over
the card's bootstrap resamples of dev, on the card's grid).
Spans: the threshold that maximises SemEval-2021 trial span F1 (against the gold
of the run's span targets, as the card chooses it), that F1, and SemEval-2021 test
span F1 at that threshold.

Fairness on dev (issue 11 item 4): the harmless identity texts of the held-out
training templates (:func:`tactful.train.identity_negatives` with
``split="dev"``, never the audit sets nor the functional suite): the share the
toxicity head flags at the dev threshold (all of them are harmless, so this is a
false-positive rate), the worst group's rate over that rate (groups with at
least 20 texts), and the share that gets any span at the span threshold. And the
share of the held-out derogation templates' rows
(:func:`tactful.train.derogation_template_records` with ``split="dev"``: a
group called lesser or unworthy of rights in plain words, all toxic) the toxicity
head flags at the dev threshold, and the share of the held-out delicate templates'
rows (:func:`tactful.train.delicate_template_records` with ``split="dev"``:
grief and serious illness, all delicate) the delicate head reaches its card point
at, and the share of the held-out menace templates' rows
(:func:`tactful.train.menace_template_records` with ``split="dev"``:
indirect threats with no violent verb, all toxic) the toxicity head flags at the
dev threshold. The same for the held-out templates of the sources asked for by
``--exclusion``, ``--injection`` and ``--technical``: the share of the exclusion
rows (:func:`tactful.train.exclusion_template_records`, ``split="dev"``: a
group denied rights, a place or existence, all toxic) flagged at the dev
threshold, and the share of their harmless inclusion rows (the same words in
support of a group) not flagged (a pass rate); the share of the injection rows
(:func:`tactful.train.injection_template_records`, ``split="dev"``) flagged
toxic at the dev threshold *and* at or above the jailbreak point (the best mean
ToxicChat dev jailbreak F1 over the bootstrap resamples, as the card chooses it),
and the share of their harmless lookalikes flagged neither way (a pass rate); and
the share of the technical-verb rows
(:func:`tactful.train.technical_template_records`, ``split="dev"``: "kill a
zombie process", all harmless) not flagged at the dev threshold (a pass rate); and
the share of the contrast rows of ``--contrast``
(:func:`tactful.train.contrast_template_records`, ``split="dev"``: the
menace and violent-request words in harmless messages) not flagged (a pass rate).

A model folder (``card.json`` and ``model.onnx``, e.g. the shipped builtin model)
may stand in for a run; its span gold is SemEval's. With ``--points card`` every
rate above (and test F1 and jailbreak recall) is read at a model folder's card
points instead (toxicity, jailbreak, span: e.g. the cross-fitted points of
``tactful train ship --crossfit``), the points the model ships with; the
threshold column then shows the card's toxicity point.

``--dev-only`` reads no test split (ToxicChat test, SemEval-2021 test): the test
columns print ``-`` (``null`` in ``--json``). For choosing among candidates before
their test figures may be read (a rule fixed in advance, then a test veto).

    tactful train compare-runs runs/stage5 runs/stage6 runs/soup56
    tactful train compare-runs src/tactful/models/builtin runs/t2_s4
    tactful train compare-runs --points card runs/pkg_s30cf runs/pkg_s32cf
    tactful train compare-runs --points card --dev-only runs/pkg_L10m
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from .._heads import SEQ_HEADS
from ..datasets import load_dataset, span_offsets
from ..errors import ConfigError
from ..metrics import average_precision, jailbreak_recall, precision_recall_f1, span_f1
from ..moderators.builtin import BuiltinModerator, load_card
from ._devrows import harmless_dev_texts
from ._provenance import run_span_gold, run_stages
from ._ship import install_export
from ._thresholds import DEV_RESAMPLES, best_f1_threshold, choose_span_threshold, span_sets

__all__ = ["TEST_KEYS", "compare_run", "compare_table_header", "compare_table_row"]


def model_folder(run: Path, into: Path) -> Path:
    """A model folder for ``run``'s export: its files and the shipped card, re-pinned to them."""
    pins = install_export(run, into)
    (into / "card.json").write_text(json.dumps(load_card() | pins))
    return into


def dev_fairness(
    mod: BuiltinModerator, data_dir: str | None, threshold: float, span_threshold: float
) -> dict:
    """False positives and spans on the held-out harmless identity templates."""
    from tactful.datasets import load_holistic_descriptors

    from ._suite_data import holistic_person_nouns, identity_negatives

    rows = identity_negatives(
        load_holistic_descriptors(data_dir), nouns=holistic_person_nouns(data_dir), split="dev"
    )
    texts = [r.text for r in rows]
    arrays = mod.predict_arrays(texts)
    flag = arrays[0][:, SEQ_HEADS.index("toxicity")] >= threshold
    spans = span_sets(mod, texts, arrays, span_threshold)
    fpr = float(flag.mean())
    by_group: dict[str, list[bool]] = {}
    for r, f in zip(rows, flag, strict=True):
        for g in r.groups:
            by_group.setdefault(g, []).append(bool(f))
    rates = {g: float(np.mean(v)) for g, v in by_group.items() if len(v) >= 20}
    worst = max(rates, key=rates.__getitem__) if rates else None
    return {
        "fair_n": len(rows),
        "fair_fpr": fpr,
        "fair_worst_group": worst,
        "fair_worst_ratio": rates[worst] / fpr if worst is not None and fpr > 0 else None,
        "fair_span_rate": float(np.mean([bool(s) for s in spans])),
    }


def dev_toxic_recall(mod: BuiltinModerator, threshold: float, texts: list[str]) -> float:
    """The share of ``texts`` (all toxic) the toxicity head flags at ``threshold``."""
    p = mod.predict_arrays(texts)[0][:, SEQ_HEADS.index("toxicity")]
    return float((p >= threshold).mean())


def dev_exclusion(mod: BuiltinModerator, threshold: float) -> dict:
    """On the held-out exclusion templates: the share of the exclusion rows (all
    toxic) the toxicity head flags at ``threshold``, and the share of the harmless
    inclusion rows it does not flag."""
    from ._suite_data import exclusion_template_records

    rows = exclusion_template_records(split="dev")
    p = mod.predict_arrays([r.text for r in rows])[0][:, SEQ_HEADS.index("toxicity")]
    flag = p >= threshold
    attack = np.array([r.label == 1 for r in rows])
    return {
        "exclusion_n": int(attack.sum()),
        "exclusion_recall": float(flag[attack].mean()),
        "inclusion_n": int((~attack).sum()),
        "inclusion_pass": float((~flag[~attack]).mean()),
    }


def dev_injection(mod: BuiltinModerator, threshold: float, jailbreak_threshold: float) -> dict:
    """On the held-out injection templates: the share of injections flagged toxic at
    ``threshold`` and jailbreak at ``jailbreak_threshold``, and the share of their
    harmless lookalikes flagged neither way."""
    from ._suite_data import injection_template_records

    rows = injection_template_records(split="dev")
    seq = mod.predict_arrays([r.text for r in rows])[0]
    toxic = seq[:, SEQ_HEADS.index("toxicity")] >= threshold
    jailbreak = seq[:, SEQ_HEADS.index("jailbreak")] >= jailbreak_threshold
    attack = np.array([r.label == 1 for r in rows])
    return {
        "injection_n": int(attack.sum()),
        "injection_recall": float((toxic & jailbreak)[attack].mean()),
        "lookalike_n": int((~attack).sum()),
        "lookalike_pass": float((~toxic & ~jailbreak)[~attack].mean()),
    }


def dev_harmless_pass(
    mod: BuiltinModerator, threshold: float, data_dir: str | None, names: tuple[str, ...]
) -> dict:
    """For each harmless dev set ``name`` of :func:`tactful.train.harmless_dev_texts`
    (``"technical"``, ``"contrast"``): its row count and the share of its rows the
    toxicity head does not flag at ``threshold``."""
    sets = harmless_dev_texts(data_dir)
    out: dict = {}
    for name in names:
        out[f"{name}_n"] = len(sets[name])
        out[f"{name}_pass"] = 1 - dev_toxic_recall(mod, threshold, sets[name])
    return out


def dev_derogation(mod: BuiltinModerator, threshold: float) -> dict:
    """Recall of the toxicity head on the held-out derogation templates."""
    from ._suite_data import derogation_template_records

    texts = [r.text for r in derogation_template_records(split="dev")]
    return {"derog_n": len(texts), "derog_recall": dev_toxic_recall(mod, threshold, texts)}


def dev_menace(mod: BuiltinModerator, threshold: float) -> dict:
    """Recall of the toxicity head on the held-out menace templates."""
    from ._suite_data import menace_template_records

    texts = [r.text for r in menace_template_records(split="dev")]
    return {"menace_n": len(texts), "menace_recall": dev_toxic_recall(mod, threshold, texts)}


def dev_delicate(mod: BuiltinModerator) -> dict:
    """Recall of the delicate head, at the card's delicate point, on the held-out
    delicate templates."""
    from ._suite_data import delicate_template_records

    texts = [r.text for r in delicate_template_records(split="dev")]
    p = mod.predict_arrays(texts)[0][:, SEQ_HEADS.index("delicate")]
    point = float(mod.card["thresholds"].get("delicate", 0.5))
    return {"delicate_n": len(texts), "delicate_recall": float((p >= point).mean())}


#: The figures :func:`read_test_figures` reads from the test splits.
TEST_KEYS = ("test_ap", "test_f1", "test_jailbreak_recall", "test_span_f1")


def read_test_figures(mod: BuiltinModerator, data_dir: str | None, t: float, span_t: float) -> dict:
    """ToxicChat test AP, F1 and jailbreak recall at toxicity point ``t``, and
    SemEval-2021 test span F1 at span point ``span_t``."""
    k = SEQ_HEADS.index("toxicity")
    test = load_dataset("toxicchat", "test", data_dir)
    p_test = mod.predict_arrays([r.text for r in test])[0][:, k]
    y_test = np.array([int(r.labels["toxicity"] or 0) for r in test])
    flag = p_test >= t
    jail = [i for i, r in enumerate(test) if r.labels.get("jailbreak") is not None]
    spans_test = load_dataset("toxicspans", "test", data_dir)
    texts = [r.text for r in spans_test]
    pred = span_sets(mod, texts, mod.predict_arrays(texts), span_t)
    return {
        "test_ap": average_precision(y_test, p_test),
        "test_f1": precision_recall_f1(y_test, flag.astype(int))["f1"],
        "test_jailbreak_recall": jailbreak_recall(
            [bool(flag[i]) for i in jail], [int(test[i].labels["jailbreak"] or 0) for i in jail]
        ),
        "test_span_f1": span_f1([span_offsets(r.spans) for r in spans_test], pred),
    }


def compare_run(
    run: Path, data_dir: str | None, tmp: Path, points: str = "dev", dev_only: bool = False
) -> dict:
    """One run's (or model folder's) row of ``tactful train compare-runs``.

    Parameters
    ----------
    run : Path
        A run folder (its ``export/``) or a model folder (``card.json``, ``model.onnx``).
    data_dir : str or None
        The data folder (default: ``$TACTFUL_DATA``).
    tmp : Path
        A scratch folder for a run's model folder.
    points : {"dev", "card"}
        Read the rates at the dev thresholds or at a model folder's card points.
    dev_only : bool
        Read no test split: the :data:`TEST_KEYS` figures are ``None``.

    Returns
    -------
    dict
        The figures, by name (see the module docstring).
    """
    folder = (run / "card.json").is_file() and (run / "model.onnx").is_file()
    if points == "card" and not folder:
        raise ConfigError(
            f"--points card needs a model folder (card.json and model.onnx), "
            f"and {run} is a run: ship it first (tactful train ship {run} --to DIR)."
        )
    if folder:
        mod = BuiltinModerator(model_dir=str(run))
    else:
        mod = BuiltinModerator(model_dir=str(model_folder(run, tmp / run.name)))
    k = SEQ_HEADS.index("toxicity")
    dev = load_dataset("toxicchat", "dev", data_dir)
    seq_dev = mod.predict_arrays([r.text for r in dev])[0]
    p_dev = seq_dev[:, k]
    y_dev = np.array([int(r.labels["toxicity"] or 0) for r in dev])
    t, dev_f1 = best_f1_threshold(y_dev, p_dev, resamples=DEV_RESAMPLES)
    jb_t, _ = best_f1_threshold(
        np.array([int(r.labels["jailbreak"] or 0) for r in dev]),
        seq_dev[:, SEQ_HEADS.index("jailbreak")],
        resamples=DEV_RESAMPLES,
    )
    card = mod.card["thresholds"]
    if points == "card":
        t, jb_t = float(card["toxicity"]), float(card["jailbreak"])
    span_gold = run_span_gold(run_stages(run)) if (run / "train.json").is_file() else "semeval"
    span_t, trial_f1 = choose_span_threshold(
        mod, data_dir, span_gold, grid=(float(card["span"]),) if points == "card" else None
    )
    return {
        "run": str(run),
        "dev_ap": average_precision(y_dev, p_dev),
        "points": points,
        "dev_threshold": t,
        "jailbreak_threshold": jb_t,
        "dev_f1": dev_f1,
        "span_gold": span_gold,
        "span_threshold": span_t,
        "trial_span_f1": trial_f1,
        **(dict.fromkeys(TEST_KEYS) if dev_only else read_test_figures(mod, data_dir, t, span_t)),
        **dev_fairness(mod, data_dir, t, span_t),
        **dev_derogation(mod, t),
        **dev_delicate(mod),
        **dev_menace(mod, t),
        **dev_exclusion(mod, t),
        **dev_injection(mod, t, jb_t),
        **dev_harmless_pass(mod, t, data_dir, ("technical", "contrast")),
    }


def compare_table_header(points: str) -> str:
    """The header line of the ``compare-runs`` table."""
    return (
        f"{'run':28} {'dev AP':>7} {'test AP':>7} {points + ' thr':>8} {'test F1':>7} {'JR':>6} "
        f"{'span gold':>9} {'sp thr':>6} {'trial':>6} {'test':>6} "
        f"{'fair FPR':>8} {'worst':>6} {'spans':>6} {'derog':>6} {'delic':>6} {'menace':>6} "
        f"{'exclus':>6} {'inclus':>6} {'inject':>6} {'lookal':>6} {'techn':>6} {'contr':>6}"
    )


def compare_table_row(r: dict) -> str:
    """One :func:`compare_run` row as a line of the ``compare-runs`` table."""
    test = {k: "-" if r[k] is None else f"{r[k]:.3f}" for k in TEST_KEYS}
    return (
        f"{r['run']:28} {r['dev_ap']:7.3f} {test['test_ap']:>7} {r['dev_threshold']:8.3f} "
        f"{test['test_f1']:>7} {test['test_jailbreak_recall']:>6} {r['span_gold']:>9} "
        f"{r['span_threshold']:6.3f} {r['trial_span_f1']:6.3f} {test['test_span_f1']:>6} "
        f"{r['fair_fpr']:8.3f} {r['fair_worst_ratio'] or float('nan'):6.2f} "
        f"{r['fair_span_rate']:6.3f} {r['derog_recall']:6.3f} {r['delicate_recall']:6.3f} "
        f"{r['menace_recall']:6.3f} {r['exclusion_recall']:6.3f} {r['inclusion_pass']:6.3f} "
        f"{r['injection_recall']:6.3f} {r['lookalike_pass']:6.3f} "
        f"{r['technical_pass']:6.3f} {r['contrast_pass']:6.3f}"
    )
