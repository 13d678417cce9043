#!/usr/bin/env python3
"""torch 1.13's answers for tests/test_index_more.c: advanced indexing (index / index_put with
adjacent and separated index dims, masks, negative indices), take / put, the three *_scatter
ops, combinations, renorm, ldexp / frexp, addbmm and pdist. Writes tests/data/index_more_ref.h.
Run with /usr/bin/python3 (torch 1.13, numpy)."""
import sys
import torch

torch.manual_seed(7)
out = []


def arr(name, t, ctype="double"):
    v = t.detach().reshape(-1).tolist()
    if isinstance(v, (int, float, bool)):
        v = [v]
    body = ", ".join(repr(float(x)) if ctype == "double" else str(int(x)) for x in v) or "0"
    body = body.replace("inf", "INFINITY").replace("nan", "NAN")
    out.append(f"static const {ctype} {name}[] = {{{body}}};")
    shp = ", ".join(str(s) for s in t.shape) or "0"
    out.append(f"static const int64_t {name}_shape[] = {{{shp}}};")
    out.append(f"enum {{ {name}_nd = {t.dim()} }};")


# inputs shared with the C side: x = arange(60).reshape(3, 4, 5) as float64
x = torch.arange(60, dtype=torch.float64).reshape(3, 4, 5)
i0 = torch.tensor([2, -1, 0])
i1 = torch.tensor([[1], [3]])
# x[i0, i1]: adjacent dims 0, 1 -> (2, 3, 5)
arr("idx_adj", x[i0, i1])
# x[:, i1, i0]: adjacent dims 1, 2 -> (3, 2, 3)
arr("idx_adj_mid", x[:, i1, i0])
# x[i2, :, i0]: separated -> (2, 3, 4)
i2 = torch.tensor([[1], [-3]])
arr("idx_sep", x[i2, :, i0])
mask = torch.tensor([[True, False, True, False], [False, False, True, True], [True, True, False, False]])
arr("idx_mask", x[mask])
arr("idx_mask1", x[:, torch.tensor([False, True, True, False])])
# index_put on x with values broadcast
v = torch.tensor([100.0, 200.0, 300.0, 400.0, 500.0], dtype=torch.float64)
arr("put_adj", torch.index_put(x, (i0, torch.tensor([1])), v))
vals = torch.arange(24, dtype=torch.float64).reshape(2, 3, 4) * 10
xs = x.clone()
xs[i2, :, i0] = torch.arange(4, dtype=torch.float64) * -1  # index_put with a full slice
arr("put_sep", xs)
dup = torch.tensor([0, 2, 0, 0])
arr("put_acc", torch.index_put(x, (dup,), torch.ones(4, 4, 5, dtype=torch.float64), accumulate=True))
arr("take", torch.take(x, torch.tensor([[0, 59], [-1, -60]])))
arr("putf", torch.put(x, torch.tensor([1, -2, 1]), torch.tensor([5.0, 6.0, 7.0], dtype=torch.float64), accumulate=True))
# scatters
arr("sel_sc", torch.select_scatter(x, torch.full((3, 5), -1.0, dtype=torch.float64), 1, -2))
arr("sli_sc", torch.slice_scatter(x, torch.full((3, 4, 2), -2.0, dtype=torch.float64), 2, 1, 5, 2))
arr("dia_sc", torch.diagonal_scatter(x, torch.full((4, 2), -3.0, dtype=torch.float64), -1, 0, 2))
arr("dia_sc2", torch.diagonal_scatter(x, torch.full((3, 2), -4.0, dtype=torch.float64), 2, 2, 1))
# combinations
c = torch.tensor([3.0, 1.0, 4.0, 1.5], dtype=torch.float64)
arr("comb2", torch.combinations(c, 2))
arr("comb3r", torch.combinations(c, 3, with_replacement=True))
# renorm (float32 and float64; rows above and below maxnorm)
r32 = (torch.randn(4, 3, 2) * 3).float()
arr("ren_in", r32)
arr("ren_out0", torch.renorm(r32, 2, 0, 5.0))
arr("ren_out2", torch.renorm(r32, 1, 2, 4.0))
arr("ren_out_inf", torch.renorm(r32.double(), float("inf"), 1, 2.5))
# ldexp / frexp
fx = torch.tensor([0.0, -0.0, 1.0, 3.0, -0.75, 1e-40, 3.4e38, 1e-45, float("inf"), float("-inf"), float("nan"), 6.0e-39])
m, e = torch.frexp(fx)
arr("frexp_in", fx)
arr("frexp_m", m)
arr("frexp_e", e)
dx = torch.tensor([1e-310, 5e-324, 1.7e308, -2.5, 0.1], dtype=torch.float64)
m, e = torch.frexp(dx)
arr("frexp64_in", dx)
arr("frexp64_m", m)
arr("frexp64_e", e)
arr("ldexp_out", torch.ldexp(torch.tensor([1.5, -3.0, 0.0, 7.0]), torch.tensor([3, -2, 5, 0])))
# addbmm rounding: f32 batches of random values
a_in = torch.randn(3, 4)
b1 = torch.randn(5, 3, 6)
b2 = torch.randn(5, 6, 4)
arr("abm_in", a_in)
arr("abm_b1", b1)
arr("abm_b2", b2)
arr("abm_out", torch.addbmm(a_in, b1, b2, beta=0.5, alpha=1.5))
# pdist
pd = torch.randn(5, 3, dtype=torch.float64)
arr("pd_in", pd)
arr("pd_2", torch.nn.functional.pdist(pd))
arr("pd_1", torch.nn.functional.pdist(pd, 1))
arr("pd_inf", torch.nn.functional.pdist(pd, float("inf")))
arr("pd_0", torch.nn.functional.pdist(torch.tensor([[1.0, 2.0], [1.0, 3.0], [0.0, 3.0]], dtype=torch.float64), 0))

# scatter_reduce / index_reduce: every reduction, with and without self, float (NaN, ties,
# zeros for prod's gradient) and int64 (mean's floor division); gradients of the float case
sr_t = torch.tensor([[1.0, -2.0, 0.0], [4.0, 5.0, 4.0]], dtype=torch.float64)
sr_src = torch.tensor([[3.0, 0.0, 4.0, -1.0], [4.0, 0.5, 0.0, 7.0]], dtype=torch.float64)
sr_idx = torch.tensor([[0, 2, 0, 0], [2, 2, 1, 2]])
arr("sr_t", sr_t)
arr("sr_src", sr_src)
arr("sr_idx", sr_idx)
for ri, red in enumerate(["sum", "prod", "mean", "amax", "amin"]):
    for inc in (True, False):
        a = sr_t.clone().requires_grad_()
        b = sr_src.clone().requires_grad_()
        y = torch.scatter_reduce(a, 1, sr_idx, b, red, include_self=inc)
        w = torch.sin(torch.arange(y.numel(), dtype=torch.float64)).reshape(y.shape)
        ga, gb = torch.autograd.grad((y * w).sum(), [a, b])
        tag = "sr_%s_%d" % (red, int(inc))
        arr(tag, y)
        arr(tag + "_ga", ga)
        arr(tag + "_gb", gb)
si_t = torch.tensor([[7, -3, 2], [1, 0, -8]])
si_src = torch.tensor([[2, -3, 5, 3], [-5, 6, 1, 2]])
for red in ["sum", "prod", "mean", "amax", "amin"]:
    for inc in (True, False):
        arr("si_%s_%d" % (red, int(inc)), torch.scatter_reduce(si_t, 1, sr_idx, si_src, red, include_self=inc))
nan_t = torch.tensor([1.0, float("nan"), 3.0])
arr("sr_nan_amax", torch.scatter_reduce(nan_t, 0, torch.tensor([0, 0, 2]), torch.tensor([float("nan"), 2.0, 1.0]), "amax"))
ir_src = torch.tensor([[2.0, 3], [4, 5], [6, 7]], dtype=torch.float64)
for red in ["prod", "mean", "amax", "amin"]:
    for inc in (True, False):
        arr("ir_%s_%d" % (red, int(inc)), torch.index_reduce(torch.ones(3, 2, dtype=torch.float64) * 3, 0, torch.tensor([0, 2, 0]), ir_src, red, include_self=inc))

with open(sys.argv[1] if len(sys.argv) > 1 else "tests/data/index_more_ref.h", "w") as f:
    f.write("/* Generated by scripts/gen_index_more_ref.py from torch %s; do not edit. */\n" % torch.__version__)
    f.write("#include <math.h>\n#include <stdint.h>\n")
    f.write("\n".join(out) + "\n")
