#!/usr/bin/env python3
"""Instructions per op on each thread, from a callgrind run with
--separate-threads=yes (see scripts/profile_hot_path.sh). Instruction counts
do not depend on how loaded the machine is, so they compare hot-path changes
where wall-clock timings on a shared 2-core machine cannot.

Usage: tools/callgrind_per_op.py OP_FUNCTION CALLGRIND_FILE...
  OP_FUNCTION: a substring of the per-op entry point (e.g. "ops::AddInplace(");
  its call count is the number of ops. The user thread's cost per op is the
  inclusive cost of those calls; every other thread's is its total / ops.
"""
import re
import subprocess
import sys


def parse(path, op_sub):
    """(total Ir, thread label, op calls, op inclusive Ir)."""
    names = {}
    total = 0
    calls = incl = 0
    label = path
    pending_cfn = None
    take_next = False
    with open(path, errors="replace") as f:
        for line in f:
            if take_next:
                parts = line.split()
                if len(parts) >= 2:
                    incl += int(parts[1])
                take_next = False
                continue
            if line.startswith("totals:") or line.startswith("summary:"):
                total = int(line.split()[1])
            elif line.startswith("cfn="):
                m = re.match(r"cfn=\((\d+)\)(?: (.*))?", line.strip())
                if m:
                    if m.group(2):
                        names[m.group(1)] = m.group(2)
                    pending_cfn = names.get(m.group(1), "")
            elif line.startswith("fn="):
                m = re.match(r"fn=\((\d+)\)(?: (.*))?", line.strip())
                if m and m.group(2):
                    names[m.group(1)] = m.group(2)
            elif line.startswith("calls="):
                if pending_cfn is not None and op_sub in pending_cfn:
                    calls += int(line.split()[0][len("calls="):])
                    take_next = True
            elif line.startswith("thread:"):
                label = "thread " + line.split()[1]
    return total, label, calls, incl


def top_functions(path, n=8):
    out = subprocess.run(["callgrind_annotate", "--threshold=100", path],
                         capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)", line)
        # The dynamic loader's one-off symbol lookups at start-up are not per op.
        if m and "PROGRAM TOTALS" not in line and "/elf/" not in line and "dl-" not in line:
            rows.append((int(m.group(1).replace(",", "")), m.group(2)))
    return rows[:n]


def short(fn):
    fn = re.sub(r"\s*\[.*\]$", "", fn)
    fn = fn.split(":", 1)[-1] if re.match(r"^[./\w-]+\.(cc|h|c|S):", fn) else fn
    fn = re.sub(r"\(.*", "(...)", fn)
    return fn.replace("eagervm::", "")[:90]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    op_sub, files = sys.argv[1], sys.argv[2:]
    parsed = [(p, *parse(p, op_sub)) for p in files]
    ops = max(c for _, _, _, c, _ in parsed)
    if ops == 0:
        sys.exit(f"no calls of {op_sub!r} found")
    print(f"ops (calls of {op_sub}): {ops}")
    for path, total, label, calls, incl in parsed:
        if total < ops:  # threads that did nothing per op
            continue
        per_op = incl / calls if calls else total / ops
        kind = "inclusive cost of the op call" if calls else "thread total / ops"
        print(f"\n{label} ({path}): {per_op:.0f} instructions per op ({kind})")
        for ir, fn in top_functions(path):
            print(f"  {ir / ops:8.1f}  {short(fn)}")


if __name__ == "__main__":
    main()
