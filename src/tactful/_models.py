"""Where the model files are: the ``tactful.models`` entry points.

A model ships in a Python distribution that names its folder under the entry-point
group ``tactful.models``, as spaCy finds its model packages. tactful's own wheel
registers ``builtin`` (its files are package data of ``tactful``); the distribution
``tactful-builtin-large`` registers ``builtin-large``::

    [project.entry-points."tactful.models"]
    builtin-large = "tactful_builtin_large:model_dir"

The entry point names a function that returns the folder (or a path itself).
"""

from __future__ import annotations

from importlib import metadata, resources
from pathlib import Path

from .errors import ModelError, UnknownNameError

__all__ = ["GROUP", "builtin_dir", "installed_models", "model_dir"]

#: The entry-point group of model folders.
GROUP = "tactful.models"

#: The distribution that ships each model tactful knows, and its folder in a checkout.
_SHIPPED = {
    "builtin": ("tactful", "."),
    "builtin-large": ("tactful-builtin-large", "models/tactful-builtin-large"),
}


def builtin_dir() -> Path:
    """The folder of the ``builtin`` model, package data of ``tactful`` (``models/builtin``);
    the target of tactful's own ``tactful.models`` entry point."""
    return Path(str(resources.files("tactful") / "models" / "builtin"))


def _entry_points() -> dict[str, metadata.EntryPoint]:
    found: dict[str, metadata.EntryPoint] = {}
    for ep in metadata.entry_points(group=GROUP):
        found.setdefault(ep.name, ep)  # the first on sys.path wins, as imports do
    return found


def installed_models() -> dict[str, str]:
    """The installed models: name → the distribution that registers it, sorted by name.

    Returns
    -------
    dict of str to str
        E.g. ``{"builtin": "tactful", "builtin-large": "tactful-builtin-large"}``.
    """
    found = _entry_points()
    return {
        name: (ep.dist.name if ep.dist is not None else ep.value)
        for name, ep in sorted(found.items())
    }


def model_dir(name: str) -> Path:
    """The folder of the installed model ``name``, found by its ``tactful.models`` entry point.

    Parameters
    ----------
    name : str
        A model name such as ``"builtin"`` or ``"builtin-large"``.

    Returns
    -------
    pathlib.Path
        The folder that holds the model's ``card.json`` and ``model.onnx``.

    Raises
    ------
    ModelError
        When a model tactful ships (``builtin``, ``builtin-large``) is not installed (the
        message says which package to install), or its entry point fails to load.
    UnknownNameError
        When no installed distribution registers ``name``.
    """
    ep = _entry_points().get(name)
    if ep is None:
        if name in _SHIPPED:
            dist, folder = _SHIPPED[name]
            raise ModelError(
                f"The model {name!r} is not installed: pip install {dist} "
                f"(or pip install -e {folder} from a checkout)."
            )
        raise UnknownNameError("model", name, _entry_points())
    try:
        target = ep.load()
        return Path(target() if callable(target) else target)
    except (ImportError, AttributeError, TypeError, ValueError, OSError) as exc:
        raise ModelError(
            f"The model {name!r} (entry point {ep.value!r}) cannot be loaded: {exc}"
        ) from None
