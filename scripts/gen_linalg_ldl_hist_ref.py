#!/usr/bin/env python3
"""torch 1.13's answers for tests/test_linalg_ldl_hist.c: linalg.ldl_factor / ldl_solve (2 x 2
pivots, batches, broadcasting), linalg.qr mode='complete' / 'r', linalg.svd full_matrices=True
(values, and gradients of a sign-invariant loss), histogramdd (bin counts with and without range,
edges exactly on bin boundaries, weights, density, explicit edges) and fractional_max_pool2d / 3d
with explicit _random_samples (values, indices, gradients). Writes
tests/data/linalg_ldl_hist_ref.h. Run with /usr/bin/python3."""
import sys
import torch
import torch.nn.functional as F

torch.manual_seed(11)
out = []
D = torch.float64


def arr(name, t):
    t = t.detach()
    body = ", ".join(repr(float(x)) for x in t.reshape(-1).tolist()) or "0"
    body = body.replace("inf", "INFINITY").replace("nan", "NAN")
    out.append(f"static const double {name}[] = {{{body}}};")
    shp = ", ".join(str(s) for s in t.shape) or "0"
    out.append(f"static const int64_t {name}_shape[] = {{{shp}}};")
    out.append(f"enum {{ {name}_nd = {t.dim()} }};")


def wsum(y):
    w = torch.sin(torch.arange(y.numel(), dtype=y.dtype)).reshape(y.shape)
    return (y * w).sum()


# ---- ldl: symmetric indefinite with zero diagonals (2 x 2 pivots) ----
A = torch.randn(2, 5, 5, dtype=D)
A = A + A.transpose(-2, -1)
A[0].diagonal().zero_()
A[1, 0, 0] = 0.0
LD, piv = torch.linalg.ldl_factor(A)
arr("ldl_a", A), arr("ldl_ld", LD), arr("ldl_piv", piv.to(D))
assert (piv < 0).any(), "want a 2x2 pivot"
B = torch.randn(2, 5, 3, dtype=D)
arr("ldl_b", B), arr("ldl_x", torch.linalg.ldl_solve(LD, piv, B))
B2 = torch.randn(5, 2, dtype=D)  # broadcast to LD's batch (torch 1.13 crashes on (3, 1, 5, 2))
arr("ldl_b2", B2), arr("ldl_x2", torch.linalg.ldl_solve(LD, piv, B2))
A32 = A.float()
LD32, piv32 = torch.linalg.ldl_factor(A32)
arr("ldl_ld32", LD32), arr("ldl_piv32", piv32.to(D))

# ---- qr complete / r ----
Aq = torch.randn(2, 5, 3, dtype=D, requires_grad=True)
Q, R = torch.linalg.qr(Aq, mode="complete")
arr("qr_a", Aq), arr("qr_q", Q), arr("qr_r", R)
arr("qr_rr", torch.linalg.qr(Aq, mode="r")[1])
Aw = torch.randn(3, 5, dtype=D, requires_grad=True)
Q, R = torch.linalg.qr(Aw, mode="complete")
arr("qrw_a", Aw), arr("qrw_q", Q), arr("qrw_r", R)
(g,) = torch.autograd.grad(wsum(Q) + wsum(R), [Aw])
arr("qrw_g", g)

# ---- svd full_matrices: values; gradients of sum(w1 U^2) + sum(w2 S) + sum(w3 Vh^2) ----
for name, shp in (("svt", (2, 5, 3)), ("svw", (3, 5))):
    a = torch.randn(*shp, dtype=D, requires_grad=True)
    U, S, Vh = torch.linalg.svd(a, full_matrices=True)
    arr(f"{name}_a", a), arr(f"{name}_s", S)
    (g,) = torch.autograd.grad(wsum(U * U) + wsum(S) + wsum(Vh * Vh), [a])
    arr(f"{name}_g", g)

# ---- histogramdd ----
x = torch.randn(40, 3, dtype=D)
x[0] = torch.tensor([-1.0, 0.0, 1.0])  # exactly on edges of the range below
x[1] = torch.tensor([1.0, 2.0, 0.5])  # the right-most edges: counted in the last bin
x[2, 0] = float("nan")
w = torch.rand(40, dtype=D)
h = torch.histogramdd(x, bins=[4, 3, 5], range=[-1.0, 1.0, -2.0, 2.0, 0.0, 1.0])
arr("hd_x", x), arr("hd_w", w), arr("hd_h1", h.hist)
for i, e in enumerate(h.bin_edges):
    arr(f"hd_e1_{i}", e)
x2 = torch.randn(30, 2, dtype=D)
h = torch.histogramdd(x2, bins=4, weight=w[:30], density=True)
arr("hd_x2", x2), arr("hd_h2", h.hist)
for i, e in enumerate(h.bin_edges):
    arr(f"hd_e2_{i}", e)
# float32 with values on linspace edges that are not exact (the local search matters)
x3 = (torch.arange(0, 61, dtype=torch.float32) / 60.0 * 0.7 + 0.1).reshape(-1, 1).repeat(1, 2)
x3[:, 1] = x3[:, 1].flip(0)
h = torch.histogramdd(x3, bins=[7, 3], range=[0.1, 0.8, 0.1, 0.8])
arr("hd_x3", x3), arr("hd_h3", h.hist), arr("hd_e3_0", h.bin_edges[0])
# explicit edges, unbatched weight, a batch of points (..., D)
e0 = torch.tensor([-2.0, -0.5, 0.0, 0.3, 2.0], dtype=D)
e1 = torch.tensor([-1.0, 1.0, 1.5], dtype=D)
x4 = torch.randn(3, 7, 2, dtype=D)
x4[0, 0] = torch.tensor([0.3, 1.5])
w4 = torch.rand(3, 7, dtype=D)
h = torch.histogramdd(x4, bins=[e0, e1], weight=w4, density=True)
arr("hd_x4", x4), arr("hd_w4", w4), arr("hd_h4", h.hist)
# a constant dim (range widened by 0.5 each side)
x5 = torch.stack([torch.full((6,), 2.0, dtype=D), torch.arange(6, dtype=D)], 1)
h = torch.histogramdd(x5, bins=[2, 3])
arr("hd_x5", x5), arr("hd_h5", h.hist), arr("hd_e5_0", h.bin_edges[0])

# ---- fractional max pooling ----
xp = torch.randn(2, 3, 9, 8, dtype=D)
xp[0, 0, 2, 2] = float("nan")
xp[1, 2, :3, :3] = float("-inf")
sp = torch.rand(2, 3, 2, dtype=D)
xp.requires_grad_()
y, i = F.fractional_max_pool2d(xp, (3, 2), output_size=(4, 5), return_indices=True,
                               _random_samples=sp)
arr("fp2_x", xp), arr("fp2_s", sp), arr("fp2_y", y), arr("fp2_i", i.to(D))
(g,) = torch.autograd.grad(wsum(torch.nan_to_num(y, nan=0.0, neginf=0.0)), [xp])
arr("fp2_g", g)
# output_ratio, unbatched, float32
xu = torch.randn(2, 7, 6)
su = torch.rand(1, 2, 2)
y, i = F.fractional_max_pool2d(xu, 2, output_ratio=(0.5, 0.75), return_indices=True,
                               _random_samples=su)
arr("fp2u_x", xu), arr("fp2u_s", su), arr("fp2u_y", y), arr("fp2u_i", i.to(D))
x3d = torch.randn(2, 2, 6, 7, 5, dtype=D, requires_grad=True)
s3 = torch.rand(2, 2, 3, dtype=D)
y, i = F.fractional_max_pool3d(x3d, (2, 3, 2), output_size=(3, 4, 3), return_indices=True,
                               _random_samples=s3)
arr("fp3_x", x3d), arr("fp3_s", s3), arr("fp3_y", y), arr("fp3_i", i.to(D))
(g,) = torch.autograd.grad(wsum(y), [x3d])
arr("fp3_g", g)

hdr = ["/* Generated by scripts/gen_linalg_ldl_hist_ref.py from torch " + torch.__version__ +
       "; do not edit. */", "#include <math.h>", "#include <stdint.h>"]
open(sys.argv[1] if len(sys.argv) > 1 else "tests/data/linalg_ldl_hist_ref.h", "w").write(
    "\n".join(hdr + out) + "\n")
