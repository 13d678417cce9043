#!/usr/bin/env python3
"""torch 1.13's answers for tests/test_rnn.c: nn.RNN / LSTM / GRU (torch.rnn_tanh / rnn_relu /
lstm / gru) over layers, directions, batch_first, unbatched input, no bias and LSTM projections,
with the gradients of sum(sin(i) * out) + sum(cos(i) * h_n) (+ sum(sin(i + 1) * c_n)) for the
input, the initial states and every parameter. Writes tests/data/rnn_ref.h.
Run with /usr/bin/python3 (torch 1.13)."""
import math
import sys
import torch

torch.manual_seed(5)
out = []


def arr(name, t):
    t = t.detach()
    body = ", ".join(repr(float(x)) for x in t.reshape(-1).tolist()) or "0"
    out.append(f"static const double {name}[] = {{{body}}};")
    shp = ", ".join(str(s) for s in t.shape) or "0"
    out.append(f"static const int64_t {name}_shape[] = {{{shp}}};")
    out.append(f"enum {{ {name}_nd = {t.dim()} }};")


def weights(y, f):
    n = y.numel()
    return torch.tensor([f(i) for i in range(n)], dtype=torch.float64).reshape(y.shape)


def case(name, cls, in_size, hidden, x_shape, with_h0, lengths=None, **kw):
    m = cls(in_size, hidden, **kw).double()
    params = [p.detach().clone().requires_grad_() for p in m._flat_weights]
    for p in params:  # wider values than the default init, so the gates saturate somewhere
        with torch.no_grad():
            p.mul_(2.5)
    x = torch.randn(*x_shape, dtype=torch.float64, requires_grad=True)
    D = 2 if kw.get("bidirectional") else 1
    L = kw.get("num_layers", 1)
    unb = len(x_shape) == 2
    N = 1 if unb else x_shape[0 if kw.get("batch_first") else 1]
    P = kw.get("proj_size", 0) or hidden
    hs = []
    if with_h0:
        hsh = (L * D, P) if unb else (L * D, N, P)
        h0 = torch.randn(*hsh, dtype=torch.float64, requires_grad=True)
        hs.append(h0)
        if cls is torch.nn.LSTM:
            csh = (L * D, hidden) if unb else (L * D, N, hidden)
            hs.append(torch.randn(*csh, dtype=torch.float64, requires_grad=True))
    with torch.no_grad():
        for mp, p in zip(m._flat_weights, params):
            mp.copy_(p)
    # run the functional form on our leaves (the module's own tensors are not our leaves)
    m._flat_weights = params
    hx = None
    if hs:
        hx = (hs[0], hs[1]) if cls is torch.nn.LSTM else hs[0]
    if lengths is None:
        y, h = m(x, hx)
    else:  # packed sequences: pack, run, pad back to the full length
        bf = kw.get("batch_first", False)
        pk = torch.nn.utils.rnn.pack_padded_sequence(x, torch.tensor(lengths), batch_first=bf,
                                                     enforce_sorted=False)
        yp, h = m(pk, hx)
        y, _ = torch.nn.utils.rnn.pad_packed_sequence(yp, batch_first=bf,
                                                      total_length=x_shape[1 if bf else 0])
        arr(f"{name}_len", torch.tensor(lengths, dtype=torch.float64))
    arr(f"{name}_x", x)
    for i, p in enumerate(params):
        arr(f"{name}_p{i}", p)
    for i, t in enumerate(hs):
        arr(f"{name}_s{i}", t)
    arr(f"{name}_y", y)
    loss = (y * weights(y, math.sin)).sum()
    if cls is torch.nn.LSTM:
        hn, cn = h
        arr(f"{name}_hn", hn), arr(f"{name}_cn", cn)
        loss = loss + (hn * weights(hn, math.cos)).sum() + (cn * weights(cn, lambda i: math.sin(i + 1))).sum()
    else:
        arr(f"{name}_hn", h)
        loss = loss + (h * weights(h, math.cos)).sum()
    leaves = [x] + hs + params
    gs = torch.autograd.grad(loss, leaves)
    arr(f"{name}_gx", gs[0])
    for i in range(len(hs)):
        arr(f"{name}_gs{i}", gs[1 + i])
    for i in range(len(params)):
        arr(f"{name}_gp{i}", gs[1 + len(hs) + i])
    out.append(f"enum {{ {name}_np = {len(params)}, {name}_ns = {len(hs)} }};")
    for kind, n in (("p", len(params)), ("gp", len(params)), ("s", len(hs)), ("gs", len(hs))):
        names = [f"{name}_{kind}{i}" for i in range(n)] or ["NULL"]
        shapes = [f"{v}_shape" if n else "NULL" for v in names]
        nds = [f"{v}_nd" if n else "0" for v in names]
        out.append(f"static const double *const {name}_{kind}[] = {{{', '.join(names)}}};")
        out.append(f"static const int64_t *const {name}_{kind}_sh[] = {{{', '.join(shapes)}}};")
        out.append(f"static const int {name}_{kind}_nd[] = {{{', '.join(nds)}}};")


case("l1", torch.nn.LSTM, 3, 4, (2, 5, 3), True, num_layers=2, bidirectional=True, batch_first=True)
case("l2", torch.nn.LSTM, 3, 4, (6, 2, 3), False, proj_size=2)
case("l3", torch.nn.LSTM, 3, 4, (5, 3), True, num_layers=2, bias=False, proj_size=3, bidirectional=True)
case("g1", torch.nn.GRU, 3, 5, (4, 2, 3), True, num_layers=2, bias=False)
case("g2", torch.nn.GRU, 2, 3, (2, 4, 2), False, bidirectional=True, batch_first=True)
case("r1", torch.nn.RNN, 3, 4, (5, 3), True, nonlinearity="relu", bidirectional=True)
case("r2", torch.nn.RNN, 3, 4, (4, 2, 3), False, num_layers=3)
# packed sequences (ct_rnn_opts.lengths)
case("pl1", torch.nn.LSTM, 3, 4, (5, 3, 3), True, lengths=[5, 2, 3], num_layers=2, bidirectional=True)
case("pl2", torch.nn.LSTM, 2, 4, (3, 4, 2), False, lengths=[1, 4, 2], batch_first=True, proj_size=2)
case("pg1", torch.nn.GRU, 3, 3, (3, 4, 3), True, lengths=[4, 1, 2], bidirectional=True, batch_first=True)
case("pr1", torch.nn.RNN, 2, 3, (6, 2, 2), True, lengths=[3, 6], num_layers=2, nonlinearity="relu")

path = sys.argv[1] if len(sys.argv) > 1 else "tests/data/rnn_ref.h"
with open(path, "w") as f:
    f.write("/* generated by scripts/gen_rnn_ref.py from torch 1.13; do not edit */\n")
    f.write("#include <stddef.h>\n#include <stdint.h>\n")
    f.write("\n".join(out) + "\n")
