#!/usr/bin/env bash
# The documentation site: install the docs extra, then build docs/ with Sphinx, every
# warning an error. Run from anywhere: `bash .ci/docs.sh`; the site is docs/_build/html.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

python -m pip install --disable-pip-version-check -q -e '.[docs]'

echo "tactful docs: sphinx-build -W (warnings are errors)"
# -E: read every page again, so that the pages generated from the model cards and the
# Typer app are never stale.
python -m sphinx -W --keep-going -E -b html docs docs/_build/html
