# Sourced by the experiments' run.sh scripts: `root` (the project root), `yosys` (the pinned
# native yosys: the venv's Python running fpga/yosys.py, yosys' command line;
# checked), and `out` (build/<the experiment's folder name>, created).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
root=$(cd "$here/../.." && pwd)
python="$root/.tools/venv/bin/python"
run_yosys() { "$python" "$root/fpga/yosys.py" "$@"; }
yosys=run_yosys
out="$root/build/$(basename "$here")"
[ -x "$python" ] || { echo "error: $python is missing: run cargo xtask setup" >&2; exit 1; }
mkdir -p "$out"
