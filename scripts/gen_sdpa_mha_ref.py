#!/usr/bin/env python3
"""References for tests/test_sdpa_mha.c, written to tests/data/sdpa_mha_ref.h.
scaled_dot_product_attention: torch 1.13 has no public one, so the reference is PyTorch 2.x's math
backend written out with torch ops in float64 (q and k^T each scaled by sqrt(scale), the mask added,
a softmax whose all -inf rows are zeros, @ v), with the gradients of sum(sin(i) * out).
multi_head_attention_forward: torch 1.13's F.multi_head_attention_forward itself, values, weights
and gradients. Run with /usr/bin/python3 (torch 1.13)."""
import math
import sys
import torch
import torch.nn.functional as F

torch.manual_seed(3)
out = []
D = torch.float64


def arr(name, t):
    t = t.detach()
    if t.dtype == torch.bool:
        t = t.to(D)
    body = ", ".join(repr(float(x)) for x in t.reshape(-1).tolist()) or "0"
    body = body.replace("inf", "INFINITY").replace("nan", "NAN")
    out.append(f"static const double {name}[] = {{{body}}};")
    shp = ", ".join(str(s) for s in t.shape) or "0"
    out.append(f"static const int64_t {name}_shape[] = {{{shp}}};")
    out.append(f"enum {{ {name}_nd = {t.dim()} }};")


def leaf(*shape):
    return torch.randn(*shape, dtype=D).requires_grad_()


def wsum(y):
    w = torch.sin(torch.arange(y.numel(), dtype=D)).reshape(y.shape)
    return (y * w).sum()


def sdpa_ref(q, k, v, mask=None, causal=False, scale=None, gqa=False):
    E = q.shape[-1]
    s = 1 / math.sqrt(E) if scale is None else scale
    sf = math.sqrt(abs(s))
    qq = q * (-sf if s < 0 else sf)
    if gqa:
        r = q.shape[-3] // k.shape[-3]
        k, v = k.repeat_interleave(r, -3), v.repeat_interleave(r, -3)
    attn = qq @ (k.transpose(-2, -1) * sf)
    if causal:
        mask = torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool).tril()
    if mask is not None:
        bias = torch.zeros(mask.shape, dtype=D).masked_fill(~mask, -math.inf) if mask.dtype == torch.bool else mask
        attn = attn + bias
    dead = (attn == -math.inf).all(-1, keepdim=True)
    sm = torch.softmax(attn.masked_fill(dead, 0.0), -1).masked_fill(dead, 0.0)
    return sm @ v


def sdpa_case(name, qs, ks, vs, **kw):
    q, k, v = leaf(*qs), leaf(*ks), leaf(*vs)
    y = sdpa_ref(q, k, v, **kw)
    arr(f"{name}_q", q), arr(f"{name}_k", k), arr(f"{name}_v", v), arr(f"{name}_y", y)
    g = torch.autograd.grad(wsum(y), [q, k, v])
    for i, t in enumerate(g):
        arr(f"{name}_g{i}", t)


sdpa_case("s1", (2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7))
bm = torch.rand(4, 6) > 0.4
bm[2] = False  # a query that sees no key: zeros out, zero gradients
arr("s2_mask", bm)
sdpa_case("s2", (2, 4, 5), (2, 6, 5), (2, 6, 3), mask=bm)
fm = torch.randn(2, 1, 4, 6, dtype=D)
arr("s3_mask", fm)
sdpa_case("s3", (2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 5), mask=fm)
sdpa_case("s4", (3, 4, 5), (3, 6, 5), (3, 6, 2), causal=True)
sdpa_case("s5", (3, 4, 5), (3, 6, 5), (3, 6, 2), scale=0.3)
sdpa_case("s6", (3, 4, 5), (3, 6, 5), (3, 6, 2), scale=-0.5)
sdpa_case("s7", (1, 4, 3, 5), (1, 2, 6, 5), (1, 2, 6, 4), gqa=True)

# multi_head_attention_forward
E, H = 6, 2


def mha_case(name, q, k, v, w_in, b_in, w_out, b_out, leaves, **kw):
    y, w = F.multi_head_attention_forward(q, k, v, E, H, w_in, b_in, kw.pop("bias_k", None),
                                          kw.pop("bias_v", None), kw.pop("add_zero_attn", False),
                                          0.0, w_out, b_out, training=False, **kw)
    arr(f"{name}_y", y)
    arr(f"{name}_w", w)
    g = torch.autograd.grad(wsum(y) + wsum(w), leaves)
    for i, t in enumerate(g):
        arr(f"{name}_g{i}", t)


w_in, b_in, w_out, b_out = leaf(3 * E, E), leaf(3 * E), leaf(E, E), leaf(E)
arr("m_win", w_in), arr("m_bin", b_in), arr("m_wout", w_out), arr("m_bout", b_out)
# 1: self-attention (one tensor for query, key and value), bool masks
x = leaf(4, 2, E)
arr("m1_x", x)
am = torch.rand(4, 4) > 0.7
am[:, 0] = False
kpm = torch.tensor([[False, False, True, False], [False, False, False, False]])
arr("m1_am", am), arr("m1_kpm", kpm)
mha_case("m1", x, x, x, w_in, b_in, w_out, b_out, [x, w_in, b_in, w_out, b_out],
         attn_mask=am, key_padding_mask=kpm)
# 2: cross-attention (key is value), float 3-d mask, bias_k / bias_v, add_zero_attn, per head
q2, kv2 = leaf(3, 2, E), leaf(5, 2, E)
bk, bv = leaf(1, 1, E), leaf(1, 1, E)
fm = torch.randn(2 * H, 3, 5, dtype=D)
arr("m2_q", q2), arr("m2_kv", kv2), arr("m2_bk", bk), arr("m2_bv", bv), arr("m2_am", fm)
mha_case("m2", q2, kv2, kv2, w_in, b_in, w_out, None, [q2, kv2, bk, bv, w_in],
         attn_mask=fm, bias_k=bk, bias_v=bv, add_zero_attn=True, average_attn_weights=False)
# 3: separate projections with kdim 4, vdim 3, unbatched, float key_padding_mask
wq, wk, wv = leaf(E, E), leaf(E, 4), leaf(E, 3)
q3, k3, v3 = leaf(3, E), leaf(5, 4), leaf(5, 3)
kp3 = torch.tensor([0.0, -1.5, 0.0, 2.0, -math.inf], dtype=D)
arr("m3_wq", wq), arr("m3_wk", wk), arr("m3_wv", wv)
arr("m3_q", q3), arr("m3_k", k3), arr("m3_v", v3), arr("m3_kpm", kp3)
mha_case("m3", q3, k3, v3, None, b_in, w_out, b_out, [q3, k3, v3, wq, wk, wv],
         key_padding_mask=kp3, use_separate_proj_weight=True, q_proj_weight=wq, k_proj_weight=wk,
         v_proj_weight=wv)
# 4: three distinct inputs, static k / v
q4, k4, v4 = leaf(3, 2, E), leaf(5, 2, E), leaf(5, 2, E)
sk, sv = leaf(2 * H, 4, E // H), leaf(2 * H, 4, E // H)
arr("m4_q", q4), arr("m4_k", k4), arr("m4_v", v4), arr("m4_sk", sk), arr("m4_sv", sv)
mha_case("m4", q4, k4, v4, w_in, b_in, w_out, b_out, [q4, sk, sv, w_in],
         static_k=sk, static_v=sv)

path = sys.argv[1] if len(sys.argv) > 1 else "tests/data/sdpa_mha_ref.h"
with open(path, "w") as f:
    f.write("/* generated by scripts/gen_attention_ref.py (torch 1.13); do not edit */\n")
    f.write("#include <math.h>\n#include <stdint.h>\n")
    f.write("\n".join(out) + "\n")
