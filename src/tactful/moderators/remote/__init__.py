"""Remote moderators: paid APIs and guard models behind HTTP, one ``Moderator`` each.

tactful declares ``openai``, ``perspective``, ``google``,
``llama-guard-3``, ``shieldgemma``, ``granite-guardian``, ``wildguard`` and
``chat``. Each takes ``base_url``, ``model``, ``timeout``, ``max_retries``,
``retry_backoff``, ``qps``, ``concurrency`` and ``batch_size`` besides its own
options, and an ``api_key_env``: the *name* of the environment variable that
holds the key (the key itself is never part of ``config()``). Tests pass an
``httpx`` ``client=`` or ``transport=``.

Every answer is checked: a malformed or truncated body, an unparsable verdict,
or a failure that outlasts the retries raises a
:class:`~tactful.errors.BackendError` subclass (see :mod:`._http` for the tree),
never a made-up "not flagged". :func:`tactful.store.analyze_all` keeps such
texts as *failed* and asks only for them on the next run.

Examples
--------
>>> import tactful
>>> mod = tactful.load("openai", base_url="http://127.0.0.1:8001/v1",
...                    api_key_env="MY_KEY")                        # doctest: +SKIP
>>> [a] = mod.analyze(["you absolute idiot"])                       # doctest: +SKIP
"""

from ._base import RUNTIME_OPTIONS, RemoteModerator
from ._chat import CHAT_PROVIDERS, DEFAULT_MODERATION_PROMPT, ChatModerator
from ._google import GOOGLE_CATEGORIES, GoogleModerator
from ._granite import GRANITE_RISKS, GraniteGuardianModerator, granite_guardian_prompt
from ._guard import GuardModerator, VerdictModerator, verdict_probability
from ._http import KeyRejectedError, MissingKeyError, RemoteHTTP, retry_after_seconds
from ._llama_guard import LLAMA_GUARD_3_CATEGORIES, LlamaGuard3Moderator, llama_guard_3_prompt
from ._openai import OMNI_CATEGORIES, TEXT_CATEGORIES, OpenAIModerator
from ._perspective import ATTRIBUTES, MAX_COMMENT_BYTES, PerspectiveModerator, chunk_utf8
from ._shieldgemma import SHIELDGEMMA_POLICIES, ShieldGemmaModerator, shieldgemma_prompt
from ._wildguard import WildGuardModerator, wildguard_prompt

__all__ = [
    "ATTRIBUTES",
    "CHAT_PROVIDERS",
    "DEFAULT_MODERATION_PROMPT",
    "GOOGLE_CATEGORIES",
    "GRANITE_RISKS",
    "LLAMA_GUARD_3_CATEGORIES",
    "MAX_COMMENT_BYTES",
    "OMNI_CATEGORIES",
    "RUNTIME_OPTIONS",
    "SHIELDGEMMA_POLICIES",
    "TEXT_CATEGORIES",
    "ChatModerator",
    "GoogleModerator",
    "GraniteGuardianModerator",
    "GuardModerator",
    "KeyRejectedError",
    "LlamaGuard3Moderator",
    "MissingKeyError",
    "OpenAIModerator",
    "PerspectiveModerator",
    "RemoteHTTP",
    "RemoteModerator",
    "ShieldGemmaModerator",
    "VerdictModerator",
    "WildGuardModerator",
    "chunk_utf8",
    "granite_guardian_prompt",
    "llama_guard_3_prompt",
    "retry_after_seconds",
    "shieldgemma_prompt",
    "verdict_probability",
    "wildguard_prompt",
]
