#!/usr/bin/env python3
"""The models suite's transformer (bench/models/transformer.h) in PyTorch from Python.

The peer of `transformer_bench --device=cuda` on a GPU machine with
PyTorch's Python package: the same program as bench/models/transformer_torch.cc
(the same initial parameters, bit for bit: transformer_data.cc's
std::mt19937_64 draws; the same batches; the same operations in the same
order: heads by split/cat, pre-LayerNorm blocks, GELU MLP; autograd and
torch.optim.Adam). Prints the loss curve (every twelfth of --check-steps,
as transformer_bench prints its own) and the median ms/step of --reps
blocks of --steps steps (after 2 warm-up steps, torch.cuda.synchronize()
at both ends), measured from Python: the interpreter's overhead included.

  transformer_torch_cuda.py [--corpus=/usr/share/common-licenses/GPL-3]
      [--check-steps=30] [--steps=5] [--reps=3] [--batch=4]
      [--device=cuda|cpu] [--summary=FILE]

Exit 0 ok, 2 error, 77 no torch, no corpus or no CUDA device.
"""
import argparse
import math
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mlp_torch_cuda import MT19937_64, f32, sync, uniform  # noqa: E402 (exits 77 without torch)

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

LAYERS, D, HEADS, CONTEXT, BATCHES, LR, SEED = 2, 128, 4, 64, 64, 3e-3, 1


def load_corpus(path):
    with open(path, "rb") as f:
        text = f.read()
    vocab = sorted(set(text))
    id_of = {b: i for i, b in enumerate(vocab)}
    return [id_of[b] for b in text], len(vocab)


def make_batches(ids, batch):
    """transformer_data.cc's MakeBatches: windows at offsets from mt19937_64(seed + 1000)."""
    g = MT19937_64(SEED + 1000)
    span = len(ids) - CONTEXT - 1
    out = []
    for _ in range(BATCHES):
        x, y = [], []
        for _ in range(batch):
            at = g() % span
            x += ids[at:at + CONTEXT]
            y += ids[at + 1:at + 1 + CONTEXT]
        out.append((torch.tensor(x, dtype=torch.int64).reshape(batch, CONTEXT),
                    torch.tensor(y, dtype=torch.int64)))
    return out


def initial_params(vocab):
    """transformer_data.cc's InitialLmParams, in its order: (name, CPU float32 tensor)."""
    shapes = [("tok_emb", (vocab, D)), ("pos_emb", (CONTEXT, D))]
    for layer in range(LAYERS):
        pre = f"l{layer}."
        shapes += [(pre + "ln1_w", (D,)), (pre + "ln1_b", (D,))]
        shapes += [(pre + n, (D, D)) for n in ("wq", "wk", "wv", "wo")]
        shapes += [(pre + "bo", (D,)), (pre + "ln2_w", (D,)), (pre + "ln2_b", (D,)),
                   (pre + "w1", (D, 4 * D)), (pre + "b1", (4 * D,)), (pre + "w2", (4 * D, D)),
                   (pre + "b2", (D,))]
    shapes += [("lnf_w", (D,)), ("lnf_b", (D,)), ("head", (D, vocab)), ("head_b", (vocab,))]
    g = MT19937_64(SEED)
    params = []
    for name, shape in shapes:
        if len(shape) == 1:  # LayerNorm weights 1, biases 0
            t = torch.full(shape, 1.0 if "_w" in name else 0.0, dtype=torch.float32)
        else:
            bound = f32(0.1) if "emb" in name else f32(1.0) / torch.sqrt(f32(shape[0]))
            t = uniform(g, shape[0] * shape[1], bound).reshape(shape)
        params.append((name, t))
    return params


class Lm:
    def __init__(self, ids, vocab, batch, device):
        self.batch, self.device = batch, device
        self.p = {n: t.to(device).requires_grad_(True) for n, t in initial_params(vocab)}
        mask = torch.zeros(CONTEXT, CONTEXT, dtype=torch.float32)
        for i in range(CONTEXT):
            mask[i, i + 1:] = -1e9
        self.mask = mask.to(device)
        self.batches = [(x.to(device), y.to(device)) for x, y in make_batches(ids, batch)]
        self.adam = torch.optim.Adam(list(self.p.values()), lr=LR)
        self.step = 0

    def forward(self, ids):
        P, b, t, d, h = self.p, ids.shape[0], CONTEXT, D, HEADS
        dh = d // h
        x = torch.index_select(P["tok_emb"], 0, ids.reshape(-1)).reshape(b, t, d) + P["pos_emb"]
        scale = 1.0 / math.sqrt(dh)

        def heads(proj):
            return torch.cat([p.reshape(b, t, dh) for p in torch.split(proj, dh, 1)], 0)

        for layer in range(LAYERS):
            pre = f"l{layer}."
            a = F.layer_norm(x, (d,), P[pre + "ln1_w"], P[pre + "ln1_b"], 1e-5).reshape(b * t, d)
            q, k, v = (heads(torch.mm(a, P[pre + w])) for w in ("wq", "wk", "wv"))
            s = torch.bmm(q, k.transpose(1, 2)) * scale + self.mask
            o = torch.bmm(torch.softmax(s, 2), v)
            joined = torch.cat(torch.split(o, b, 0), 2).reshape(b * t, d)
            x = x + (torch.mm(joined, P[pre + "wo"]) + P[pre + "bo"]).reshape(b, t, d)
            m = F.layer_norm(x, (d,), P[pre + "ln2_w"], P[pre + "ln2_b"], 1e-5).reshape(b * t, d)
            m = torch.mm(F.gelu(torch.mm(m, P[pre + "w1"]) + P[pre + "b1"]), P[pre + "w2"]) + \
                P[pre + "b2"]
            x = x + m.reshape(b, t, d)
        f = F.layer_norm(x, (d,), P["lnf_w"], P["lnf_b"], 1e-5).reshape(b * t, d)
        return torch.mm(f, P["head"]) + P["head_b"]

    def steps(self, n, losses=None):
        kept = []
        for _ in range(n):
            x, y = self.batches[self.step % len(self.batches)]
            self.step += 1
            self.adam.zero_grad()
            loss = F.cross_entropy(self.forward(x), y)
            loss.backward()
            self.adam.step()
            if losses is not None:
                kept.append(loss.detach())
        if losses is not None:
            losses.extend(float(v) for v in kept)
        sync(self.device)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--corpus", default="/usr/share/common-licenses/GPL-3")
    p.add_argument("--check-steps", type=int, default=30)
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--device", default="cuda")
    p.add_argument("--summary", default="")
    args = p.parse_args()
    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        print("transformer_torch_cuda.py: torch.cuda.is_available() is False; skipped")
        return 77
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    if device.type == "cpu":
        torch.set_num_threads(1)
    try:
        ids, vocab = load_corpus(args.corpus)
    except OSError as e:
        print(f"transformer_torch_cuda.py: {e}")
        return 77
    where = torch.cuda.get_device_name(device) if device.type == "cuda" else "CPU, 1 thread"
    print(f"\n== PyTorch {torch.__version__} from Python (Python's overhead included) on {where}: "
          f"transformer LM, {LAYERS} layers, d {D}, {HEADS} heads, context {CONTEXT}, batch "
          f"{args.batch}, Adam lr {LR}; {args.corpus} ({len(ids)} characters, vocabulary {vocab})")
    lm = Lm(ids, vocab, args.batch, device)
    curve = []
    lm.steps(args.check_steps, curve)
    every = max(1, args.check_steps // 12)
    print("loss curve (step: pytorch)")
    for i in range(0, args.check_steps, every):
        print(f"  {i:4d}: {curve[i]:.4f}")
    print(f"final loss (mean of the last 10 steps): {sum(curve[-10:]) / 10:.4f}")
    times = []
    for _ in range(args.reps):
        lm.steps(2)  # warm-up (ends with a synchronize)
        t0 = time.perf_counter()
        lm.steps(args.steps)
        times.append((time.perf_counter() - t0) * 1000.0 / args.steps)
    ms = statistics.median(times)
    print(f"{args.reps} reps x {args.steps} steps: pytorch eager {ms:.3f} ms/step (median)")
    if args.summary:
        label = f"d{D} x{LAYERS}, ctx {CONTEXT}, b{args.batch}"
        with open(args.summary, "a") as out:
            out.write(f"transformer\t{label}\tpytorch eager (python, {device.type})\t{ms:.3f}\t"
                      f"Python overhead included\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
