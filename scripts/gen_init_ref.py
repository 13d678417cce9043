#!/usr/bin/env python3
"""torch 1.13's answers for tests/test_init.c (torch.nn.init and torch.nn.utils): calculate_gain,
the fans, the exact bounds / standard deviations xavier_* and kaiming_* hand to uniform_ / normal_
(recorded by wrapping Tensor.uniform_ / normal_), eye_ and dirac_ tensors, norm_except_dim,
_weight_norm (values and gradients), spectral_norm's weight, u and v after the power iteration
(torch's own hook) and its gradient, fuse_conv_bn_weights / fuse_linear_bn_weights in float32, and prune's masks (L1Unstructured with
Python's half-even rounding of the amount, iterative pruning, LnStructured, global_unstructured).
Writes tests/data/init_ref.h. Run with /usr/bin/python3."""
import math
import sys
import warnings

import torch
import torch.nn as nn
import torch.nn.init as I
from torch.nn.utils import fusion

warnings.filterwarnings("ignore")
torch.manual_seed(5)
out = []


def arr(name, t, ctype="double"):
    t = torch.as_tensor(t).detach()
    if t.dtype == torch.bool:
        t = t.to(torch.float64)
    body = ", ".join(repr(float(x)) for x in t.reshape(-1).tolist()) or "0"
    body = body.replace("inf", "INFINITY").replace("nan", "NAN")
    out.append(f"static const {ctype} {name}[] = {{{body}}};")
    shp = ", ".join(str(s) for s in t.shape) or "0"
    out.append(f"static const int64_t {name}_shape[] = {{{shp}}};")
    out.append(f"enum {{ {name}_nd = {t.dim()} }};")


# ---- calculate_gain ----
gains = [("linear", None), ("conv1d", None), ("conv_transpose3d", None), ("sigmoid", None),
         ("tanh", None), ("relu", None), ("leaky_relu", None), ("leaky_relu", 0.2),
         ("leaky_relu", 0.0), ("leaky_relu", -3.5), ("selu", None)]
out.append("static const struct { const char *name; int has; double param, gain; } GAIN[] = {")
for n, p in gains:
    g = float(I.calculate_gain(n, p))
    out.append(f'    {{"{n}", {0 if p is None else 1}, {p if p is not None else 0!r}, {g!r}}},')
out.append("};")

# ---- fans ----
shapes = [(3, 5), (16, 8, 3, 3), (4, 7, 2), (1, 1), (2, 3, 4, 5, 6), (0, 4), (5, 0, 3)]
out.append("static const struct { int nd; int64_t shape[5]; int64_t fi, fo; } FAN[] = {")
for s in shapes:
    fi, fo = I._calculate_fan_in_and_fan_out(torch.empty(s))
    sh = ", ".join(str(x) for x in s)
    out.append(f"    {{{len(s)}, {{{sh}}}, {fi}, {fo}}},")
out.append("};")

# ---- the arguments xavier / kaiming pass to uniform_ / normal_ ----
rec = []
orig_u, orig_n = torch.Tensor.uniform_, torch.Tensor.normal_


def ru(self, a=0.0, b=1.0, **kw):
    rec.append((0, float(a), float(b)))
    return orig_u(self, a, b)


def rn(self, mean=0.0, std=1.0, **kw):
    rec.append((1, float(mean), float(std)))
    return orig_n(self, mean, std)


torch.Tensor.uniform_, torch.Tensor.normal_ = ru, rn
cases = []  # (fn id, shape, gain or a, mode, nonlinearity)
for s in [(3, 5), (16, 8, 3, 3), (4, 7, 2), (1, 1), (0, 4)]:
    for g in [1.0, math.sqrt(2.0), 0.5]:
        for fid, f in [(0, I.xavier_uniform_), (1, I.xavier_normal_)]:
            rec.clear()
            f(torch.empty(s), gain=g)
            cases.append((fid, s, g, "", "", rec[-1]))
for s in [(3, 5), (16, 8, 3, 3), (4, 7, 2)]:
    for a in [0.0, 0.2, math.sqrt(5.0)]:
        for mode in ["fan_in", "fan_out", "FAN_Out"]:
            for nl in ["leaky_relu", "relu", "tanh", "selu", "linear"]:
                for fid, f in [(2, I.kaiming_uniform_), (3, I.kaiming_normal_)]:
                    rec.clear()
                    f(torch.empty(s), a=a, mode=mode, nonlinearity=nl)
                    cases.append((fid, s, a, mode, nl, rec[-1]))
torch.Tensor.uniform_, torch.Tensor.normal_ = orig_u, orig_n
out.append("static const struct { int fn, nd; int64_t shape[4]; double arg; const char *mode, "
           "*nl; int kind; double p1, p2; } BOUND[] = {")
for fid, s, g, mode, nl, (kind, p1, p2) in cases:
    sh = ", ".join(str(x) for x in s)
    out.append(f'    {{{fid}, {len(s)}, {{{sh}}}, {g!r}, "{mode}", "{nl}", {kind}, {p1!r}, '
               f"{p2!r}}},")
out.append("};")

# ---- eye_ and dirac_ ----
arr("eye35", I.eye_(torch.empty(3, 5)))
arr("eye52", I.eye_(torch.empty(5, 2)))
dirac = [((6, 4, 3), 1), ((6, 4, 3), 2), ((4, 6, 3, 3), 1), ((6, 2, 3, 2, 3), 3),
         ((4, 4, 5, 4), 4), ((3, 1, 2), 1)]
for i, (s, g) in enumerate(dirac):
    arr(f"dirac{i}", I.dirac_(torch.empty(s), groups=g))
out.append("static const int DIRAC_GROUPS[] = {" + ", ".join(str(g) for _, g in dirac) + "};")

# ---- norm_except_dim and _weight_norm ----
D = torch.float64
v = torch.randn(3, 4, 5, dtype=D)
arr("ned_v", v)
ned = [(2, -1), (2, 0), (2, 1), (2, 2), (3, -2), (1, 0), (4, 1)]
for i, (p, d) in enumerate(ned):
    arr(f"ned{i}", torch.norm_except_dim(v, p, d))
out.append("static const struct { double p; int dim; } NED[] = {" +
           ", ".join(f"{{{p!r}, {d}}}".replace("inf", "INFINITY") for p, d in ned) + "};")
wn = [(0, (3,)), (2, (5,)), (-1, ()), (1, (1, 4, 1))]
for i, (d, gs) in enumerate(wn):
    vv = v.clone().requires_grad_()
    n = torch.norm_except_dim(v, 2, d).numel()
    g = (torch.rand(n, dtype=D) + 0.5).reshape(gs).requires_grad_()
    w = torch._weight_norm(vv, g, d)
    r = torch.sin(torch.arange(w.numel(), dtype=D)).reshape(w.shape)
    (w * r).sum().backward()
    arr(f"wn{i}_g", g)
    arr(f"wn{i}_w", w)
    arr(f"wn{i}_dv", vv.grad)
    arr(f"wn{i}_dg", g.grad)
out.append("static const int WN_DIM[] = {" + ", ".join(str(d) for d, _ in wn) + "};")

# ---- spectral_norm (torch's hook on a module, u and v set) ----
sn = [("lin", 0, 1), ("lin", 0, 3), ("conv", 0, 1), ("convT", 1, 2), ("lin", 0, 0)]
for i, (kind, dim, iters) in enumerate(sn):
    if kind == "lin":
        m = nn.Linear(6, 4).double()
    elif kind == "conv":
        m = nn.Conv2d(3, 5, 2).double()
    else:
        m = nn.ConvTranspose2d(3, 5, 2).double()
    nn.utils.spectral_norm(m, n_power_iterations=max(iters, 1), dim=dim, eps=1e-12)
    hook = [h for h in m._forward_pre_hooks.values()][0]
    hook.n_power_iterations = iters
    w0 = m.weight_orig.detach().clone()
    u0, v0 = m.weight_u.clone(), m.weight_v.clone()
    arr(f"sn{i}_w", w0)
    arr(f"sn{i}_u0", u0)
    arr(f"sn{i}_v0", v0)
    w = hook.compute_weight(m, do_power_iteration=True)
    r = torch.sin(torch.arange(w.numel(), dtype=D)).reshape(w.shape)
    (w * r).sum().backward()
    arr(f"sn{i}_out", w)
    arr(f"sn{i}_u1", m.weight_u)
    arr(f"sn{i}_v1", m.weight_v)
    arr(f"sn{i}_dw", m.weight_orig.grad)
out.append("static const struct { int dim, iters; } SN[] = {" +
           ", ".join(f"{{{d}, {it}}}" for _, d, it in sn) + "};")

# ---- fusion, float32 ----
F = torch.float32
cw, cb = torch.randn(4, 3, 3, 3, dtype=F), torch.randn(4, dtype=F)
ctw = torch.randn(3, 4, 2, 2, dtype=F)
rm, rv = torch.randn(4, dtype=F), torch.rand(4, dtype=F) + 0.1
bw, bb = torch.randn(4, dtype=F), torch.randn(4, dtype=F)
lw, lb = torch.randn(4, 6, dtype=F), torch.randn(4, dtype=F)
for n, t in [("fu_cw", cw), ("fu_cb", cb), ("fu_ctw", ctw), ("fu_rm", rm), ("fu_rv", rv),
             ("fu_bw", bw), ("fu_bb", bb), ("fu_lw", lw), ("fu_lb", lb)]:
    arr(n, t)
a, b = fusion.fuse_conv_bn_weights(cw, cb, rm, rv, 1e-5, bw, bb)
arr("fu_c_w", a), arr("fu_c_b", b)
a, b = fusion.fuse_conv_bn_weights(ctw, None, rm, rv, 1e-3, None, None, transpose=True)
arr("fu_t_w", a), arr("fu_t_b", b)
a, b = fusion.fuse_linear_bn_weights(lw, lb, rm, rv, 1e-5, bw, bb)
arr("fu_l_w", a), arr("fu_l_b", b)

# ---- torch.nn.utils.prune: masks ----
import torch.nn.utils.prune as prune
pt = torch.randn(6, 7)
arr("pr_t", pt)
pimp = torch.rand(6, 7)
arr("pr_imp", pimp)
l1 = [(0.3, 0), (0.5, 0), (13, 1), (0, 1), (1.0, 0), (42, 1)]
for i, (a, isc) in enumerate(l1):
    m = prune.L1Unstructured(int(a) if isc else a).compute_mask(pt, torch.ones_like(pt))
    arr(f"pr_l1_{i}", m)
out.append("static const struct { double amount; int count; } PR_L1[] = {" +
           ", ".join(f"{{{float(a)!r}, {c}}}" for a, c in l1) + "};")
arr("pr_l1_imp", prune.L1Unstructured(0.4).compute_mask(pimp, torch.ones_like(pimp)))
# Python's round half to even: 0.5 of 5 entries is 2, of 7 is 4
v5, v7 = torch.randn(5), torch.randn(7)
arr("pr_v5", v5), arr("pr_v7", v7)
arr("pr_v5_m", prune.L1Unstructured(0.5).compute_mask(v5, torch.ones_like(v5)))
arr("pr_v7_m", prune.L1Unstructured(0.5).compute_mask(v7, torch.ones_like(v7)))
# iterative: l1_unstructured twice on a module (PruningContainer)
lin = torch.nn.Linear(7, 6)
with torch.no_grad():
    lin.weight.copy_(pt)
prune.l1_unstructured(lin, "weight", amount=0.3)
arr("pr_it1", lin.weight_mask)
prune.l1_unstructured(lin, "weight", amount=0.5)
arr("pr_it2", lin.weight_mask)
prune.l1_unstructured(lin, "weight", amount=5)
arr("pr_it3", lin.weight_mask)
# LnStructured
ct4 = torch.randn(4, 3, 2, 2)
arr("pr_c4", ct4)
ln = [(0.5, 0, 2.0, 0), (1, 1, 1.0, 1), (0.34, 0, math.inf, -1), (2, 1, -math.inf, 0),
      (0.0, 0, 2.0, 1), (1.0, 0, 2.0, 2)]
for i, (a, isc, nn_, d) in enumerate(ln):
    m = prune.LnStructured(int(a) if isc else a, n=nn_, dim=d).compute_mask(ct4, torch.ones_like(ct4))
    arr(f"pr_ln_{i}", m)
out.append("static const struct { double amount; int count; double n; int dim; } PR_LN[] = {" +
           ", ".join(f"{{{float(a)!r}, {c}, {nn_!r}, {d}}}".replace("inf", "INFINITY")
                     for a, c, nn_, d in ln) + "};")
# global_unstructured over two layers
a_w, b_w = torch.randn(5, 4), torch.randn(3, 6)
arr("pr_ga", a_w), arr("pr_gb", b_w)
la, lb = torch.nn.Linear(4, 5), torch.nn.Linear(6, 3)
with torch.no_grad():
    la.weight.copy_(a_w), lb.weight.copy_(b_w)
prune.global_unstructured([(la, "weight"), (lb, "weight")], pruning_method=prune.L1Unstructured,
                          amount=0.4)
arr("pr_ga_m", la.weight_mask), arr("pr_gb_m", lb.weight_mask)

path = sys.argv[1] if len(sys.argv) > 1 else "tests/data/init_ref.h"
with open(path, "w") as f:
    f.write("/* Generated by scripts/gen_init_ref.py from torch " + torch.__version__ +
            "; do not edit. */\n#include <math.h>\n#include <stdint.h>\n")
    f.write("\n".join(out) + "\n")
