#!/usr/bin/env python3
"""The models suite's MLP (bench/models/mlp.h) in PyTorch from Python.

The peer of `mlp_bench --device=cuda` on a GPU machine that has PyTorch's
Python package but no libtorch C++ setup. The same program as
bench/models/mlp_torch.cc: the same initial parameters (mlp_params.cc's
std::mt19937_64 draws, bit for bit), the same batches in the same order
(the digits rows in order, cut into `batch`-row pieces, the remainder
dropped; step k trains on piece k mod pieces), the same hand-written
gradients and in-place SGD updates, and the autograd variant (torch.optim.SGD;
its trainer takes one step when made, as eagervm's does). Modes:

  pytorch eager           the hand-written step, op by op
  pytorch cuda graph      the same step captured once with torch.cuda.graph
                          and replayed (each batch copied into the captured
                          inputs first); CUDA only
  pytorch autograd        loss.backward() and torch.optim.SGD

Every ms/step is measured from Python: the interpreter's overhead per op is
included (this is not libtorch's C++ API). Each rep times every mode for
--steps steps after 10 warm-up steps, with torch.cuda.synchronize() before
and after, in an order that rotates from rep to rep; the table gives the
median. Before timing each mode trains --check-steps steps from the initial
parameters and prints its loss curve checkpoints (the format of mlp_bench's
"loss curve" lines) and its whole-data-set loss and accuracy.

  mlp_torch_cuda.py [--data=PATH/digits.csv.gz] [--sizes=small,large]
      [--reps=5] [--steps=0 (per size)] [--check-steps=100]
      [--device=cuda|cpu] [--summary=FILE]

Exit 0 ok, 1 a check failed, 2 error, 77 no torch or no CUDA device.
"""
import argparse
import gzip
import statistics
import sys
import time

try:
    import torch
    import torch.nn.functional as F
except ImportError as e:  # the GPU machine is expected to have it
    print(f"mlp_torch_cuda.py: no PyTorch here ({e}); skipped")
    sys.exit(77)

DEFAULT_DATA = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"
PIXELS, CLASSES = 64, 10
LR = 0.5


class MT19937_64:
    """std::mt19937_64, bit for bit (the C++ standard's definition)."""

    N, M = 312, 156
    MASK = (1 << 64) - 1
    UPPER, LOWER = 0xFFFFFFFF80000000, 0x7FFFFFFF

    def __init__(self, seed):
        mt = [seed & self.MASK]
        for i in range(1, self.N):
            mt.append((6364136223846793005 * (mt[-1] ^ (mt[-1] >> 62)) + i) & self.MASK)
        self.mt, self.index = mt, self.N

    def _twist(self):
        mt = self.mt
        for i in range(self.N):
            x = (mt[i] & self.UPPER) | (mt[(i + 1) % self.N] & self.LOWER)
            xa = x >> 1
            if x & 1:
                xa ^= 0xB5026F5AA96619E9
            mt[i] = mt[(i + self.M) % self.N] ^ xa
        self.index = 0

    def __call__(self):
        if self.index >= self.N:
            self._twist()
        y = self.mt[self.index]
        self.index += 1
        y ^= (y >> 29) & 0x5555555555555555
        y ^= (y << 17) & 0x71D67FFFEDA60000
        y ^= (y << 37) & 0xFFF7EEE000000000
        y ^= y >> 43
        return y & self.MASK


def f32(v):
    return torch.tensor(v, dtype=torch.float32)


def uniform(g, n, bound):
    """mlp_params.cc's Uniform: bound * ((g() >> 40) / 2^24 * 2 - 1), each
    operation rounded to float32 as in C++ (CPU tensors: no FMA between
    separate ops)."""
    raw = f32([g() >> 40 for _ in range(n)])  # 24-bit integers: exact
    return bound * (raw / f32(1 << 24) * f32(2.0) - f32(1.0))


def initial_params(hidden, seed=1):
    """The four parameters as CPU float32 tensors, w [in, out], b [1, out]."""
    g = MT19937_64(seed)
    b1 = f32(1.0) / torch.sqrt(f32(PIXELS))
    b2 = f32(1.0) / torch.sqrt(f32(hidden))
    w1 = uniform(g, PIXELS * hidden, b1).reshape(PIXELS, hidden)
    bias1 = uniform(g, hidden, b1).reshape(1, hidden)
    w2 = uniform(g, hidden * CLASSES, b2).reshape(hidden, CLASSES)
    bias2 = uniform(g, CLASSES, b2).reshape(1, CLASSES)
    return w1, bias1, w2, bias2


def load_digits(path):
    """(images float32 [n, 64] = pixel / 16, labels int64 [n]) on the CPU."""
    rows = []
    with gzip.open(path, "rt") as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if line:
                row = [int(v) for v in line.split(",")]
                if len(row) != PIXELS + 1:
                    raise ValueError(f"{path}: line {number} has {len(row)} columns, "
                                     f"expected {PIXELS + 1}")
                rows.append(row)
    data = torch.tensor(rows, dtype=torch.int64)
    return data[:, :PIXELS].to(torch.float32) / f32(16.0), data[:, PIXELS].clone()


def sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


class Trainer:
    """One mode's training loop, from the initial parameters."""

    def __init__(self, mode, hidden, batch, images, labels, device):
        self.mode, self.batch, self.device = mode, batch, device
        self.params = [p.to(device) for p in initial_params(hidden)]
        self.x_all = images.to(device)
        self.y_all = labels.to(device)
        n = images.shape[0]
        self.x = [self.x_all[s:s + batch].clone() for s in range(0, n - batch + 1, batch)]
        self.y = [self.y_all[s:s + batch].clone() for s in range(0, n - batch + 1, batch)]
        self.zero = torch.zeros(1, 1, device=device)
        self.step = 0
        self.sgd = None
        self.graph = None
        if mode == "autograd":
            for p in self.params:
                p.requires_grad_(True)
            self.sgd = torch.optim.SGD(self.params, lr=LR)
            self.steps(1)  # as eagervm's autograd trainer: every grad exists
        elif mode == "cuda graph":
            self._capture()

    def _hand_written(self, x, y):
        w1, b1, w2, b2 = self.params
        h = torch.mm(x, w1) + b1
        a = torch.relu(h)
        logits = torch.mm(a, w2) + b2
        loss = F.cross_entropy(logits, y)
        dlogits = (torch.softmax(logits, 1) - F.one_hot(y, CLASSES).to(torch.float32)) * (
            1.0 / self.batch)
        dw2 = torch.mm(a.t(), dlogits)
        db2 = dlogits.sum(0, keepdim=True)
        da = torch.mm(dlogits, w2.t())
        dh = torch.where(h > self.zero, da, self.zero)
        dw1 = torch.mm(x.t(), dh)
        db1 = dh.sum(0, keepdim=True)
        w1.add_(dw1, alpha=-LR)
        b1.add_(db1, alpha=-LR)
        w2.add_(dw2, alpha=-LR)
        b2.add_(db2, alpha=-LR)
        return loss

    def _autograd(self, x, y):
        w1, b1, w2, b2 = self.params
        self.sgd.zero_grad()
        logits = torch.mm(torch.relu(torch.mm(x, w1) + b1), w2) + b2
        loss = F.cross_entropy(logits, y)
        loss.backward()
        self.sgd.step()
        return loss.detach()

    def _capture(self):
        if self.device.type != "cuda":
            raise RuntimeError("torch.cuda.graph needs a CUDA device")
        self.static_x, self.static_y = self.x[0].clone(), self.y[0].clone()
        saved = [p.clone() for p in self.params]
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.no_grad(), torch.cuda.stream(side):  # warm-up, as PyTorch asks
            for _ in range(3):
                self._hand_written(self.static_x, self.static_y)
        torch.cuda.current_stream().wait_stream(side)
        self.graph = torch.cuda.CUDAGraph()
        with torch.no_grad(), torch.cuda.graph(self.graph):
            self.static_loss = self._hand_written(self.static_x, self.static_y)
        with torch.no_grad():  # the warm-up trained: back to the initial parameters
            for p, s in zip(self.params, saved):
                p.copy_(s)
        sync(self.device)

    def steps(self, n, losses=None):
        kept = []
        for _ in range(n):
            b = self.step % len(self.x)
            self.step += 1
            if self.mode == "autograd":
                loss = self._autograd(self.x[b], self.y[b])
            elif self.graph is not None:
                self.static_x.copy_(self.x[b])
                self.static_y.copy_(self.y[b])
                self.graph.replay()
                loss = self.static_loss.clone() if losses is not None else None
            else:
                with torch.no_grad():
                    loss = self._hand_written(self.x[b], self.y[b])
            if losses is not None:
                kept.append(loss)
        if losses is not None:
            losses.extend(float(v) for v in kept)
        sync(self.device)

    def evaluate(self):
        w1, b1, w2, b2 = self.params
        with torch.no_grad():
            logits = torch.mm(torch.relu(torch.mm(self.x_all, w1) + b1), w2) + b2
            loss = F.cross_entropy(logits, self.y_all).item()
            acc = (logits.argmax(1) == self.y_all).to(torch.float32).mean().item()
        return loss, acc


def checkpoints(curve, first):
    every = max(1, len(curve) // 10)
    marks = [f"{k + first}:{curve[k]:.5f}" for k in range(0, len(curve), every)]
    if (len(curve) - 1) % every:
        marks.append(f"{len(curve) - 1 + first}:{curve[-1]:.5f}")
    return " ".join(marks)


def ms_per_step(t, steps):
    t.steps(10)  # warm-up (ends with a synchronize)
    t0 = time.perf_counter()
    t.steps(steps)
    return (time.perf_counter() - t0) * 1000.0 / steps


def run_size(size, args, images, labels, device):
    hidden, batch, steps = {"small": (128, 64, 400), "large": (512, 256, 200)}[size]
    if device.type == "cpu" and size == "large":
        steps = 60
    steps = args.steps or steps
    label = f"{size} (h{hidden}, b{batch})"
    print(f"\n== PyTorch from Python: MLP 64 -> {hidden} -> 10, batch {batch}, lr {LR}: "
          f"digits ({images.shape[0]} rows, {images.shape[0] // batch} batches) on {device}")
    modes = ["eager", "autograd"] + (["cuda graph"] if device.type == "cuda" else [])
    trainers, curves, notes, ok = {}, {}, {}, True
    for m in modes:
        try:
            t = Trainer(m, hidden, batch, images, labels, device)
            curve = []
            t.steps(args.check_steps, curve)
            trainers[m], curves[m] = t, curve
        except Exception as e:  # e.g. a CUDA graph capture this PyTorch refuses
            print(f"pytorch {m}: FAILED: {type(e).__name__}: {e}")
            notes[m] = f"{type(e).__name__}: {e}"[:160]
    if "eager" not in curves:
        return 2
    for m in curves:
        first = 1 if m == "autograd" else 0  # its step k is the hand-written step k + 1
        print(f"loss curve (pytorch {m} on {device}): {checkpoints(curves[m], first)}")
        loss, acc = trainers[m].evaluate()
        print(f"check: whole data set after {args.check_steps} steps: pytorch {m} loss "
              f"{loss:.5f} accuracy {100 * acc:.2f}%")
    ref = curves["eager"]
    if "cuda graph" in curves:
        worst = max(abs(a - b) / abs(b) for a, b in zip(curves["cuda graph"], ref))
        close = worst <= 1e-4  # the same kernels, but cuBLAS may choose others when captured
        print(f"check: pytorch cuda graph loss curve within {worst:.1e} (relative, bound 1e-4) of "
              f"pytorch eager's: {'yes' if close else 'NO'}")
        ok &= close
    if "autograd" in curves:
        worst = max(abs(a - b) / abs(b) for a, b in zip(curves["autograd"], ref[1:]))
        close = worst <= 1e-4
        print(f"check: pytorch autograd loss curve within {worst:.1e} (relative, bound 1e-4) of "
              f"pytorch eager's (one step on): {'yes' if close else 'NO'}")
        ok &= close
    ms = {m: [] for m in trainers}
    if not args.check_only:
        order = list(trainers)
        for rep in range(args.reps):
            for i in range(len(order)):
                m = order[(i + rep) % len(order)]
                ms[m].append(ms_per_step(trainers[m], steps))
        print(f"{args.reps} reps x {steps} steps per mode, alternating; ms/step measured in "
              f"Python (interpreter overhead included)")
        print(f"{'mode':<28} {'ms/step':>9} {'vs eager':>9}")
        med = {m: statistics.median(v) for m, v in ms.items()}
        for m in order:
            print(f"{'pytorch ' + m:<28} {med[m]:9.4f} {med[m] / med['eager']:8.2f}x")
    if args.summary:
        with open(args.summary, "a") as out:
            for m in modes:
                name = f"pytorch {m} (python, {device.type})"
                if ms.get(m):
                    out.write(f"mlp\t{label}\t{name}\t{statistics.median(ms[m]):.4f}\t"
                              f"Python overhead included\n")
                elif m in notes:
                    out.write(f"mlp\t{label}\t{name}\t-\t{notes[m]}\n")
    return 0 if ok and not notes else (1 if not ok else 2)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", default=DEFAULT_DATA)
    p.add_argument("--sizes", default="small,large")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--steps", type=int, default=0)
    p.add_argument("--check-steps", type=int, default=100)
    p.add_argument("--check-only", action="store_true")
    p.add_argument("--device", default="cuda")
    p.add_argument("--summary", default="")
    args = p.parse_args()
    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        print("mlp_torch_cuda.py: --device=cuda: torch.cuda.is_available() is False; skipped")
        return 77
    # float32 matmuls in float32 (no TF32), as eagervm's cuBLAS calls.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    if device.type == "cpu":
        torch.set_num_threads(1)
    where = torch.cuda.get_device_name(device) if device.type == "cuda" else "CPU, 1 thread"
    print(f"PyTorch {torch.__version__} from Python {sys.version.split()[0]} (CUDA "
          f"{torch.version.cuda}) on {where}: every ms/step includes Python's overhead")
    try:
        images, labels = load_digits(args.data)
    except OSError as e:
        print(f"mlp_torch_cuda.py: {e}")
        return 77
    rc = 0
    for size in args.sizes.split(","):
        r = run_size(size, args, images, labels, device)
        rc = r if r > rc else rc
    return rc


if __name__ == "__main__":
    sys.exit(main())
