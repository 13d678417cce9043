#!/usr/bin/env python3
"""torch 1.13's answers for tests/test_nn_more.c: conv_transpose1d / 2d, the 1-d pools, adaptive
max pooling (ties, NaN), max_unpool, lp_pool, instance_norm (with running statistics),
local_response_norm, bilinear, channel_shuffle, the RNN cells and the multi_margin /
multilabel_margin losses, with the gradients of sum(sin(i) * y) where the op is differentiable.
Writes tests/data/nn_more_ref.h. Run with /usr/bin/python3 (torch 1.13)."""
import sys
import torch
import torch.nn.functional as F

torch.manual_seed(11)
out = []


def arr(name, t):
    t = t.detach()
    v = t.reshape(-1).tolist()
    body = ", ".join(repr(float(x)) for x in v) or "0"
    body = body.replace("inf", "INFINITY").replace("nan", "NAN")
    out.append(f"static const double {name}[] = {{{body}}};")
    shp = ", ".join(str(s) for s in t.shape) or "0"
    out.append(f"static const int64_t {name}_shape[] = {{{shp}}};")
    out.append(f"enum {{ {name}_nd = {t.dim()} }};")


def leaf(*shape, scale=1.0):
    return (torch.randn(*shape, dtype=torch.float64) * scale).requires_grad_()


def grads(name, y, leaves):
    w = torch.sin(torch.arange(y.numel(), dtype=torch.float64)).reshape(y.shape)
    gs = torch.autograd.grad((y * w).sum(), leaves, allow_unused=True)
    for i, g in enumerate(gs):
        arr(f"{name}_g{i}", g if g is not None else torch.zeros(()))


# conv_transpose2d with groups, stride, padding, output_padding, dilation and bias
x = leaf(2, 4, 3, 3)
w = leaf(4, 3, 3, 2)
b = leaf(6)
arr("ct2_x", x), arr("ct2_w", w), arr("ct2_b", b)
y = F.conv_transpose2d(x, w, b, stride=(2, 1), padding=(1, 0), output_padding=(1, 0), groups=2, dilation=(1, 2))
arr("ct2_y", y)
grads("ct2", y, [x, w, b])
x1 = leaf(2, 4, 5)
w1 = leaf(4, 2, 3)
arr("ct1_x", x1), arr("ct1_w", w1)
y = F.conv_transpose1d(x1, w1, None, stride=2, padding=1, output_padding=1)
arr("ct1_y", y)
grads("ct1", y, [x1, w1])
# 1-d pools
p = leaf(2, 3, 7)
arr("p1_x", p)
v, i = F.max_pool1d(p, 3, 2, 1, 1, ceil_mode=True, return_indices=True)
arr("mp1_y", v), arr("mp1_i", i)
arr("ap1_y", F.avg_pool1d(p, 3, 2, 1, ceil_mode=True, count_include_pad=False))
arr("aap1_y", F.adaptive_avg_pool1d(p, 3))
v, i = F.adaptive_max_pool1d(p, 3, return_indices=True)
arr("amp1_y", v), arr("amp1_i", i)
grads("amp1", v, [p])
# adaptive max 2d with ties and NaN
q = torch.tensor([[1.0, 5.0, 5.0, 2.0, 0.0], [5.0, 3.0, float("nan"), 1.0, 9.0],
                  [2.0, 2.0, 2.0, 2.0, 2.0], [0.0, float("nan"), 4.0, 7.0, 7.0]], dtype=torch.float64).reshape(1, 1, 4, 5)
arr("amp2_x", q)
v, i = F.adaptive_max_pool2d(q, (3, 2), return_indices=True)
arr("amp2_y", v), arr("amp2_i", i)
r = leaf(2, 2, 5, 6)
arr("amp2r_x", r)
v, i = F.adaptive_max_pool2d(r, (3, 4), return_indices=True)
arr("amp2r_y", v), arr("amp2r_i", i)
grads("amp2r", v, [r])
# max_unpool
u = leaf(1, 2, 4, 4)
arr("un_x", u)
v, i = F.max_pool2d(u, 2, return_indices=True)
arr("un_v", v), arr("un_i", i)
arr("un2_y", F.max_unpool2d(v, i, 2))
arr("un2_y5", F.max_unpool2d(v, i, 2, output_size=(5, 5)))
v1, i1 = F.max_pool1d(p, 2, return_indices=True)
arr("un1_v", v1), arr("un1_i", i1)
arr("un1_y", F.max_unpool1d(v1, i1, 2))
# lp_pool
arr("lp2_y", F.lp_pool2d(r, 2.0, (2, 3), stride=(2, 2), ceil_mode=True))
arr("lp1_y", F.lp_pool1d(p.abs(), 3.0, 3))
# instance_norm with running stats
n = leaf(3, 2, 4, 5)
wn, bn = leaf(2), leaf(2)
rm, rv = torch.randn(2, dtype=torch.float64), torch.rand(2, dtype=torch.float64) + 0.5
arr("in_x", n), arr("in_w", wn), arr("in_b", bn), arr("in_rm0", rm), arr("in_rv0", rv)
y = F.instance_norm(n, rm, rv, wn, bn, use_input_stats=True, momentum=0.3, eps=1e-5)
arr("in_y", y), arr("in_rm1", rm), arr("in_rv1", rv)
grads("in", y, [n, wn, bn])
arr("in_eval", F.instance_norm(n, rm, rv, wn, bn, use_input_stats=False, eps=1e-5))
# local_response_norm
arr("lrn4_y", F.local_response_norm(n, 3, 1e-2, 0.75, 2.0))
arr("lrn3_y", F.local_response_norm(p, 2, 1e-1, 0.5, 1.0))
# bilinear
a1, a2, wb, bb = leaf(4, 3), leaf(4, 2), leaf(5, 3, 2), leaf(5)
arr("bl_x1", a1), arr("bl_x2", a2), arr("bl_w", wb), arr("bl_b", bb)
y = F.bilinear(a1, a2, wb, bb)
arr("bl_y", y)
grads("bl", y, [a1, a2, wb, bb])
# channel_shuffle
arr("cs_y", F.channel_shuffle(torch.arange(24, dtype=torch.float64).reshape(1, 6, 2, 2), 3))
# RNN cells
xi, h, c = leaf(3, 4), leaf(3, 5), leaf(3, 5)
wih, whh, bih, bhh = leaf(20, 4, scale=0.5), leaf(20, 5, scale=0.5), leaf(20), leaf(20)
for nm, t in [("rc_x", xi), ("rc_h", h), ("rc_c", c), ("rc_wih", wih), ("rc_whh", whh), ("rc_bih", bih), ("rc_bhh", bhh)]:
    arr(nm, t)
y = torch.rnn_tanh_cell(xi, h, wih[:5], whh[:5], bih[:5], bhh[:5])
arr("rnt_y", y)
grads("rnt", y, [xi, h])
arr("rnr_y", torch.rnn_relu_cell(xi, h, wih[:5], whh[:5], None, None))
hy, cy = torch.lstm_cell(xi, (h, c), wih, whh, bih, bhh)
arr("ls_h", hy), arr("ls_c", cy)
grads("ls", hy + 2 * cy, [xi, h, c, wih])
y = torch.gru_cell(xi, h, wih[:15], whh[:15], bih[:15], bhh[:15])
arr("gr_y", y)
grads("gr", y, [xi, h, wih])
# margin losses
mx = leaf(4, 5)
my = torch.tensor([1, 0, 4, 2])
mw = torch.rand(5, dtype=torch.float64)
arr("mm_x", mx), arr("mm_w", mw)
y = F.multi_margin_loss(mx, my, p=1, margin=0.8, reduction="none")
arr("mm1_y", y)
grads("mm1", y, [mx])
y = F.multi_margin_loss(mx, my, p=2, margin=1.2, weight=mw, reduction="sum")
arr("mm2_y", y)
grads("mm2", y, [mx])
ly = torch.tensor([[3, 0, -1, 1, 1], [1, 2, 3, 4, 0], [-1, 0, 0, 0, 0], [2, 2, -1, 3, 4]])
y = F.multilabel_margin_loss(mx, ly, reduction="none")
arr("ml_y", y)
grads("ml", y, [mx])
arr("ml_mean", F.multilabel_margin_loss(mx, ly))

# affine_grid / grid_sample (2-d)
th = leaf(2, 2, 3, scale=0.6)
arr("ag_theta", th)
for al in (0, 1):
    g = F.affine_grid(th, (2, 3, 4, 5), align_corners=bool(al))
    arr(f"ag_{al}", g)
    grads(f"ag_{al}", g, [th])
gx = leaf(2, 3, 4, 5)
gg = (torch.rand(2, 3, 6, 2, dtype=torch.float64) * 2.8 - 1.4).requires_grad_()
arr("gs_x", gx), arr("gs_grid", gg)
for mode in ("bilinear", "nearest"):
    for pad in ("zeros", "border", "reflection"):
        for al in (0, 1):
            y = F.grid_sample(gx, gg, mode=mode, padding_mode=pad, align_corners=bool(al))
            tag = f"gs_{mode[0]}{pad[0]}{al}"
            arr(tag, y)
            if mode == "bilinear":
                grads(tag, y, [gx, gg])

with open(sys.argv[1] if len(sys.argv) > 1 else "tests/data/nn_more_ref.h", "w") as f:
    f.write("/* Generated by scripts/gen_nn_more_ref.py from torch %s; do not edit. */\n" % torch.__version__)
    f.write("#include <math.h>\n#include <stdint.h>\n")
    f.write("\n".join(out) + "\n")
