"""Refit a model's delicate head on its frozen encoder (``tactful train delicate-head``).

The sequence head is one linear layer over the mean-pooled encoder states; each head
is one row of its weight. Refitting the ``delicate`` row alone changes the delicate
score and nothing else: every other score, decision and operating point stays
bit-identical, and no fold run has to be made again.

The refit is a logistic regression on the pooled features read from the shipped ONNX
file, on three groups of texts (:func:`delicate_head_examples`):

* ``detexd``: the DeTexD rows the card's stages drew, with their labels (the rows they
  did not draw stay held out, to choose the point on: :func:`~tactful.train.delicate_dev_rows`);
* templates: the grief and serious-illness training templates (delicate) and the
  harmless training templates (identity mentions, support of a group, technical
  verbs, injection lookalikes, contrast rows: not delicate), together weighted as
  ``template_share`` of the DeTexD rows;
* ``toxicchat``: ToxicChat train prompts labelled non-toxic, as weak negatives
  (chat is rarely delicate), weighted as ``template_share`` of the DeTexD rows.

The row is refit in a float32 ``Gemm``: ``builtin-large``'s head is one (weight-only
int8 encoder); ``builtin``'s dynamically quantized head (its pooled activations
quantized per call) is first replaced by the float ``Gemm`` of its dequantized weight
(:func:`float_seq_head`), so the refit model's other scores move by that rounding.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .._heads import SEQ_HEADS
from ..errors import ConfigError, ModelError
from ..params import Constraints, Float, Int, Nullable, PathLike, Str, validate_params
from ._config import TRAIN_EXTRA_MESSAGE

__all__ = [
    "delicate_head_examples",
    "float_seq_head",
    "refit_delicate_head",
    "with_delicate_row",
]

#: The sequence head's weight (heads x hidden, ``transB=1``) and bias in every export.
SEQ_WEIGHT = "model.seq_head.weight"
SEQ_BIAS = "model.seq_head.bias"
#: Harmless identity mentions drawn from the training templates (seeded).
IDENTITY_NEGATIVES = 400


def _head_error(command: str) -> ConfigError:
    return ConfigError(
        f"The model's sequence head is neither one float Gemm of {SEQ_WEIGHT} "
        "(transB=1) nor a dynamically quantized one (MatMulInteger): "
        f"tactful train {command} cannot refit it."
    )


def _seq_gemm(model: Any, command: str = "delicate-head") -> Any:
    gemms = [n for n in model.graph.node if n.op_type == "Gemm" and SEQ_WEIGHT in n.input]
    trans = {a.name: a.i for a in gemms[0].attribute} if len(gemms) == 1 else {}
    inits = {i.name for i in model.graph.initializer}
    if len(gemms) != 1 or trans.get("transB") != 1 or SEQ_BIAS not in inits:
        raise _head_error(command)
    return gemms[0]


def float_seq_head(model: Any, command: str = "delicate-head") -> tuple[Any, bool]:
    """The model with a float sequence head, and whether it had to be made so.

    A float ``Gemm`` of :data:`SEQ_WEIGHT` comes back as it is. A dynamically quantized
    head (``builtin``'s: ``DynamicQuantizeLinear`` of the pooled states, ``MatMulInteger``
    with the int8 weight, the scales' ``Mul`` and the bias ``Add``) is replaced by one
    float ``Gemm`` (``transB=1``) of the dequantized weight, ``(q - zero_point) * scale``,
    writing the tensor the ``Add`` wrote; the encoder stays as it was. The head then
    reads the pooled states unquantized, so its scores move by the activation's
    rounding (at most a few thousandths); a refit measures the new model again.
    Anything else is refused (:func:`_seq_gemm`'s error).
    """
    import onnx
    from onnx import helper, numpy_helper

    if any(n.op_type == "Gemm" and SEQ_WEIGHT in n.input for n in model.graph.node):
        _seq_gemm(model, command)
        return model, False
    nodes = list(model.graph.node)
    inits = {i.name: i for i in model.graph.initializer}
    mmi = [n for n in nodes if n.op_type == "MatMulInteger" and n.input[1].startswith(SEQ_WEIGHT)]
    consumers: dict[str, list[Any]] = {}
    for n in nodes:
        for i in n.input:
            consumers.setdefault(i, []).append(n)
    produced = {o: n for n in nodes for o in n.output}
    if len(mmi) != 1:
        raise _head_error(command)
    q_name, zp_name = mmi[0].input[1], mmi[0].input[3]
    scale_name = q_name.replace("_quantized", "_scale")
    dql = produced.get(mmi[0].input[0])
    # the head's nodes: from the MatMulInteger forward to the Add of the bias
    head: list[Any] = [mmi[0]]
    frontier = list(mmi[0].output)
    add = None
    while frontier and add is None:
        for user in consumers.get(frontier.pop(0), []):
            if user in head:
                continue
            head.append(user)
            if user.op_type == "Add" and SEQ_BIAS in user.input:
                add = user
                break
            frontier.extend(user.output)
    scales = [
        produced[i]
        for n in head
        if n.op_type == "Mul"
        for i in n.input
        if i in produced and produced[i].op_type == "Mul" and scale_name in produced[i].input
    ]
    if (
        add is None
        or dql is None
        or dql.op_type != "DynamicQuantizeLinear"
        or not {
            q_name,
            zp_name,
            scale_name,
        }
        <= set(inits)
    ):
        raise _head_error(command)
    q = numpy_helper.to_array(inits[q_name]).astype(np.float32)
    zp = numpy_helper.to_array(inits[zp_name]).astype(np.float32)
    scale = numpy_helper.to_array(inits[scale_name]).astype(np.float32)
    weight = ((q - zp) * scale).T.astype(np.float32)  # [heads, hidden]
    drop = {id(n) for n in [*head, *scales]}
    dql_used = {id(u) for o in dql.output for u in consumers.get(o, []) if id(u) not in drop}
    if not dql_used:
        drop.add(id(dql))
    m = onnx.ModelProto()
    m.CopyFrom(model)
    del m.graph.node[:]
    gemm = helper.make_node(
        "Gemm",
        [dql.input[0], SEQ_WEIGHT, SEQ_BIAS],
        list(add.output),
        name="/seq_head/Gemm",
        transB=1,
    )
    for n in nodes:
        if id(n) == id(add):
            m.graph.node.append(gemm)
        elif id(n) not in drop:
            m.graph.node.append(n)
    kept = [i for i in m.graph.initializer if i.name not in (q_name, zp_name, scale_name)]
    del m.graph.initializer[:]
    m.graph.initializer.extend([*kept, numpy_helper.from_array(weight, SEQ_WEIGHT)])
    _seq_gemm(m)
    return m, True


def with_seq_rows(model: Any, rows: dict[int, tuple[np.ndarray, float]]) -> Any:
    """A copy of an ONNX model whose sequence logit ``i`` is ``pooled @ weight + bias``
    for each ``i: (weight, bias)`` of ``rows``.

    Only those rows of :data:`SEQ_WEIGHT` and entries of :data:`SEQ_BIAS` change; the
    graph's nodes and every other value are kept as they were.
    """
    import onnx
    from onnx import numpy_helper

    _seq_gemm(model)
    m = onnx.ModelProto()
    m.CopyFrom(model)
    for init in m.graph.initializer:
        if init.name in (SEQ_WEIGHT, SEQ_BIAS):
            values = numpy_helper.to_array(init).astype(np.float32).copy()
            for i, (weight, bias) in rows.items():
                values[i] = np.asarray(weight, np.float32) if init.name == SEQ_WEIGHT else bias
            init.CopyFrom(numpy_helper.from_array(values, init.name))
    return m


def with_delicate_row(model: Any, weight: np.ndarray, bias: float) -> Any:
    """A copy of an ONNX model whose ``delicate`` logit is ``pooled @ weight + bias``
    (:func:`with_seq_rows`)."""
    return with_seq_rows(model, {SEQ_HEADS.index("delicate"): (weight, bias)})


def open_refit(src: Path, dst: Path) -> tuple[dict[str, Any], Any, int]:
    """A head refit's start: refuse to write over ``src``; its card, its ONNX model
    (loaded) and the max length its last stage trained with."""
    if src.resolve() == dst.resolve():
        raise ConfigError("--out must be another folder than the model's.")
    try:
        import onnx
    except ImportError:
        raise ModelError(TRAIN_EXTRA_MESSAGE.format(missing="onnx")) from None
    from ..moderators.builtin import load_card
    from ._provenance import card_stages

    card = load_card(src)
    stages = card_stages(card)
    max_len = int(stages[-1].get("config", {}).get("max_len", 256)) if stages else 256
    return card, onnx.load(str(src / "model.onnx")), max_len


def _pooled_tensor(model: Any) -> str:
    """The name of the pooled states [B, H] that the sequence head reads: the input of
    its float ``Gemm``, or, in a dynamically quantized graph, the tensor its
    ``DynamicQuantizeLinear`` quantizes before the head's ``MatMulInteger``."""
    produced = {o: n for n in model.graph.node for o in n.output}
    for n in model.graph.node:
        if n.op_type == "Gemm" and SEQ_WEIGHT in n.input:
            return str(n.input[0])
        if n.op_type == "MatMulInteger" and n.input[1].startswith(SEQ_WEIGHT):
            source = produced.get(n.input[0])
            if source is not None and source.op_type == "DynamicQuantizeLinear":
                return str(source.input[0])
    raise ConfigError(f"The model has no sequence head that reads {SEQ_WEIGHT}.")


def pooled_features(
    model: Any, quantization: str | None, ids: Sequence[Sequence[int]], *, batch_size: int = 16
) -> tuple[np.ndarray, np.ndarray]:
    """Per text: the pooled states the sequence head reads, and the shipped sequence
    probabilities, run in :func:`~._spanhead.padded_batches`.

    Parameters
    ----------
    model : onnx.ModelProto
        A model folder's ``model.onnx``, loaded.
    quantization : str or None
        The card's ``quantization``.
    ids : sequence of sequence of int
        Each text's token ids.
    batch_size : int
        Texts per call (one for a dynamically quantized graph).

    Returns
    -------
    tuple of numpy.ndarray
        The pooled states ``[N, H]`` and the sequence probabilities ``[N, heads]``.
    """
    import onnx

    from ._spanhead import _session, padded_batches

    pooled = _pooled_tensor(model)
    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    probe.graph.output.append(
        onnx.helper.make_tensor_value_info(pooled, onnx.TensorProto.FLOAT, None)
    )
    sess = _session(probe, quantization, 2)
    feats: list[np.ndarray] = [np.zeros(0, np.float32)] * len(ids)
    probs: list[np.ndarray] = [np.zeros(0, np.float32)] * len(ids)
    for group, feed in padded_batches(ids, quantization, batch_size):
        seq, h = sess.run(["seq", pooled], feed)
        for r, i in enumerate(group):
            feats[i] = h[r].astype(np.float32)
            probs[i] = seq[r].astype(np.float32)
    return np.stack(feats), np.stack(probs)


def delicate_head_examples(
    data_dir: str | Path | None,
    card: dict[str, Any],
    *,
    chat_negatives: int = 1000,
    seed: int = 0,
) -> list[tuple[str, int, str]]:
    """The texts a delicate-head refit learns from: ``(text, delicate label, source)``.

    DeTexD rows the card's stages drew (``detexd``); the grief and illness training
    templates (``delicate_templates``, 1); the harmless training templates
    (``identity_negatives``: :data:`IDENTITY_NEGATIVES` seeded identity mentions;
    ``exclusion``: the support-of-a-group rows; ``technical``; ``injection``: the
    lookalikes; ``contrast``; all 0); ``chat_negatives`` seeded ToxicChat train
    prompts labelled non-toxic (``toxicchat``, 0). Training splits only: the dev
    templates stay held out.
    """
    from ..datasets import load_dataset, load_holistic_descriptors
    from ._devrows import delicate_dev_rows
    from ._provenance import card_stages
    from ._suite_data import (
        contrast_template_records,
        delicate_template_records,
        exclusion_template_records,
        holistic_person_nouns,
        identity_negatives,
        injection_template_records,
        technical_template_records,
    )

    held = {r.text for r in delicate_dev_rows(data_dir, card_stages(card))}
    out = [
        (r.text, int(r.label or 0), "detexd")
        for r in load_dataset("detexd", "all", data_dir)
        if r.text not in held
    ]
    out += [(r.text, 1, "delicate_templates") for r in delicate_template_records(split="train")]
    identity = identity_negatives(
        load_holistic_descriptors(data_dir), nouns=holistic_person_nouns(data_dir), split="train"
    )
    texts = sorted({r.text for r in identity})
    out += [
        (t, 0, "identity_negatives")
        for t in random.Random(seed).sample(texts, min(IDENTITY_NEGATIVES, len(texts)))
    ]
    out += [
        (r.text, 0, "exclusion") for r in exclusion_template_records(split="train") if r.label == 0
    ]
    out += [(r.text, 0, "technical") for r in technical_template_records(split="train")]
    out += [
        (r.text, 0, "injection") for r in injection_template_records(split="train") if r.label == 0
    ]
    out += [
        (r.text, 0, "contrast") for r in contrast_template_records(split="train") if r.label == 0
    ]
    chat = sorted(
        {r.text for r in load_dataset("toxicchat", "train", data_dir) if r.labels["toxicity"] == 0}
    )
    out += [
        (t, 0, "toxicchat")
        for t in random.Random(seed + 1).sample(chat, min(chat_negatives, len(chat)))
    ]
    return out


_REFIT_CONSTRAINTS: Constraints = {
    "model_dir": PathLike(),
    "out": PathLike(),
    "data_dir": Nullable(PathLike()),
    "version": Str(nonempty=True),
    "c": Float(0, None, closed="neither"),
    "template_share": Float(0, None),
    "chat_negatives": Int(0),
    "seed": Int(0),
}


def refit_delicate_head(
    model_dir: str | Path,
    out: str | Path,
    data_dir: str | Path | None = None,
    *,
    version: str,
    c: float = 1.0,
    template_share: float = 0.5,
    chat_negatives: int = 1000,
    seed: int = 0,
) -> dict[str, Any]:
    """Refit the delicate row of the sequence head of the model in ``model_dir``;
    write the model to ``out`` with its delicate point chosen again.

    Parameters
    ----------
    model_dir, out : path
        The model folder and the new one (created; its files are overwritten).
    data_dir : path, optional
        The data folder (DeTexD, ToxicChat, HolisticBias).
    version : str
        The new model's version.
    c : float
        The inverse L2 strength of the logistic regression (scikit-learn's ``C``).
    template_share : float
        The weight of the template rows, and again of the chat rows, as a share of
        the DeTexD rows' weight.
    chat_negatives : int
        ToxicChat train prompts labelled non-toxic, as weak negatives.
    seed : int
        The seed of the samples.

    Returns
    -------
    dict
        The new card: ``thresholds.delicate`` chosen on the held-out DeTexD rows
        (:func:`~tactful.train.choose_delicate_threshold`), ``delicate_head``
        recording what the row was refit from and on, and the held-out delicate
        templates' recall and the ToxicChat dev non-toxic prompts called delicate,
        before and after.
    """
    p = validate_params(
        "refit_delicate_head",
        _REFIT_CONSTRAINTS,
        model_dir=model_dir,
        out=out,
        data_dir=data_dir,
        version=version,
        c=c,
        template_share=template_share,
        chat_negatives=chat_negatives,
        seed=seed,
    )
    src: Path = p["model_dir"]
    dst: Path = p["out"]
    card, model, max_len = open_refit(src, dst)
    model, dequantized = float_seq_head(model)  # builtin's quantized head made float
    from sklearn.linear_model import LogisticRegression

    from ..moderators.builtin import BuiltinModerator
    from ._config import load_tokenizer
    from ._devrows import delicate_dev_rows, delicate_dev_shares
    from ._provenance import card_stages
    from ._spanhead import refit_origin, save_refit
    from ._thresholds import choose_delicate_threshold

    stages = card_stages(card)
    examples = delicate_head_examples(
        p["data_dir"], card, chat_negatives=p["chat_negatives"], seed=p["seed"]
    )
    tok = load_tokenizer(src / "tokenizer.json", max_len)
    ids = [tok.encode(t).ids for t, _, _ in examples]
    x, _ = pooled_features(model, card.get("quantization"), ids)
    y = np.array([label for _, label, _ in examples], dtype=int)
    source = np.array([s for _, _, s in examples])
    n_detexd = int((source == "detexd").sum())
    is_chat = source == "toxicchat"
    is_template = ~is_chat & (source != "detexd")
    weights = np.ones(len(y))
    weights[is_template] = p["template_share"] * n_detexd / max(int(is_template.sum()), 1)
    weights[is_chat] = p["template_share"] * n_detexd / max(int(is_chat.sum()), 1)
    fit = LogisticRegression(C=p["c"], max_iter=5000).fit(x, y, sample_weight=weights)

    row = with_delicate_row(model, fit.coef_[0], float(fit.intercept_[0]))
    new = save_refit(row, src, dst, card, p["version"])
    new["delicate_head"] = {
        "from": refit_origin(card),
        "sources": dict(Counter(source.tolist())),
        "positives": dict(Counter(source[y == 1].tolist())),
        "dequantized_head": dequantized,
        "config": {
            "c": p["c"],
            "template_share": p["template_share"],
            "chat_negatives": p["chat_negatives"],
            "seed": p["seed"],
            "max_len": max_len,
        },
    }
    (dst / "card.json").write_text(json.dumps(new, indent=2) + "\n")
    after = BuiltinModerator(model_dir=str(dst))
    held = delicate_dev_rows(p["data_dir"], stages)
    point, fig = choose_delicate_threshold(after, held)
    if point is not None:
        new["thresholds"]["delicate"] = point
    new.setdefault("dev", {}).update(fig)
    new["delicate_head"]["dev"] = delicate_dev_shares(
        BuiltinModerator(model_dir=str(src)),
        after,
        float(card["thresholds"].get("delicate", 0.5)),
        float(new["thresholds"]["delicate"]),
        p["data_dir"],
    )
    (dst / "card.json").write_text(json.dumps(new, indent=2) + "\n")
    return new
