#!/usr/bin/env python3
"""Compares two compilations of the Spade sources (build/spade.sv) modulo names.

Every module is reduced to a fingerprint: its text without comments and attributes, every
local identifier replaced by its order of first appearance, and every instantiated
module replaced by that module's own fingerprint (so a renamed file or unit, which only
changes Spade's mangled names, leaves the fingerprint as it was). Two tops with equal
fingerprints are the same circuit, module for module, whatever their names.

    compare.py OLD.sv NEW.sv [TOP ...] [--pair OLD_MODULE=NEW_MODULE ...] [--yosys FILE]

prints, for each top (default: every module no other module instantiates, in either
file), `same` or `differs`, and for a top that differs the modules below it that changed
in their own text (same name) and those on one side only. Exit 0 when every top is the
same. With `--yosys FILE` it writes a yosys script that proves each changed module, and
each `--pair` (a module gone and the new one that replaces it), equivalent to its old
self: flattened, internal names hidden, `equiv_make`, `equiv_simple`, `equiv_induct`,
`equiv_status -assert`, logging `EQUIVALENT <module>` for each. Run it with the flow's
yosys: `.tools/venv/bin/python fpga/yosys.py -l equiv.log -s FILE`.
"""
import hashlib
import re
import sys

TOKEN = re.compile(r"\\\S+|[A-Za-z_][A-Za-z0-9_$]*|'[sS]?[bBoOdDhH][0-9a-fA-FxXzZ_?]+|\d+|\S")
KEYWORDS = set("""module endmodule input output inout wire reg logic signed unsigned assign
always always_ff always_comb always_latch posedge negedge begin end if else case casez
casex endcase default for generate endgenerate genvar localparam parameter initial
function endfunction automatic integer int bit or and not xor""".split())


def modules(path):
    text = open(path).read()
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"\(\*.*?\*\)", "", text, flags=re.S)
    # The waveform hook of every module names the module itself.
    text = re.sub(r"`ifdef COCOTB_SIM.*?`endif", "", text, flags=re.S)
    out = {}
    for m in re.finditer(r"\bmodule\s+(\\\S+|\w+)(.*?)\bendmodule\b", text, flags=re.S):
        out[m.group(1)] = TOKEN.findall(m.group(2))
    return out


def canonical(mods, name, instance):
    """A module's text modulo names: every local identifier by its order of first
    appearance, every instantiated module as `instance(module)`."""
    local = {}
    parts = []
    for tok in mods[name]:
        if tok in mods and tok != name:
            parts.append(instance(tok))
        elif (tok[0].isalpha() or tok[0] in "_\\") and tok not in KEYWORDS:
            parts.append("i%d" % local.setdefault(tok, len(local)))
        else:
            parts.append(tok)
    return " ".join(parts)


def fingerprints(mods):
    memo = {}

    def fp(name, stack=()):
        if name in memo:
            return memo[name]
        if name in stack:
            raise SystemExit(f"recursive module {name}")
        text = canonical(mods, name, lambda child: "M" + fp(child, stack + (name,)))
        memo[name] = hashlib.sha256(text.encode()).hexdigest()[:16]
        return memo[name]

    for name in mods:
        fp(name)
    return memo


def below(mods, top):
    seen, todo = set(), [top]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(t for t in mods[name] if t in mods and t != name)
    return seen


def roots(mods):
    used = {t for name, body in mods.items() for t in body if t in mods and t != name}
    return {name for name in mods if name not in used}


def own_text(mods, name):
    """A module's text modulo names, with every instantiated module a bare `M`."""
    return canonical(mods, name, lambda child: "M")


def equiv_script(old_sv, new_sv, pairs):
    steps = []
    for gold, gate in pairs:
        for side, sv, name in (("gold", old_sv, gold), ("gate", new_sv, gate)):
            steps += ["design -reset", f"read_verilog -sv {sv}", f"hierarchy -top {name}",
                      "proc", "flatten", "rename -hide w:* x:* %d", "opt_clean -purge",
                      f"rename {name} {side}", f"design -stash {side}"]
        steps += ["design -reset", "design -copy-from gold -as gold gold",
                  "design -copy-from gate -as gate gate", "equiv_make gold gate eq",
                  "hierarchy -top eq", "equiv_simple", "equiv_induct",
                  "equiv_status -assert", f"log EQUIVALENT {gate}"]
    return "\n".join(steps) + "\n"


def main():
    args = sys.argv[1:]
    pairs, script = [], None
    while "--pair" in args:
        i = args.index("--pair")
        gold, _, gate = args[i + 1].partition("=")
        pairs.append((gold, gate))
        del args[i:i + 2]
    if "--yosys" in args:
        i = args.index("--yosys")
        script = args[i + 1]
        del args[i:i + 2]
    if len(args) < 2:
        raise SystemExit(__doc__)
    old, new = modules(args[0]), modules(args[1])
    fo, fn = fingerprints(old), fingerprints(new)
    tops = args[2:] or sorted(roots(old) | roots(new))
    bad = 0
    changed = set()
    for top in tops:
        if top not in old or top not in new:
            print(f"{top}: only in {'new' if top in new else 'old'}")
            bad += 1
            continue
        if fo[top] == fn[top]:
            print(f"{top}: same ({len(below(new, top))} modules)")
            continue
        bad += 1
        old_below, new_below = below(old, top), below(new, top)
        # Modules of one name whose own text differs, and modules on one side only (their
        # fingerprint has no equal on the other side).
        own = sorted(m for m in old_below & new_below if own_text(old, m) != own_text(new, m))
        prints_old = {fo[m] for m in old_below}
        prints_new = {fn[m] for m in new_below}
        gone = sorted(m for m in old_below - new_below if fo[m] not in prints_new)
        added = sorted(m for m in new_below - old_below if fn[m] not in prints_old)
        print(f"{top}: differs: {len(own)} modules changed in their own text, "
              f"{len(gone)} gone, {len(added)} new")
        changed.update(own)
        for m in gone:
            print(f"  gone: {m}")
        for m in added:
            print(f"  new: {m}")
    if changed:
        print("changed in their own text (the modules to prove equivalent):")
        for m in sorted(changed):
            print(f"  {m}")
    if script:
        proofs = [(m, m) for m in sorted(changed)] + pairs
        with open(script, "w") as out:
            out.write(equiv_script(args[0], args[1], proofs))
        print(f"wrote {script}: {len(proofs)} equivalence proofs")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
