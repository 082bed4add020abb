"""The ``builtin-cascade`` moderator: ``builtin`` first, ``builtin-large`` for the texts
``builtin`` is unsure of.

Every text is analyzed by the small model. A text whose small toxicity or jailbreak
probability falls inside that head's *band* (an interval around the small model's
operating point, where its answers are least reliable) is analyzed again by the large
model, and the large model's whole answer (scores, decisions, spans) replaces the
small one. Each text's route depends on its own small scores only, and both models
answer a text independently of its batch-mates, so the cascade is batch-invariant too.
``raw["answered_by"]`` names the model that answered.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from .._types import Analysis
from ..params import Constraint, Constraints, Float, Int, Nullable, Str
from ._texts import Configured, check_texts
from .builtin import BuiltinLargeModerator, BuiltinModerator

if TYPE_CHECKING:
    from .._trained import TrainedTexts

__all__ = ["DEFAULT_JAILBREAK_BAND", "DEFAULT_TOXICITY_BAND", "CascadeModerator"]

#: Small-model toxicity probabilities sent to the large model (both ends included).
#: Chosen on ToxicChat dev for builtin 2.0.0 and builtin-large 2.1.0 with
#: ``python bench/cascade.py --split dev --choose``: the narrowest bands of its grid
#: that send 9 of the 10 dev texts on which the two models' decisions differ (8.9 %
#: of dev sent). Checked again for builtin-large 2.2.0: the two differ on 8 dev
#: texts, two of them with small-model toxicity under 0.02, so no band of the grid
#: sends 90 % of them (at most 75 %), and the bands were kept (62 % of them, 8.9 %
#: of dev sent). Checked again for builtin 2.1.0: the same picture (8 dev texts, at
#: most 75 % of them sent by any band of the grid), the bands kept (62 %, 7.5 % of
#: dev sent).
DEFAULT_TOXICITY_BAND = (0.05, 0.8)
#: Small-model jailbreak probabilities sent to the large model: none on their own
#: (the rule above needs no jailbreak band; a text in the toxicity band is sent
#: whatever its jailbreak probability).
DEFAULT_JAILBREAK_BAND = (1.0, 1.0)


@dataclass(frozen=True)
class _Band(Constraint):
    """Two floats ``[low, high]`` with 0 <= low <= high <= 1."""

    def describe(self) -> str:
        return "a pair [low, high] of floats with 0 <= low <= high <= 1"

    def convert(self, value: Any) -> list[float]:
        if isinstance(value, str | bytes) or len(value) != 2:
            raise ValueError
        unit = Float(0.0, 1.0)
        low, high = unit.convert(value[0]), unit.convert(value[1])
        if low > high:
            raise ValueError
        return [low, high]


class CascadeModerator(Configured):
    """``builtin`` on every text, ``builtin-large`` on the texts in an uncertain band.

    Parameters
    ----------
    toxicity_band : pair of float, default=DEFAULT_TOXICITY_BAND
        ``[low, high]``: a text whose small-model toxicity probability lies in it
        (ends included) is answered by the large model.
    jailbreak_band : pair of float, default=DEFAULT_JAILBREAK_BAND
        The same for the small model's jailbreak probability.
    small_dir, large_dir : str or None, default=None
        Model folders of the two models (the packaged ``builtin`` and
        ``builtin-large`` when None).
    threads : int or None, default=None
        CPU threads of each model (see :class:`BuiltinModerator`).
    """

    name = "builtin-cascade"

    _parameter_constraints: ClassVar[Constraints] = {
        "toxicity_band": _Band(),
        "jailbreak_band": _Band(),
        "small_dir": Nullable(Str(nonempty=True)),
        "large_dir": Nullable(Str(nonempty=True)),
        "threads": Nullable(Int(1)),
    }

    toxicity_band: list[float]
    jailbreak_band: list[float]
    small_dir: str | None
    large_dir: str | None
    threads: int | None

    def __init__(
        self,
        *,
        toxicity_band: Sequence[float] = DEFAULT_TOXICITY_BAND,
        jailbreak_band: Sequence[float] = DEFAULT_JAILBREAK_BAND,
        small_dir: str | None = None,
        large_dir: str | None = None,
        threads: int | None = None,
    ) -> None:
        self._set_params(
            toxicity_band=toxicity_band,
            jailbreak_band=jailbreak_band,
            small_dir=small_dir,
            large_dir=large_dir,
            threads=threads,
        )

    @cached_property
    def small(self) -> BuiltinModerator:
        """The first model (``builtin``)."""
        return BuiltinModerator(model_dir=self.small_dir, threads=self.threads)

    @cached_property
    def large(self) -> BuiltinLargeModerator:
        """The model of the uncertain texts (``builtin-large``)."""
        return BuiltinLargeModerator(model_dir=self.large_dir, threads=self.threads)

    @property
    def version(self) -> str:
        # Both models' versions: a re-shipped model never shares stored answers. The
        # bands are part of config(), which the store key holds too.
        return f"{self.small.version}+{self.large.version}"

    def load(self) -> CascadeModerator:
        """Load both models now instead of on the first call."""
        self.small.load()
        self.large.load()
        return self

    def trained_texts(self) -> TrainedTexts | None:
        """The union of both models' training texts (either may answer a text).

        A data set that either model's card gives an honest-figure command for gets
        the cascade's own: its score on the rows neither model saw (``--unseen``).
        """
        from .._trained import TrainedTexts

        parts = [t for t in (self.small.trained_texts(), self.large.trained_texts()) if t]
        if not parts:
            return None
        honest = {
            ds: f"tactful eval {ds} -m {self.name} --unseen"
            for part in parts
            for ds in part.honest_figures
        }
        return TrainedTexts(np.unique(np.concatenate([p.fingerprints for p in parts])), honest)

    def uncertain(self, answer: Analysis) -> bool:
        """Whether the small model's ``answer`` goes to the large model."""
        tlo, thi = self.toxicity_band
        jlo, jhi = self.jailbreak_band
        tox = answer.scores.get("toxicity", 0.0)
        jb = answer.jailbreak or 0.0
        return tlo <= tox <= thi or jlo <= jb <= jhi

    def analyze(self, texts: Sequence[str]) -> list[Analysis]:
        texts = check_texts(texts)
        if not texts:
            return []
        first = self.small.analyze(texts)
        out = [dataclasses.replace(a, raw={**a.raw, "answered_by": self.small.name}) for a in first]
        sent = [i for i, a in enumerate(first) if self.uncertain(a)]
        if sent:
            second = self.large.analyze([texts[i] for i in sent])
            for i, a in zip(sent, second, strict=True):
                out[i] = dataclasses.replace(a, raw={**a.raw, "answered_by": self.large.name})
        return out
