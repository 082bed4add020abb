#!/usr/bin/env bash
# A candidate for builtin from student legs, made and measured as docs/research/model-3.md
# does: a uniform soup of the runs, exported "dynamic", shipped, its delicate point chosen,
# tactful's two category rows grafted on, then the figures of the candidate rule on dev.
# Usage: bash research/leg_candidate.sh NAME VERSION RUN [RUN ...]   (from the repo root)
# Writes runs/NAME and /tmp/NAME.{S,D,G}; the model folder to judge is /tmp/NAME.G.
set -euo pipefail
name=$1 version=$2
shift 2
out=/tmp/$name
tactful train soup "$@" --out "runs/$name" --no-export
tactful train export "runs/$name" --quantize dynamic
rm -rf "$out.S" "$out.D" "$out.G"
tactful train ship "runs/$name" --version "$version" --name builtin --to "$out.S" \
    --category-harmless-pass 0.99
tactful train delicate-point "$out.S" --out "$out.D" --version "$version"
tactful train category-heads "$out.D" --out "$out.G" --version "$version" --graft \
    --head intellectual-property --head misinformation --harmless-pass 0.995
bash research/rule_dev.sh "$out.G"
