"""yosys of the FPGA flow: a native yosys, the pyosys wheel's libyosys (swim.toml
[toolchain] pyosys, installed into .tools/venv by `cargo xtask setup`), behind yosys' own
command line as far as the flow uses it. The flow runs it with the venv's Python
(`yosys` in fpga/src/synth.rs); by hand:

    .tools/venv/bin/python fpga/yosys.py [-q] [-l LOG] [-s SCRIPT] [-p COMMANDS] [FILE...]

As yosys does: the FILEs are read first (the frontend chosen by the file's extension, a
`.ys` file runs as a script), then the -s scripts, then the -p commands (`;` between
commands). -q shows only warnings and errors (and the last two lines); -l LOG writes the
whole log into LOG as well. The last two lines give yosys' peak memory and CPU time, then
the wall time and the peak memory of yosys and the ABC processes it started, whichever is
larger.

yosys runs in a child process whose output this one reads line by line: libyosys writes
straight to the standard output and exits the process on an error, so the filtering of -q
and the figures of the last line need a process around it.
"""

import argparse
import os
import resource
import signal
import sys
import time


def arguments():
    p = argparse.ArgumentParser(
        prog="yosys", description="yosys (native, through pyosys) for the FPGA flow"
    )
    p.add_argument("-q", action="store_true", help="only warnings and errors on the console")
    p.add_argument("-l", metavar="LOG", help="write the whole log into LOG as well")
    p.add_argument("-s", metavar="SCRIPT", action="append", default=[], help="run a script file")
    p.add_argument("-p", metavar="COMMANDS", action="append", default=[], help="run commands")
    p.add_argument("files", nargs="*", metavar="FILE", help="read (or, for .ys, run) these")
    return p.parse_args()


def mib(kib):
    return f"{kib / 1024:,.0f} MiB"


# The command that reads a file given on the command line, by its extension (a `.ys`
# file is a script).
FRONTENDS = {
    ".v": "read_verilog",
    ".vh": "read_verilog",
    ".sv": "read_verilog -sv",
    ".json": "read_json",
    ".il": "read_rtlil",
}


def script(path):
    # `script` takes its argument as it is, quotes and all.
    if any(c.isspace() for c in path):
        raise SystemExit(f"yosys: {path!r}: give a script's path without blanks")
    return f"script {path}"


def commands(args):
    """The yosys commands of the command line, in yosys' order."""
    out = []
    for f in args.files:
        extension = os.path.splitext(f)[1]
        if extension == ".ys":
            out.append(script(f))
        elif extension in FRONTENDS:
            out.append(f'{FRONTENDS[extension]} "{f}"')
        else:
            known = ", ".join([".ys", *FRONTENDS])
            raise SystemExit(f"yosys: {f}: not a file of a known kind ({known}); read it with -p")
    return out + [script(s) for s in args.s] + args.p


def synthesise(args):
    """The child: yosys itself. An error exits the process (status 1) from inside libyosys."""
    from pyosys import libyosys as ys

    design = ys.yosys_get_design()
    for command in commands(args):
        ys.run_pass(command, design)
    own = resource.getrusage(resource.RUSAGE_SELF)
    abc = resource.getrusage(resource.RUSAGE_CHILDREN)
    ys.log(
        f"End of script: peak memory {mib(own.ru_maxrss)}, CPU {own.ru_utime + own.ru_stime:.1f} s"
        f" (and ABC's processes {abc.ru_utime + abc.ru_stime:.1f} s)\n"
    )
    ys.log_flush()


def die_with_parent():
    """Linux: the child is killed when this process dies (xtask stops a tool by killing it)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def shown_quiet(line, error_seen):
    """What `yosys -q` shows: warnings, errors (and what follows an error), the last line."""
    return error_seen or line.startswith(("Warning:", "ERROR:", "End of script:"))


def main():
    args = arguments()
    commands(args)  # a file of an unknown kind: an error before yosys starts
    start = time.monotonic()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        die_with_parent()
        os.close(read)
        os.dup2(write, 1)
        os.dup2(write, 2)
        os.close(write)
        try:
            synthesise(args)
        except ImportError as e:
            print(f"ERROR: {e}: pyosys is not installed for {sys.executable}; run `cargo xtask setup`")
            os._exit(1)
        except Exception as e:  # noqa: BLE001 (any failure is the run's error)
            print(f"ERROR: {type(e).__name__}: {e}")
            os._exit(1)
        finally:
            sys.stdout.flush()
        os._exit(0)
    os.close(write)
    log = open(args.l, "w", encoding="utf-8") if args.l else None
    out = sys.stderr if args.q else sys.stdout
    error_seen = False
    with os.fdopen(read, encoding="utf-8", errors="replace") as lines:
        for line in lines:
            error_seen = error_seen or line.startswith("ERROR:")
            if log:
                log.write(line)
            if not args.q or shown_quiet(line, error_seen):
                out.write(line)
                out.flush()
    _, status, usage = os.wait4(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    last = f"yosys: {time.monotonic() - start:.1f} s, peak memory {mib(usage.ru_maxrss)}"
    if code < 0:
        name = signal.Signals(-code).name
        hint = " (killed by the kernel: out of memory?)" if -code == signal.SIGKILL else ""
        last = f"{last}; stopped by {name}{hint}"
        code = 128 - code
    elif code != 0:
        last = f"{last}; failed (exit status {code})"
    for f in [out] + ([log] if log else []):
        f.write(last + "\n")
    if log:
        log.close()
    return code


if __name__ == "__main__":
    sys.exit(main())
