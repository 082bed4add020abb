"""What the shipped moderators share: the input check of ``analyze`` and the
parameters declared once per class."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from ..errors import ConfigError
from ..params import Constraints, validate_params

__all__ = ["Configured", "check_texts"]


def check_texts(texts: Sequence[str]) -> list[str]:
    """``texts`` as a list, after checking it is a sequence of str.

    Raises
    ------
    ConfigError
        If ``texts`` is a single str (it would be read as characters) or holds a
        non-str item.
    """
    if isinstance(texts, str):
        raise ConfigError(
            "analyze() takes a sequence of texts, not a single str; wrap it in a list."
        )
    out = list(texts)
    for i, t in enumerate(out):
        if not isinstance(t, str):
            raise ConfigError(f"analyze() takes str texts. Got {type(t).__name__} at position {i}.")
    return out


class Configured:
    """A moderator whose parameters are its ``_parameter_constraints``, declared once.

    :meth:`_set_params` checks them (:func:`tactful.params.validate_params`, the class
    name in the message) and stores them as attributes; :meth:`config` returns them in
    declaration order, so that ``tactful.load(name, **config())`` rebuilds an equal
    moderator; ``repr`` shows them.
    """

    _parameter_constraints: ClassVar[Constraints] = {}

    def _set_params(self, **values: Any) -> None:
        owner = type(self).__name__
        for name, value in validate_params(owner, self._parameter_constraints, **values).items():
            setattr(self, name, value)

    def config(self) -> dict[str, Any]:
        """Keyword arguments that rebuild this moderator with ``tactful.load(name, **cfg)``."""
        return {name: getattr(self, name) for name in self._parameter_constraints}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.config().items())
        return f"{type(self).__name__}({args})"
