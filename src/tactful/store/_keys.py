"""The keys of the store: canonical JSON, text and moderator hashes, memo keys, code hashes.

Every key the store uses is a SHA-256 built here, once, so that two callers that
mean the same inputs always land on the same row.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import math
import sys
from collections.abc import Iterable, Mapping
from os import PathLike
from pathlib import Path
from typing import Any

from ..errors import ConfigError

__all__ = [
    "canonical_json",
    "code_fingerprint",
    "jsonable",
    "memo_key",
    "moderator_identity",
    "moderator_key",
    "runtime_options",
    "text_sha256",
]


def canonical_json(value: Any) -> str:
    """``value`` as JSON with sorted keys and no spaces: equal values give equal text.

    Non-JSON values are first made JSON-able with :func:`jsonable` (NaN → ``null``).
    """
    return json.dumps(
        jsonable(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def jsonable(value: Any) -> Any:
    """``value`` made of JSON types only (mappings → dict, sequences → list, paths → str)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        # JSON has no NaN/inf; None is the only honest stand-in.
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [jsonable(v) for v in value]
        return sorted(items, key=repr) if isinstance(value, (set, frozenset)) else items
    if isinstance(value, PathLike):
        return str(value)
    if hasattr(value, "item"):  # numpy scalars
        return jsonable(value.item())
    return str(value)


@functools.lru_cache(maxsize=1 << 18)
def text_sha256(text: str) -> str:
    """Hex SHA-256 of the UTF-8 bytes of ``text``.

    Memoized: an audit looks up the same 100,000 texts for every moderator and
    every derived value, and a dict lookup costs far less than a digest.
    """
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def runtime_options(moderator: Any) -> frozenset[str]:
    """The config keys of ``moderator`` that do not change its answers.

    Read from the optional ``runtime_options`` attribute (a collection of config
    keys such as ``"timeout"``, ``"concurrency"``, ``"qps"``, ``"api_key_env"``);
    empty when the moderator has none.
    """
    keys = getattr(moderator, "runtime_options", None)
    if keys is None:
        return frozenset()
    if isinstance(keys, str) or not isinstance(keys, Iterable):
        raise ConfigError(
            f"The runtime_options of moderator {getattr(moderator, 'name', moderator)!r} must be "
            f"a collection of config keys. Got {keys!r} instead."
        )
    return frozenset(str(k) for k in keys)


def moderator_identity(moderator: Any) -> dict[str, Any]:
    """``{"name", "version", "config"}`` of ``moderator``: what its answers depend on.

    ``config`` leaves out the keys named in the moderator's ``runtime_options``
    (timeouts, concurrency, rate limits, the name of the key's variable...), so
    that changing them reuses stored answers.
    """
    try:
        name, version, config = moderator.name, moderator.version, moderator.config()
    except AttributeError as exc:
        raise ConfigError(
            f"{moderator!r} is not a Moderator: it needs .name, .version and .config() ({exc})."
        ) from None
    skip = runtime_options(moderator)
    return {
        "name": str(name),
        "version": str(version),
        "config": jsonable({k: v for k, v in dict(config).items() if k not in skip}),
    }


def moderator_key(moderator: Any) -> str:
    """Hex SHA-256 of the canonical JSON of :func:`moderator_identity`."""
    return hashlib.sha256(canonical_json(moderator_identity(moderator)).encode("utf-8")).hexdigest()


def memo_key(*parts: Any) -> str:
    """The key of a derived value computed from ``parts``: a hex SHA-256.

    Each part is hashed as its canonical JSON (:func:`canonical_json`), except
    ``bytes`` (hashed as they are) and numpy arrays (their dtype, then their
    bytes in C order), so that large columns are keyed without a JSON detour.
    Parts are separated, so ``("ab", "c")`` and ``("a", "bc")`` differ.

    Examples
    --------
    >>> memo_key("bootstrap", 1000, [1, 2]) == memo_key("bootstrap", 1000, (1, 2))
    True
    """
    # numpy is looked up, not imported: without it loaded there can be no array.
    np = sys.modules.get("numpy")
    h = hashlib.sha256()
    for p in parts:
        if np is not None and isinstance(p, np.ndarray):
            h.update(str(p.dtype).encode())
            h.update(np.ascontiguousarray(p).tobytes())
        elif isinstance(p, bytes):
            h.update(p)
        else:
            h.update(canonical_json(p).encode("utf-8"))
        h.update(b"\x00")
    return h.hexdigest()


def code_fingerprint(*module_names: str) -> str:
    """A short hash of the source of the named modules (a package: all its files).

    Derived values are kept under a namespace that includes it, so that editing
    the code that computes them invalidates them instead of serving stale
    numbers. The modules are located, not imported, so a run served from the
    memo never pays for importing them.

    Raises
    ------
    ConfigError
        When a module cannot be located.
    """
    h = hashlib.sha256()
    for name in module_names:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if spec is None or spec.origin is None:
            raise ConfigError(f"Cannot locate the module {name!r}.")
        path = Path(spec.origin)
        files = sorted(path.parent.rglob("*")) if path.name == "__init__.py" else [path]
        for f in files:
            if f.is_file() and "__pycache__" not in f.parts:
                h.update(f.name.encode())
                h.update(f.read_bytes())
    return h.hexdigest()[:16]
