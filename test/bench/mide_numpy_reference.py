"""numpy-vectorised reference of the MIDE Monte Carlo core (NLM, TSLM, PPWLM), for test/bench/mide.bench.ts.

Written from the definitions in ALGORITHMS.md (not from the papers' code): all trials at once as a (trials, k) array,
Laplace noise from numpy's Generator (PCG64), PPWLM's later steps relax the noise of the still undecided (trial,
predicate) pairs with the exact conditional law (fresh uniforms, sign kept). Per trial it computes false negatives and
false positives against the true counts, as the engine's Monte Carlo does (min-entropy excluded on both sides).

Protocol (so that the benchmark can interleave our runs with these in one process pair): reads the workload path, then
one command per line on stdin, "<mechanism> <trials>", and answers each with one JSON line
{"ms": <run time>, "fnr": <mean FNR>, "fpr": <mean FPR>}. The time is measured here around the vectorised run only.
Needs numpy; prints {"error": ...} and exits 3 without it.
"""
import json
import math
import sys
import time

try:
    import numpy as np
except ImportError:  # the benchmark notes that the reference was skipped
    print(json.dumps({"error": "numpy is not installed"}), flush=True)
    sys.exit(3)

ALPHA, BETA, EPS1, STEPS = 1.0, 0.05, 1e-5, 4


def read_workload(path):
    counts, thresholds = [], []
    with open(path, encoding="utf-8") as f:
        header = [h.strip() for h in f.readline().strip().split(",")]
        ci, ti = header.index("count"), header.index("threshold")
        for line in f:
            if line.strip():
                parts = line.rstrip("\r\n").split(",")
                counts.append(float(parts[ci]))
                thresholds.append(float(parts[ti]))
    return np.array(counts), np.array(thresholds)


def errors(decided, truth):
    """mean FNR and FPR over trials (each trial: errors / positives or negatives)."""
    pos = truth.sum()
    neg = truth.size - pos
    fn = (truth & ~decided).sum(axis=1)
    fp = (~truth & decided).sum(axis=1)
    return float((fn / pos).mean()) if pos else None, float((fp / neg).mean()) if neg else None


def single_step(rng, counts, thresholds, truth, trials, shift):
    eps = math.log(1 / (2 * BETA)) / ALPHA
    noisy = counts + rng.laplace(0.0, 1 / eps, size=(trials, counts.size))
    return errors(noisy > thresholds - shift, truth)


def relax(rng, v1, e1, e2):
    """exact relaxation of Lap(1/e1) values v1 to Lap(1/e2), vectorised."""
    a = np.abs(v1)
    d = np.exp(-(e2 - e1) * a)
    p_keep = (e1 / e2) * d
    p_neg = (e2 - e1) / (2 * e2)
    p_in = ((e1 + e2) / (2 * e2)) * (1 - d)
    branch = rng.random(v1.size)
    u = 1.0 - rng.random(v1.size)  # (0, 1]
    z = np.where(
        branch < p_keep + p_neg,
        np.log(u) / (e1 + e2),
        np.where(branch < p_keep + p_neg + p_in, np.log1p(u * (d - 1)) / (e1 - e2), a - np.log(u) / (e1 + e2)),
    )
    z = np.copysign(z, v1)
    return np.where(branch < p_keep, v1, z)


def ppwlm(rng, counts, thresholds, truth, trials):
    eps_m = math.log(STEPS / (2 * BETA)) / ALPHA
    w = (eps_m / EPS1) ** (1 / (STEPS - 1))
    k = counts.size
    decided = np.zeros((trials, k), dtype=bool)
    noise = rng.laplace(0.0, 1 / EPS1, size=(trials, k))
    # flat indices of the undecided (trial, predicate) pairs and their noise
    idx = np.arange(trials * k)
    c = np.broadcast_to(counts, (trials, k)).ravel()
    t = np.broadcast_to(thresholds, (trials, k)).ravel()
    v = noise.ravel()
    prev = EPS1
    flat = decided.ravel()
    for j in range(STEPS):
        eps = EPS1 * w**j
        alpha = math.log(STEPS / (2 * BETA)) / eps
        if j > 0:
            v = relax(rng, v, prev, eps)
        g = c + v
        pos = g > t + alpha
        stay = ~pos & (g > t - alpha)
        flat[idx[pos]] = True
        idx, c, t, v = idx[stay], c[stay], t[stay], v[stay]
        prev = eps
        if idx.size == 0:
            break
    flat[idx] = True  # undecided after the last step: reported positive
    return errors(decided, truth)


def main():
    counts, thresholds = read_workload(sys.stdin.readline().strip())
    truth = counts > thresholds
    rng = np.random.default_rng(2022)
    runs = {
        "nlm": lambda n: single_step(rng, counts, thresholds, truth, n, 0.0),
        "tslm": lambda n: single_step(rng, counts, thresholds, truth, n, ALPHA),
        "ppwlm": lambda n: ppwlm(rng, counts, thresholds, truth, n),
    }
    print(json.dumps({"ready": True, "numpy": np.__version__}), flush=True)
    for line in sys.stdin:
        mech, trials = line.split()
        s = time.perf_counter()
        fnr, fpr = runs[mech](int(trials))
        ms = (time.perf_counter() - s) * 1000
        print(json.dumps({"ms": ms, "fnr": fnr, "fpr": fpr}), flush=True)


if __name__ == "__main__":
    main()
