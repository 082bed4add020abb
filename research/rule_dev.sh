#!/usr/bin/env bash
# The dev figures of the candidate rule (docs/research/model-3.md) for a builtin model
# folder: item 7's plain cases, compare-runs' template passes, each dev category and
# template, harm_requests recall, harm_benign and ToxicChat dev, the rights probe.
# Usage: bash research/rule_dev.sh DIR   (from the repo root)
set -euo pipefail
G=$1
python research/rule_cases.py "$G"
tactful train compare-runs "$G" --dev-only --points card
python research/category_dev.py "$G"
python research/category_dev.py --templates-of 10 "$G"
python research/harm_recall.py builtin -O "model_dir=$G" --split dev
tactful eval harm_benign --split dev -m builtin -O "model_dir=$G" --json
tactful eval toxicchat --split dev -m builtin -O "model_dir=$G" --json
python research/rights_statements.py "builtin=$G"
