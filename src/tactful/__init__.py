"""tactful: offline, CPU-first text moderation.

>>> import tactful
>>> mod = tactful.load("lexicon")
>>> [a] = mod.analyze(["you absolute idiot"])
>>> a.flagged
True
"""

from ._registry import Moderator, available, load, register, temporary_registration
from ._types import SPAN_LABELS, Analysis, Span
from .errors import TactfulError

__version__ = "0.2.0"

__all__ = [
    "SPAN_LABELS",
    "Analysis",
    "Moderator",
    "Span",
    "TactfulError",
    "__version__",
    "available",
    "load",
    "register",
    "temporary_registration",
]
