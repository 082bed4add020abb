"""What each provider answers, computed from the text so that answers are deterministic.

A text is "toxic" when it holds one of :data:`TOXIC_WORDS`; its toxicity is
then in [0.7, 0.99), else in [0, 0.3), drawn from the text's SHA-256. Every
provider's scores derive from :func:`toxicity`, so a test can compute the
expected answer of any adapter.
"""

from __future__ import annotations

import hashlib
import math
import re
from typing import Any

from tactful.taxonomy import CATEGORIES

__all__ = [
    "GOOGLE_NAMES",
    "OMNI",
    "TOXIC_WORDS",
    "answer",
    "check_key",
    "error_body",
    "generation",
    "guard_text",
    "texts_of",
    "toxicity",
    "utf16_offsets",
]

TOXIC_WORDS = frozenset({"idiot", "idiots", "stupid", "moron", "dumb", "hate", "kill", "loser"})
_WORD_RE = re.compile(r"\w+")

OMNI = CATEGORIES
GOOGLE_NAMES = (
    "Toxic",
    "Insult",
    "Profanity",
    "Derogatory",
    "Sexual",
    "Death, Harm & Tragedy",
    "Violent",
    "Firearms & Weapons",
    "Public Safety",
    "Health",
    "Religion & Belief",
    "Illicit Drugs",
    "War & Conflict",
    "Politics",
    "Finance",
    "Legal",
)


def _unit(text: str, salt: str = "") -> float:
    digest = hashlib.sha256((salt + text).encode("utf-8", "surrogatepass")).hexdigest()
    return int(digest[:8], 16) / 2**32


def toxicity(text: str) -> float:
    """The fake providers' toxicity of ``text``, rounded to 6 digits."""
    toxic = any(w.lower() in TOXIC_WORDS for w in _WORD_RE.findall(text))
    return round(0.7 + 0.29 * _unit(text) if toxic else 0.3 * _unit(text), 6)


def utf16_offsets(text: str) -> list[tuple[int, int]]:
    """UTF-16 [begin, end) of each toxic word of ``text``."""
    out = []
    for m in _WORD_RE.finditer(text):
        if m.group().lower() in TOXIC_WORDS:
            begin = len(text[: m.start()].encode("utf-16-le", "surrogatepass")) // 2
            end = begin + len(m.group().encode("utf-16-le", "surrogatepass")) // 2
            out.append((begin, end))
    return out


# -- what a request is about ----------------------------------------------------------------

_GUARD_PATTERNS = (
    re.compile(r"\nUser: (.*?)\n\n(?:Agent: (.*?)\n\n)?<END CONVERSATION>", re.DOTALL),
    re.compile(r"Chatbot Response: (.*?)\n<end_of_turn>", re.DOTALL),
    re.compile(r"Human Question: (.*?)\n<end_of_turn>", re.DOTALL),
    re.compile(r"Assistant Message: (.*?)\n<end_of_turn>", re.DOTALL),
    re.compile(r"User Message: (.*?)\n<end_of_turn>", re.DOTALL),
    re.compile(r"Human user:\n(.*?)\n\nAI assistant:\n(.*?)\n\n---", re.DOTALL),
)


def guard_text(content: str) -> str:
    """The text a guard prompt asks about (the response when there is one)."""
    for pattern in _GUARD_PATTERNS:
        m = pattern.search(content)
        if m is not None:
            groups = [g for g in m.groups() if g]
            return groups[-1] if groups else ""
    return content


def texts_of(path: str, body: Any) -> list[str]:
    """The texts a request asks about (for the request log)."""
    if not isinstance(body, dict):
        return []
    if path.endswith("/moderations"):
        inp = body.get("input")
        return list(inp) if isinstance(inp, list) else [inp]
    if path.endswith("comments:analyze"):
        return [body.get("comment", {}).get("text", "")]
    if path.endswith("documents:moderateText"):
        return [body.get("document", {}).get("content", "")]
    if path.endswith(("/chat/completions", "/messages")):
        messages = body.get("messages") or [{}]
        return [guard_text(str(messages[-1].get("content", "")))]
    if path.endswith("/completions"):
        return [guard_text(str(body.get("prompt", "")))]
    return []


# -- keys and errors ------------------------------------------------------------------------


def _kind(path: str) -> str:
    if path.endswith(("comments:analyze", "documents:moderateText")):
        return "google"
    if path.endswith("/messages"):
        return "anthropic"
    return "openai"


def error_body(path: str, status: int, message: str | None = None) -> dict[str, Any]:
    """An error body in the provider's shape."""
    message = message or {
        400: "bad request",
        401: "invalid key",
        403: "forbidden",
        408: "request timeout",
        429: "rate limit reached",
        529: "Overloaded",
    }.get(status, "internal error")
    kind = _kind(path)
    if kind == "google":
        names = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED"}
        names |= {429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}
        return {
            "error": {"code": status, "message": message, "status": names.get(status, "UNKNOWN")}
        }
    if kind == "anthropic":
        types = {401: "authentication_error", 403: "permission_error", 429: "rate_limit_error"}
        types |= {529: "overloaded_error", 400: "invalid_request_error"}
        return {
            "type": "error",
            "error": {"type": types.get(status, "api_error"), "message": message},
        }
    types = {401: "invalid_request_error", 429: "rate_limit_exceeded", 400: "invalid_request_error"}
    return {"error": {"message": message, "type": types.get(status, "server_error"), "code": None}}


def check_key(
    path: str, headers: dict[str, str], key: str | None
) -> tuple[int, dict[str, Any], dict[str, str]] | None:
    """None when the request may go on, else the provider's 401 (or 400)."""
    if key is None:
        return None
    kind = _kind(path)
    if kind == "google":
        ok = headers.get("x-goog-api-key") == key
    elif kind == "anthropic":
        if "anthropic-version" not in headers:
            return 400, error_body(path, 400, "anthropic-version header is required"), {}
        ok = headers.get("x-api-key") == key
    else:
        ok = headers.get("authorization") == f"Bearer {key}"
    return None if ok else (401, error_body(path, 401), {})


# -- answers --------------------------------------------------------------------------------


def answer(path: str, body: Any) -> tuple[int, Any]:
    """(status, JSON) of the provider's answer to ``body`` at ``path``."""
    if not isinstance(body, dict):
        return 400, error_body(path, 400, "body is not JSON")
    if path.endswith("/moderations"):
        return 200, _moderations(body)
    if path.endswith("comments:analyze"):
        return _perspective(body)
    if path.endswith("documents:moderateText"):
        return 200, _google(path, body)
    if path.endswith(("/completions", "/messages")):
        text = texts_of(path, body)[0]
        return 200, generation(path, body, *_guard_output(str(body.get("model")), text))
    return 404, error_body(path, 404, f"no route {path}")


def _moderations(body: dict[str, Any]) -> dict[str, Any]:
    model = str(body.get("model"))
    cats = OMNI if model.startswith("omni") else tuple(c for c in OMNI if "illicit" not in c)
    inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
    results = []
    for text in inputs:
        tox = toxicity(text)
        scores = {c: round(tox * (1 - i / 20), 6) for i, c in enumerate(cats)}
        result: dict[str, Any] = {
            "flagged": any(v >= 0.5 for v in scores.values()),
            "categories": {c: v >= 0.5 for c, v in scores.items()},
            "category_scores": scores,
        }
        if model.startswith("omni"):
            result["category_applied_input_types"] = {c: ["text"] for c in cats}
        results.append(result)
    return {"id": "modr-fake", "model": f"{model}-fake", "results": results}


def _perspective(body: dict[str, Any]) -> tuple[int, Any]:
    text = body.get("comment", {}).get("text", "")
    if not text.strip():
        return 400, error_body("comments:analyze", 400, "Comment text was too short")
    if len(text.encode("utf-8", "surrogatepass")) > 20_480:
        return 400, error_body("comments:analyze", 400, "Comment text too long")
    tox = toxicity(text)
    units = len(text.encode("utf-16-le", "surrogatepass")) // 2
    scores = {}
    for i, attribute in enumerate(body.get("requestedAttributes", {})):
        value = round(tox * (1 - i / 10), 6)
        spans = [
            {"begin": b, "end": e, "score": {"value": value, "type": "PROBABILITY"}}
            for b, e in utf16_offsets(text)
        ]
        spans.append({"begin": 0, "end": units, "score": {"value": 0.01, "type": "PROBABILITY"}})
        scores[attribute] = {
            "spanScores": spans,
            "summaryScore": {"value": value, "type": "PROBABILITY"},
        }
    return 200, {"attributeScores": scores, "languages": ["en"], "detectedLanguages": ["en"]}


def _google(path: str, body: dict[str, Any]) -> dict[str, Any]:
    text = body["document"]["content"]
    tox = toxicity(text)
    cats = []
    for i, name in enumerate(GOOGLE_NAMES):
        confidence = tox if i < 4 else round(0.3 * _unit(text, name), 6)
        item: dict[str, Any] = {"name": name, "confidence": confidence}
        if body.get("modelVersion") == "MODEL_VERSION_2":
            item["severity"] = round(confidence / 2, 6)
        cats.append(item)
    return {"moderationCategories": cats, "languageCode": "en", "languageSupported": True}


def _guard_output(model: str, text: str) -> tuple[list[str], int, str, str, float]:
    """(tokens, index of the verdict token, positive, negative, P(positive)) of a guard."""
    p = toxicity(text)
    bad = p >= 0.5
    m = model.lower()
    if "llama-guard" in m:
        return (
            (["\n\n", "unsafe", "\n", "S", "10"] if bad else ["\n\n", "safe"]),
            1,
            "unsafe",
            "safe",
            p,
        )
    if "shieldgemma" in m:
        return (["Yes"] if bad else ["No"]), 0, "yes", "no", p
    if "granite" in m and "3.3" in m:
        verdict = " yes" if bad else " no"
        tokens = ["<think>", "ok", " no", "</think>", "\n", "<score>", verdict, " </score>"]
        return tokens, 6, "yes", "no", p
    if "granite" in m:
        return (["Yes"] if bad else ["No"]), 0, "yes", "no", p
    if "wildguard" in m:
        head = ["\n", "Harmful", " request", ":", " yes" if bad else " no"]
        tail = [
            "\n",
            "Response",
            " refusal",
            ":",
            " N/A",
            "\n",
            "Harmful",
            " response",
            ":",
            " N/A",
        ]
        return head + tail, 4, "yes", "no", p
    return (["BLOCK"] if bad else ["ALLOW"]), 0, "block", "allow", p


def _variants(token: str, positive: str, negative: str, p: float) -> dict[str, float]:
    """Top log-probabilities at a verdict position: each class split over two spellings."""
    p = min(max(p, 1e-9), 1 - 1e-9)
    cap = str.upper if token.strip().isupper() else str.capitalize
    return {
        positive if token.strip().islower() else cap(positive): math.log(0.7 * p),
        " " + (positive if token.strip().islower() else cap(positive)): math.log(0.3 * p),
        negative if token.strip().islower() else cap(negative): math.log(0.8 * (1 - p)),
        " " + (negative if token.strip().islower() else cap(negative)): math.log(0.2 * (1 - p)),
        "I": math.log(1e-4),  # not a verdict: left out of the softmax
    }


def generation(
    path: str,
    body: Any,
    tokens: list[str] | str,
    verdict_at: int = -1,
    positive: str = "",
    negative: str = "",
    p: float = 0.0,
    *,
    logprobs: bool = True,
) -> dict[str, Any]:
    """An OpenAI-style chat or completions answer generating ``tokens``."""
    if isinstance(tokens, str):
        tokens, logprobs = [tokens], False
    text = "".join(tokens)
    if path.endswith("/messages"):  # Anthropic: text blocks, no log-probabilities
        return {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": body.get("model") if isinstance(body, dict) else None,
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
        }
    want = bool(body.get("logprobs")) if isinstance(body, dict) else False
    top = []
    for i, token in enumerate(tokens):
        alts = _variants(token, positive, negative, p) if i == verdict_at else {token: -0.01}
        alts.setdefault(token, max(alts.values()))
        top.append(alts)
    if path.endswith("/chat/completions"):
        choice: dict[str, Any] = {
            "index": 0,
            "message": {"role": "assistant", "content": text},
            "finish_reason": "stop",
        }
        if logprobs and want:
            choice["logprobs"] = {
                "content": [
                    {
                        "token": tok,
                        "logprob": alts[tok],
                        "top_logprobs": [{"token": k, "logprob": v} for k, v in alts.items()],
                    }
                    for tok, alts in zip(tokens, top)
                ]
            }
        return {"id": "chatcmpl-fake", "object": "chat.completion", "choices": [choice]}
    choice = {"index": 0, "text": text, "finish_reason": "stop"}
    if logprobs and want:
        choice["logprobs"] = {
            "tokens": tokens,
            "token_logprobs": [alts[tok] for tok, alts in zip(tokens, top)],
            "top_logprobs": top,
        }
    return {"id": "cmpl-fake", "object": "text_completion", "choices": [choice]}
