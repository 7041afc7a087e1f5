#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Map the insncount plugin's profile (profile=on) to symbols.

    bench/insn/symbolize.py [--vmlinux FILE] [--bin FILE[@BASE]]... \\
                            [--top N] [--addrs] INSN_TXT

INSN_TXT is the plugin's output file; its "prof addr=0x... insns=N" lines
give the instructions executed between markers per translation-block start
address. Kernel addresses (upper half) are looked up in --vmlinux (default:
the vmlinux that kernel/build.sh --print-dir names, or System.map beside
it); user addresses in each --bin, a non-PIE executable, or a PIE one or a
shared library with its load address as @BASE (hex). Symbols come from
`nm`, or `nm -D` for a stripped library (its exported functions only: an
address in a local function shows as ?ADDR); python3's standard library
only.

Prints, hottest first, the instructions per function (or per address with
--addrs): insns, percent of the profile, symbol+offset, object.
"""
import argparse
import bisect
import os
import re
import subprocess
import sys

KERNEL_START = 0xFFFF800000000000


class Symbols:
    """Sorted text symbols of one object, relocated by base."""

    def __init__(self, path, base=0):
        self.name = os.path.basename(path)
        self.addrs, self.syms, self.ends = [], [], []
        if path.endswith("System.map"):
            with open(path) as f:
                rows = [ln.split()[:3] for ln in f]
            rows = [(int(a, 16), t, n, None) for a, t, n in rows]
        else:
            rows = self._nm(path)
            if not any(t in "tTwWiI" for _, t, _, _ in rows):
                rows = self._nm(path, dynamic=True)
        seen = set()
        for addr, typ, name, size in sorted(rows, key=lambda r: r[0]):
            if typ not in "tTwWiI" or addr in seen:
                continue
            seen.add(addr)
            self.addrs.append(addr + base)
            self.syms.append(name)
            self.ends.append(addr + base + size if size else None)
        if not self.addrs:
            raise SystemExit(f"symbolize: no text symbols in {path}")
        last = self.ends[-1] or self.addrs[-1] + 1
        self.lo, self.hi = self.addrs[0], last

    @staticmethod
    def _nm(path, dynamic=False):
        cmd = ["nm", "-S", "--defined-only"] + (["-D"] if dynamic else []) + [path]
        try:
            out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        except (OSError, subprocess.CalledProcessError) as e:
            raise SystemExit(f"symbolize: nm {path}: {e}")
        rows = []
        for ln in out.splitlines():
            f = ln.split()
            if len(f) == 4:
                rows.append((int(f[0], 16), f[2], f[3], int(f[1], 16)))
            elif len(f) == 3:
                rows.append((int(f[0], 16), f[1], f[2], None))
        return rows

    def covers(self, addr):
        return self.lo <= addr < self.hi

    def lookup(self, addr):
        """(symbol, offset), or (None, None) outside any sized symbol."""
        i = bisect.bisect_right(self.addrs, addr) - 1
        if i < 0:
            return None, None
        end = self.ends[i]
        if end is not None and addr >= end:
            # past a sized symbol: the next one without a size may still
            # be an assembler label; only a gap gives up
            return None, None
        return self.syms[i], addr - self.addrs[i]


def default_kernel():
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    try:
        kdir = subprocess.run([os.path.join(top, "kernel", "build.sh"), "--print-dir"],
                              check=True, capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    for name in ("vmlinux", "System.map"):
        p = os.path.join(kdir, name)
        if os.path.exists(p):
            return p
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("insn_txt")
    ap.add_argument("--vmlinux", help="kernel vmlinux or System.map")
    ap.add_argument("--bin", action="append", default=[],
                    help="user object, FILE or FILE@HEXBASE (repeatable)")
    ap.add_argument("--top", type=int, default=30, help="rows to print (0: all)")
    ap.add_argument("--addrs", action="store_true", help="per address, not per function")
    a = ap.parse_args()

    prof, total = [], None
    with open(a.insn_txt) as f:
        for ln in f:
            m = re.match(r"prof addr=0x([0-9a-f]+) insns=(\d+)", ln)
            if m:
                prof.append((int(m.group(1), 16), int(m.group(2))))
                continue
            m = re.match(r"prof total=(\d+)", ln)
            if m:
                total = int(m.group(1))
    if total is None:
        raise SystemExit(f"symbolize: no profile in {a.insn_txt} (plugin arg profile=on)")

    kpath = a.vmlinux or default_kernel()
    kernel = Symbols(kpath) if kpath else None
    users = []
    for spec in a.bin:
        path, _, base = spec.partition("@")
        users.append(Symbols(path, int(base, 16) if base else 0))

    agg = {}
    for addr, n in prof:
        obj = None
        if addr >= KERNEL_START:
            obj = kernel
            oname = kernel.name if kernel else "kernel"
        else:
            obj = next((u for u in users if u.covers(addr)), None)
            oname = obj.name if obj else "user"
        sym, off = obj.lookup(addr) if obj else (None, None)
        if a.addrs:
            key = (f"0x{addr:x} " + (f"{sym}+0x{off:x}" if sym else "?"), oname)
        else:
            key = (sym or f"?0x{addr:x}", oname)
        agg[key] = agg.get(key, 0) + n

    listed = sum(n for _, n in prof)
    print(f"# {total} instructions profiled, {listed} in the {len(prof)} addresses listed")
    print(f"{'insns':>12} {'%':>6}  symbol  [object]")
    rows = sorted(agg.items(), key=lambda kv: (-kv[1], kv[0]))
    for (name, oname), n in rows[: a.top or None]:
        pct = 100.0 * n / total if total else 0.0
        print(f"{n:>12} {pct:6.2f}  {name}  [{oname}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
