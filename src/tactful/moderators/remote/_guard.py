"""Guard models behind an OpenAI-compatible server (vLLM, llama.cpp, Ollama).

Shared by ``llama-guard-3``, ``shieldgemma``, ``granite-guardian`` and
``wildguard``: the two request shapes, reading the answer and its
``logprobs``, and turning the log-probabilities of a verdict token into a
probability.

Two endpoints:

``endpoint="chat"`` (default)
    ``POST {base_url}/chat/completions`` with messages; the server applies the
    model's own chat template. Asks for ``logprobs`` with ``top_logprobs``.
``endpoint="completions"``
    ``POST {base_url}/completions`` with the whole prompt rendered here, special
    tokens included, exactly as the model card gives it. Asks for ``logprobs``.

The probability of the positive verdict comes from the ``top_logprobs`` of the
verdict's token position: token variants ("Yes", " Yes", "yes", "YES") are
merged by adding their probabilities, then the two classes are normalized
(:func:`verdict_probability`). Without log-probabilities the probability is the
verdict itself (1.0 or 0.0) and ``raw["probability_from"]`` says ``"text"``.
Output that does not parse is a :class:`~tactful.errors.RemoteResponseError`,
never a guess.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from ..._types import Analysis
from ...errors import RemoteResponseError
from ...params import Bool, Constraints, Float, Int, Nullable, OneOf, Str
from ._base import RemoteModerator

__all__ = [
    "Completion",
    "GuardModerator",
    "TokenChoice",
    "VerdictModerator",
    "chat_tokens",
    "completion_tokens",
    "first_word",
    "normalize_token",
    "verdict_probability",
]

# Markers some tokenizers leave on token text: SentencePiece's word start,
# byte-level BPE's space and newline.
_TOKEN_MARKS = "\u2581\u0120\u010a"


def first_word(text: str) -> str:
    """The first word of a model's answer, lowercased, without surrounding punctuation."""
    words = text.strip().split()
    return words[0].strip(".,:;!*_`'\"").lower() if words else ""


def normalize_token(token: str) -> str:
    """Token text compared case- and space-insensitively: ``" Yes"`` → ``"yes"``."""
    return token.strip().strip(_TOKEN_MARKS).strip().lower()


@dataclass(frozen=True, slots=True)
class TokenChoice:
    """One generated token and the log-probabilities of its alternatives (itself included)."""

    token: str
    alternatives: Mapping[str, float]


@dataclass(frozen=True, slots=True)
class Completion:
    """A server's answer: the generated text and, when asked for, its tokens."""

    text: str
    tokens: tuple[TokenChoice, ...] | None


def verdict_probability(
    tokens: Sequence[TokenChoice], positive: str, negative: str, *, after: str | None = None
) -> float | None:
    """P(positive) at the first verdict token, from its top log-probabilities.

    The verdict token is the first generated token whose normalized text is
    ``positive`` or ``negative`` (and, with ``after``, that starts after the
    first occurrence of ``after`` in the generated text). Alternatives whose
    normalized text equals a class are merged by summing probabilities, then

    .. math:: P = \\frac{\\sum_{v \\in pos} e^{\\ell_v}}
                       {\\sum_{v \\in pos} e^{\\ell_v} + \\sum_{v \\in neg} e^{\\ell_v}}

    the two-way softmax over the merged classes (ShieldGemma's scoring rule,
    Zeng et al., 2024). Returns ``None`` when no token is a verdict.
    """
    start_at = 0
    if after is not None:
        text = "".join(t.token for t in tokens)
        found = text.lower().find(after.lower())
        if found < 0:
            return None
        start_at = found + len(after)
    offset = 0
    for choice in tokens:
        begins, offset = offset, offset + len(choice.token)
        if begins < start_at or normalize_token(choice.token) not in (positive, negative):
            continue
        mass = {positive: 0.0, negative: 0.0}
        for token, logprob in choice.alternatives.items():
            key = normalize_token(token)
            if key in mass and math.isfinite(logprob):
                mass[key] += math.exp(logprob)
        total = mass[positive] + mass[negative]
        return mass[positive] / total if total > 0 else None
    return None


def chat_tokens(logprobs: Any) -> tuple[TokenChoice, ...] | None:
    content = logprobs.get("content") if isinstance(logprobs, dict) else None
    if not isinstance(content, list):
        return None
    out = []
    for item in content:
        if not isinstance(item, dict) or not isinstance(item.get("token"), str):
            raise RemoteResponseError(
                f"the server answered a malformed logprobs entry: {item!r:.80}."
            )
        alternatives = {
            alt["token"]: float(alt["logprob"])
            for alt in item.get("top_logprobs") or ()
            if isinstance(alt, dict)
            and isinstance(alt.get("token"), str)
            and isinstance(alt.get("logprob"), (int, float))
        }
        if isinstance(item.get("logprob"), (int, float)):
            alternatives.setdefault(item["token"], float(item["logprob"]))
        out.append(TokenChoice(item["token"], alternatives))
    return tuple(out)


def completion_tokens(logprobs: Any) -> tuple[TokenChoice, ...] | None:
    if not isinstance(logprobs, dict) or not isinstance(logprobs.get("tokens"), list):
        return None
    tokens = logprobs["tokens"]
    tops = logprobs.get("top_logprobs") or [None] * len(tokens)
    chosen = logprobs.get("token_logprobs") or [None] * len(tokens)
    if len(tops) != len(tokens) or len(chosen) != len(tokens):
        raise RemoteResponseError("the server answered logprobs lists of different lengths.")
    out = []
    for token, top, lp in zip(tokens, tops, chosen):
        if not isinstance(token, str):
            raise RemoteResponseError(
                f"the server answered a token that is not text: {token!r:.40}."
            )
        alternatives = {
            str(k): float(v) for k, v in (top or {}).items() if isinstance(v, (int, float))
        }
        if isinstance(lp, (int, float)):
            alternatives.setdefault(token, float(lp))
        out.append(TokenChoice(token, alternatives))
    return tuple(out)


class VerdictModerator(RemoteModerator):
    """Base of the moderators whose answer is a generated verdict (guards and ``chat``).

    Adds the verdict parameters and turns a verdict and its log-probabilities
    into a probability, a decision and an :class:`~tactful.Analysis`.
    """

    VERDICT_CONSTRAINTS: ClassVar[Constraints] = {
        **RemoteModerator.COMMON_CONSTRAINTS,
        "threshold": Nullable(Float(0, 1)),
        "logprobs": Bool(),
        "top_logprobs": Int(1, 20),
        "max_tokens": Int(1, 4096),
    }
    _parameter_constraints: ClassVar[Constraints] = VERDICT_CONSTRAINTS

    threshold: float | None
    logprobs: bool
    top_logprobs: int
    max_tokens: int

    def _chat_completion(self, body: dict[str, Any]) -> Completion:
        """POST an OpenAI-style chat request (with logprobs when asked) and read the answer."""
        if self.logprobs:
            body = {**body, "logprobs": True, "top_logprobs": self.top_logprobs}
        choice = self._first_choice(self._post("chat/completions", body))
        message = choice.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        return Completion(self._text(content), chat_tokens(choice.get("logprobs")))

    def _first_choice(self, answer: Any) -> dict[str, Any]:
        choices = answer.get("choices") if isinstance(answer, dict) else None
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise RemoteResponseError(
                f"{self.name}: the server answered without choices; the answer is malformed "
                "and was not used."
            )
        return choices[0]

    def _text(self, content: Any) -> str:
        if not isinstance(content, str):
            raise RemoteResponseError(
                f"{self.name}: the server answered no text ({content!r:.40}); the answer is "
                "malformed and was not used."
            )
        return content

    def _unparsable(self, completion: Completion, expected: str) -> RemoteResponseError:
        return RemoteResponseError(
            f"{self.name} answered {completion.text[:80]!r}, which is not {expected}; "
            "the output was not used (a parse failure is never read as a verdict)."
        )

    def _probability(
        self,
        completion: Completion,
        verdict: bool,
        positive: str,
        negative: str,
        after: str | None = None,
    ) -> tuple[float, str]:
        """P(positive) from logprobs when the server gave them, else the verdict itself."""
        if completion.tokens:
            p = verdict_probability(completion.tokens, positive, negative, after=after)
            if p is not None:
                return p, "logprobs"
        return (1.0 if verdict else 0.0), "text"

    def _decide(self, verdict: bool, probability: float) -> bool:
        """The model's own verdict, or ``probability >= threshold`` when a threshold is set."""
        return verdict if self.threshold is None else probability >= self.threshold

    def _result(
        self, flagged: bool, scores: dict[str, float], flags: dict[str, bool], raw: dict[str, Any]
    ) -> Analysis:
        return Analysis(
            flagged=flagged, scores=scores, flags={**flags, "toxicity": flagged}, raw=raw
        )


class GuardModerator(VerdictModerator):
    """Base of the guard-model adapters (see the module docstring).

    Subclasses give the prompt (:meth:`_messages` for chat, :meth:`_prompt` for
    completions) and parse the answer in ``_analyze_one``.
    """

    #: Default ``max_tokens`` of the subclass.
    MAX_TOKENS: ClassVar[int] = 20

    GUARD_CONSTRAINTS: ClassVar[Constraints] = {
        **VerdictModerator.VERDICT_CONSTRAINTS,
        "endpoint": OneOf(["chat", "completions"]),
        "target": OneOf(["prompt", "response"]),
        "user_prompt": Str(),
    }
    _parameter_constraints: ClassVar[Constraints] = GUARD_CONSTRAINTS

    #: The defaults every guard shares (after its own ``base_url``, ``model`` and
    #: options); a guard spreads them into its :attr:`DEFAULTS` and sets ``max_tokens``.
    GUARD_DEFAULTS: ClassVar[Mapping[str, Any]] = {
        "endpoint": "chat",
        "target": "prompt",
        "user_prompt": "",
        "threshold": None,
        "logprobs": True,
        "top_logprobs": 5,
        "max_tokens": MAX_TOKENS,
        "api_key_env": None,
        "timeout": 60.0,
        "max_retries": 4,
        "retry_backoff": 0.5,
        "qps": None,
        "concurrency": 4,
        "batch_size": 1,
    }

    endpoint: str
    target: str
    user_prompt: str

    # -- what subclasses give -------------------------------------------------------------

    def _messages(self, text: str, **extra: Any) -> list[dict[str, str]]:
        """Chat messages; default: the conversation (user turn, then the response)."""
        if self.target == "response":
            return [
                {"role": "user", "content": self.user_prompt},
                {"role": "assistant", "content": text},
            ]
        return [{"role": "user", "content": text}]

    def _chat_extra(self, **extra: Any) -> dict[str, Any]:
        """Extra fields of a chat request (e.g. ``chat_template_kwargs``)."""
        return {}

    def _prompt(self, text: str, **extra: Any) -> str:
        raise NotImplementedError

    # -- requests -------------------------------------------------------------------------

    def _complete(self, text: str, **extra: Any) -> Completion:
        """Ask the server once about ``text`` and return its answer."""
        if self.endpoint == "chat":
            return self._chat_completion(
                {
                    "model": self.model,
                    "messages": self._messages(text, **extra),
                    "temperature": 0,
                    "max_tokens": self.max_tokens,
                    **self._chat_extra(**extra),
                }
            )
        body: dict[str, Any] = {
            "model": self.model,
            "prompt": self._prompt(text, **extra),
            "temperature": 0,
            "max_tokens": self.max_tokens,
        }
        if self.logprobs:
            body["logprobs"] = self.top_logprobs
        answer = self._post("completions", body)
        choice = self._first_choice(answer)
        return Completion(self._text(choice.get("text")), completion_tokens(choice.get("logprobs")))
