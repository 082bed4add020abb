"""The ``builtin`` and ``builtin-large`` moderators: tactful's multi-task models
(MiniLM and mpnet), run with onnxruntime.

One forward pass answers every head (toxicity, offensive, insult, threat,
identity attack, profanity, jailbreak, delicate) and tags toxic tokens, which
are decoded to character spans of the text the user sent.

Pipeline per batch: normalize (obfuscation folding with an offset map) →
tokenize without truncation → cut texts longer than the window into
overlapping windows → onnxruntime (fused, int8) on each text's windows of
equal length, single-threaded calls spread over the CPU cores (or, with
``batching="sorted"``, length-sorted batches across texts) → per text, max
over windows → spans mapped back through the tokenizer and normalizer offsets.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from .._hashing import sha256_file
from .._heads import CATEGORY_HEADS, SEQ_HEADS, SPAN_TYPES, check_heads
from .._models import model_dir as _installed_model_dir
from .._types import Analysis, Span
from ..align import Normalized, align_tokens, replace_surrogates, trim_span
from ..errors import ModelError, UnknownNameError
from ..normalize import normalize
from ..params import Constraint, Constraints, Float, Int, Nullable, OneOf, Str, check_param
from ..taxonomy import HARM_CATEGORIES
from ._texts import Configured, check_texts

if TYPE_CHECKING:
    from .._trained import TrainedTexts

__all__ = [
    "PACKAGED_MODELS",
    "RUNTIME_REVISION",
    "SEQ_HEADS",
    "SPAN_GATE",
    "SPAN_TYPES",
    "BuiltinLargeModerator",
    "BuiltinModerator",
    "default_model_dir",
    "flagged_beside_toxicity",
    "load_card",
]

_ONNX_NAME = "model.onnx"
_TOKENIZER_NAME = "tokenizer.json"
_CARD_NAME = "card.json"


#: The models tactful ships, by moderator name: ``builtin`` in the ``tactful`` wheel,
#: ``builtin-large`` in the ``tactful-builtin-large`` distribution.
PACKAGED_MODELS = ("builtin", "builtin-large")


def default_model_dir(name: str = "builtin") -> Path:
    """The folder of the packaged model ``name`` (one of :data:`PACKAGED_MODELS`), found
    by its ``tactful.models`` entry point; a :class:`~tactful.errors.ModelError` names
    the package to install when it is not installed."""
    if name not in PACKAGED_MODELS:
        raise UnknownNameError("packaged model", name, list(PACKAGED_MODELS))
    return _installed_model_dir(name)


def load_card(model_dir: str | Path | None = None, name: str = "builtin") -> dict[str, Any]:
    """The model card (``card.json``) of a model folder; the packaged model ``name``'s
    when ``model_dir`` is None."""
    path = Path(model_dir or default_model_dir(name)) / _CARD_NAME
    try:
        card: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return card
    except FileNotFoundError:
        raise ModelError(f"No model card at {path}: the {name} model is not installed.") from None
    except (OSError, ValueError) as exc:
        raise ModelError(f"Cannot read the model card {path}: {exc}") from None


#: Revision of what turns the model's outputs into an Analysis (normalization,
#: windows, span rules): part of :attr:`BuiltinModerator.version`, so that stored
#: answers of an older revision are not reused. 2: spans end by the one span-edge
#: rule (tactful.align.trim_span: a final "!" or "?" is not part of a word). 3: an
#: empty or white-space-only text gets every score 0 without asking the model. 4: a
#: window opens and closes with the ids the tokenizer's post-processor adds, the ones
#: training used (MPNet's <s>/</s>, not the [CLS]/[SEP] its vocabulary also holds).
#: 5: in a model with harm categories, a span is typed threat only where the text's
#: threat score is at least half its point (else "other").
RUNTIME_REVISION = 5

#: A text gets spans only if the toxicity or offensive head gives it at least SPAN_GATE.
#: Chosen on dev data: SemEval trial span F1 0.6734 and 61 of 242 benign ToxicChat dev
#: prompts with a span, against 0.6706 / 62 for a gate of 0.2 on all six toxicity heads.
SPAN_GATE = 0.1
_GATE = [SEQ_HEADS.index(h) for h in ("toxicity", "offensive")]
_THREAT = SEQ_HEADS.index("threat")
_THREAT_TYPE = SPAN_TYPES.index("threat")


def _span_type(t: np.ndarray, threat_ok: bool) -> str:
    """A span's type: the type head's best, and ``other`` for its threat in a text
    that the threat head does not find threatening."""
    k = int(np.argmax(t))
    return "other" if k == _THREAT_TYPE and not threat_ok else SPAN_TYPES[k]


#: Operating points besides the heads: the high-precision points at which the
#: comment-toxicity head (``offensive_or``), the threat head (``threat_or``) and the
#: insult head (``insult_or``) also flag a text, and the token head's (``span``). A
#: card without one never ORs that head in. A harm category may have two points: its own
#: (``hate``), at which it names the harm of a flagged text, and ``hate_or``, at which it
#: flags a text by itself (chosen above the harmless dev sets, so that a category alone
#: does not flag a mention of a group or counter-speech); a card without ``CATEGORY_or``
#: flags at the category's own point.
_EXTRA_THRESHOLDS = (
    "offensive_or",
    "threat_or",
    "insult_or",
    "span",
    *(f"{c}_or" for c in HARM_CATEGORIES),
)


#: What :meth:`BuiltinModerator.predict_arrays` returns, per text: sequence
#: probabilities [H], token toxic probabilities [T], token type probabilities [T, K],
#: the normalization, and the tokenizer offsets into the normalized text.
_Arrays = tuple[
    np.ndarray,
    list[np.ndarray],
    list[np.ndarray],
    list[Normalized],
    list[list[tuple[int, int]]],
]


@dataclass(frozen=True, slots=True)
class _Window:
    text_index: int
    token_start: int  # index into the text's token list (without specials)
    ids: np.ndarray  # with [CLS] ... [SEP]


@dataclass(frozen=True)
class _Thresholds(Constraint):
    """Operating points by head: a mapping of a head name to a float in [0, 1]."""

    def describe(self) -> str:
        return "a mapping of head name to a float in [0, 1], heads: " + ", ".join(
            (*CATEGORY_HEADS, *_EXTRA_THRESHOLDS)
        )

    def convert(self, value: Any) -> dict[str, float] | None:
        if not isinstance(value, Mapping):
            raise TypeError
        heads = Float(0.0, 1.0)
        out = {}
        for head, t in value.items():
            if head not in CATEGORY_HEADS and head not in _EXTRA_THRESHOLDS:
                raise ValueError
            out[head] = heads.convert(t)
        return out or None


#: Heads with an ``Analysis`` field of their own rather than a place in ``scores``.
_FIELD_HEADS = ("jailbreak", "delicate")


def flagged_beside_toxicity(
    probs: Mapping[str, float], th: Mapping[str, float], categories: Sequence[str]
) -> bool:
    """Whether a text is toxic by a head other than the prompt-toxicity head: the
    comment-toxicity, threat or insult head at its high-precision point (card:
    ``offensive_or``, ``threat_or``, ``insult_or``), or, in a model with harm-category
    heads, any category at its flagging point (``CATEGORY_or``, else its own). A text is
    flagged if this holds or its toxicity score reaches the toxicity point."""
    return (
        probs["offensive"] >= th.get("offensive_or", 1.01)
        or probs["threat"] >= th.get("threat_or", 1.01)
        or probs["insult"] >= th.get("insult_or", 1.01)
        or any(probs[c] >= th.get(f"{c}_or", th.get(c, 0.5)) for c in categories)
    )


def _blank(heads: Sequence[str]) -> Analysis:
    """The answer to an empty or white-space-only text (:meth:`BuiltinModerator.analyze`)."""
    return Analysis(
        flagged=False,
        scores={h: 0.0 for h in heads if h not in _FIELD_HEADS},
        spans=(),
        jailbreak=0.0,
        delicate=0.0,
        flags={h: False for h in heads},
        raw={"probs": dict.fromkeys(heads, 0.0), "blank": True},
    )


class BuiltinModerator(Configured):
    """tactful's own model (multi-task all-MiniLM-L6-v2, ONNX int8).

    Parameters
    ----------
    model_dir : str or None, default=None
        Folder with ``model.onnx``, ``tokenizer.json`` and ``card.json``; the
        model shipped in the package when None.
    batch_size : int, default=32
        Windows per onnxruntime call.
    batching : {"text", "sorted"}, default="text"
        ``"text"``: each onnxruntime call holds windows of one text only, all of
        the same length (no padding), so a text's answer never depends on the
        other texts of the batch; the calls run single-threaded, ``threads`` at
        a time. ``"sorted"``: windows of all texts sorted by length and padded
        per batch, each call using ``threads`` intra-op threads. With a model of
        dynamic int8 quantization (up to 1.2.0) activations are scaled per call, so
        a text's scores move with its batch-mates (by up to 0.54 on ToxicChat test
        with model 1.1.0; see ``bench/speed.py``); a card with ``"quantization":
        "weights"`` (int8 weights, float activations) gives the same answers both ways.
    max_tokens : int, default=256
        Window length in tokens, special tokens included.
    stride : int, default=64
        Tokens shared by consecutive windows of a long text.
    threads : int or None, default=None
        CPU threads: concurrent single-threaded calls with ``batching="text"``,
        onnxruntime intra-op threads with ``"sorted"``; all usable cores when None.
    thresholds : mapping or None, default=None
        Per-head operating points overriding the card's (e.g. ``{"toxicity": 0.4}``).
    """

    name = "builtin"

    _parameter_constraints: ClassVar[Constraints] = {
        "model_dir": Nullable(Str(nonempty=True)),
        "batch_size": Int(1),
        "batching": OneOf(["text", "sorted"]),
        "max_tokens": Int(16, 512),
        "stride": Int(0),
        "threads": Nullable(Int(1)),
        "thresholds": Nullable(_Thresholds()),
    }

    model_dir: str | None
    batch_size: int
    batching: str
    max_tokens: int
    stride: int
    threads: int | None
    thresholds: dict[str, float] | None

    def __init__(
        self,
        *,
        model_dir: str | None = None,
        batch_size: int = 32,
        batching: str = "text",
        max_tokens: int = 256,
        stride: int = 64,
        threads: int | None = None,
        thresholds: dict[str, float] | None = None,
    ) -> None:
        self._set_params(
            model_dir=model_dir,
            batch_size=batch_size,
            batching=batching,
            max_tokens=max_tokens,
            stride=stride,
            threads=threads,
            thresholds=thresholds,
        )
        # The one rule that depends on another parameter: windows must advance.
        check_param(type(self).__name__, "stride", stride, Int(0, self.max_tokens - 3))

    # -- lazily loaded state -------------------------------------------------
    @property
    def _dir(self) -> Path:
        return Path(self.model_dir) if self.model_dir else default_model_dir(self.name)

    @cached_property
    def card(self) -> dict[str, Any]:
        return load_card(self._dir, self.name)

    @property
    def version(self) -> str:
        # The card's version plus the pinned model hash, so that a re-shipped model
        # under the same version number never shares stored answers with the old one,
        # plus the revision of the code around the model (RUNTIME_REVISION).
        digest = str(self.card.get("sha256", {}).get(_ONNX_NAME, ""))[:12]
        base = str(self.card.get("version", "0"))
        base = f"{base}+{digest}" if digest else base
        return f"{base}.r{RUNTIME_REVISION}"

    @cached_property
    def heads(self) -> tuple[str, ...]:
        """The model's sequence heads, in the order of its ``seq`` output: the card's
        ``heads``, which are :data:`SEQ_HEADS` and then any of the harm categories
        (:data:`tactful.taxonomy.HARM_CATEGORIES`) the model was trained on."""
        try:
            heads = check_heads(self.card.get("heads") or SEQ_HEADS)
        except ValueError as err:
            raise ModelError(f"The card in {self._dir} lists {err}") from None
        return heads

    @cached_property
    def _thresholds(self) -> dict[str, float]:
        th = {h: float(v) for h, v in self.card.get("thresholds", {}).items()}
        th.update(self.thresholds or {})
        return th

    @cached_property
    def _tokenizer(self) -> Any:  # tokenizers.Tokenizer
        from tokenizers import Tokenizer

        path = self._dir / _TOKENIZER_NAME
        if not path.is_file():
            raise ModelError(f"No tokenizer at {path}.")
        tok = Tokenizer.from_file(str(path))
        tok.no_padding()
        tok.no_truncation()
        return tok

    @cached_property
    def _session(self) -> Any:  # onnxruntime.InferenceSession
        import onnxruntime as ort

        path = self._dir / _ONNX_NAME
        self.card  # noqa: B018  (a folder without a card is not a model folder)
        if not path.is_file():
            raise ModelError(f"No model file at {path}: the {self.name} model is not installed.")
        want = self.card.get("sha256", {}).get(_ONNX_NAME)
        if want is not None and sha256_file(path) != want:
            raise ModelError(f"The model file {path} does not match the sha256 pinned in its card.")
        opts = ort.SessionOptions()
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # Per-text calls are small: one thread each, several calls at a time, beats
        # one call at a time on all cores (bench/speed.py).
        opts.intra_op_num_threads = 1 if self.batching == "text" else self._threads
        opts.log_severity_level = 3
        if self.card.get("quantization") == "weights":
            # int8 weights behind DequantizeLinear nodes: with the QDQ fusions off,
            # onnxruntime folds them into float32 weights once, at load, instead of
            # dequantizing on every call (2x slower: research/quantization.py).
            opts.add_session_config_entry("session.disable_quant_qdq", "1")
        return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])

    @cached_property
    def _threads(self) -> int:
        if self.threads:
            return self.threads
        try:
            return max(1, len(os.sched_getaffinity(0)))
        except AttributeError:  # pragma: no cover - not on Linux
            return max(1, os.cpu_count() or 1)

    @cached_property
    def _trained_texts(self) -> TrainedTexts | None:
        from .._trained import read_trained_texts

        return read_trained_texts(self._dir, self.card)

    def trained_texts(self) -> TrainedTexts | None:
        """The texts this model was trained on, as fingerprints (``trained_texts.bin``,
        pinned by the card, read on first use); None when the card pins none.
        ``tactful.evaluate`` counts scored rows among them (in-sample scores)."""
        return self._trained_texts

    def load(self) -> BuiltinModerator:
        """Load the model now instead of on the first call."""
        _ = self._session, self._tokenizer, self._thresholds
        return self

    # -- inference -------------------------------------------------------------
    @cached_property
    def _specials(self) -> tuple[int, int]:
        """The ids that open and close a window: the two the tokenizer's post-processor
        puts around a text, as in training (BERT's [CLS]/[SEP], MPNet's <s>/</s>:
        MPNet's vocabulary holds [CLS] and [SEP] too, which it was never trained on);
        by name for a tokenizer without a post-processor."""
        tok = self._tokenizer
        added = tok.encode("", add_special_tokens=True).ids
        if len(added) == 2:
            return int(added[0]), int(added[1])
        for first, last in (("[CLS]", "[SEP]"), ("<s>", "</s>")):
            a, b = tok.token_to_id(first), tok.token_to_id(last)
            if a is not None and b is not None:
                return int(a), int(b)
        raise ModelError(f"The tokenizer of {self._dir} has neither [CLS]/[SEP] nor <s>/</s>.")

    def _windows(self, i: int, ids: list[int]) -> list[_Window]:
        cls_id, sep_id = self._specials
        body = self.max_tokens - 2
        step = body - self.stride
        out, start = [], 0
        while True:
            chunk = ids[start : start + body]
            out.append(_Window(i, start, np.array([cls_id, *chunk, sep_id], dtype=np.int64)))
            if start + body >= len(ids):
                return out
            start += step

    def predict_arrays(self, texts: Sequence[str]) -> _Arrays:
        """Per text: (sequence probs [H], token toxic probs [T], token type probs [T, K], norm, offsets)."""
        sess = self._session  # first: a missing or tampered model fails before any work
        norms = [normalize(t) for t in texts]
        # Lone surrogates (valid in a Python str, not in UTF-8) become U+FFFD one for
        # one, for the tokenizer only: its offsets stay offsets into the normalized text.
        encs = self._tokenizer.encode_batch(
            [replace_surrogates(n.text) for n in norms], add_special_tokens=False
        )
        windows: list[_Window] = []
        for i, e in enumerate(encs):
            windows.extend(self._windows(i, e.ids))
        heads = self.heads
        seq = np.zeros((len(texts), len(heads)), dtype=np.float32)
        tok_tox = [np.zeros(len(e.ids), dtype=np.float32) for e in encs]
        tok_typ = [np.zeros((len(e.ids), len(SPAN_TYPES)), dtype=np.float32) for e in encs]
        if self.batching == "sorted":
            order = sorted(range(len(windows)), key=lambda k: len(windows[k].ids))
            groups = [order[b : b + self.batch_size] for b in range(0, len(order), self.batch_size)]
        else:
            # One text's windows of one length per call: no padding, no batch-mates.
            same: dict[tuple[int, int], list[int]] = {}
            for k, w in enumerate(windows):
                same.setdefault((w.text_index, len(w.ids)), []).append(k)
            groups = [
                ks[b : b + self.batch_size]
                for ks in same.values()
                for b in range(0, len(ks), self.batch_size)
            ]

        def run(ks: list[int]) -> list[np.ndarray]:
            group = [windows[k] for k in ks]
            n = max(len(w.ids) for w in group)
            ids = np.zeros((len(group), n), dtype=np.int64)
            mask = np.zeros((len(group), n), dtype=np.int64)
            for r, w in enumerate(group):
                ids[r, : len(w.ids)] = w.ids
                mask[r, : len(w.ids)] = 1
            outputs: list[np.ndarray] = sess.run(None, {"input_ids": ids, "attention_mask": mask})
            return outputs

        workers = min(self._threads, len(groups)) if self.batching == "text" else 1
        if workers > 1:
            with ThreadPoolExecutor(workers) as pool:
                results = list(pool.map(run, groups))
        else:
            results = [run(ks) for ks in groups]
        for ks, (s, tt, ty) in zip(groups, results):
            if s.shape[1] != len(heads):
                raise ModelError(
                    f"The model in {self._dir} gives {s.shape[1]} sequence scores; its card "
                    f"lists {len(heads)} heads."
                )
            group = [windows[k] for k in ks]
            for r, w in enumerate(group):
                i = w.text_index
                seq[i] = np.maximum(seq[i], s[r])
                L = len(w.ids) - 2
                sl = slice(w.token_start, w.token_start + L)
                tok_tox[i][sl] = np.maximum(tok_tox[i][sl], tt[r, 1 : L + 1])
                tok_typ[i][sl] = np.maximum(tok_typ[i][sl], ty[r, 1 : L + 1])
        return seq, tok_tox, tok_typ, norms, [e.offsets for e in encs]

    def _spans(
        self,
        text: str,
        norm: Normalized,
        offsets: Sequence[tuple[int, int]],
        tox: np.ndarray,
        typ: np.ndarray,
        seq: np.ndarray,
        thr: float | None = None,
    ) -> tuple[Span, ...]:
        if thr is None:
            thr = self._thresholds.get("span", 0.5)
        # The token head learned from toxic posts only, so it always finds a "most
        # toxic" word: a text that neither toxicity head finds toxic enough gets none.
        if float(seq[_GATE].max()) < SPAN_GATE:
            return ()
        orig = align_tokens(list(offsets), norm)
        # Whole words: a word is toxic when any of its pieces is, because the
        # gold standards (SemEval-2021, ToxicSpans) mark words, not word pieces.
        words: list[list[int]] = []
        for k, (s, e) in enumerate(orig):
            if e <= s:
                continue
            if words and s <= orig[words[-1][-1]][1]:  # touching or overlapping: same word
                words[-1].append(k)
            else:
                words.append([k])
        spans: list[list[Any]] = []
        for w in words:
            p = float(tox[w].max())
            if p < thr:
                continue
            # Whole words, by tactful's one span-edge rule (tactful.align.trim_span).
            s, e = trim_span(text, orig[w[0]][0], orig[w[-1]][1])
            if e <= s:
                continue
            t = typ[w].mean(axis=0)
            if spans and text[spans[-1][1] : s].strip() == "" and spans[-1][1] <= s:
                spans[-1][1] = e
                spans[-1][2] = spans[-1][2] + t
                spans[-1][3] = max(spans[-1][3], p)
            else:
                spans.append([s, e, t, p])
        # In a model with harm categories, a span is typed a threat only in a text the
        # threat head finds threatening (at least half its point): the token head learned
        # its types from comments, where "kill myself" sat in threats, while that threat
        # row learned the self-harm texts as no threat; so a self-harm disclosure's words
        # are typed "other". (A model without categories keeps the token head's types: its
        # threat row calls self-harm a threat too, and misses threats its token head finds.)
        threat_ok = len(self.heads) == len(SEQ_HEADS) or float(seq[_THREAT]) >= (
            self._thresholds.get("threat", 0.5) / 2
        )
        return tuple(
            Span(s, e, _span_type(t, threat_ok), min(1.0, max(0.0, p))) for s, e, t, p in spans
        )

    def analyze(self, texts: Sequence[str]) -> list[Analysis]:
        """One :class:`~tactful.Analysis` per text.

        A text that is empty or white space only has nothing to moderate: it gets
        every score 0, no flag and no span (``raw["blank"]`` True) without asking
        the model, whose answer to no words is an artefact of its bias terms.
        """
        texts = check_texts(texts)
        asked = [i for i, t in enumerate(texts) if t.strip()]
        answers = dict(zip(asked, self._analyze([texts[i] for i in asked]), strict=True))
        return [answers[i] if i in answers else _blank(self.heads) for i in range(len(texts))]

    def _analyze(self, texts: list[str]) -> list[Analysis]:
        if not texts:
            return []
        seq, tox, typ, norms, offsets = self.predict_arrays(texts)
        th = self._thresholds
        heads = self.heads
        categories = heads[len(SEQ_HEADS) :]
        out = []
        for i, text in enumerate(texts):
            probs = {h: float(np.clip(seq[i, k], 0.0, 1.0)) for k, h in enumerate(heads)}
            flags = {h: probs[h] >= th.get(h, 0.5) for h in heads}
            # Toxic = the prompt-toxicity head at its point, or the comment-toxicity,
            # threat or insult head at its high-precision point (card: "offensive_or",
            # "threat_or", "insult_or"), so an insult or a threat is flagged whether
            # it reads as a chat prompt or as a comment.
            flags["toxicity"] = flags["toxicity"] or flagged_beside_toxicity(probs, th, categories)
            flagged = flags["toxicity"]
            for c in categories:  # a category names the harm of a flagged text
                flags[c] = flags[c] and flagged
            spans = self._spans(text, norms[i], offsets[i], tox[i], typ[i], seq[i])
            scores = {h: probs[h] for h in heads if h not in _FIELD_HEADS}
            out.append(
                Analysis(
                    flagged=flagged,
                    scores=scores,
                    spans=spans,
                    jailbreak=probs["jailbreak"],
                    delicate=probs["delicate"],
                    flags=flags,
                    raw={"probs": probs},
                )
            )
        return out


class BuiltinLargeModerator(BuiltinModerator):
    """tactful's large model: the same heads and spans on all-mpnet-base-v2 (ONNX int8).

    More accurate than ``builtin`` and about five times slower per text; ``builtin``
    is distilled from it. It takes the same parameters as :class:`BuiltinModerator`
    and reads the folder of the ``tactful-builtin-large`` distribution (found by its
    ``tactful.models`` entry point) when ``model_dir`` is None.
    """

    name = "builtin-large"
