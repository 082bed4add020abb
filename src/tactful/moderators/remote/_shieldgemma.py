"""``shieldgemma``: Google's ShieldGemma behind an OpenAI-compatible server."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ..._types import Analysis
from ...params import Constraints, StrList
from ._guard import GuardModerator, first_word

__all__ = ["SHIELDGEMMA_POLICIES", "ShieldGemmaModerator", "shieldgemma_prompt"]

# Harm type → (policy name, what the policy forbids), from the model card. The prompt
# and the response guidelines differ only in their subject.
_HARMS: dict[str, tuple[str, str]] = {
    "dangerous_content": (
        "No Dangerous Content",
        (
            "that harming oneself and/or others (e.g., accessing or building firearms and explosive "
            "devices, promotion of terrorism, instructions for suicide)."
        ),
    ),
    "harassment": (
        "No Harassment",
        (
            "that is malicious, intimidating, bullying, or abusive content targeting another "
            "individual (e.g., physical threats, denial of tragic events, disparaging victims of "
            "violence)."
        ),
    ),
    "hate_speech": (
        "No Hate Speech",
        (
            "that targeting identity and/or protected attributes (e.g., racial slurs, promotion of "
            "discrimination, calls to violence against protected groups) or dehumanizing/belittling/"
            "vilifying on the bases of race, ethnicity, religion, disability, age, nationality, "
            "veteran status, sexual orientation, gender, gender identity, caste, or any other "
            "protected status. We do allow content that includes a reference to a protected "
            "individual or group in a positive manner."
        ),
    ),
    "sexually_explicit": (
        "No Sexually Explicit Information",
        (
            "that contains references to sexual acts or other lewd content (e.g., sexually graphic "
            "descriptions, content aimed at causing arousal). Medical or scientific terms related "
            "to human anatomy or sex education are permitted."
        ),
    ),
}

#: Harm type → (guideline for prompts, guideline for responses), as the model card words them.
SHIELDGEMMA_POLICIES: dict[str, tuple[str, str]] = {
    harm: (
        f'"{title}": The prompt shall not contain or seek generation of content {rule}',
        f'"{title}": The chatbot shall not generate content {rule}',
    )
    for harm, (title, rule) in _HARMS.items()
}

_EPILOGUE = (
    "Your answer must start with 'Yes' or 'No'. And then walk through step by step to be sure "
    "we answer correctly."
)


def shieldgemma_prompt(text: str, guideline: str, *, response_to: str | None = None) -> str:
    """The user turn ShieldGemma is scored on (the model card's prompt pattern).

    With ``response_to``, ``text`` is a chatbot response to that prompt.
    """
    if response_to is None:
        return (
            "You are a policy expert trying to help determine whether a user prompt is in "
            "violation of the defined safety policies.\n\n"
            f"<start_of_turn>\nHuman Question: {text.strip()}\n<end_of_turn>\n\n"
            f"Our safety principle is defined in the below:\n\n* {guideline.strip()}\n\n===\n\n"
            f"Does the human question violate the above principle? {_EPILOGUE}\n"
        )
    return (
        "You are a policy expert trying to help determine whether an AI response to prompt is "
        "in violation of the defined safety policies.\n\n"
        f"<start_of_turn>\nHuman Question: {response_to.strip()}\n<end_of_turn>\n\n"
        f"<start_of_turn>\nChatbot Response: {text.strip()}\n<end_of_turn>\n\n"
        f"Our safety principle is defined in the below:\n\n* {guideline.strip()}\n\n===\n\n"
        f"Does the Chatbot Response violate the above principle? {_EPILOGUE}\n"
    )


class ShieldGemmaModerator(GuardModerator):
    """ShieldGemma (Zeng et al., 2024): one policy per call, P(Yes) from Yes/No log-probabilities.

    Parameters
    ----------
    base_url : str, default="http://127.0.0.1:8000/v1"
    model : str, default="google/shieldgemma-2b"
    policies : list of str, default=all four of :data:`SHIELDGEMMA_POLICIES`
        One request per (text, policy).
    endpoint : {"chat", "completions"}, default="chat"
        ``chat``: the conversation as messages with ``chat_template_kwargs =
        {"guideline": ...}`` (ShieldGemma's own template takes the guideline);
        ``completions``: ``<start_of_turn>user\\n`` + :func:`shieldgemma_prompt`
        + ``<end_of_turn>\\n<start_of_turn>model\\n``.
    target, user_prompt, threshold, logprobs, top_logprobs : see
        :class:`~tactful.moderators.remote.LlamaGuard3Moderator`
    max_tokens : int, default=1
        Only the verdict token is needed.
    api_key_env, timeout, max_retries, retry_backoff, qps, concurrency, batch_size : see
        :class:`~tactful.moderators.remote.LlamaGuard3Moderator`

    Notes
    -----
    ``scores`` has one P(Yes) per policy (the two-way softmax over merged
    Yes/No variants of the first token) and ``"toxicity"``, their maximum.
    ``flagged`` is True when any policy is violated. The first word must be
    Yes or No; anything else is a parse failure.
    """

    name = "shieldgemma"
    version = "1"
    MAX_TOKENS = 1
    _parameter_constraints: ClassVar[Constraints] = {
        **GuardModerator.GUARD_CONSTRAINTS,
        "policies": StrList(tuple(SHIELDGEMMA_POLICIES), nonempty=True),
    }

    DEFAULTS: ClassVar[Mapping[str, Any]] = {
        "base_url": "http://127.0.0.1:8000/v1",
        "model": "google/shieldgemma-2b",
        "policies": tuple(SHIELDGEMMA_POLICIES),
        **GuardModerator.GUARD_DEFAULTS,
        "max_tokens": MAX_TOKENS,
    }

    policies: tuple[str, ...]

    def score_keys(self) -> tuple[str, ...]:
        return (*self.policies, "toxicity")

    def _guideline(self, policy: str) -> str:
        prompt_rule, response_rule = SHIELDGEMMA_POLICIES[policy]
        return response_rule if self.target == "response" else prompt_rule

    def _chat_extra(self, **extra: Any) -> dict[str, Any]:
        return {"chat_template_kwargs": {"guideline": self._guideline(extra["policy"])}}

    def _prompt(self, text: str, **extra: Any) -> str:
        turn = shieldgemma_prompt(
            text,
            self._guideline(extra["policy"]),
            response_to=self.user_prompt if self.target == "response" else None,
        )
        return f"<start_of_turn>user\n{turn}<end_of_turn>\n<start_of_turn>model\n"

    def _analyze_sent(self, texts: list[str]) -> list[Analysis]:
        pairs = [(text, policy) for text in texts for policy in self.policies]
        answers = iter(self._map(self._ask, pairs))
        return [self._combine([next(answers) for _ in self.policies]) for _ in texts]

    def _ask(self, pair: tuple[str, str]) -> tuple[str, float, bool, dict[str, Any]]:
        text, policy = pair
        completion = self._complete(text, policy=policy)
        word = first_word(completion.text)
        if word not in ("yes", "no"):
            raise self._unparsable(completion, "an answer starting with 'Yes' or 'No'")
        p, source = self._probability(completion, word == "yes", "yes", "no")
        return (
            policy,
            p,
            self._decide(word == "yes", p),
            {
                "output": completion.text,
                "probability_from": source,
            },
        )

    def _combine(self, answers: list[tuple[str, float, bool, dict[str, Any]]]) -> Analysis:
        scores = {policy: p for policy, p, _, _ in answers}
        flags = {policy: violated for policy, _, violated, _ in answers}
        flagged = any(flags.values())
        return self._result(
            flagged,
            {**scores, "toxicity": max(scores.values())},
            flags,
            {"policies": {policy: raw for policy, _, _, raw in answers}},
        )
