"""Prints the before/after table of scripts/bench_before_after.sh.

Usage: bench_before_after.py DIR   (DIR holds before.<round>.json, after.<round>.json)
"""
import sys

import bench_results


def main():
    results = bench_results.load(sys.argv[1])
    rows = sorted({k.split(":", 1)[1] for k in results})
    print(f"{'row':<24} {'before ns/op':>13} {'after ns/op':>12} {'after/before':>13}")
    for row in rows:
        b = bench_results.counter(results, "before:" + row)
        a = bench_results.counter(results, "after:" + row)
        if b is None or a is None:
            continue
        print(f"{row:<24} {b:>13.1f} {a:>12.1f} {a / b:>13.3f}")


if __name__ == "__main__":
    main()
