"""ParaDetox (Logacheva et al., 2022): toxic sentences with their civil rewrites."""

from __future__ import annotations

from ._io import Source, Table
from ._record import Record
from ._spec import DatasetSpec, dataset

PARADETOX = "paradetox/paradetox.tsv"


@dataset(
    DatasetSpec.single(
        "paradetox",
        "toxicity",
        PARADETOX,
        31670,
        "ParaDetox (Logacheva et al., 2022): 11,927 toxic sentences (label 1) each followed by "
        "its 1-3 human civil rewrites (label 0): 19,743 rewrites, 31,670 rows. "
        "meta['pair'] = the toxic row number shared by a sentence and its rewrites, "
        "meta['rewrite'] = 0 for the toxic sentence, k for neutral{k}. "
        "id = '<pair>-toxic' / '<pair>-neutral<k>'.",
    )
)
def _paradetox(src: Source) -> Table:
    df = src.read_csv(PARADETOX, ["toxic", "neutral1", "neutral2", "neutral3"], sep="\t")
    out = []
    for i, row in enumerate(
        zip(df["toxic"], df["neutral1"], df["neutral2"], df["neutral3"], strict=True)
    ):
        out.append(
            Record(f"{i}-toxic", row[0], 1, "all", {"toxicity": 1}, meta={"pair": i, "rewrite": 0})
        )
        for k in (1, 2, 3):
            if row[k].strip():
                out.append(
                    Record(
                        f"{i}-neutral{k}",
                        row[k],
                        0,
                        "all",
                        {"toxicity": 0},
                        meta={"pair": i, "rewrite": k},
                    )
                )
    return Table.all_rows(out)
