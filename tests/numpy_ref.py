#!/usr/bin/env python3
"""NumPy reference for tests/numpy_reference_test.cc.

Usage: numpy_ref.py CASES_FILE. The file holds cases written by the C++ test:

  case <id> <op> [key=value ...]
  in <dtype> s<dims,comma-separated> <n> <values...>     (one line per input)
  out <dtype> s<dims> <n> <values...>    or    err <message...>
  end

Each case is recomputed in float64 with NumPy and compared with eagervm's
output: exact for bool and integer results and for ops that only select or
compare, a relative tolerance for computed floating-point results (NaN
matches NaN, infinities must match). A case whose reference is undefined
(an out-of-range index) must be an eagervm error. Prints one line per
mismatch and a summary "cases N failures M"; exits 1 if any case failed.
"""
import math
import sys

import numpy as np

# bfloat16: numpy has none; its values are exact in float32, and results are
# rounded to it by bf16_round before they are compared.
DTYPES = {"bool": np.bool_, "uint8": np.uint8, "int32": np.int32, "int64": np.int64,
          "float16": np.float16, "bfloat16": np.float32,
          "float32": np.float32, "float64": np.float64}
# The relative spacing of each 16-bit dtype (2^-10, 2^-7): results computed in
# float32 and rounded once are within it of the float64 reference.
EPS = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}


class OutOfRange(Exception):
    pass


def parse_array(tokens):
    dtype = DTYPES[tokens[0]]
    dims = tuple(int(d) for d in tokens[1][1:].split(",") if d)
    n = int(tokens[2])
    vals = tokens[3:3 + n]
    if dtype in (np.float16, np.float32, np.float64):
        data = np.array([float(v) for v in vals], dtype=np.float64).astype(dtype)
    else:
        data = np.array([int(v) for v in vals], dtype=np.int64).astype(dtype)
    return data.reshape(dims)


def parse(path):
    cases, cur = [], None
    with open(path) as f:
        for line in f:
            t = line.split()
            if not t:
                continue
            if t[0] == "case":
                attrs = dict(kv.split("=", 1) for kv in t[3:])
                cur = {"id": t[1], "op": t[2], "attrs": attrs, "ins": [], "out": None, "err": None}
            elif t[0] == "in":
                cur["ins"].append(parse_array(t[1:]))
            elif t[0] == "out":
                cur["out"] = parse_array(t[1:])
                cur["out_dtype"] = t[1]
            elif t[0] == "err":
                cur["err"] = " ".join(t[1:])
            elif t[0] == "end":
                cases.append(cur)
                cur = None
    return cases


def f64(x):
    return x.astype(np.float64)


def bf16_round(x):
    """float64 -> the nearest bfloat16 (ties to even, via float32), as float32."""
    x32 = np.asarray(x, dtype=np.float64).astype(np.float32)
    bits = x32.view(np.uint32).astype(np.uint64)
    one, half = np.uint64(1), np.uint64(0x7FFF)
    rounded = ((bits + half + ((bits >> np.uint64(16)) & one)) & np.uint64(0xFFFF0000))
    rounded = rounded.astype(np.uint32)
    out = rounded.view(np.float32)
    return np.where(np.isnan(x32), x32, out)


def round_to(want, name):
    with np.errstate(all="ignore"):
        return _round_to(want, name)


def _round_to(want, name):
    if name == "float16":
        return np.asarray(want, dtype=np.float64).astype(np.float16).astype(np.float64)
    return bf16_round(want).astype(np.float64)


def softmax(x, axis):
    m = np.max(x, axis=axis, keepdims=True) if x.shape[axis] else x
    e = np.exp(x - m)
    return e / np.sum(e, axis=axis, keepdims=True)


def log_softmax(x, axis):
    if x.shape[axis] == 0:
        return x
    m = np.max(x, axis=axis, keepdims=True)
    return (x - m) - np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))


def cross_entropy(logits, labels):
    n, c = logits.shape
    if np.any(labels < 0) or np.any(labels >= c):
        raise OutOfRange()
    if n == 0:
        return np.array(np.nan)
    lsm = log_softmax(logits, 1)
    return np.array(-np.mean(lsm[np.arange(n), labels]))


def gelu(x, tanh):
    if tanh:
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    erf = np.vectorize(math.erf, otypes=[np.float64])
    return 0.5 * x * (1 + erf(x / math.sqrt(2))) if x.size else x


def layer_norm(x, w, b, eps):
    if x.size == 0:
        return x
    mean = np.mean(x, axis=-1, keepdims=True)
    var = np.mean((x - mean) ** 2, axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


def arg(x, axis, keepdim, fn):
    r = fn(x, axis=axis)
    return np.expand_dims(r, axis) if keepdim else r


def one_hot(idx, classes, dtype):
    if np.any(idx < 0) or np.any(idx >= classes):
        raise OutOfRange()
    out = np.zeros(idx.shape + (classes,), dtype=dtype)
    np.put_along_axis(out, idx[..., None], 1, axis=-1) if idx.size else None
    return out


def index_select(x, axis, idx):
    if np.any(idx < 0) or np.any(idx >= x.shape[axis]):
        raise OutOfRange()
    return np.take(x, idx, axis=axis)


def index_add(x, axis, idx, src):
    if np.any(idx < 0) or np.any(idx >= x.shape[axis]):
        raise OutOfRange()
    out = x.copy()
    flat = src.reshape(x.shape[:axis] + (idx.size,) + x.shape[axis + 1:])
    # Sequential, in index order, like the kernel.
    np.add.at(np.moveaxis(out, axis, 0), idx.ravel(), np.moveaxis(flat, axis, 0))
    return out


def matmul(a, b, ta, tb):
    a = np.swapaxes(a, -1, -2) if ta else a
    b = np.swapaxes(b, -1, -2) if tb else b
    return a @ b


# op -> (reference, exact?) ; the reference gets the inputs and the attrs.
def reference(op, ins, at):
    ax = lambda: int(at["axis"])
    table = {
        "Eq": lambda: np.equal(ins[0], ins[1]),
        "Ne": lambda: np.not_equal(ins[0], ins[1]),
        "Lt": lambda: np.less(ins[0], ins[1]),
        "Le": lambda: np.less_equal(ins[0], ins[1]),
        "Gt": lambda: np.greater(ins[0], ins[1]),
        "Ge": lambda: np.greater_equal(ins[0], ins[1]),
        "Where": lambda: np.where(ins[0], ins[1], ins[2]),
        "Minimum": lambda: np.minimum(ins[0], ins[1]),
        "Abs": lambda: np.abs(ins[0]),
        "Pow": lambda: np.power(f64(ins[0]), float(at["p"])),
        "Softmax": lambda: softmax(f64(ins[0]), ax()),
        "LogSoftmax": lambda: log_softmax(f64(ins[0]), ax()),
        "CrossEntropy": lambda: cross_entropy(f64(ins[0]), ins[1]),
        "Gelu": lambda: gelu(f64(ins[0]), at.get("tanh") == "1"),
        "LayerNorm": lambda: layer_norm(f64(ins[0]), f64(ins[1]), f64(ins[2]), float(at["eps"])),
        "Argmax": lambda: arg(ins[0], ax(), at.get("keepdim") == "1", np.argmax),
        "Argmin": lambda: arg(ins[0], ax(), at.get("keepdim") == "1", np.argmin),
        "OneHot": lambda: one_hot(ins[0], int(at["classes"]), DTYPES[at["dtype"]]),
        "IndexSelect": lambda: index_select(ins[0], ax(), ins[1]),
        "IndexAdd": lambda: index_add(ins[0], ax(), ins[1], ins[2]),
        "Min": lambda: (np.min(ins[0]) if at.get("all") == "1"
                        else np.min(ins[0], axis=ax(), keepdims=at.get("keepdim") == "1")),
        "BatchMatMul": lambda: matmul(f64(ins[0]) if ins[0].dtype.kind == "f" else ins[0],
                                      f64(ins[1]) if ins[1].dtype.kind == "f" else ins[1],
                                      at.get("ta") == "1", at.get("tb") == "1"),
        "Concat": lambda: np.concatenate(ins, axis=ax()),
        "Add": lambda: np.add(ins[0], ins[1]),
        "Mul": lambda: np.multiply(ins[0], ins[1]),
        "Exp": lambda: np.exp(f64(ins[0])),
        "Sum": lambda: np.sum(f64(ins[0]) if ins[0].dtype.kind == "f" else ins[0].astype(np.int64)),
        "Mean": lambda: np.mean(f64(ins[0])) if ins[0].size else np.array(np.nan),
        "MatMul": lambda: matmul(f64(ins[0]) if ins[0].dtype.kind == "f" else ins[0],
                                 f64(ins[1]) if ins[1].dtype.kind == "f" else ins[1],
                                 at.get("ta") == "1", at.get("tb") == "1"),
    }
    return table[op]()


# Ops that select or compare: exact in every dtype.
SELECT = {"Eq", "Ne", "Lt", "Le", "Gt", "Ge", "Where", "Minimum", "Abs", "Argmax", "Argmin",
          "OneHot", "IndexSelect", "Concat", "Min"}
EXACT = {"Sum", "Eq", "Ne", "Lt", "Le", "Gt", "Ge", "Where", "Minimum", "Abs", "Argmax", "Argmin",
         "OneHot", "IndexSelect", "Concat", "Min", "Add", "Mul"}


def apply_view(x, spec):
    """The strided view `spec` of x (tests/numpy_reference_test.cc RandomView):
    steps joined by '/': t, p<dims>, s<axis>,<begin>,<end>, e<dims>."""
    for step in spec.split("/"):
        args = [int(v) for v in step[1:].split(",") if v]
        if step[0] == "t":
            x = x.T
        elif step[0] == "p":
            x = np.transpose(x, args)
        elif step[0] == "s":
            index = [slice(None)] * x.ndim
            index[args[0]] = slice(args[1], args[2])
            x = x[tuple(index)]
        elif step[0] == "e":
            x = np.broadcast_to(x, tuple(args))
    return x


def check(case):
    op, ins, at = case["op"], list(case["ins"]), case["attrs"]
    for i in range(len(ins)):  # inputs passed as views of these tensors
        if f"view{i}" in at:
            ins[i] = apply_view(ins[i], at[f"view{i}"])
    if op in ("Add", "Mul", "Minimum") and len({x.dtype for x in ins}) > 1 and case["out"] is not None:
        # eagervm promoted both operands to its result dtype (docs/ops.md); numpy
        # < 2 would instead let a 0-d operand take the other's dtype.
        ins = [x.astype(case["out"].dtype) for x in ins]
    with np.errstate(all="ignore"):
        try:
            want = np.asarray(reference(op, ins, at))
        except OutOfRange:
            if case["err"] is None:
                return "reference index out of range but eagervm returned a value"
            return None
    if case["err"] is not None:
        return "eagervm error: " + case["err"]
    got = case["out"]
    if got.shape != want.shape:
        return f"shape {got.shape} != numpy {want.shape}"
    name = case.get("out_dtype")
    if name in EPS and op not in SELECT:
        # Computed in float32, rounded once: within the dtype's epsilon of the
        # float64 reference rounded to the dtype (overflow to inf included).
        eps = EPS[name]
        g, w = got.astype(np.float64), round_to(want, name)
        bad = ~np.isclose(g, w, rtol=eps, atol=eps, equal_nan=True)
        if np.any(bad):
            i = np.argmax(bad.ravel())
            return (f"{int(bad.sum())} of {bad.size} elements off ({name}, eps {eps}); first at "
                    f"{i}: got {g.ravel()[i]!r} want {w.ravel()[i]!r}")
        return None
    if op in EXACT or got.dtype.kind in "bi":
        if got.dtype.kind == "f":
            ok = np.array_equal(got, want.astype(got.dtype), equal_nan=True)
        else:
            ok = np.array_equal(got, want)
        return None if ok else f"not equal:\n  got  {got.ravel()[:12]}\n  want {want.ravel()[:12]}"
    rtol = float(at.get("rtol", 1e-5 if got.dtype == np.float32 else 1e-12))
    atol = float(at.get("atol", rtol))
    g = got.astype(np.float64)
    bad = ~np.isclose(g, want, rtol=rtol, atol=atol, equal_nan=True)
    if np.any(bad):
        i = np.argmax(bad.ravel())
        return (f"{int(bad.sum())} of {bad.size} elements off (rtol {rtol}); first at {i}: "
                f"got {g.ravel()[i]!r} want {want.ravel()[i]!r}")
    return None


def main():
    cases = parse(sys.argv[1])
    failures = 0
    for case in cases:
        why = check(case)
        if why:
            failures += 1
            shapes = " ".join(str(list(x.shape)) + str(x.dtype) for x in case["ins"])
            print(f"FAIL case {case['id']} {case['op']} {case['attrs']} inputs {shapes}: {why}")
    print(f"cases {len(cases)} failures {failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
