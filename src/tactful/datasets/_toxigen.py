"""ToxiGen (Hartvigsen et al., 2022): human-annotated statements about 13 minority groups."""

from __future__ import annotations

import ast

from ..identity import TOXIGEN_GROUPS
from ._io import Source, Table
from ._record import Record
from ._spec import DatasetSpec, dataset

TOXIGEN = "toxigen/toxigen_annotated.csv"
#: ToxiGen rows are toxic when the mean human score (1–5) is at least this.
TOXIGEN_THRESHOLD = 4.0


def decode_bytes_literal(cell: str) -> str:
    """Text of a cell written as a Python bytes literal (``b'caf\\xc3\\xa9'`` → ``'café'``).

    Parsed with :func:`ast.literal_eval` (no code runs), decoded as UTF-8 with
    invalid bytes replaced. A cell that is not a bytes literal is returned as is.
    """
    s = cell.strip()
    if len(s) >= 3 and s[0] == "b" and s[1] in "'\"" and s[-1] == s[1]:
        try:
            value = ast.literal_eval(s)
        except (ValueError, SyntaxError):
            return cell
        if isinstance(value, bytes):
            return value.decode("utf-8", errors="replace")
    return cell


@dataset(
    DatasetSpec.single(
        "toxigen",
        "toxicity",
        TOXIGEN,
        8960,
        "ToxiGen human-annotated statements about 13 minority groups (Hartvigsen et al., 2022). "
        "label = 1 when toxicity_human (mean of annotators' 1-5 harm scores) >= 4; "
        "labels: toxicity, prompt_hate (the generation prompt was hateful); meta: the raw "
        "toxicity_human and toxicity_ai scores, target_group. Texts are stored as Python bytes "
        "literals and decoded as UTF-8. groups: target_group mapped to the audit's groups; "
        "sub_identities: target_group. id = row number.",
    )
)
def _toxigen(src: Source) -> Table:
    df = src.read_csv(TOXIGEN, ["text", "target_group", "toxicity_human", "toxicity_ai", "label"])
    out = []
    for i, (cell, tg, th, ta, plabel) in enumerate(
        zip(
            df["text"],
            df["target_group"],
            df["toxicity_human"],
            df["toxicity_ai"],
            df["label"],
            strict=True,
        )
    ):
        try:
            th_f, ta_f = float(th), float(ta)
        except ValueError:
            raise src.error(TOXIGEN, f"toxicity scores {th!r}/{ta!r} are not numbers", i) from None
        if tg not in TOXIGEN_GROUPS:
            raise src.error(TOXIGEN, f"unknown target_group {tg!r}", i)
        y = int(th_f >= TOXIGEN_THRESHOLD)
        hate = src.binary(TOXIGEN, i, plabel, {"hate": 1, "neutral": 0})
        out.append(
            Record(
                str(i),
                decode_bytes_literal(cell),
                y,
                "all",
                {"toxicity": y, "prompt_hate": hate},
                groups=(TOXIGEN_GROUPS[tg],),
                sub_identities=(tg,),
                meta={"target_group": tg, "toxicity_human": th_f, "toxicity_ai": ta_f},
            )
        )
    return Table.all_rows(out)
