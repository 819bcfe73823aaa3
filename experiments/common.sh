# Sourced by the experiments' run.sh scripts: `root` (the project root), `yosys` (the pinned
# yosys, checked), and `out` (build/<the experiment's folder name>, created).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
root=$(cd "$here/../.." && pwd)
yosys="$root/.tools/bin/yosys"
out="$root/build/$(basename "$here")"
[ -x "$yosys" ] || { echo "error: $yosys is missing: run cargo xtask setup" >&2; exit 1; }
mkdir -p "$out"
