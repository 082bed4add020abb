"""HolisticBias (Smith et al., 2022): descriptors and nouns, a vocabulary, not a labelled data set.

Identity probes and the identity lexicon builder (``scripts/build_identity_lexicon.py``)
read them from the data folder through these functions, with the data sets' one-line
errors for a missing or malformed file (:class:`~tactful.errors.MissingDataError`,
:class:`~tactful.errors.DataError`). Each takes ``data_dir``, the data folder (default
from :func:`tactful.config.resolve_data_dir`).
"""

from __future__ import annotations

import os
from typing import Any

from ..config import resolve_data_dir
from ._io import Source

__all__ = ["load_holistic_buckets", "load_holistic_descriptors", "load_holistic_nouns"]

HOLISTIC_DESCRIPTORS = "holistic_bias/descriptors.json"
HOLISTIC_NOUNS = "holistic_bias/nouns.json"

DataDir = str | os.PathLike[str] | None


def _source(data_dir: DataDir) -> Source:
    return Source("holistic_bias", resolve_data_dir(data_dir))


def _flatten_descriptors(node: Any) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        if isinstance(node.get("descriptor"), str):
            return [node["descriptor"]]
        return [d for v in node.values() for d in _flatten_descriptors(v)]
    if isinstance(node, list):
        return [d for v in node for d in _flatten_descriptors(v)]
    return []


def _axes(src: Source) -> dict[str, Any]:
    data = src.read_json(HOLISTIC_DESCRIPTORS)
    if not isinstance(data, dict):
        raise src.error(HOLISTIC_DESCRIPTORS, "expected a JSON object of axis -> descriptors")
    return data


def load_holistic_descriptors(data_dir: DataDir = None) -> dict[str, list[str]]:
    """HolisticBias descriptors per demographic axis, in file order, without duplicates.

    >>> load_holistic_descriptors()["ability"][:2]  # doctest: +SKIP
    ['Deaf', 'hard-of-hearing']
    """
    data = _axes(_source(data_dir))
    return {axis: list(dict.fromkeys(_flatten_descriptors(v))) for axis, v in data.items()}


def load_holistic_buckets(data_dir: DataDir = None) -> dict[str, dict[str, list[str]]]:
    """HolisticBias descriptors per axis and bucket (``["ability"]["auditory"]``), in file order.

    An axis that is not an object of buckets, or a bucket that is not a list, is a
    :class:`~tactful.errors.DataError`.
    """
    src = _source(data_dir)
    out: dict[str, dict[str, list[str]]] = {}
    for axis, buckets in _axes(src).items():
        if not isinstance(buckets, dict):
            raise src.error(HOLISTIC_DESCRIPTORS, f"axis {axis!r} is not an object of buckets")
        out[axis] = {}
        for bucket, items in buckets.items():
            if not isinstance(items, list):
                raise src.error(HOLISTIC_DESCRIPTORS, f"bucket {axis}/{bucket} is not a list")
            out[axis][bucket] = [d for item in items for d in _flatten_descriptors(item)]
    return out


def load_holistic_nouns(data_dir: DataDir = None) -> dict[str, list[tuple[str, str]]]:
    """HolisticBias nouns per gender bucket (``"female"``, ``"male"``, ``"neutral"``):
    ``(singular, plural)`` pairs in file order (``("woman", "women")``)."""
    src = _source(data_dir)
    data = src.read_json(HOLISTIC_NOUNS)
    if not isinstance(data, dict):
        raise src.error(HOLISTIC_NOUNS, "expected a JSON object of bucket -> noun pairs")
    out: dict[str, list[tuple[str, str]]] = {}
    for bucket, pairs in data.items():
        if not isinstance(pairs, list) or not all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(w, str) for w in p)
            for p in pairs
        ):
            raise src.error(
                HOLISTIC_NOUNS, f"bucket {bucket!r} is not a list of [singular, plural]"
            )
        out[bucket] = [(p[0], p[1]) for p in pairs]
    return out
