#!/usr/bin/env python3
"""The longest register-to-register paths of a placed (or routed) chip, from the SDF that
nextpnr writes: its interconnect delays (estimates before routing) and its cells' delays
and setup times. One clock, no skew: the same arithmetic as nextpnr's own estimate.

    paths.py FILE.sdf [--period-ns 13.333] [--paths 12] [--ebr-clock-to-out NS]

Prints the worst path's length (and so the clock it allows), the endpoints over the period
by register (the flip-flop or block RAM named by the netlist, its bit index dropped), and
the worst path into each of the worst register groups, step by step: the arrival time at
every cell pin, the cell's type.

--ebr-clock-to-out NS is a probe: every block RAM's clock-to-output taken as NS instead of
the SDF's (nextpnr times a DP16KD as unregistered whatever its REGMODE), for the paths the
chip would have with the block RAMs' output registers on (a read a cycle later)."""
import argparse
import collections
import re

IC = re.compile(r'\(INTERCONNECT (\S+) (\S+) \((\d+):(\d+):(\d+)\)')
IO = re.compile(r'\(IOPATH (\S+) (\S+) \((\d+):(\d+):(\d+)\)')
SETUP = re.compile(r'\(SETUPHOLD \((?:posedge|negedge) (\S+)\) \(posedge (\S+)\) '
                   r'\((-?\d+):(-?\d+):(-?\d+)\)')
INSTANCE = re.compile(r'\(INSTANCE (.*)\)')
CLOCKS = ('CLK', 'CLKA', 'CLKB', 'CLKI')


def pin(text):
    """`cell/port` with the SDF's escapes removed."""
    i = text.rfind('/')
    return text[:i].replace('\\', '') + '/' + text[i + 1:]


def read(path):
    edges = collections.defaultdict(list)
    fanin = collections.Counter()
    launch, setup, kind = {}, {}, {}
    cell = celltype = None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith('(CELLTYPE'):
                celltype = line.split('"')[1]
                continue
            m = INSTANCE.match(line)
            if m:
                cell = m.group(1).replace('\\', '')
                kind[cell] = celltype
                continue
            m = IC.match(line)
            if m:
                a, b = pin(m.group(1)), pin(m.group(2))
                edges[a].append((b, int(m.group(5))))
                fanin[b] += 1
                continue
            m = IO.match(line)
            if m:
                a, b, d = cell + '/' + m.group(1), cell + '/' + m.group(2), int(m.group(5))
                if m.group(1) in CLOCKS:
                    launch[b] = max(launch.get(b, 0), d)
                else:
                    edges[a].append((b, d))
                    fanin[b] += 1
                continue
            m = SETUP.match(line)
            if m:
                setup[cell + '/' + m.group(1)] = int(m.group(5))
    return edges, fanin, launch, setup, kind


def arrivals(edges, fanin, launch):
    """Latest arrival at every pin (ps) and the pin it came from, in topological order."""
    nodes = set(edges) | set(fanin) | set(launch)
    arrival = dict(launch)
    came = {}
    left = dict(fanin)
    queue = collections.deque(n for n in nodes if left.get(n, 0) == 0)
    while queue:
        n = queue.popleft()
        a = arrival.get(n)
        for s, d in edges.get(n, ()):
            if a is not None and s not in launch and a + d > arrival.get(s, -1):
                arrival[s] = a + d
                came[s] = n
            left[s] -= 1
            if left[s] == 0:
                queue.append(s)
    return arrival, came


def register(endpoint):
    """The register an endpoint pin belongs to: the cell's name without yosys's bit suffix."""
    cell = endpoint.rsplit('/', 1)[0]
    cell = re.sub(r'_TRELLIS_FF_Q(_\d+)?$', '', cell)
    return re.sub(r'\.mem\.\d+\.\d+$', '.mem', cell)


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('sdf')
    p.add_argument('--period-ns', type=float, default=1000 / 75)
    p.add_argument('--paths', type=int, default=12)
    p.add_argument('--ebr-clock-to-out', type=float)
    args = p.parse_args()
    edges, fanin, launch, setup, kind = read(args.sdf)
    if args.ebr_clock_to_out is not None:
        for q in launch:
            if kind.get(q.rsplit('/', 1)[0]) == 'DP16KD':
                launch[q] = int(args.ebr_clock_to_out * 1000)
    arrival, came = arrivals(edges, fanin, launch)
    ends = sorted(((arrival[e] + s, e) for e, s in setup.items() if e in arrival), reverse=True)
    if not ends:
        raise SystemExit(f'{args.sdf}: no register-to-register path (is it nextpnr\'s SDF?)')
    worst = ends[0][0]
    period = args.period_ns * 1000
    print(f'worst path {worst / 1000:.2f} ns: {1e6 / worst:.2f} MHz; '
          f'{sum(t > period for t, _ in ends)} of {len(ends)} endpoints over {args.period_ns:.2f} ns')
    groups = collections.OrderedDict()
    for t, e in ends:
        if t <= period:
            break
        g = groups.setdefault(register(e), [0, t, e])
        g[0] += 1
    print('\nendpoints over the period by register (count, worst ns), the worst 30:')
    for name, (n, t, _) in list(groups.items())[:30]:
        print(f'  {n:6d} {t / 1000:6.2f}  {name}')
    if len(groups) > 30:
        print(f'  ... and {len(groups) - 30} more registers')
    for name, (n, t, e) in list(groups.items())[:args.paths]:
        print(f'\n== {t / 1000:.2f} ns into {e}')
        chain = [e]
        while chain[-1] in came:
            chain.append(came[chain[-1]])
        before = 0
        for q in reversed(chain):
            a = arrival[q]
            wire = '  <- %.2f ns of wire' % ((a - before) / 1000) if a - before > 1500 else ''
            print(f'  {a / 1000:7.2f}  {q}  [{kind.get(q.rsplit("/", 1)[0], "")}]{wire}')
            before = a


if __name__ == '__main__':
    main()
