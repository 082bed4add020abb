"""Transition shim: ``_audit_views.py`` still imports ``OPENAI_CATEGORIES`` from here.

The loaders moved to one module per source family; ``OPENAI_CATEGORIES`` lives in
:mod:`._openai` (public as ``tactful.datasets.OPENAI_CATEGORIES``). Delete this file
once ``_audit_views.py`` imports it from there.
"""

from ._openai import OPENAI_CATEGORIES

__all__ = ["OPENAI_CATEGORIES"]
