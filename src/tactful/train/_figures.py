"""Write a packaged model's measured figures into its card (``card.json``).

``--model builtin-large`` writes the large model's card; its commands then name
``--moderator builtin-large`` (and ``bench/speed.py`` does not apply).

Every figure is stored with the command that produced it. The evaluation,
cross-validation, speed and robustness figures are read from the JSON files their own commands wrote:

    tactful eval toxicchat --split test --moderator builtin --json > runs/eval_toxicchat.json
    tactful eval toxicspans --split test --moderator builtin --json > runs/eval_toxicspans.json
    tactful eval detexd --moderator builtin --unseen --json > runs/eval_detexd_unseen.json   # a model that saw part of DeTexD
    tactful train cv detexd-frozen --out runs/cv_frozen
    tactful train cv detexd --out runs/cv_detexd_e5           # -> runs/cv_detexd_e5/cv_detexd.json
    python bench/speed.py --json runs/speed.json               # the run the card was built from
    python bench/robustness.py --moderator builtin --json runs/robustness.json
    tactful eval functional --moderator builtin --json > runs/eval_functional.json
    tactful eval harm_requests --split test --moderator builtin --json > runs/eval_harm_requests.json   # and harm_benign, dna_responses
    tactful train card-figures --eval runs/eval_toxicchat.json --eval runs/eval_toxicspans.json \\
        --cv runs/cv_detexd_e5/cv_detexd.json --cv runs/cv_detexd/cv_detexd.json --cv-frozen runs/cv_frozen/cv_detexd_frozen.json \\
        --speed runs/speed.json --robustness runs/robustness.json --functional runs/eval_functional.json \\
        [--keep "detexd 5-fold CV"]
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..moderators.builtin import default_model_dir

__all__ = ["measured_on", "write_card_figures"]

#: CPU flags of an 8-bit dot product without 16-bit saturation (VNNI), by which
#: onnxruntime's int8 kernels give other scores than on a CPU with AVX2 alone.
INT8_DOT_FLAGS = ("avx512_vnni", "avx_vnni", "amx_int8", "asimddp")


def measured_on(cpuinfo: str | None = None) -> dict[str, Any]:
    """Where figures were measured: the CPU's model name, its 8-bit dot-product flags
    (:data:`INT8_DOT_FLAGS`) and onnxruntime's version. ``builtin`` is an int8 graph whose
    scores move a little with the CPU (AVX2 without VNNI saturates 16-bit sums), so a card
    says which machine its figures are from. ``cpuinfo``: the text of ``/proc/cpuinfo``
    (read when not given; empty where there is none)."""
    import platform

    import onnxruntime

    if cpuinfo is None:
        path = Path("/proc/cpuinfo")
        cpuinfo = path.read_text() if path.is_file() else ""
    model, flags = platform.processor() or platform.machine(), set()
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "model name" and value.strip():
            model = value.strip()
        elif key.strip() in ("flags", "Features"):
            flags |= set(value.split())
    return {
        "cpu": model,
        "int8_dot_product": sorted(f for f in INT8_DOT_FLAGS if f in flags),
        "onnxruntime": onnxruntime.__version__,
    }


def write_card_figures(
    model: str = "builtin",
    *,
    evals: Sequence[Path] = (),
    cvs: Sequence[Path] = (),
    speed: Path | None = None,
    robustness: Path | None = None,
    cv_frozen: Path | None = None,
    cv_fold0_f1: float | None = None,
    functional: Path | None = None,
    keep: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """Write a packaged model's measured figures into its card's ``figures``.

    Parameters
    ----------
    model : str
        The packaged model (``builtin`` or ``builtin-large``).
    evals : sequence of Path
        JSON written by ``tactful eval ... --moderator MODEL --json``.
    cvs : sequence of Path
        ``cv_detexd.json`` of ``tactful train cv detexd`` (one per epochs setting).
    speed, robustness, cv_frozen, functional : Path, optional
        JSON of ``bench/speed.py``, ``bench/robustness.py``, ``tactful train cv
        detexd-frozen`` and ``tactful eval functional``.
    cv_fold0_f1 : float, optional
        F1 of fold 0 of the fine-tuned CV when the full CV did not finish.
    keep : sequence of str
        Carry over the current card's figures whose name starts with one of these.

    Returns
    -------
    list of dict
        The card's new ``figures`` (``name``, ``value``, ``command``).

    Raises
    ------
    ConfigError
        When an ``evals`` file is not an evaluation of ``model`` on a figure's data set.
    """
    card_path = default_model_dir(model) / "card.json"
    card = json.loads(card_path.read_text())
    figures: list[dict] = [
        f for f in card.get("figures", []) if any(f["name"].startswith(k) for k in keep)
    ]

    def add(name: str, value: Any, command: str) -> None:
        figures.append(
            {
                "name": name,
                "value": round(value, 4) if isinstance(value, float) else value,
                "command": command,
            }
        )

    keys = {
        "toxicchat": ("precision", "recall", "f1", "roc_auc", "jailbreak_recall"),
        "toxicspans": ("span_f1",),
        "detexd": ("precision", "recall", "f1"),
        # issue 41: harmful requests flagged, harmless twins not, AI responses judged
        "harm_requests": ("recall",),
        "harm_benign": ("flag_rate",),
        "dna_responses": ("precision", "recall", "f1", "roc_auc"),
    }
    for path in evals:
        res = json.loads(path.read_text())
        if res["moderator"] != model or res["dataset"] not in keys:
            raise ConfigError(f"{path}: not a {model} evaluation of {', '.join(keys)}")
        # `--unseen`: only the rows the model was not trained on were scored
        unseen = res.get("n_dropped_in_sample") is not None
        cmd = f"tactful eval {res['dataset']} --split {res['split']} --moderator {model}" + (
            " --unseen --json" if unseen else " --json"
        )
        where = f"n={res['n']}" + (", the rows it was not trained on" if unseen else "")
        if res["dataset"] == "detexd" and unseen and "delicate_point" in card:
            # `tactful train delicate-point` chose the point on these very rows
            where += (
                ", where its delicate point was chosen: quote the cross-fitted F1 "
                f"{card['dev']['detexd_heldout_delicate_crossfit_f1']}"
            )
        for k in keys[res["dataset"]]:
            add(f"{res['dataset']} {res['split']} {k} ({where})", res[k], cmd)
        for cat, m in res.get("categories", {}).items():
            at = f"{res['dataset']} {res['split']} category {cat} (n={m['n']}, {m['n_positive']} in it)"
            if m["roc_auc"] is not None:
                add(f"{at} AUC", m["roc_auc"], cmd)
            if "f1" in m:
                add(f"{at} F1 at the card's point", m["f1"], cmd)
    for path in cvs:
        cv = json.loads(path.read_text())
        cmd = f"tactful train cv detexd --epochs {cv['epochs']:g} --out {path.parent}"
        ep = f"{cv['epochs']:g} epochs"
        add(
            f"detexd 5-fold CV F1 (pooled out-of-fold, threshold 0.5, {ep})",
            cv["pooled"]["f1"],
            cmd,
        )
        add(f"detexd 5-fold CV precision (pooled, {ep})", cv["pooled"]["precision"], cmd)
        add(f"detexd 5-fold CV recall (pooled, {ep})", cv["pooled"]["recall"], cmd)
        add(f"detexd 5-fold CV mean per-fold F1 ({ep})", cv["mean_f1"], cmd)
    if cv_frozen:
        cv = json.loads(cv_frozen.read_text())
        cmd = f"tactful train cv detexd-frozen --out {cv_frozen.parent}"
        add(
            "detexd 5-fold CV F1, frozen MiniLM + logistic regression (pooled, threshold 0.5)",
            cv["pooled"]["f1"],
            cmd,
        )
        add("detexd 5-fold CV precision, frozen (pooled)", cv["pooled"]["precision"], cmd)
        add("detexd 5-fold CV recall, frozen (pooled)", cv["pooled"]["recall"], cmd)
    if cv_fold0_f1 is not None:
        add(
            "detexd CV fold 0 F1, MiniLM fine-tuned on folds 1-4 (3 epochs; folds 1-4 not run)",
            cv_fold0_f1,
            "tactful train cv detexd --out runs/cv_detexd (stopped after fold 0)",
        )
    if speed:
        sp = json.loads(speed.read_text())
        cmd = f"python bench/speed.py --run-dir {sp.get('run_dir', 'runs/builtin')}"
        for k in (
            "builtin_tps",
            "pipeline_tps",
            "eager_sorted_tps",
            "speedup_vs_pipeline",
            "speedup_vs_eager_sorted",
            "builtin_sorted_tps",
            "sorted_speedup_vs_pipeline",
            "sorted_speedup_vs_eager_sorted",
            "builtin_sorted_max_score_diff",
            "builtin_f1",
            "builtin_sorted_f1",
            "eager_sorted_f1",
            "pipeline_f1",
            "model_mb",
            "builtin_tokens",
            "eager_tokens",
        ):
            if k not in sp:
                continue
            add(f"speed/size: {k} (ToxicChat test, n={sp['n']})", sp[k], cmd)
        add(
            "peak RSS of `tactful check` on one text (MB)",
            sp["check_peak_rss_mb"],
            f"{cmd} (same measurement alone: --memory-only)",
        )
    if functional:
        fn = json.loads(functional.read_text())
        cmd = f"tactful eval functional --moderator {model} --json"
        for row in fn["functionalities"]:
            name = f"functional suite: {row['functionality']} (n={row['n']})"
            add(f"{name} pass rate", row["pass_rate"], cmd)
            if row.get("span_pass_rate") is not None:
                add(f"{name} span pass rate ({row['span_check']})", row["span_pass_rate"], cmd)
    if robustness:
        rb = json.loads(robustness.read_text())
        cmd = f"python bench/robustness.py --moderator {model} --seed 0"
        for k, v in rb.items():
            if k not in ("moderator", "options", "seed"):
                add(f"obfuscation: {k}", v, cmd)

    card["figures"] = figures
    card["figures_measured_on"] = measured_on()
    card_path.write_text(json.dumps(card, indent=2) + "\n")
    return figures
