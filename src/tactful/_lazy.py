"""Names of a package imported on first use (PEP 562).

``tactful.cli`` imports the packages whose commands it registers (``assist``,
``audit``, ``service``), and FastAPI, pandas and matplotlib must not load for
``tactful check``: those packages declare where each public name lives and let
:func:`lazy_attributes` build their module ``__getattr__`` and ``__dir__``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection, Mapping
from importlib import import_module
from typing import Any

__all__ = ["lazy_attributes"]


def lazy_attributes(
    package: str, where: Mapping[str, str], submodules: Collection[str] = ()
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A package's module ``__getattr__`` and ``__dir__`` for names imported on first use.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    where : mapping of str to str
        Public name → the relative module that defines it (``"._cli"``).
    submodules : collection of str, optional
        Names of submodules that are themselves public (``"metrics"``).

    Returns
    -------
    tuple
        ``(__getattr__, __dir__)``: the first imports a name on first use and
        keeps it in the package's namespace (later uses do not come back), or
        raises :class:`AttributeError`; the second lists the namespace and
        ``__all__``.
    """

    def __getattr__(name: str) -> Any:
        if name in submodules:
            value: Any = import_module(f".{name}", package)
        else:
            try:
                module = where[name]
            except KeyError:
                raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
            value = getattr(import_module(module, package), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        namespace = vars(sys.modules[package])
        return sorted(set(namespace) | set(namespace.get("__all__", ())))

    return __getattr__, __dir__
