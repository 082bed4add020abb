#!/usr/bin/env bash
# Build tactful's two wheels (tactful, tactful-builtin-large), check that each is
# under 100,000,000 bytes, install them into a fresh virtual environment from local
# files only, then run `tactful check` with both models and `tactful serve` to /readyz.
# Run from anywhere: `bash .ci/wheels.sh`. Needs `build` (the dev extra) and the package
# indexes for the build back end and the wheelhouse of tactful's dependencies; the
# install into the venv itself uses --no-index. Nothing pulls torch.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo="$(pwd)"
start=${SECONDS}
say() { echo "tactful wheels: [$((SECONDS - start)) s] $*"; }
fail() { echo "tactful wheels: error: $*" >&2; exit 1; }

tmp="$(mktemp -d)"
server_pid=""
cleanup() {
    if [[ -n "${server_pid}" ]] && kill -0 "${server_pid}" 2>/dev/null; then
        kill "${server_pid}" 2>/dev/null || true
        wait "${server_pid}" 2>/dev/null || true
    fi
    rm -rf "${tmp}"
}
trap cleanup EXIT

python -m build --version >/dev/null 2>&1 || fail "python -m build is missing: pip install -e '.[dev]'"
version="$(python -c 'import ast, sys
tree = ast.parse(open("src/tactful/__init__.py", encoding="utf-8").read())
print(next(n.value.value for n in tree.body if isinstance(n, ast.Assign)
      and getattr(n.targets[0], "id", "") == "__version__"))')"

# 1. Build. setuptools packs whatever a stale build/lib holds: start from none.
dist="${tmp}/dist"
for project in . models/tactful-builtin-large; do
    rm -rf "${project}/build"
    say "python -m build --wheel ${project}"
    python -m build --wheel --outdir "${dist}" "${project}" >"${tmp}/build.log" 2>&1 \
        || { tail -n 30 "${tmp}/build.log" >&2; fail "building ${project} failed"; }
    rm -rf "${project}/build"
done
main_whl="${dist}/tactful-${version}-py3-none-any.whl"
large_whl="${dist}/tactful_builtin_large-${version}-py3-none-any.whl"

# 2. Sizes: a package index takes files under 100 MB.
for whl in "${main_whl}" "${large_whl}"; do
    [[ -f "${whl}" ]] || fail "$(basename "${whl}") was not built (ls ${dist}: $(ls "${dist}"))"
    size="$(stat -c %s "${whl}")"
    say "$(basename "${whl}") ${size} bytes"
    ((size < 100000000)) || fail "$(basename "${whl}") is ${size} bytes, not under 100,000,000"
done

# 3. A wheelhouse of tactful's runtime dependencies (this step may use the indexes).
house="${tmp}/house"
say "wheelhouse of the dependencies"
python -m pip wheel --disable-pip-version-check -q --wheel-dir "${house}" "${main_whl}" \
    >"${tmp}/house.log" 2>&1 || { tail -n 30 "${tmp}/house.log" >&2; fail "pip wheel failed"; }
if compgen -G "${house}/torch-*" >/dev/null; then
    fail "the wheelhouse holds torch: a runtime dependency pulls it"
fi

# 4. A fresh venv, installed from local files only (no index, no pip config).
venv="${tmp}/venv"
python -m venv "${venv}"
say "pip install --no-index tactful==${version} tactful-builtin-large==${version}"
PIP_CONFIG_FILE=/dev/null "${venv}/bin/python" -m pip install --disable-pip-version-check -q \
    --no-index --find-links "${house}" --find-links "${dist}" \
    "tactful==${version}" "tactful-builtin-large==${version}" >"${tmp}/install.log" 2>&1 \
    || { tail -n 30 "${tmp}/install.log" >&2; fail "installing the wheels failed"; }
if "${venv}/bin/python" -m pip list --disable-pip-version-check 2>/dev/null | grep -qi '^torch '; then
    fail "torch was installed into the venv"
fi

# 5. Run the installed CLI outside the checkout, so nothing comes from src/.
run="${tmp}/run"
mkdir "${run}"
cd "${run}"
unset PYTHONPATH
tactful="${venv}/bin/tactful"
where="$("${venv}/bin/python" -c 'import tactful, tactful_builtin_large as l
print(tactful.__file__, l.__file__)')"
[[ "${where}" != *"${repo}"* ]] || fail "the venv imports tactful from the checkout: ${where}"

for model in builtin builtin-large; do
    say "tactful check \"I will kill you\" -m ${model}"
    out="$("${tactful}" check "I will kill you" -m "${model}" 2>&1)" \
        || { echo "${out}" >&2; fail "tactful check -m ${model} exited non-zero"; }
    echo "${out}"
    grep -q "FLAGGED" <<<"${out}" || fail "tactful check -m ${model} did not flag \"I will kill you\""
done

# 6. tactful serve on a free loopback port, until /readyz answers 200 (at most 120 s).
port="$("${venv}/bin/python" -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
say "tactful serve --host 127.0.0.1 --port ${port} -m builtin -m builtin-large"
"${tactful}" serve --host 127.0.0.1 --port "${port}" -m builtin -m builtin-large \
    >"${tmp}/serve.log" 2>&1 &
server_pid=$!
ready=""
deadline=$((SECONDS + 120))
while ((SECONDS < deadline)); do
    if ! kill -0 "${server_pid}" 2>/dev/null; then
        tail -n 30 "${tmp}/serve.log" >&2
        fail "tactful serve exited before /readyz answered"
    fi
    if ready="$(curl -fsS --max-time 5 "http://127.0.0.1:${port}/readyz" 2>/dev/null)"; then
        break
    fi
    ready=""
    sleep 0.5
done
[[ -n "${ready}" ]] || { tail -n 30 "${tmp}/serve.log" >&2; fail "/readyz did not answer 200 in 120 s"; }
say "/readyz: ${ready}"
grep -q '"builtin-large"' <<<"${ready}" || fail "/readyz does not list builtin-large: ${ready}"
kill "${server_pid}"
wait "${server_pid}" 2>/dev/null || true
server_pid=""

say "ok in $((SECONDS - start)) s"
