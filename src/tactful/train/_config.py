"""A training run's settings, the tokenizer, and the check that the extra is installed.

No torch here: a run's configuration is checked (and a missing extra reported)
before anything heavy is imported.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from .._heads import CATEGORY_HEADS
from ..errors import ModelError
from ..params import Bool, Constraints, Float, Int, Nullable, OneOf, Str, StrList, validate_params
from ._encoders import ENCODERS, encoder_dir
from ._templates import TEMPLATE_CONSTRAINTS

if TYPE_CHECKING:
    from tokenizers import Tokenizer

__all__ = ["TRAIN_EXTRA_MESSAGE", "TrainConfig", "load_tokenizer", "require_train_extra"]

#: The one line a user sees when the ``train`` extra is missing ({missing}: the module).
TRAIN_EXTRA_MESSAGE = (
    "Training needs the train extra ({missing} is missing): "
    "pip install torch==2.13.0 && pip install -e '.[train]'."
)


def require_train_extra() -> None:
    """Raise :class:`~tactful.errors.ModelError` (:data:`TRAIN_EXTRA_MESSAGE`) unless
    torch and transformers import."""
    for module in ("torch", "transformers"):
        try:
            importlib.import_module(module)
        except ImportError:
            raise ModelError(TRAIN_EXTRA_MESSAGE.format(missing=module)) from None


@dataclass
class TrainConfig:
    """The settings of one training run, written to its ``train.json``.

    Checked on construction (:data:`~tactful.errors.PARAM_MESSAGE`). ``init`` is
    the ``model.pt`` a later stage starts from (else the pretrained encoder);
    ``stage`` is recorded so that a run's data can be rebuilt; ``jailbreak_toxic``
    is set only when the run overrode its stage's choice; ``targeted`` says the run
    trained on model 2.0's mixture (:func:`~tactful.train.build_mixture`), and
    ``broad_toxicity`` whether the hate and offence sets labelled its toxicity head
    (``None``: as ``targeted``), and each template flag (``derogation``, ``menace``,
    ...: :data:`~tactful.train.TEMPLATE_SOURCES`) whether those training templates
    joined its mixture. ``layers`` keeps the encoder's first layers only. A
    distilled run names its ``teacher`` run; its loss is ``1 - alpha`` times the
    hard-label loss plus ``alpha`` times the soft loss against the teacher's logits
    at ``temperature`` (:func:`~tactful.train.distill`), the toxic-token head's with
    ``token_alpha`` instead when set; ``soft_on_gold`` says whether texts with gold
    toxic spans also got the teacher's token targets, ``soft_templates`` whether
    the template rows took the teacher's targets where they agree with their
    labels, ``extra`` how many stage-1 texts joined its mixture, ``spans`` how many
    more SemEval-2021 train posts and ``toxigen`` how many more ToxiGen statements.
    ``holdout`` (``"K/N"``) names the ToxicChat train fold a cross-fitting run left
    out (:func:`~tactful.train.toxicchat_folds`). ``heads``: the sequence heads (default
    the eight; :data:`~tactful._heads.CATEGORY_HEADS` adds the harm categories).
    """

    _parameter_constraints: ClassVar[Constraints] = {
        "epochs": Float(0, None, closed="neither"),
        "batch_size": Int(1),
        "lr": Float(0, None, closed="neither"),
        "head_lr": Float(0, None, closed="neither"),
        "warmup": Float(0, 1),
        "weight_decay": Float(0),
        "max_len": Int(8, 512),
        "seed": Int(0),
        "threads": Int(1),
        "checkpoint_every": Int(1),
        "tok_weight": Float(0),
        "type_weight": Float(0),
        "init": Nullable(Str(nonempty=True)),
        "stage": Int(1),
        "jailbreak_toxic": Nullable(Bool()),
        "encoder": OneOf(ENCODERS),
        "targeted": Bool(),
        "broad_toxicity": Nullable(Bool()),
        **TEMPLATE_CONSTRAINTS,
        "layers": Nullable(Int(1)),
        "teacher": Nullable(Str(nonempty=True)),
        "alpha": Float(0, 1),
        "temperature": Float(0, None, closed="neither"),
        "token_alpha": Nullable(Float(0, 1)),
        "soft_on_gold": Bool(),
        "soft_templates": Bool(),
        "extra": Int(0),
        "spans": Int(0),
        "toxigen": Int(0),
        "holdout": Nullable(Str(nonempty=True)),
        "heads": Nullable(StrList(options=CATEGORY_HEADS, nonempty=True)),
    }

    epochs: float = 1.0
    batch_size: int = 16
    lr: float = 5e-5
    head_lr: float = 5e-4
    warmup: float = 0.05
    weight_decay: float = 0.01
    max_len: int = 128
    seed: int = 0
    threads: int = 2
    checkpoint_every: int = 200
    tok_weight: float = 1.0
    type_weight: float = 0.5
    init: str | None = None
    stage: int = 1
    jailbreak_toxic: bool | None = None
    encoder: str = "minilm"
    targeted: bool = False
    broad_toxicity: bool | None = None
    derogation: bool = False
    delicate: bool = False
    menace: bool = False
    exclusion: bool = False
    injection: bool = False
    technical: bool = False
    contrast: bool = False
    layers: int | None = None
    teacher: str | None = None
    alpha: float = 0.5
    temperature: float = 2.0
    token_alpha: float | None = None
    soft_on_gold: bool = True
    soft_templates: bool = False
    extra: int = 0
    spans: int = 0
    toxigen: int = 0
    holdout: str | None = None
    heads: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        checked = validate_params(
            "TrainConfig",
            self._parameter_constraints,
            **{f.name: getattr(self, f.name) for f in fields(self)},
        )
        for name, value in checked.items():
            setattr(self, name, value)


def load_tokenizer(
    path: str | Path | None = None, max_len: int = 128, *, encoder: str = "minilm"
) -> Tokenizer:
    """The encoder's ``tokenizer.json`` (or ``path``), unpadded, truncated at ``max_len`` tokens."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(path or (encoder_dir(encoder) / "tokenizer.json")))
    tok.no_padding()
    tok.enable_truncation(max_length=max_len)
    return tok
