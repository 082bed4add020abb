"""Refit a model's token head on its frozen encoder (``tactful train span-head``).

The token head is one linear layer over the encoder's last hidden states
(:class:`~tactful.train.MultiTaskModel`). Refitting it alone changes which
characters a model marks and nothing else: the sequence head reads the pooled
states, so every score, decision and operating point of the sequence heads stays
bit-identical, and no fold run or cross-fitted point has to be made again.

The refit reads the token features from the shipped ONNX file (the hidden states
that feed the head), so it needs neither the run folder nor a GPU: a few minutes
for the MiniLM student, a quarter of an hour for mpnet on two cores.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .._hashing import sha256_file
from ..errors import ConfigError
from ..params import Constraints, Float, Int, Nullable, PathLike, Str, validate_params
from ._config import require_train_extra
from ._mixture import Example, clean_prompts

__all__ = [
    "HEAD_BIAS",
    "refit_span_head",
    "span_head_examples",
    "token_head_tensors",
    "with_token_head",
]

log = logging.getLogger("tactful.train")

#: The initializer that names the token head's bias in every exported model.
HEAD_BIAS = "model.tok_head.bias"
_HEAD_WEIGHT = "model.tok_head.weight_refit"
_NORMS = ("LayerNormalization", "SkipLayerNormalization")


def token_head_tensors(model: Any) -> tuple[str, str]:
    """(hidden states, head logits): the tensors the token head of an ONNX graph
    reads and writes.

    The head is the ``Add`` of :data:`HEAD_BIAS`; its input is traced back through
    the (possibly quantized) matrix product to the layer norm that makes the
    encoder's last hidden states.

    Raises
    ------
    ConfigError
        The graph has no such head.
    """
    producer = {o: n for n in model.graph.node for o in n.output}
    adds = [n for n in model.graph.node if n.op_type == "Add" and HEAD_BIAS in n.input]
    if len(adds) != 1:
        raise ConfigError(f"The model has no token head (one Add of {HEAD_BIAS}).")
    stack = [x for x in adds[0].input if x != HEAD_BIAS]
    seen: set[str] = set()
    while stack:
        name = stack.pop()
        node = producer.get(name)
        if node is None or name in seen:
            continue
        seen.add(name)
        if node.op_type in _NORMS:
            return name, adds[0].output[0]
        stack.extend(i for i in node.input if i in producer)
    raise ConfigError("The model's token head reads no layer norm's output.")


def with_token_head(model: Any, weight: np.ndarray, bias: np.ndarray) -> Any:
    """A copy of an ONNX model whose token head is ``hidden @ weight + bias``, in float32.

    ``weight`` is (hidden, 1 + len(SPAN_TYPES)). The old head's nodes and
    initializers, which nothing else reads, are removed; every other node is kept
    as it was, so the sequence outputs do not change.
    """
    import onnx
    from onnx import helper, numpy_helper

    hidden, out = token_head_tensors(model)
    m = onnx.ModelProto()
    m.CopyFrom(model)
    g = m.graph
    product = out + "_refit_matmul"
    head = [
        helper.make_node("MatMul", [hidden, _HEAD_WEIGHT], [product], name="tok_head_refit/MatMul"),
        helper.make_node("Add", [HEAD_BIAS, product], [out], name="tok_head_refit/Add"),
    ]
    keep: list[Any] = []
    for n in g.node:  # the new head where the old one ended: the order stays topological
        if product in n.output:
            continue  # a refit head's product: its name is the new one's
        keep += head if out in n.output else [n]
    inits = [i for i in g.initializer if i.name not in (HEAD_BIAS, _HEAD_WEIGHT)]
    inits += [
        numpy_helper.from_array(np.asarray(weight, dtype=np.float32), _HEAD_WEIGHT),
        numpy_helper.from_array(np.asarray(bias, dtype=np.float32), HEAD_BIAS),
    ]
    # The graph's nodes are in topological order: walk back from the outputs.
    needed = {o.name for o in g.output}
    live = []
    for node in reversed(keep):
        if any(o in needed for o in node.output):
            live.append(node)
            needed.update(node.input)
    del g.node[:]
    g.node.extend(reversed(live))
    del g.initializer[:]
    g.initializer.extend(i for i in inits if i.name in needed)
    kept_info = [v for v in g.value_info if v.name in needed]
    del g.value_info[:]
    g.value_info.extend(kept_info)
    return m


def save_refit(
    model: Any, src: Path, dst: Path, card: dict[str, Any], version: str
) -> dict[str, Any]:
    """Write a refit ``model`` to ``dst/model.onnx``, copy the other files ``card`` pins
    from ``src``, and return a copy of the card with ``version`` and the new file's pins
    (the caller adds its record and writes ``card.json``)."""
    import onnx

    dst.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(dst / "model.onnx"))
    for name in card.get("sha256", {}):
        if name != "model.onnx":
            shutil.copy(src / name, dst / name)
    new: dict[str, Any] = json.loads(json.dumps(card))
    new["version"] = version
    new["sha256"]["model.onnx"] = sha256_file(dst / "model.onnx")
    new.setdefault("size_bytes", {})["model.onnx"] = (dst / "model.onnx").stat().st_size
    return new


def refit_origin(card: dict[str, Any]) -> dict[str, Any]:
    """The ``from`` of a refit's record: the model's version and ``model.onnx`` sha256."""
    return {
        "version": card.get("version"),
        "model.onnx sha256": card.get("sha256", {}).get("model.onnx"),
    }


def _session(model: Any, quantization: str | None, threads: int) -> Any:
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.intra_op_num_threads = threads
    opts.log_severity_level = 3
    if quantization == "weights":
        opts.add_session_config_entry("session.disable_quant_qdq", "1")
    return ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])


def padded_batches(
    ids: Sequence[Sequence[int]], quantization: str | None, batch_size: int
) -> Iterator[tuple[list[int], dict[str, np.ndarray]]]:
    """Length-sorted, zero-padded batches of token ids: ``(positions in ids, feed)``.

    A dynamically quantized graph scales its activations per call, so it gets one
    text per call, as the runtime does; a batch-invariant one (``"weights"``,
    ``"none"``) gets ``batch_size`` texts per call.
    """
    size = batch_size if quantization in ("weights", "none") else 1
    order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
    for b in range(0, len(order), size):
        group = order[b : b + size]
        n = max(len(ids[i]) for i in group)
        x = np.zeros((len(group), n), dtype=np.int64)
        mask = np.zeros((len(group), n), dtype=np.int64)
        for r, i in enumerate(group):
            x[r, : len(ids[i])] = ids[i]
            mask[r, : len(ids[i])] = 1
        yield group, {"input_ids": x, "attention_mask": mask}


def _token_features(
    model: Any,
    quantization: str | None,
    ids: Sequence[Sequence[int]],
    *,
    threads: int = 2,
    batch_size: int = 16,
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Per text: the hidden states the token head reads [T, H] (float16) and the
    shipped head's outputs [T, 1 + K] (toxic probability, type probabilities).

    A dynamically quantized graph scales its activations per call, so it runs one
    text per call, as the runtime does; a batch-invariant one runs length-sorted
    batches.
    """
    import onnx

    hidden, _ = token_head_tensors(model)
    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    probe.graph.output.append(
        onnx.helper.make_tensor_value_info(hidden, onnx.TensorProto.FLOAT, None)
    )
    sess = _session(probe, quantization, threads)
    names = ["tok_toxic", "tok_type", hidden]
    feats: list[np.ndarray] = [np.zeros((0, 0), np.float16)] * len(ids)
    probs: list[np.ndarray] = [np.zeros((0, 0), np.float32)] * len(ids)
    for group, feed in padded_batches(ids, quantization, batch_size):
        tox, typ, h = sess.run(names, feed)
        for r, i in enumerate(group):
            k = len(ids[i])
            probs[i] = np.column_stack([tox[r, :k], typ[r, :k]]).astype(np.float32)
            feats[i] = h[r, :k].astype(np.float16)
    return feats, probs


def _cached_features(
    cache: Path | None,
    model: Any,
    quantization: str | None,
    ids: list[list[int]],
    pins: dict[str, str],
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """:func:`_token_features`, read from ``cache`` (an ``.npz`` file) when it holds
    the features of the same model file and token ids, else computed and written there."""
    digest = hashlib.sha256(json.dumps([pins.get("model.onnx"), ids]).encode()).hexdigest()
    if cache is not None and cache.is_file():
        with np.load(cache) as z:
            if str(z["key"]) == digest:
                cuts = np.cumsum([len(x) for x in ids])[:-1]
                return np.split(z["feats"], cuts), np.split(z["probs"], cuts)
    feats, probs = _token_features(model, quantization, ids)
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez(cache, key=digest, feats=np.concatenate(feats), probs=np.concatenate(probs))
    return feats, probs


def span_head_examples(
    data_dir: str | Path | None, card: dict[str, Any]
) -> tuple[list[Example], list[Example], list[Example]]:
    """What a refit of ``card``'s token head learns from, and what it keeps back.

    Returns ``(labelled, prompts, held_out)``: the examples of the card's last
    training stage (rebuilt with :func:`~tactful.train.recorded_stage_examples`)
    that carry span labels, one per text; the :func:`~tactful.train.clean_prompts`
    of that stage that are fitted; and the fifth of them kept back (by a hash of
    the text) to measure how often the refit model still marks a clean prompt.
    The refit sees no text the model did not train on, so its ``trained_texts`` stay true.
    """
    from ._distill import recorded_stage_examples
    from ._provenance import card_stages

    stage = card_stages(card)[-1]
    examples, seed = recorded_stage_examples(data_dir, stage)
    if (seed, len(examples)) != (stage["seed"], stage["examples"]):
        raise ConfigError(
            f"The card's last stage does not reproduce: seed/examples ({seed}, "
            f"{len(examples)}), the card says ({stage['seed']}, {stage['examples']})."
        )
    labelled: dict[str, Example] = {}
    for e in examples:
        if (e.tox_chars is not None or e.type_chars is not None) and e.text not in labelled:
            labelled[e.text] = e
    prompts = [e for e in clean_prompts(examples) if e.text not in labelled]
    held = [e for e in prompts if _held_out(e.text)]
    fitted = [e for e in prompts if not _held_out(e.text)]
    return list(labelled.values()), fitted, held


def _held_out(text: str) -> bool:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[0] % 5 == 0


def _recover_head(h: np.ndarray, probs: np.ndarray, seed: int) -> np.ndarray:
    """The shipped head's weights ([H + 1, 1 + K], bias last), from its own outputs.

    Least squares of the toxic logit and of the log type probabilities (a softmax
    is blind to a shift, so any shift serves) on the hidden states, each on the
    tokens where float32 did not saturate the output; exact up to int8 rounding.
    """
    rng = np.random.default_rng(seed)
    pick = np.sort(rng.choice(len(h), size=min(len(h), 50_000), replace=False))
    x = np.column_stack([h[pick].astype(np.float64), np.ones(len(pick))])
    p = probs[pick].astype(np.float64)
    out = np.zeros((x.shape[1], p.shape[1]))
    ok = (p[:, 0] > 1e-6) & (p[:, 0] < 1 - 1e-6)
    out[:, 0] = np.linalg.lstsq(x[ok], np.log(p[ok, 0] / (1 - p[ok, 0])), rcond=None)[0]
    typed = np.asarray((p[:, 1:] > 1e-9).all(axis=1))
    out[:, 1:] = np.linalg.lstsq(x[typed], np.log(p[typed, 1:]), rcond=None)[0]
    return out


def _fit(
    feats: np.ndarray,
    tox: np.ndarray,
    typ: np.ndarray,
    weights: np.ndarray,
    w0: np.ndarray,
    *,
    epochs: int,
    lr: float,
    type_weight: float,
    seed: int,
) -> tuple[np.ndarray, list[float]]:
    """Adam on the token loss of training (BCE on toxic tokens + ``type_weight`` x CE
    on typed ones), each token weighted, from ``w0`` ([H + 1, 1 + K], bias last row)."""
    import torch

    torch.manual_seed(seed)
    x = torch.from_numpy(feats)
    y_tox = torch.from_numpy(tox)
    y_typ = torch.from_numpy(typ)
    wt = torch.from_numpy(weights.astype(np.float32))
    w = torch.nn.Parameter(torch.from_numpy(w0[:-1].astype(np.float32)))
    b = torch.nn.Parameter(torch.from_numpy(w0[-1].astype(np.float32)))
    opt = torch.optim.Adam([w, b], lr=lr)
    gen = torch.Generator().manual_seed(seed)
    losses = []
    batch = 8192
    for _ in range(epochs):
        perm = torch.randperm(len(x), generator=gen)
        total, count = 0.0, 0
        for s in range(0, len(x), batch):
            idx = perm[s : s + batch]
            z = x[idx].float() @ w + b
            t, c, ww = y_tox[idx], y_typ[idx], wt[idx]
            m = t >= 0
            loss = z.new_zeros(())
            if m.any():
                per = torch.nn.functional.binary_cross_entropy_with_logits(
                    z[m, 0], t[m].float(), reduction="none"
                )
                loss = loss + (per * ww[m]).sum() / ww[m].sum()
            m = c >= 0
            if m.any():
                loss = loss + type_weight * torch.nn.functional.cross_entropy(z[m, 1:], c[m])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
            count += len(idx)
        losses.append(round(total / max(count, 1), 5))
    out = np.vstack([w.detach().numpy(), b.detach().numpy()[None]])
    return out, losses


_REFIT_CONSTRAINTS: Constraints = {
    "model_dir": PathLike(),
    "out": PathLike(),
    "data_dir": Nullable(PathLike()),
    "version": Str(nonempty=True),
    "epochs": Int(0),
    "lr": Float(0, None, closed="neither"),
    "prompt_share": Float(0, 1, closed="neither"),
    "seed": Int(0),
    "cache": Nullable(PathLike()),
}


def refit_span_head(
    model_dir: str | Path,
    out: str | Path,
    data_dir: str | Path | None = None,
    *,
    version: str,
    epochs: int = 3,
    lr: float = 1e-3,
    prompt_share: float = 0.1,
    seed: int = 0,
    cache: str | Path | None = None,
) -> dict[str, Any]:
    """Refit the token head of the model in ``model_dir``; write the model to ``out``.

    Parameters
    ----------
    model_dir : path
        A model folder (``card.json``, ``model.onnx``, ``tokenizer.json``).
    out : path
        The new model folder (created; its files are overwritten).
    data_dir : path, optional
        The data folder, to rebuild the card's last stage (:func:`span_head_examples`)
        and choose the span point on SemEval-2021 trial.
    version : str
        The new model's version.
    epochs, lr : int, float
        Adam's passes over the token features and its learning rate, from the
        shipped head's weights (``epochs=0``: the recovered head alone, in float32,
        a control for what the conversion itself changes).
    prompt_share : float in (0, 1)
        The share of the toxic-token loss that the clean prompts' tokens carry
        (their tokens would otherwise outweigh the span posts' several times).
    seed : int
        The seed of the token order.
    cache : path, optional
        An ``.npz`` file for the token features: read when it holds those of the
        same model file and texts, else written (for another ``epochs``, ``lr`` or
        ``prompt_share`` without a second pass of the encoder).

    Returns
    -------
    dict
        The new card. ``span_head`` records what the head was refit from and on,
        the loss per epoch and, on the held-out clean prompts, the share with a
        span before and after.
    """
    p = validate_params(
        "refit_span_head",
        _REFIT_CONSTRAINTS,
        model_dir=model_dir,
        out=out,
        data_dir=data_dir,
        version=version,
        epochs=epochs,
        lr=lr,
        prompt_share=prompt_share,
        seed=seed,
        cache=cache,
    )
    src: Path = p["model_dir"]
    dst: Path = p["out"]
    if src.resolve() == dst.resolve():
        raise ConfigError("--out must be another folder than the model's.")
    require_train_extra()
    import onnx

    from ..moderators.builtin import BuiltinModerator, load_card
    from ._config import load_tokenizer
    from ._loop import encode
    from ._provenance import card_stages, run_span_gold
    from ._thresholds import choose_span_threshold, trial_span_key

    card = load_card(src)
    stages = card_stages(card)
    max_len = int(stages[-1].get("config", {}).get("max_len", 256))
    labelled, prompts, held = span_head_examples(p["data_dir"], card)
    log.info(
        "span head: %d labelled texts, %d clean prompts (%d held out)",
        len(labelled),
        len(prompts),
        len(held),
    )
    tok = load_tokenizer(src / "tokenizer.json", max_len)
    enc = [encode(e, tok) for e in labelled + prompts]
    model = onnx.load(str(src / "model.onnx"))
    quantization = card.get("quantization")
    feats, shipped = _cached_features(
        p["cache"], model, quantization, [x.ids for x in enc], card.get("sha256", {})
    )
    rows: list[np.ndarray] = []
    old: list[np.ndarray] = []
    tox: list[int] = []
    typ: list[int] = []
    prompt: list[bool] = []
    for i, x in enumerate(enc):
        keep = [j for j, (a, c) in enumerate(zip(x.tox, x.typ, strict=True)) if a >= 0 or c >= 0]
        rows.append(feats[i][keep])
        old.append(shipped[i][keep])
        tox.extend(x.tox[j] for j in keep)
        typ.extend(x.typ[j] for j in keep)
        prompt.extend([i >= len(labelled)] * len(keep))
    h = np.concatenate(rows)
    t_arr = np.array(tox, dtype=np.int64)
    c_arr = np.array(typ, dtype=np.int64)
    is_prompt = np.array(prompt, dtype=bool)
    n_prompt = int((is_prompt & (t_arr >= 0)).sum())
    n_other = int((~is_prompt & (t_arr >= 0)).sum())
    # prompt tokens carry prompt_share of the toxic-token loss, the others the rest
    w_prompt = prompt_share / (1 - prompt_share) * n_other / max(n_prompt, 1)
    weights = np.where(is_prompt, w_prompt, 1.0)
    w0 = _recover_head(h, np.concatenate(old), p["seed"])
    fitted, losses = _fit(
        h,
        t_arr,
        c_arr,
        weights,
        w0,
        epochs=p["epochs"],
        lr=p["lr"],
        type_weight=float(stages[-1].get("config", {}).get("type_weight", 0.5)),
        seed=p["seed"],
    )
    new = save_refit(with_token_head(model, fitted[:-1], fitted[-1]), src, dst, card, p["version"])
    new["span_head"] = {
        "from": refit_origin(card),
        "sources": dict(Counter(e.source for e in labelled)),
        "clean_prompts": {
            "fitted": dict(Counter(e.source for e in prompts)),
            "held_out": len(held),
        },
        "tokens": {"labelled": n_other, "prompt": n_prompt, "prompt_weight": round(w_prompt, 5)},
        "config": {
            "epochs": p["epochs"],
            "lr": p["lr"],
            "prompt_share": p["prompt_share"],
            "seed": p["seed"],
            "max_len": max_len,
        },
        "loss": losses,
    }
    # the model folder needs its card (pinning the new file) before it can be loaded
    (dst / "card.json").write_text(json.dumps(new, indent=2) + "\n")
    gold = run_span_gold(stages)
    point, f1 = choose_span_threshold(BuiltinModerator(model_dir=str(dst)), p["data_dir"], gold)
    key = trial_span_key(gold)
    new["thresholds"]["span"] = point
    new.setdefault("dev", {})[key] = round(f1, 4)
    before = BuiltinModerator(model_dir=str(src))
    after = BuiltinModerator(model_dir=str(dst), thresholds={"span": point})
    texts = [e.text for e in held]
    new["span_head"]["dev"] = {
        "held_out_prompts": len(texts),
        "held_out_prompts_with_span_before": _span_share(before, texts),
        "held_out_prompts_with_span": _span_share(after, texts),
        f"{key}_before": card.get("dev", {}).get(key),
    }
    (dst / "card.json").write_text(json.dumps(new, indent=2) + "\n")
    return new


def _span_share(mod: Any, texts: list[str]) -> float | None:
    if not texts:
        return None
    return round(sum(bool(a.spans) for a in mod.analyze(texts)) / len(texts), 4)
