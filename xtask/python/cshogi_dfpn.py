"""cshogi's DfPn on positions read from standard input, for `cargo xtask bench --solver`.

Usage: python cshogi_dfpn.py MAX_NODES < positions
One SFEN a line in; one JSON object a line out, flushed, in input order:
{"result": "mate" | "nomate" | "unknown", "pv": ["P*1b", ...], "searched_node": N,
 "seconds": S}, or {"error": "..."} for a line cshogi cannot read. DfPn.search answers
true (a mate) or false; false with the node budget spent is "unknown", otherwise "nomate".
A position that kills the process leaves no line: the caller counts it and starts a new
process on the positions after it.
"""

import json
import sys
import time

import cshogi


def main() -> int:
    if len(sys.argv) != 2 or not sys.argv[1].isdigit():
        print("usage: cshogi_dfpn.py MAX_NODES < positions", file=sys.stderr)
        return 2
    max_nodes = int(sys.argv[1])
    dfpn = cshogi.DfPn()
    dfpn.set_max_search_node(max_nodes)
    board = cshogi.Board()
    for line in sys.stdin:
        sfen = line.strip()
        if not sfen:
            continue
        try:
            board.set_sfen(sfen)
        except Exception as e:  # cshogi raises several types on a bad SFEN
            print(json.dumps({"error": f"cshogi cannot read {sfen!r}: {e}"}), flush=True)
            continue
        start = time.perf_counter()
        mate = dfpn.search(board)
        seconds = time.perf_counter() - start
        nodes = dfpn.searched_node
        if mate:
            result = "mate"
            pv = [cshogi.move_to_usi(m) for m in dfpn.get_pv(board)]
        else:
            result = "unknown" if nodes >= max_nodes else "nomate"
            pv = []
        answer = {"result": result, "pv": pv, "searched_node": nodes, "seconds": seconds}
        print(json.dumps(answer), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
