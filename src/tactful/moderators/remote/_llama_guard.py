"""``llama-guard-3``: Meta's Llama Guard 3 behind an OpenAI-compatible server."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar

from ..._types import Analysis
from ...params import Constraints
from ...taxonomy import LLAMA_GUARD_3
from ._guard import GuardModerator

__all__ = ["LLAMA_GUARD_3_CATEGORIES", "LlamaGuard3Moderator", "llama_guard_3_prompt"]

#: The MLCommons hazard categories of Llama Guard 3, S1–S14, as its template names them
#: (:data:`tactful.taxonomy.LLAMA_GUARD_3`).
LLAMA_GUARD_3_CATEGORIES: dict[str, str] = dict(LLAMA_GUARD_3)

_CATEGORY_BLOCK = "".join(f"{k}: {v}.\n" for k, v in LLAMA_GUARD_3_CATEGORIES.items())
_CODE_RE = re.compile(r"\bS(\d{1,2})\b")


def llama_guard_3_prompt(messages: list[dict[str, str]]) -> str:
    """The prompt Llama Guard 3's chat template renders for ``messages``, less the BOS token.

    ``messages`` alternate user/assistant; the last one is the one assessed
    ('User' for prompt classification, 'Agent' for response classification).
    Contents are stripped, as the template does. ``<|begin_of_text|>`` is left
    out: a completions server adds the BOS token itself (vLLM and llama.cpp do),
    and a second one changes the model's answer.
    """
    role = "Agent" if len(messages) % 2 == 0 else "User"
    turns = "".join(
        f"{'User' if m['role'] == 'user' else 'Agent'}: {m['content'].strip()}\n\n"
        for m in messages
    )
    return (
        "<|start_header_id|>user<|end_header_id|>\n\n"
        f"Task: Check if there is unsafe content in '{role}' messages in conversations "
        "according our safety policy with the below categories.\n\n"
        f"<BEGIN UNSAFE CONTENT CATEGORIES>\n{_CATEGORY_BLOCK}<END UNSAFE CONTENT CATEGORIES>\n\n"
        f"<BEGIN CONVERSATION>\n\n{turns}<END CONVERSATION>\n\n"
        f"Provide your safety assessment for ONLY THE LAST {role} message in the above "
        "conversation:\n"
        " - First line must read 'safe' or 'unsafe'.\n"
        " - If unsafe, a second line must include a comma-separated list of violated "
        "categories.<|eot_id|><|start_header_id|>assistant<|end_header_id|>"
    )


class LlamaGuard3Moderator(GuardModerator):
    """Llama Guard 3 (Llama Team, AI @ Meta, 2024): ``safe`` or ``unsafe\\nS1,S10``.

    Parameters
    ----------
    base_url : str, default="http://127.0.0.1:8000/v1"
        The server's OpenAI-compatible root (vLLM's default port).
    model : str, default="meta-llama/Llama-Guard-3-8B"
        The model name the server serves.
    endpoint : {"chat", "completions"}, default="chat"
        ``chat``: the conversation as messages (the server renders the model's
        template); ``completions``: :func:`llama_guard_3_prompt` sent as is.
    target : {"prompt", "response"}, default="prompt"
        Classify each text as the user's prompt, or as the agent's response to
        ``user_prompt``.
    user_prompt : str, default=""
        The user turn before the response when ``target="response"``.
    threshold : float in [0, 1] or None, default=None
        None: the model's verdict flags; else P(unsafe) >= threshold.
    logprobs : bool, default=True
        Ask for ``top_logprobs`` to score P(unsafe).
    top_logprobs : int, default=5
    max_tokens : int, default=20
    api_key_env : str or None, default=None
        Local servers usually need no key; name a variable to send one as a Bearer token.
    timeout : float, default=60.0
    max_retries, retry_backoff, qps : see :class:`~tactful.moderators.remote.OpenAIModerator`
    concurrency : int, default=4
    batch_size : int, default=1

    Notes
    -----
    ``scores``: ``"unsafe"`` and ``"toxicity"``, both P(unsafe) from the first
    verdict token's ``top_logprobs`` ("safe"/"unsafe" variants merged), or the
    verdict (1.0/0.0) when the server gives no log-probabilities. ``flags``
    holds ``S1``..``S14`` as listed by the model. Any first line other than
    ``safe``/``unsafe``, or an unknown category code, is a parse failure.
    """

    name = "llama-guard-3"
    version = "1"
    MAX_TOKENS = 20
    _parameter_constraints: ClassVar[Constraints] = GuardModerator.GUARD_CONSTRAINTS

    DEFAULTS: ClassVar[Mapping[str, Any]] = {
        "base_url": "http://127.0.0.1:8000/v1",
        "model": "meta-llama/Llama-Guard-3-8B",
        **GuardModerator.GUARD_DEFAULTS,
        "max_tokens": MAX_TOKENS,
    }

    def score_keys(self) -> tuple[str, ...]:
        return ("unsafe", "toxicity")

    def _prompt(self, text: str, **extra: Any) -> str:
        return llama_guard_3_prompt(self._messages(text))

    def _analyze_one(self, text: str) -> Analysis:
        completion = self._complete(text)
        lines = [line.strip() for line in completion.text.strip().splitlines() if line.strip()]
        verdict = lines[0].lower() if lines else ""
        if verdict not in ("safe", "unsafe"):
            raise self._unparsable(completion, "'safe' or 'unsafe' on its first line")
        codes: list[str] = []
        if verdict == "unsafe":
            for line in lines[1:]:
                codes += [f"S{n}" for n in _CODE_RE.findall(line)]
            unknown = [c for c in codes if c not in LLAMA_GUARD_3_CATEGORIES]
            if unknown:
                raise self._unparsable(completion, f"a list of S1..S14 codes (got {unknown})")
        unsafe = verdict == "unsafe"
        p, source = self._probability(completion, unsafe, "unsafe", "safe")
        flagged = self._decide(unsafe, p)
        return self._result(
            flagged,
            {"unsafe": p, "toxicity": p},
            {code: code in codes for code in LLAMA_GUARD_3_CATEGORIES},
            {
                "output": completion.text,
                "verdict": verdict,
                "categories": codes,
                "category_names": [LLAMA_GUARD_3_CATEGORIES[c] for c in codes],
                "probability_from": source,
            },
        )
