"""Training of the builtin multi-task model (needs the ``train`` extra).

``pip install torch==2.13.0 && pip install -e '.[train]'`` (torch first, so
that nothing pulls a CUDA build). Nothing here runs at inference time.

The command line is ``tactful train`` (the same app as ``python -m tactful.train``)::

    tactful train run --out runs/s1 [--encoder minilm|mpnet]       # stage 1
    tactful train run --out runs/s2 --init runs/s1/model.pt --stage 2
    tactful train soup runs/s4 runs/s4_s1 --out runs/soup4
    tactful train ship runs/soup4 --version 1.2.0
    tactful train cv detexd --out runs/cv_detexd
    tactful train assemble-encoder mpnet

Importing this package is cheap (the ``tactful`` command line imports it for
:data:`train_app`): each public name is loaded from its module on first use.
The names that need torch (:class:`MultiTaskModel`, :func:`train`,
:func:`predict`, :func:`export_onnx`) check the extra first, so a missing extra
is one :class:`~tactful.errors.ModelError` (:data:`TRAIN_EXTRA_MESSAGE`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._card import (
        DELICATE_MIN_ROWS,
        DEV_RESAMPLES,
        MODEL_FILES,
        RUN_MISMATCH_MESSAGE,
        RUN_MISSING_MESSAGE,
        THRESHOLD_GRID,
        SourceRun,
        best_f1_threshold,
        card_crossfit_runs,
        card_stages,
        choose_delicate_threshold,
        choose_span_threshold,
        choose_thresholds,
        crossfit_threshold_f1,
        delicate_dev_rows,
        delicate_dev_shares,
        harmless_dev_texts,
        harmless_floor,
        install_export,
        offensive_dev_rows,
        repoint_delicate,
        run_span_gold,
        run_stages,
        ship,
        source_run,
        span_sets,
        verify_run,
    )
    from ._cli import train_app
    from ._config import TRAIN_EXTRA_MESSAGE, TrainConfig, load_tokenizer, require_train_extra
    from ._delicatehead import delicate_head_examples, refit_delicate_head, with_delicate_row
    from ._distill import (
        HARD_ONLY_SOURCES,
        distill,
        distill_examples,
        is_model_folder,
        recorded_stage_examples,
        teacher_identity,
        teacher_logits,
    )
    from ._encoders import (
        ENCODER_CACHE_ENV,
        ENCODER_INFO,
        ENCODERS,
        MPNET_PARTS,
        MPNET_ZIP_SHA256,
        EncoderInfo,
        assemble_encoder,
        encoder_cache_dir,
        encoder_dir,
        mpnet_parts,
    )
    from ._export import export_onnx
    from ._loop import predict, train
    from ._mixture import (
        DEFAULT_CAPS,
        DEFAULT_REPEATS,
        PROMPT_SOURCES,
        SPAN_GOLDS,
        Example,
        build_mixture,
        clean_prompts,
    )
    from ._model import MultiTaskModel
    from ._quantize import QUANTIZATIONS, quantize_weights_int8
    from ._run import (
        CV_PROTOCOLS,
        SOURCES,
        STAGES,
        cross_validate,
        load_run,
        run_encoder,
        run_layers,
        run_training,
        soup,
        stage_mixture,
    )
    from ._spanhead import (
        HEAD_BIAS,
        refit_span_head,
        span_head_examples,
        token_head_tensors,
        with_token_head,
    )
    from ._templates import TEMPLATE_SOURCES, TemplateFlags, template_flags

__all__ = [  # noqa: RUF022  (kept in sorted() order; a test checks it)
    "CV_PROTOCOLS",
    "DEFAULT_CAPS",
    "DEFAULT_REPEATS",
    "DELICATE_MIN_ROWS",
    "DEV_RESAMPLES",
    "ENCODERS",
    "ENCODER_CACHE_ENV",
    "ENCODER_INFO",
    "EncoderInfo",
    "Example",
    "HARD_ONLY_SOURCES",
    "HEAD_BIAS",
    "MODEL_FILES",
    "MPNET_PARTS",
    "MPNET_ZIP_SHA256",
    "MultiTaskModel",
    "PROMPT_SOURCES",
    "QUANTIZATIONS",
    "RUN_MISMATCH_MESSAGE",
    "RUN_MISSING_MESSAGE",
    "SOURCES",
    "SPAN_GOLDS",
    "STAGES",
    "SourceRun",
    "TEMPLATE_SOURCES",
    "THRESHOLD_GRID",
    "TRAIN_EXTRA_MESSAGE",
    "TemplateFlags",
    "TrainConfig",
    "assemble_encoder",
    "best_f1_threshold",
    "build_mixture",
    "card_crossfit_runs",
    "card_stages",
    "choose_delicate_threshold",
    "choose_span_threshold",
    "choose_thresholds",
    "clean_prompts",
    "cross_validate",
    "crossfit_runs",
    "crossfit_threshold_f1",
    "delicate_dev_rows",
    "delicate_dev_shares",
    "delicate_head_examples",
    "distill",
    "distill_examples",
    "encoder_cache_dir",
    "encoder_dir",
    "export_onnx",
    "harmless_dev_texts",
    "harmless_floor",
    "install_export",
    "is_model_folder",
    "load_run",
    "load_tokenizer",
    "mpnet_parts",
    "offensive_dev_rows",
    "predict",
    "quantize_weights_int8",
    "recorded_stage_examples",
    "refit_delicate_head",
    "refit_span_head",
    "repoint_delicate",
    "require_train_extra",
    "run_encoder",
    "run_layers",
    "run_span_gold",
    "run_stages",
    "run_training",
    "ship",
    "soup",
    "source_run",
    "span_head_examples",
    "span_sets",
    "stage_mixture",
    "teacher_identity",
    "teacher_logits",
    "template_flags",
    "token_head_tensors",
    "toxicchat_folds",
    "train",
    "train_app",
    "verify_run",
    "with_delicate_row",
    "with_token_head",
]

#: Where each public name lives (loaded on first use, then kept in this module).
_LAZY: dict[str, str] = {
    "CV_PROTOCOLS": "._run",
    "DEFAULT_CAPS": "._mixture",
    "DEFAULT_REPEATS": "._mixture",
    "ENCODERS": "._encoders",
    "ENCODER_CACHE_ENV": "._encoders",
    "ENCODER_INFO": "._encoders",
    "EncoderInfo": "._encoders",
    "Example": "._mixture",
    "HARD_ONLY_SOURCES": "._distill",
    "TEMPLATE_SOURCES": "._templates",
    "TemplateFlags": "._templates",
    "template_flags": "._templates",
    "MODEL_FILES": "._card",
    "MPNET_PARTS": "._encoders",
    "MPNET_ZIP_SHA256": "._encoders",
    "MultiTaskModel": "._model",
    "RUN_MISMATCH_MESSAGE": "._card",
    "RUN_MISSING_MESSAGE": "._card",
    "SOURCES": "._run",
    "SPAN_GOLDS": "._mixture",
    "STAGES": "._run",
    "SourceRun": "._card",
    "DEV_RESAMPLES": "._card",
    "DELICATE_MIN_ROWS": "._card",
    "choose_delicate_threshold": "._card",
    "crossfit_threshold_f1": "._card",
    "delicate_dev_rows": "._card",
    "delicate_dev_shares": "._card",
    "repoint_delicate": "._card",
    "delicate_head_examples": "._delicatehead",
    "refit_delicate_head": "._delicatehead",
    "with_delicate_row": "._delicatehead",
    "THRESHOLD_GRID": "._card",
    "TRAIN_EXTRA_MESSAGE": "._config",
    "TrainConfig": "._config",
    "assemble_encoder": "._encoders",
    "best_f1_threshold": "._card",
    "build_mixture": "._mixture",
    "clean_prompts": "._mixture",
    "PROMPT_SOURCES": "._mixture",
    "choose_span_threshold": "._card",
    "choose_thresholds": "._card",
    "cross_validate": "._run",
    "crossfit_runs": "._card",
    "harmless_dev_texts": "._card",
    "harmless_floor": "._card",
    "distill": "._distill",
    "distill_examples": "._distill",
    "teacher_logits": "._distill",
    "toxicchat_folds": "._mixture",
    "is_model_folder": "._distill",
    "recorded_stage_examples": "._distill",
    "refit_span_head": "._spanhead",
    "HEAD_BIAS": "._spanhead",
    "token_head_tensors": "._spanhead",
    "with_token_head": "._spanhead",
    "span_head_examples": "._spanhead",
    "teacher_identity": "._distill",
    "encoder_cache_dir": "._encoders",
    "encoder_dir": "._encoders",
    "export_onnx": "._export",
    "QUANTIZATIONS": "._quantize",
    "quantize_weights_int8": "._quantize",
    "install_export": "._card",
    "card_crossfit_runs": "._card",
    "card_stages": "._card",
    "load_run": "._run",
    "load_tokenizer": "._config",
    "mpnet_parts": "._encoders",
    "offensive_dev_rows": "._card",
    "predict": "._loop",
    "require_train_extra": "._config",
    "run_encoder": "._run",
    "run_layers": "._run",
    "run_span_gold": "._card",
    "run_stages": "._card",
    "run_training": "._run",
    "ship": "._card",
    "soup": "._run",
    "source_run": "._card",
    "span_sets": "._card",
    "stage_mixture": "._run",
    "train": "._loop",
    "train_app": "._cli",
    "verify_run": "._card",
}

#: The modules that import torch: the extra is checked before they load.
_TORCH_MODULES = frozenset({"._export", "._loop", "._model"})


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if module in _TORCH_MODULES:
        from ._config import require_train_extra

        require_train_extra()
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
