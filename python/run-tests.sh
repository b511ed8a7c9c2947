#!/usr/bin/env bash
# The Python package's tests: builds and installs it into the current Python
# (`pip install ./python`, a release build through maturin), installs what
# the tests use (pyarrow, pandas, pytest, Hatchet, Thicket), builds the CLI whose JSON the
# tables are checked against, and runs pytest. Run from anywhere; .ci/run
# calls it after the Rust tests.
set -euo pipefail
cd "$(dirname "$0")/.."

pip=(python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore)
start=$SECONDS
# Hatchet and Thicket pinned as in .ci/run (which installs them before the
# Rust tests).
"${pip[@]}" "pyarrow>=15" pandas pytest llnl-hatchet==2026.2.0 llnl-thicket==2026.1.1
echo "python deps: $((SECONDS - start)) s"

start=$SECONDS
"${pip[@]}" --force-reinstall --no-deps ./python
echo "pip install ./python: $((SECONDS - start)) s"

cargo build --locked --quiet --bin profparse
export PROFPARSE_BIN="$PWD/target/debug/profparse"

# Outside the source tree, so that the installed package is the one tested.
cd python/tests
python3 -m pytest -q -p no:cacheprovider .
