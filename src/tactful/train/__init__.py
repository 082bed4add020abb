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

The release tooling needs no torch (:mod:`tactful.train._cli_release`)::

    tactful train compare-runs runs/s5 runs/s6 [--points card] [--dev-only]
    tactful train crossfit-noise runs/pkg_a runs/pkg_b
    tactful train trained-texts [--model-dir DIR] [--check]
    tactful train card-figures --eval runs/eval_toxicchat.json ...
    tactful train obfuscate --dataset toxicspans --out ts_obf.jsonl

The training data built from the functional suite's machinery
(:func:`training_records` and the template sources) lives here too, not in
:mod:`tactful.functional`, which is the test suite alone.

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
    from ._bank import TeacherId, bank_summary, read_bank, read_chars, write_bank, write_chars
    from ._bank_sources import BANK_SOURCES, source_texts
    from ._categories import category_examples, template_category_examples
    from ._categoryhead import (
        IDENTITY_MENTIONS,
        REFIT_HEADS,
        THREAT_CATEGORY_WEIGHT,
        THREAT_NEGATIVES,
        cached_pooled_features,
        category_head_examples,
        refit_category_heads,
        with_category_rows,
        with_grafted_rows,
    )
    from ._cli import train_app
    from ._compare import compare_run
    from ._config import TRAIN_EXTRA_MESSAGE, TrainConfig, load_tokenizer, require_train_extra
    from ._cv import CV_PROTOCOLS, cross_validate
    from ._delicatehead import (
        delicate_head_examples,
        float_seq_head,
        pooled_features,
        refit_delicate_head,
        with_delicate_row,
    )
    from ._devrows import (
        delicate_dev_rows,
        delicate_dev_shares,
        harmless_dev_texts,
        offensive_dev_rows,
    )
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
    from ._figures import write_card_figures
    from ._label import label_source, teacher_id
    from ._legs import (
        LegConfig,
        LegResult,
        LoRALinear,
        apply_lora,
        load_run_model,
        merge_lora,
        merge_run,
        multitask_lora,
        resume_run,
        start_run,
        trainable_state,
    )
    from ._loop import batch_plan, collate, encode, loss_fn, predict, train
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
    from ._noise import crossfit_plan, crossfit_scores
    from ._provenance import (
        RUN_MISMATCH_MESSAGE,
        RUN_MISSING_MESSAGE,
        SourceRun,
        card_crossfit_runs,
        card_stages,
        run_span_gold,
        run_stages,
        source_run,
        verify_run,
    )
    from ._quantize import QUANTIZATIONS, quantize_weights_int8
    from ._run import load_run, run_encoder, run_layers, run_training, soup
    from ._ship import (
        MODEL_FILES,
        install_export,
        repoint_delicate,
        repoint_toxicity,
        ship,
    )
    from ._spanhead import (
        HEAD_BIAS,
        refit_span_head,
        span_head_examples,
        token_head_tensors,
        with_token_head,
    )
    from ._stages import SOURCES, STAGES, stage_mixture
    from ._student import bank_examples, student
    from ._suite_data import (
        AUDIT_ONLY,
        HELD_OUT_SOURCES,
        THREAT_PATTERN,
        TRAINING_SOURCES,
        contrast_template_records,
        counterfactual_records,
        delicate_template_records,
        derogation_template_records,
        exclusion_template_records,
        harm_template_records,
        holistic_person_nouns,
        identity_negatives,
        injection_template_records,
        keyword_threats,
        menace_template_records,
        technical_template_records,
        threat_template_records,
        toxicspans_threats,
        toxigen_benign,
        training_records,
    )
    from ._suite_templates import TRAINING_FUNCTIONALITIES, TRAINING_TEMPLATES
    from ._templates import TEMPLATE_SOURCES, TemplateFlags, template_flags
    from ._thresholds import (
        DELICATE_MIN_ROWS,
        DEV_RESAMPLES,
        THRESHOLD_GRID,
        best_f1_threshold,
        choose_delicate_threshold,
        choose_span_threshold,
        choose_thresholds,
        crossfit_threshold_f1,
        harmless_floor,
        or_in_threshold,
        span_sets,
    )
    from ._trained_texts import TrainedTextsRecord, record_trained_texts
    from ._variations import crops, recombine

__all__ = [  # noqa: RUF022  (kept in sorted() order; a test checks it)
    "AUDIT_ONLY",
    "BANK_SOURCES",
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
    "HELD_OUT_SOURCES",
    "IDENTITY_MENTIONS",
    "LegConfig",
    "LegResult",
    "LoRALinear",
    "MODEL_FILES",
    "MPNET_PARTS",
    "MPNET_ZIP_SHA256",
    "MultiTaskModel",
    "PROMPT_SOURCES",
    "QUANTIZATIONS",
    "REFIT_HEADS",
    "RUN_MISMATCH_MESSAGE",
    "RUN_MISSING_MESSAGE",
    "SOURCES",
    "SPAN_GOLDS",
    "STAGES",
    "SourceRun",
    "TEMPLATE_SOURCES",
    "THREAT_CATEGORY_WEIGHT",
    "THREAT_NEGATIVES",
    "THREAT_PATTERN",
    "THRESHOLD_GRID",
    "TRAINING_FUNCTIONALITIES",
    "TRAINING_SOURCES",
    "TRAINING_TEMPLATES",
    "TRAIN_EXTRA_MESSAGE",
    "TeacherId",
    "TemplateFlags",
    "TrainConfig",
    "TrainedTextsRecord",
    "apply_lora",
    "assemble_encoder",
    "bank_examples",
    "bank_summary",
    "batch_plan",
    "best_f1_threshold",
    "build_mixture",
    "cached_pooled_features",
    "card_crossfit_runs",
    "card_stages",
    "category_examples",
    "category_head_examples",
    "choose_delicate_threshold",
    "choose_span_threshold",
    "choose_thresholds",
    "clean_prompts",
    "collate",
    "compare_run",
    "contrast_template_records",
    "counterfactual_records",
    "crops",
    "cross_validate",
    "crossfit_plan",
    "crossfit_runs",
    "crossfit_scores",
    "crossfit_threshold_f1",
    "delicate_dev_rows",
    "delicate_dev_shares",
    "delicate_head_examples",
    "delicate_template_records",
    "derogation_template_records",
    "distill",
    "distill_examples",
    "encode",
    "encoder_cache_dir",
    "encoder_dir",
    "exclusion_template_records",
    "export_onnx",
    "float_seq_head",
    "harm_template_records",
    "harmless_dev_texts",
    "harmless_floor",
    "holistic_person_nouns",
    "identity_negatives",
    "injection_template_records",
    "install_export",
    "is_model_folder",
    "keyword_threats",
    "label_source",
    "load_run",
    "load_run_model",
    "load_tokenizer",
    "loss_fn",
    "menace_template_records",
    "merge_lora",
    "merge_run",
    "mpnet_parts",
    "multitask_lora",
    "offensive_dev_rows",
    "or_in_threshold",
    "pooled_features",
    "predict",
    "quantize_weights_int8",
    "read_bank",
    "read_chars",
    "recombine",
    "record_trained_texts",
    "recorded_stage_examples",
    "refit_category_heads",
    "refit_delicate_head",
    "refit_span_head",
    "repoint_delicate",
    "repoint_toxicity",
    "require_train_extra",
    "resume_run",
    "run_encoder",
    "run_layers",
    "run_span_gold",
    "run_stages",
    "run_training",
    "ship",
    "soup",
    "source_run",
    "source_texts",
    "span_head_examples",
    "span_sets",
    "stage_mixture",
    "start_run",
    "student",
    "teacher_id",
    "teacher_identity",
    "teacher_logits",
    "technical_template_records",
    "template_category_examples",
    "template_flags",
    "threat_template_records",
    "token_head_tensors",
    "toxicchat_folds",
    "toxicspans_threats",
    "toxigen_benign",
    "train",
    "train_app",
    "trainable_state",
    "training_records",
    "verify_run",
    "with_category_rows",
    "with_delicate_row",
    "with_grafted_rows",
    "with_token_head",
    "write_bank",
    "write_card_figures",
    "write_chars",
]

#: Where each public name lives (loaded on first use, then kept in this module).
_LAZY: dict[str, str] = {
    "LegConfig": "._legs",
    "LegResult": "._legs",
    "LoRALinear": "._legs",
    "apply_lora": "._legs",
    "load_run_model": "._legs",
    "merge_lora": "._legs",
    "merge_run": "._legs",
    "multitask_lora": "._legs",
    "resume_run": "._legs",
    "start_run": "._legs",
    "trainable_state": "._legs",
    "batch_plan": "._loop",
    "collate": "._loop",
    "encode": "._loop",
    "loss_fn": "._loop",
    "TeacherId": "._bank",
    "read_bank": "._bank",
    "read_chars": "._bank",
    "write_bank": "._bank",
    "write_chars": "._bank",
    "bank_summary": "._bank",
    "label_source": "._label",
    "teacher_id": "._label",
    "bank_examples": "._student",
    "student": "._student",
    "crops": "._variations",
    "recombine": "._variations",
    "BANK_SOURCES": "._bank_sources",
    "source_texts": "._bank_sources",
    "CV_PROTOCOLS": "._cv",
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
    "MODEL_FILES": "._ship",
    "MPNET_PARTS": "._encoders",
    "MPNET_ZIP_SHA256": "._encoders",
    "MultiTaskModel": "._model",
    "RUN_MISMATCH_MESSAGE": "._provenance",
    "RUN_MISSING_MESSAGE": "._provenance",
    "SOURCES": "._stages",
    "SPAN_GOLDS": "._mixture",
    "STAGES": "._stages",
    "SourceRun": "._provenance",
    "DEV_RESAMPLES": "._thresholds",
    "DELICATE_MIN_ROWS": "._thresholds",
    "choose_delicate_threshold": "._thresholds",
    "crossfit_threshold_f1": "._thresholds",
    "delicate_dev_rows": "._devrows",
    "delicate_dev_shares": "._devrows",
    "repoint_delicate": "._ship",
    "repoint_toxicity": "._ship",
    "delicate_head_examples": "._delicatehead",
    "refit_delicate_head": "._delicatehead",
    "category_head_examples": "._categoryhead",
    "cached_pooled_features": "._categoryhead",
    "category_examples": "._categories",
    "template_category_examples": "._categories",
    "REFIT_HEADS": "._categoryhead",
    "IDENTITY_MENTIONS": "._categoryhead",
    "THREAT_CATEGORY_WEIGHT": "._categoryhead",
    "THREAT_NEGATIVES": "._categoryhead",
    "refit_category_heads": "._categoryhead",
    "with_category_rows": "._categoryhead",
    "with_grafted_rows": "._categoryhead",
    "with_delicate_row": "._delicatehead",
    "THRESHOLD_GRID": "._thresholds",
    "TRAIN_EXTRA_MESSAGE": "._config",
    "TrainConfig": "._config",
    "assemble_encoder": "._encoders",
    "best_f1_threshold": "._thresholds",
    "build_mixture": "._mixture",
    "clean_prompts": "._mixture",
    "PROMPT_SOURCES": "._mixture",
    "choose_span_threshold": "._thresholds",
    "choose_thresholds": "._thresholds",
    "cross_validate": "._cv",
    "crossfit_runs": "._provenance",
    "harmless_dev_texts": "._devrows",
    "harmless_floor": "._thresholds",
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
    "install_export": "._ship",
    "card_crossfit_runs": "._provenance",
    "card_stages": "._provenance",
    "load_run": "._run",
    "load_tokenizer": "._config",
    "mpnet_parts": "._encoders",
    "offensive_dev_rows": "._devrows",
    "predict": "._loop",
    "require_train_extra": "._config",
    "run_encoder": "._run",
    "run_layers": "._run",
    "run_span_gold": "._provenance",
    "run_stages": "._provenance",
    "run_training": "._run",
    "ship": "._ship",
    "soup": "._run",
    "source_run": "._provenance",
    "span_sets": "._thresholds",
    "stage_mixture": "._stages",
    "train": "._loop",
    "train_app": "._cli",
    "verify_run": "._provenance",
    "compare_run": "._compare",
    "crossfit_plan": "._noise",
    "crossfit_scores": "._noise",
    "record_trained_texts": "._trained_texts",
    "TrainedTextsRecord": "._trained_texts",
    "write_card_figures": "._figures",
    "or_in_threshold": "._thresholds",
    "float_seq_head": "._delicatehead",
    "pooled_features": "._delicatehead",
    "AUDIT_ONLY": "._suite_data",
    "HELD_OUT_SOURCES": "._suite_data",
    "THREAT_PATTERN": "._suite_data",
    "TRAINING_SOURCES": "._suite_data",
    "contrast_template_records": "._suite_data",
    "counterfactual_records": "._suite_data",
    "delicate_template_records": "._suite_data",
    "derogation_template_records": "._suite_data",
    "exclusion_template_records": "._suite_data",
    "harm_template_records": "._suite_data",
    "holistic_person_nouns": "._suite_data",
    "identity_negatives": "._suite_data",
    "injection_template_records": "._suite_data",
    "keyword_threats": "._suite_data",
    "menace_template_records": "._suite_data",
    "technical_template_records": "._suite_data",
    "threat_template_records": "._suite_data",
    "toxicspans_threats": "._suite_data",
    "toxigen_benign": "._suite_data",
    "training_records": "._suite_data",
    "TRAINING_FUNCTIONALITIES": "._suite_templates",
    "TRAINING_TEMPLATES": "._suite_templates",
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
