"""Sphinx configuration of tactful's documentation site (``pip install -e '.[docs]'``; build with
``sphinx-build -W --keep-going -b html docs docs/_build/html``)."""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))

import tactful

project = "tactful"
author = "the tactful authors"
copyright = "2026, the tactful authors"
release = tactful.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "myst_parser",
    "tactful_docs",  # docs/_ext: the CLI reference and the model pages, generated at build time
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_generated", "Thumbs.db", ".DS_Store"]
templates_path = ["_templates"]
html_static_path = ["_static"]

# MyST: `#slug` links to headings (the pages were cut from one README whose links used them).
myst_heading_anchors = 6
myst_enable_extensions = ["colon_fence", "deflist"]

# API reference: autosummary pages for the names in each module's __all__.
autosummary_generate = True
autosummary_ignore_module_all = False
autodoc_default_options = {"members": True, "inherited-members": False}
autodoc_typehints = "none"  # numpydoc's Parameters/Returns sections carry the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

html_theme = "pydata_sphinx_theme"
html_title = f"tactful {release}"
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_sidebars = {page: [] for page in ("getting-started", "training", "changelog", "research/*")}
html_css_files = ["tactful.css"]
# Keep `--option` and quotes as written (the pages quote commands in running text).
smartquotes = False
