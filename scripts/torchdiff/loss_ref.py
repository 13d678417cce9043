#!/usr/bin/python3
"""Reference values of cross_entropy / nll_loss with every option, from torch 1.13 (f64), as a C
header for test_autograd's losses_as_torch: logits / log-probabilities of 1 to 5 dims (empty
batches too), class-id targets with ignored entries (ignore_index -100 and a valid class), class
probabilities, class weights, the three reductions, label smoothing; each case's loss and the
gradient of sum(loss * u), u[i] = 0.5 + (i % 5) / 4, with respect to the input.

Run: /usr/bin/python3 scripts/torchdiff/loss_ref.py > tests/data/loss_torch_ref.h
"""
import itertools

import torch
import torch.nn.functional as F

torch.manual_seed(20261206)
SHAPES = [(5,), (4, 5), (2, 5, 3), (2, 3, 2, 2), (2, 3, 2, 1, 2), (0, 5)]
RED = ['none', 'mean', 'sum']
vals = []  # flat doubles
cases = []


def put(t):
    off = len(vals)
    vals.extend(float(v) for v in t.reshape(-1).tolist())
    return off


for shape, fn, kind, weighted, ign, red, ls in itertools.product(
        SHAPES, ('ce', 'nll'), ('index', 'prob', 'allign'), (0, 1), (-100, 1), RED, (0.0, 0.2)):
    if fn == 'nll' and (kind == 'prob' or ls > 0):
        continue
    if kind == 'prob' and ign != -100:
        continue
    if kind == 'allign' and (ign != -100 or shape[0] == 0):
        continue
    cdim = 0 if len(shape) == 1 else 1
    C = shape[cdim]
    x = torch.randn(shape, dtype=torch.float64) * 2
    if fn == 'nll':
        x = torch.log_softmax(x, cdim)
    x.requires_grad_(True)
    tshape = tuple(s for d, s in enumerate(shape) if d != cdim)
    if kind == 'prob':
        target = torch.softmax(torch.randn(shape, dtype=torch.float64), cdim)
    else:
        target = torch.randint(0, C, tshape)
        if kind == 'allign':
            target.fill_(-100)
        elif target.numel() > 1:
            target.view(-1)[1] = ign  # one ignored entry
            if ign == 1:
                target.view(-1)[-1] = 1
    w = (torch.rand(C, dtype=torch.float64) + 0.5) if weighted else None
    if fn == 'ce':
        out = F.cross_entropy(x, target, weight=w, ignore_index=ign, reduction=red,
                              label_smoothing=ls)
    else:
        out = F.nll_loss(x, target, weight=w, ignore_index=ign, reduction=red)
    u = torch.tensor([0.5 + (i % 5) / 4 for i in range(out.numel())],
                     dtype=torch.float64).reshape(out.shape)
    if x.numel() and out.requires_grad:
        (out * u).sum().backward()
        g = x.grad
    else:
        g = torch.zeros_like(x)
    cases.append(dict(
        fn=fn, nd=len(shape), shape=shape, x=put(x.detach()), kind=kind,
        t=put(target.double()), tnd=target.dim(), tshape=tuple(target.shape),
        w=put(w) if weighted else -1, ign=ign, red=RED.index(red), ls=ls,
        out=put(out.detach()), ond=out.dim(), oshape=tuple(out.shape), g=put(g),
        name=out.grad_fn.name() if out.grad_fn is not None else ''))


# Elementwise losses: l1, smooth_l1 (beta), huber (delta), mse, binary_cross_entropy (input in
# (0, 1) plus exact 0 and 1), binary_cross_entropy_with_logits (logits up to +-40 and 0; weight,
# pos_weight); a target broadcast to the input for the first four; gradients of both the input
# and the target.
EW = []
for fn, p, shape, tshape, weighted, posw, red in itertools.product(
        ('l1', 'smooth_l1', 'huber', 'mse', 'bce', 'bcel'), (0.0, 0.5, 1.0),
        ((5,), (2, 3), (2, 3, 4)), ('same', 'bcast'), (0, 1), (0, 1), RED):
    if (fn == 'huber' and p == 0) or (fn not in ('smooth_l1', 'huber') and p != 1.0):
        continue
    if (fn in ('bce', 'bcel')) == (tshape == 'bcast') and tshape == 'bcast':
        continue
    if tshape == 'bcast' and len(shape) < 2:
        continue
    if (weighted or posw) and fn not in ('bce', 'bcel'):
        continue
    if posw and fn != 'bcel':
        continue
    ts = shape if tshape == 'same' else shape[1:]
    if fn == 'bce':
        x = torch.rand(shape, dtype=torch.float64) * 0.96 + 0.02
        x.view(-1)[0] = 0.0
        x.view(-1)[-1] = 1.0
        t = torch.rand(ts, dtype=torch.float64)
        t.view(-1)[0] = 0.0
        t.view(-1)[-1] = 1.0
    elif fn == 'bcel':
        x = torch.randn(shape, dtype=torch.float64) * 3
        x.view(-1)[0] = 40.0
        x.view(-1)[1] = -40.0
        x.view(-1)[2] = 0.0
        t = torch.rand(ts, dtype=torch.float64)
    else:
        x = torch.randn(shape, dtype=torch.float64)
        t = torch.randn(ts, dtype=torch.float64)
    x.requires_grad_(True)
    t.requires_grad_(True)
    w = (torch.rand(shape[-1:], dtype=torch.float64) + 0.5) if weighted else None
    pw = (torch.rand(shape[-1:], dtype=torch.float64) * 3) if posw else None
    if fn == 'l1':
        out = F.l1_loss(x, t, reduction=red)
    elif fn == 'smooth_l1':
        out = F.smooth_l1_loss(x, t, reduction=red, beta=p)
    elif fn == 'huber':
        out = F.huber_loss(x, t, reduction=red, delta=p)
    elif fn == 'mse':
        out = F.mse_loss(x, t, reduction=red)
    elif fn == 'bce':
        out = F.binary_cross_entropy(x, t, weight=w, reduction=red)
    else:
        out = F.binary_cross_entropy_with_logits(x, t, weight=w, pos_weight=pw, reduction=red)
    u = torch.tensor([0.5 + (i % 5) / 4 for i in range(out.numel())],
                     dtype=torch.float64).reshape(out.shape)
    (out * u).sum().backward()
    EW.append(dict(fn=fn, p=p, nd=len(shape), shape=shape, x=put(x.detach()), tnd=len(ts),
                   tshape=ts, t=put(t.detach()), w=put(w) if weighted else -1,
                   pw=put(pw) if posw else -1, red=RED.index(red), out=put(out.detach()),
                   ond=out.dim(), oshape=tuple(out.shape), gx=put(x.grad), gt=put(t.grad),
                   name=out.grad_fn.name()))


# kl_div (reductions with batchmean; log_target; a zero target), normalize (p 1, 2, 3, inf; a dim;
# a zero row), cosine_similarity (a dim; broadcast operands; a zero row). The table's p holds
# log_target / the norm's p / eps, red the reduction / the dim.
for fn, shape, a, b in itertools.chain(
        ((('kl', sh, lt, r) for sh in ((5,), (2, 3), (2, 3, 4)) for lt in (0, 1) for r in range(4))),
        ((('normalize', sh, pp, d) for sh in ((5,), (2, 3), (2, 3, 4)) for pp in (1.0, 2.0, 3.0, float('inf'))
          for d in range(-1, len(sh)) if d < len(sh))),
        ((('cosine', sh, e, d) for sh in ((5,), (2, 3), (2, 3, 4), (3, 1, 4)) for e in (1e-8, 0.5)
          for d in range(len(sh))))):
    x = torch.randn(shape, dtype=torch.float64)
    if fn == 'kl':
        x = torch.log_softmax(x, -1)
        t = torch.softmax(torch.randn(shape, dtype=torch.float64), -1)
        t.view(-1)[0] = 0.0
        if a:
            t = torch.randn(shape, dtype=torch.float64) - 1
        x.requires_grad_(True)
        t.requires_grad_(True)
        out = F.kl_div(x, t, reduction=['none', 'mean', 'sum', 'batchmean'][b], log_target=bool(a))
        tnd, ts = t.dim(), tuple(t.shape)
    elif fn == 'normalize':
        if x.dim() > 1:
            x[0] = 0.0  # a zero slice: eps
        x.requires_grad_(True)
        t = None
        out = F.normalize(x, p=a, dim=b)
        tnd, ts = 0, ()
    else:
        t = torch.randn(shape[1:] if len(shape) == 3 and shape[1] == 1 else shape,
                        dtype=torch.float64)
        if shape == (3, 1, 4):
            t = torch.randn((2, 4), dtype=torch.float64)  # broadcasts to (3, 2, 4)
        x.requires_grad_(True)
        t.requires_grad_(True)
        out = F.cosine_similarity(x, t, dim=b, eps=a)
        tnd, ts = t.dim(), tuple(t.shape)
    u = torch.tensor([0.5 + (i % 5) / 4 for i in range(out.numel())],
                     dtype=torch.float64).reshape(out.shape)
    (out * u).sum().backward()
    EW.append(dict(fn=fn, p=float(a), nd=len(shape), shape=shape, x=put(x.detach()), tnd=tnd,
                   tshape=ts, t=put(t.detach()) if t is not None else -1, w=-1, pw=-1, red=b,
                   out=put(out.detach()), ond=out.dim(), oshape=tuple(out.shape), gx=put(x.grad),
                   gt=put(t.grad) if t is not None else -1, name=out.grad_fn.name()))


# Activations: random inputs plus the kinks (+-3, 0, +-lambda, the threshold) so the gradients
# there are checked too; p holds alpha / lambda / the threshold, red the dim of glu and softmin;
# prelu's weight is w (1 element or one per channel).
KINKS = [-3.0, 3.0, 0.0, 0.5, -0.5, 0.25]
for fn, shape, p_ in itertools.chain(
        ((f, sh, 0.0) for f in ('hardsigmoid', 'hardswish', 'logsigmoid', 'softsign', 'selu',
                                 'relu6', 'tanhshrink') for sh in ((8,), (2, 4))),
        ((('celu', sh, a) for sh in ((8,), (2, 4)) for a in (1.0, 0.7))),
        ((('softshrink', sh, l) for sh in ((8,), (2, 4)) for l in (0.5, 0.0))),
        ((('hardshrink', sh, l) for sh in ((8,), (2, 4)) for l in (0.5, 0.0))),
        ((('threshold', sh, th) for sh in ((8,), (2, 4)) for th in (0.25, -1.0))),
        ((('glu', sh, float(d)) for sh in ((8,), (2, 4), (2, 6, 2)) for d in range(len(sh))
          if sh[d] % 2 == 0)),
        ((('softmin', sh, float(d)) for sh in ((8,), (2, 4)) for d in range(len(sh)))),
        ((('prelu', sh, float(nw)) for sh in ((8,), (2, 4), (2, 3, 2)) for nw in (1, 0)
          if len(sh) >= 2 or nw == 1))):
    x = torch.randn(shape, dtype=torch.float64) * 2
    flat = x.view(-1)
    for i, k in enumerate(KINKS[:flat.numel()]):
        # hardswish at exactly 3: torch 1.13's vectorized f64 kernel gives gradient 1, its scalar
        # one (and its formula, x <= 3) 1.5; ctorch gives 1.5, so that point is left out
        flat[i] = 2.9 if (fn == 'hardswish' and k == 3.0) else k
    x.requires_grad_(True)
    w = None
    red = 0
    if fn == 'hardsigmoid': out = F.hardsigmoid(x)
    elif fn == 'hardswish': out = F.hardswish(x)
    elif fn == 'logsigmoid': out = F.logsigmoid(x)
    elif fn == 'softsign': out = F.softsign(x)
    elif fn == 'selu': out = F.selu(x)
    elif fn == 'relu6': out = F.relu6(x)
    elif fn == 'tanhshrink': out = F.tanhshrink(x)
    elif fn == 'celu': out = F.celu(x, p_)
    elif fn == 'softshrink': out = F.softshrink(x, p_)
    elif fn == 'hardshrink': out = F.hardshrink(x, p_)
    elif fn == 'threshold': out = F.threshold(x, p_, 20.0)
    elif fn == 'glu':
        red = int(p_)
        out = F.glu(x, red)
    elif fn == 'softmin':
        red = int(p_)
        out = F.softmin(x, red)
    else:
        C = shape[1] if len(shape) >= 2 else 1
        w = torch.rand(1 if p_ == 1.0 else C, dtype=torch.float64)
        out = F.prelu(x, w)
    u = torch.tensor([0.5 + (i % 5) / 4 for i in range(out.numel())],
                     dtype=torch.float64).reshape(out.shape)
    (out * u).sum().backward()
    EW.append(dict(fn=fn, p=p_, nd=len(shape), shape=shape, x=put(x.detach()), tnd=0, tshape=(),
                   t=-1, w=put(w) if w is not None else -1, pw=-1, red=red,
                   out=put(out.detach()), ond=out.dim(), oshape=tuple(out.shape), gx=put(x.grad),
                   gt=-1, name=out.grad_fn.name(), wn=w.numel() if w is not None else 0))


def dims(s):
    s = list(s) + [0] * (5 - len(s))
    return '{' + ', '.join(str(v) for v in s) + '}'


print('/* GENERATED by scripts/torchdiff/loss_ref.py from torch %s; do not edit. */' %
      torch.__version__)
print('typedef struct {')
print('    const char *fn; /* "ce" (cross_entropy) or "nll" (nll_loss) */')
print('    int nd;')
print('    int64_t shape[5];')
print('    int x;         /* offset of the input in loss_ref_vals */')
print('    int prob;      /* target: class probabilities (else int64 class ids) */')
print('    int t, tnd;    /* target offset and dims */')
print('    int64_t tshape[5];')
print('    int w;         /* weight offset, -1: none */')
print('    int64_t ign;')
print('    int red;       /* 0 none, 1 mean, 2 sum */')
print('    double ls;')
print('    int out, ond;')
print('    int64_t oshape[5];')
print('    int g;         /* gradient of sum(out * u) with respect to the input */')
print('    const char *name; /* torch\'s grad_fn */')
print('} loss_ref_case;')
print('static const double loss_ref_vals[] = {')
for i in range(0, len(vals), 4):
    print('    ' + ', '.join(repr(v) if v == v and abs(v) != float('inf') else
                             ('NAN' if v != v else ('INFINITY' if v > 0 else '-INFINITY'))
                             for v in vals[i:i + 4]) + ',')
print('};')
print('typedef struct {')
print('    const char *fn; /* l1, smooth_l1, huber, mse, bce, bcel, kl, normalize, cosine */')
print('    double p;      /* beta / delta; kl: log_target; normalize: p; cosine: eps */')
print('    int nd;')
print('    int64_t shape[5];')
print('    int x, tnd;')
print('    int64_t tshape[5];')
print('    int t, w, pw;  /* offsets; -1: none */')
print('    int red, out, ond; /* red: the reduction; normalize, cosine: the dim */')
print('    int64_t oshape[5];')
print('    int gx, gt;    /* gradients of sum(out * u) with respect to input and target */')
print('    const char *name;')
print('} loss_ew_case;')
print('static const loss_ref_case loss_ref_cases[] = {')
for c in cases:
    print('    {"%s", %d, %s, %d, %d, %d, %d, %s, %d, %d, %d, %r, %d, %d, %s, %d, "%s"},' % (
        c['fn'], c['nd'], dims(c['shape']), c['x'], int(c['kind'] == 'prob'), c['t'], c['tnd'],
        dims(c['tshape']), c['w'], c['ign'], c['red'], c['ls'], c['out'], c['ond'],
        dims(c['oshape']), c['g'], c['name']))
print('};')
print('static const loss_ew_case loss_ew_cases[] = {')
for c in EW:
    print('    {"%s", %s, %d, %s, %d, %d, %s, %d, %d, %d, %d, %d, %d, %s, %d, %d, "%s"},' % (
        c['fn'], 'INFINITY' if c['p'] == float('inf') else repr(c['p']), c['nd'], dims(c['shape']), c['x'], c['tnd'], dims(c['tshape']), c['t'],
        c['w'], c['pw'], c['red'], c['out'], c['ond'], dims(c['oshape']), c['gx'], c['gt'],
        c['name']))
print('};')
