#!/usr/bin/python3
"""Differential harness: random op cases through ctorch (driver.c) and torch 1.13; classifies the
mismatches. Run: /usr/bin/python3 scripts/torchdiff/torchdiff.py --lib build/libctorch.a [-n N]
(needs torch; never run by the tests)."""
import argparse, collections, math, os, random, struct, subprocess, sys
import numpy as np
import torch
import torch.nn.functional as F

DT = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
      torch.float16, torch.bfloat16, torch.float32, torch.float64]
NAME = ['bool', 'u8', 'i8', 'i16', 'i32', 'i64', 'f16', 'bf16', 'f32', 'f64']
BITS = {0: (torch.uint8, 8), 1: (torch.uint8, 8), 2: (torch.int8, 8), 3: (torch.int16, 16),
        4: (torch.int32, 32), 5: (torch.int64, 64), 6: (torch.int16, 16), 7: (torch.int16, 16),
        8: (torch.int32, 32), 9: (torch.int64, 64)}
FLOATS = [6, 7, 8, 9]

def bits(t):
    d = DT.index(t.dtype)
    if d == 0:
        t = t.to(torch.uint8)
    vt, nb = BITS[d]
    v = t.contiguous().view(vt).reshape(-1).tolist() if d else t.reshape(-1).tolist()
    return ['%x' % (x & ((1 << nb) - 1)) for x in v]

SPECIAL = [0.0, -0.0, float('inf'), float('-inf'), float('nan'), 1e-40, -1e-40, 5e-324, 1e30, -1e30,
           65504.0, 70000.0, 3.4e38, 1e-8, 0.5, -0.5, 1.0, -1.0, 2.0]

def rvals(rng, d, n, special):
    if d == 0:
        return [rng.random() < 0.5 for _ in range(n)]
    if d < 6:
        info = torch.iinfo(DT[d])
        out = []
        for _ in range(n):
            r = rng.random()
            if r < 0.6: out.append(rng.randint(-5, 5) if d != 1 else rng.randint(0, 9))
            elif r < 0.8: out.append(rng.randint(info.min, info.max))
            else: out.append(rng.choice([info.min, info.max, 0, 1, -1 if d != 1 else 255]))
        return out
    out = []
    for _ in range(n):
        r = rng.random()
        if special and r < 0.25: out.append(rng.choice(SPECIAL))
        elif r < 0.6: out.append(rng.uniform(-3, 3))
        else: out.append(rng.choice([-1, 1]) * math.exp(rng.uniform(-20, 20)))
    return out

def rtensor(rng, d, shape, special=True, vals=None):
    n = int(np.prod(shape)) if shape else 1
    v = vals if vals is not None else rvals(rng, d, n, special)
    if d == 0:
        t = torch.tensor(v, dtype=torch.bool)
    elif d < 6:
        t = torch.tensor(v, dtype=torch.int64).to(DT[d]) if d != 1 else torch.tensor(v, dtype=torch.int64).to(torch.uint8)
    else:
        t = torch.tensor(v, dtype=torch.float64).to(DT[d])
    t = t.reshape(shape)
    # the same memory layout the driver builds (view/reshape semantics depend on it)
    lay = rng.choice([0, 0, 0, 1, 2])
    if lay == 1 and t.dim() >= 2:
        t = t.transpose(-1, -2).contiguous().transpose(-1, -2)
    elif lay == 2 and t.dim() >= 1:
        z = torch.zeros(list(shape[:-1]) + [shape[-1] * 2], dtype=t.dtype)
        z[..., ::2] = t
        t = z[..., ::2]
    else:
        lay = 0
    t.lay = lay
    return t

def tspec(t, layout):
    d = DT.index(t.dtype)
    if layout == 1 and t.dim() < 2: layout = 0
    if layout == 2 and t.dim() < 1: layout = 0
    return ' '.join([str(d), str(t.dim())] + [str(s) for s in t.shape] + [str(layout)] + bits(t))

def rshape(rng, nd=None, allow_zero=True):
    if nd is None: nd = rng.choice([0, 1, 1, 2, 2, 3, 4])
    s = []
    for _ in range(nd):
        r = rng.random()
        s.append(0 if (allow_zero and r < 0.05) else (1 if r < 0.3 else rng.randint(2, 5)))
    return s

def bshape(rng, s):
    """a shape broadcastable with s"""
    out = list(s)
    r = rng.random()
    if r < 0.5: return out
    out = [1 if rng.random() < 0.4 else x for x in out]
    if rng.random() < 0.3: out = out[rng.randint(0, len(out)):] if out else out
    return out

def pyscalar(v):
    if math.isfinite(v) and v == int(v) and abs(v) < 2**63: return int(v)
    return v

def fmt(x): return float(x).hex() if math.isfinite(x) else repr(float(x))

def ref_line(res):
    if isinstance(res, Exception): return 'ERR'
    t = res
    return ' '.join(['OK', str(DT.index(t.dtype)), str(t.dim())] + [str(s) for s in t.shape] + bits(t))

BIN = {'add': torch.add, 'sub': torch.sub, 'mul': torch.mul, 'div': torch.div, 'eq': torch.eq,
       'ne': torch.ne, 'lt': torch.lt, 'le': torch.le, 'gt': torch.gt, 'ge': torch.ge}
UN = {'neg': torch.neg, 'abs': torch.abs, 'exp': torch.exp, 'log': torch.log, 'sqrt': torch.sqrt,
      'rsqrt': torch.rsqrt, 'tanh': torch.tanh, 'sigmoid': torch.sigmoid, 'relu': torch.relu}
# the everyday elementwise ops (issue 13)
UN2 = {'erf': torch.erf, 'erfc': torch.erfc, 'sin': torch.sin, 'cos': torch.cos, 'exp2': torch.exp2,
       'log2': torch.log2, 'log1p': torch.log1p, 'expm1': torch.expm1, 'floor': torch.floor,
       'ceil': torch.ceil, 'round': torch.round, 'trunc': torch.trunc, 'sign': torch.sign,
       'silu': F.silu, 'mish': F.mish, 'isnan': torch.isnan, 'isinf': torch.isinf,
       'isfinite': torch.isfinite, 'logical_not': torch.logical_not, 'bitwise_not': torch.bitwise_not,
       'tan': torch.tan, 'atan': torch.atan, 'asin': torch.asin, 'acos': torch.acos,
       'sinh': torch.sinh, 'cosh': torch.cosh, 'asinh': torch.asinh, 'acosh': torch.acosh,
       'atanh': torch.atanh, 'log10': torch.log10, 'reciprocal': torch.reciprocal,
       'frac': torch.frac, 'sinc': torch.sinc, 'signbit': torch.signbit, 'square': torch.square,
       'deg2rad': torch.deg2rad, 'rad2deg': torch.rad2deg,
       # special functions
       'lgamma': torch.lgamma, 'digamma': torch.digamma, 'erfinv': torch.erfinv, 'i0': torch.i0,
       'special_i0e': torch.special.i0e, 'special_i1': torch.special.i1,
       'special_i1e': torch.special.i1e, 'special_ndtr': torch.special.ndtr,
       'special_ndtri': torch.special.ndtri, 'special_log_ndtr': torch.special.log_ndtr,
       'special_erfcx': torch.special.erfcx, 'special_entr': torch.special.entr}
BIN2 = {'atan2': torch.atan2, 'maximum': torch.maximum, 'minimum': torch.minimum, 'remainder': torch.remainder,
        'fmod': torch.fmod, 'logical_and': torch.logical_and, 'logical_or': torch.logical_or,
        'logical_xor': torch.logical_xor, 'bitwise_and': torch.bitwise_and,
        'bitwise_or': torch.bitwise_or, 'bitwise_xor': torch.bitwise_xor,
        'hypot': torch.hypot, 'logaddexp': torch.logaddexp, 'logaddexp2': torch.logaddexp2,
        'xlogy': torch.xlogy, 'copysign': torch.copysign, 'fmax': torch.fmax, 'fmin': torch.fmin,
        'heaviside': torch.heaviside, 'pow_tensor': torch.pow,
        'special_xlog1py': torch.special.xlog1py, 'nextafter': torch.nextafter}
# gcd / lcm are not generated: torch 1.13's lcm divides INT_MIN by -1 for some int32 / int64
# pairs (lcm(INT_MIN, INT_MIN + 1)) and the process dies of SIGFPE; test_special checks them
UN.update(UN2)

def gen(rng):
    """returns (line, torch thunk, op key)"""
    op = rng.choice(list(BIN) * 2 + list(BIN2) * 2 + ['prod', 'cumsum', 'cumprod', 'max_dim', 'min_dim', 'max_dim_idx',
        'min_dim_idx', 'logsumexp', 'all', 'any', 'count_nonzero', 'var', 'std'] * 2 + [k + '_scalar' for k in BIN] + list(UN) * 2 + ['add_scaled', 'sub_scaled',
        'add_', 'sub_', 'mul_', 'div_', 'add_scalar_', 'sub_scalar_', 'mul_scalar_', 'div_scalar_', 'gelu', 'pow', 'pow',
        'clamp', 'clamp', 'where', 'addcmul', 'addcdiv', 'cast', 'cast', 'sum', 'mean', 'amax', 'amin', 'argmax',
        'sum', 'amax', 'argmax', 'softmax', 'log_softmax', 'layer_norm', 'matmul', 'matmul', 'bmm', 'embedding', 'arange', 'full',
        'zeros', 'reshape', 'view', 'permute', 'transpose', 'narrow', 'slice', 'expand', 'squeeze', 'unsqueeze',
        'logit', 'isclose', 'isclose', 'nan_to_num'])
    d = rng.randrange(10)
    d2 = rng.randrange(10) if rng.random() < 0.4 else d
    lay = lambda: rng.choice([0, 0, 0, 1, 2])
    D, I, T = [], [], []
    if op in BIN or op in BIN2 or op in ('add_scaled', 'sub_scaled', 'add_', 'sub_', 'mul_', 'div_'):
        s = rshape(rng); s2 = bshape(rng, s)
        if rng.random() < 0.5: s, s2 = s2, s
        if op.endswith('_'): s2 = bshape(rng, s) if rng.random() < 0.9 else rshape(rng)
        a, b = rtensor(rng, d, s), rtensor(rng, d2, s2)
        if op in ('remainder', 'fmod') and not b.dtype.is_floating_point and b.dtype != torch.bool:
            b = torch.where((b == 0) | (b == -1), torch.full_like(b, 2), b)  # torch traps on 0 and MIN % -1
        T = [a, b]
        if op.endswith('scaled'):
            al = rng.choice([1.0, 2.0, -1.0, 0.5, 3.0, -2.5, 0.1, 0.0])
            D = [al]
            f = BIN[op[:3]]
            thunk = lambda: f(a, b, alpha=pyscalar(al))
        elif op.endswith('_'):
            f = getattr(torch.Tensor, op)
            thunk = lambda: f(a.clone(), b)
        else:
            thunk = lambda: (BIN.get(op) or BIN2[op])(a, b)
    elif op.endswith('_scalar') or op.endswith('_scalar_') or op == 'pow':
        a = rtensor(rng, d, rshape(rng))
        v = rng.choice([0.0, 1.0, 2.0, -1.0, 3.0, -2.0, 0.5, -0.5, 2.5, 1000.0, 1e10, float('inf'), float('nan'), -3.0, 300.0, 0.1])
        D = [v]; T = [a]
        if op == 'pow':
            thunk = lambda: torch.pow(a, pyscalar(v))
        elif op.endswith('_'):
            f = getattr(torch.Tensor, op[:3] + '_')
            thunk = lambda: f(a.clone(), pyscalar(v))
        else:
            f = BIN[op[:2]] if op[:2] in BIN else BIN[op[:3]]
            thunk = lambda: f(a, pyscalar(v))
    elif op in UN:
        a = rtensor(rng, d, rshape(rng)); T = [a]
        thunk = lambda: UN[op](a)
    elif op == 'logit':
        a = rtensor(rng, d, rshape(rng)); T = [a]
        if rng.random() < 0.5: a = rtensor(rng, d, rshape(rng), vals=None, special=True); T = [a]
        eps = rng.choice([-1.0, 0.0, 1e-6, 0.1, 0.25, 0.5, 0.6, float('nan')])
        D = [eps]
        thunk = lambda: torch.logit(a, None if (eps != eps or eps < 0) else eps)
    elif op == 'isclose':
        s = rshape(rng); s2 = bshape(rng, s)
        a = rtensor(rng, d, s); b = rtensor(rng, d2 if rng.random() < 0.1 else d, s2)
        if rng.random() < 0.5 and a.numel() and d:  # near values
            b = (a.to(torch.float64) * (1 + rng.choice([1e-9, 1e-6, 1e-4, 1e-2])) + rng.choice([0, 1e-9, 1e-7, 1])).to(a.dtype)
            b.lay = 0
        rt = rng.choice([1e-5, 0.0, 1e-3, 0.1, 1.0, -1.0])
        at = rng.choice([1e-8, 0.0, 1e-3, 0.5, 2.0])
        en = rng.randrange(2)
        T = [a, b]; D = [rt, at]; I = [en]
        thunk = lambda: torch.isclose(a, b, rtol=rt, atol=at, equal_nan=bool(en))
    elif op == 'nan_to_num':
        a = rtensor(rng, d, rshape(rng)); T = [a]
        vals = [rng.choice([0.0, 1.5, -7.0, 1e300, 70000.0]) for _ in range(3)]
        given = [rng.randrange(2) for _ in range(3)]
        D = vals; I = given
        thunk = lambda: torch.nan_to_num(a, *[v if g else None for v, g in zip(vals, given)])
    elif op == 'gelu':
        a = rtensor(rng, d, rshape(rng)); T = [a]; ap = rng.randrange(2); I = [ap]
        thunk = lambda: F.gelu(a, approximate=['none', 'tanh'][ap])
    elif op == 'clamp':
        a = rtensor(rng, d, rshape(rng)); T = [a]
        lo = rng.choice([-1.0, 0.0, 0.5, -2.5, 2.0, -1000.0, 1000.0, float('inf'), float('nan'), -300.0])
        hi = rng.choice([1.0, 0.0, 2.5, 3.0, 100.0, 1000.0, float('-inf'), float('nan'), 300.0])
        hl, hh = rng.choice([(1, 1), (1, 0), (0, 1), (1, 1)])
        D = [lo, hi]; I = [hl, hh]
        thunk = lambda: torch.clamp(a, pyscalar(lo) if hl else None, pyscalar(hi) if hh else None)
    elif op == 'where':
        s = rshape(rng)
        c = rtensor(rng, 0, bshape(rng, s)); a = rtensor(rng, d, s); b = rtensor(rng, d2, bshape(rng, s))
        T = [c, a, b]
        thunk = lambda: torch.where(c, a, b)
    elif op in ('addcmul', 'addcdiv'):
        s = rshape(rng)
        d3 = rng.randrange(10) if rng.random() < 0.3 else d
        x, y, z = rtensor(rng, d, bshape(rng, s)), rtensor(rng, d2, s), rtensor(rng, d3, bshape(rng, s))
        v = rng.choice([1.0, 0.5, -2.0, 2.5, 0.1, 3.0])
        T = [x, y, z]; D = [v]
        f = getattr(torch, op)
        thunk = lambda: f(x, y, z, value=pyscalar(v))
    elif op == 'cast':
        a = rtensor(rng, d, rshape(rng)); T = [a]; I = [d2 if d2 != d else rng.randrange(10)]
        thunk = lambda: a.to(DT[I[0]])
    elif op in ('sum', 'mean', 'amax', 'amin'):
        s = rshape(rng); a = rtensor(rng, d, s, special=rng.random() < 0.3); T = [a]
        kd = rng.randrange(2); nd = len(s)
        dims = [] if (nd == 0 or rng.random() < 0.25) else rng.sample(range(-nd, nd), rng.randint(1, nd))
        if rng.random() < 0.05: dims = dims + [nd + 1]
        I = [kd] + dims
        f = getattr(torch, op)
        thunk = (lambda: f(a, dim=dims, keepdim=bool(kd))) if dims or op in ('amax', 'amin') else (lambda: f(a, dim=[], keepdim=bool(kd)))
    elif op == 'argmax':
        s = rshape(rng); nd = len(s)
        vals = None
        if rng.random() < 0.5 and d:
            vals = [rng.choice([0, 1, 2, 2]) for _ in range(int(np.prod(s)) if s else 1)]
            if d in FLOATS and rng.random() < 0.3: vals = [rng.choice([0.0, float('nan'), 1.0, -0.0]) for _ in vals]
        a = rtensor(rng, d, s, vals=vals); T = [a]
        kd = rng.randrange(2)
        dim = -1000 if (rng.random() < 0.3) else rng.randint(-max(nd, 1), max(nd, 1) - 1)
        I = [kd, dim]
        thunk = (lambda: torch.argmax(a, keepdim=bool(kd))) if dim == -1000 else (lambda: torch.argmax(a, dim=dim, keepdim=bool(kd)))
    elif op in ('prod', 'cumsum', 'cumprod', 'max_dim', 'min_dim', 'max_dim_idx', 'min_dim_idx'):
        s = rshape(rng); nd = len(s)
        vals = None
        if rng.random() < 0.4:
            vals = [rng.choice([0, 1, 2, 2, -1]) if d != 0 else rng.choice([0, 1]) for _ in range(int(np.prod(s)) if s else 1)]
            if d == 1: vals = [abs(v) for v in vals]
        a = rtensor(rng, d, s, vals=vals, special=rng.random() < 0.3); T = [a]
        kd = rng.randrange(2)
        dim = rng.randint(-max(nd, 1), max(nd, 1) - 1)
        I = [kd, dim]
        if op == 'prod': thunk = lambda: torch.prod(a, dim, keepdim=bool(kd))
        elif op in ('cumsum', 'cumprod'): thunk = lambda: getattr(torch, op)(a, dim)
        else:
            f = torch.max if op.startswith('max') else torch.min
            k = 1 if op.endswith('idx') else 0
            thunk = lambda: f(a, dim, keepdim=bool(kd))[k]
    elif op in ('logsumexp', 'all', 'any', 'count_nonzero', 'var', 'std'):
        s = rshape(rng); a = rtensor(rng, d, s, special=rng.random() < 0.3); T = [a]
        kd = rng.randrange(2); nd = len(s)
        dims = [] if (nd == 0 or rng.random() < 0.25) else [x - nd if rng.random() < 0.5 else x for x in rng.sample(range(nd), rng.randint(1, nd))]
        corr = rng.choice([0.0, 1.0, 2.0])
        I = [kd] + dims; D = [corr]
        if op == 'count_nonzero': thunk = lambda: torch.count_nonzero(a, dim=dims if dims else None)
        elif op in ('all', 'any'):
            f = getattr(torch, op)
            def thunk(f=f, dims=dims, kd=kd):
                r = a
                if not dims: return f(a) if not kd else f(a.reshape([1] * a.dim()) if a.numel() == 1 else a, ) if False else (f(a).reshape([1] * a.dim()) if kd else f(a))
                for dd in sorted([x % max(nd, 1) for x in dims], reverse=True): r = f(r, dim=dd, keepdim=bool(kd))
                return r
        elif op == 'logsumexp': thunk = lambda: torch.logsumexp(a, dim=dims if dims else list(range(nd)), keepdim=bool(kd))
        else: thunk = lambda: getattr(torch, op)(a, dim=dims if dims else None, correction=int(corr), keepdim=bool(kd))
    elif op in ('softmax', 'log_softmax'):
        s = rshape(rng); nd = len(s); a = rtensor(rng, d, s, special=rng.random() < 0.3); T = [a]
        dim = rng.randint(-max(nd, 1), max(nd, 1) - 1); I = [dim]
        f = getattr(torch, op)
        thunk = lambda: f(a, dim)
    elif op == 'layer_norm':
        s = rshape(rng, rng.randint(1, 3)); nn_ = rng.randint(1, len(s))
        a = rtensor(rng, d, s, special=rng.random() < 0.2)
        ns = s[len(s) - nn_:]
        w = rtensor(rng, d2, ns) if rng.random() < 0.6 else None
        b = rtensor(rng, d2, ns) if rng.random() < 0.6 else None
        eps = rng.choice([1e-5, 0.0, 1e-12, 0.1])
        T = [a, w, b]; D = [eps]; I = [nn_]
        thunk = lambda: F.layer_norm(a, ns, w, b, eps)
    elif op in ('matmul', 'bmm'):
        m, k, n = rng.randint(0, 4), rng.randint(0, 5), rng.randint(0, 4)
        if op == 'bmm':
            B = rng.randint(0, 3); sa, sb = [B, m, k], [B if rng.random() < 0.9 else B + 1, k, n]
        else:
            kind = rng.randrange(5)
            if kind == 0: sa, sb = [k], [k]
            elif kind == 1: sa, sb = [k], [k, n]
            elif kind == 2: sa, sb = [m, k], [k]
            elif kind == 3: sa, sb = [m, k], [k, n]
            else:
                ba = rshape(rng, rng.randint(0, 2), False); sa, sb = ba + [m, k], bshape(rng, ba) + [k, n]
            if rng.random() < 0.05: sb = sb[:-2] + [k + 1] + sb[-1:] if len(sb) >= 2 else [k + 1]
        a, b = rtensor(rng, d, sa, special=False), rtensor(rng, d2, sb, special=False)
        T = [a, b]
        f = getattr(torch, op)
        thunk = lambda: f(a, b)
    elif op == 'embedding':
        V, E = rng.randint(1, 5), rng.randint(0, 3)
        w = rtensor(rng, d, [V, E]); di = rng.choice([4, 5, 5, d2])
        idx = rtensor(rng, di, rshape(rng), vals=None) if di not in (4, 5) else None
        if idx is None:
            s = rshape(rng); n = int(np.prod(s)) if s else 1
            idx = torch.tensor([rng.randint(-1 if rng.random() < 0.05 else 0, V - 1 + (rng.random() < 0.05)) for _ in range(n)], dtype=DT[di]).reshape(s)
        T = [w, idx]
        thunk = lambda: F.embedding(idx, w)
    elif op == 'arange':
        st = rng.choice([0.0, 1.0, -3.0, 0.5, 2.0, -2.5]); en = rng.choice([5.0, 10.0, -1.0, 3.3, 0.0, 7.0])
        sp = rng.choice([1.0, 2.0, 0.5, -1.0, 0.3, 3.0, 0.0])
        D = [st, en, sp]; I = [d]
        thunk = lambda: torch.arange(pyscalar(st), pyscalar(en), pyscalar(sp), dtype=DT[d])
    elif op in ('full', 'zeros'):
        s = rshape(rng); v = rng.choice([0.0, 1.5, -1.0, 300.0, float('nan'), float('inf'), 1e10, -129.0, 70000.0])
        D = [v]; I = [d] + s
        thunk = (lambda: torch.full(s, pyscalar(v), dtype=DT[d])) if op == 'full' else (lambda: torch.zeros(s, dtype=DT[d]))
    else:
        s = rshape(rng); nd = len(s); a = rtensor(rng, d, s, special=False); T = [a]
        n = a.numel()
        rd = lambda: rng.randint(-nd - 1, nd) if nd else rng.choice([0, -1, 1])
        if op in ('reshape', 'view'):
            cands = [[n], [-1], [1, n], [n, 1], [-1, 1], [2, -1], list(reversed(s)), [n + 1], [-1, -1], [0, -1], []]
            tgt = rng.choice(cands); I = tgt
            thunk = lambda: getattr(a, op)(tgt)
        elif op == 'expand':
            tgt = [x if x != 1 else rng.choice([1, 3, -1]) for x in s]
            if rng.random() < 0.3: tgt = [2] + tgt
            if rng.random() < 0.1: tgt = [-1] + tgt
            if rng.random() < 0.1 and tgt: tgt[-1] = tgt[-1] + 1
            I = tgt
            thunk = lambda: a.expand(tgt)
        elif op == 'permute':
            p = list(range(nd)); rng.shuffle(p)
            if rng.random() < 0.3 and nd: p[0] = p[0] - nd
            I = p
            thunk = lambda: a.permute(p)
        elif op == 'transpose':
            I = [rd(), rd()]
            thunk = lambda: a.transpose(I[0], I[1])
        elif op == 'narrow':
            dim = rd(); sz = s[dim] if -nd <= dim < nd else 3
            stt = rng.randint(-sz - 1, sz + 1); ln = rng.randint(-1, sz + 1)
            I = [dim, stt, ln]
            thunk = lambda: a.narrow(dim, stt, ln)
        elif op == 'slice':
            dim = rd(); sz = s[dim] if -nd <= dim < nd else 3
            stt = rng.randint(-sz - 2, sz + 2); en = rng.randint(-sz - 2, sz + 2); sp = rng.choice([1, 1, 2, 3, 0, -1])
            I = [dim, stt, en, sp]
            def thunk():
                if not (-max(nd, 1) <= dim < max(nd, 1)) or nd == 0: raise IndexError
                if sp <= 0: raise ValueError
                idx = [slice(None)] * nd; idx[dim] = slice(stt, en, sp)
                return a[tuple(idx)]
        elif op == 'squeeze':
            dim = -1000 if rng.random() < 0.3 else rd(); I = [dim]
            thunk = (lambda: a.squeeze()) if dim == -1000 else (lambda: a.squeeze(dim))
        elif op == 'unsqueeze':
            dim = rd() if rng.random() < 0.8 else nd + 2; I = [dim]
            thunk = lambda: a.unsqueeze(dim)
        if op in ('reshape', 'view', 'expand', 'permute', 'transpose', 'narrow', 'slice', 'squeeze', 'unsqueeze'):
            pass
    tp = []
    for t in T:
        if t is None:
            tp.append('10 0 0')  # placeholder, handled below
        else:
            tp.append(tspec(t, getattr(t, 'lay', 0)))
    tl = [x for x in tp]
    nt = len(T)
    # layer_norm None weight/bias: dtype 99 means NULL tensor
    tl = [('99 0 0' if t is None else s) for t, s in zip(T, tl)]
    line = ' '.join([op, str(nt)] + tl + [str(len(D))] + [fmt(x) for x in D] + [str(len(I))] + [str(x) for x in I])
    dts = [NAME[DT.index(t.dtype)] if t is not None else '-' for t in T]
    if any(t is not None and t.numel() == 0 for t in T): dts.append('EMPTY')
    thunk.T = T  # the inputs in the line's order (torchdiff_grad.py)
    return line, thunk, op, dts

def ulps(a, b, d):
    """distance in ulps between bit patterns of float dtype d"""
    nb = {6: 16, 7: 16, 8: 32, 9: 64}[d]
    def key(x):
        x = int(x, 16)
        if x >> (nb - 1): return -(x & ((1 << (nb - 1)) - 1))
        return x
    return abs(key(a) - key(b))

def isnan_bits(x, d):
    x = int(x, 16)
    if d == 6: return (x & 0x7c00) == 0x7c00 and (x & 0x3ff)
    if d == 7: return (x & 0x7f80) == 0x7f80 and (x & 0x7f)
    if d == 8: return (x & 0x7f800000) == 0x7f800000 and (x & 0x7fffff)
    if d == 9: return (x >> 52 & 0x7ff) == 0x7ff and (x & ((1 << 52) - 1))

TOL = {'sum': 64, 'mean': 64, 'softmax': 8, 'log_softmax': 8, 'layer_norm': 64, 'matmul': 64, 'bmm': 64,
       'gelu': 4, 'addcdiv': 2, 'exp': 2, 'log': 2, 'tanh': 2, 'sigmoid': 2, 'pow': 1,
       'erf': 2, 'erfc': 2, 'sin': 2, 'cos': 2, 'exp2': 2, 'log2': 2, 'log1p': 2, 'expm1': 2,
       'tan': 2, 'atan': 2, 'asin': 2, 'acos': 2, 'sinh': 2, 'cosh': 2, 'asinh': 2, 'acosh': 2,
       'atanh': 2, 'log10': 2, 'reciprocal': 1, 'atan2': 2, 'hypot': 1, 'logaddexp': 2,
       'logaddexp2': 2, 'xlogy': 2, 'logit': 2, 'sinc': 2, 'pow_tensor': 2,
       'silu': 2, 'mish': 4, 'prod': 64, 'cumsum': 64, 'cumprod': 64, 'logsumexp': 8,
       'var': 64, 'std': 64}

EXACT = False  # --exact: every op's tolerance 0 (bit for bit)

def compare(op, got, exp):
    if exp == 'UNIMPL':
        return None if got.startswith('ERR') else 'torch_unimpl(ok here)'
    if exp == 'ERR' or got.startswith('ERR'):
        if exp == 'ERR' and got.startswith('ERR'): return None
        return 'error' if exp == 'ERR' else 'no_error'
    g, e = got.split(), exp.split()
    if g[1] != e[1]: return 'dtype %s->%s' % (NAME[int(e[1])], NAME[int(g[1])])
    nd = int(e[2])
    if g[2:3 + nd] != e[2:3 + nd]: return 'shape'
    gv, ev = g[3 + nd:], e[3 + nd:]
    if len(gv) != len(ev): return 'shape'
    d = int(e[1]); tol = 0 if EXACT else TOL.get(op, 0)
    # f32 contiguous: ctorch's polynomial kernels (1-2 ulp); f64: glibc vs torch's Sleef (1 ulp)
    if op in ('exp', 'log', 'tanh', 'sigmoid') and not EXACT: tol = {8: 2, 9: 1}.get(d, 0)
    worst = 0
    for x, y in zip(gv, ev):
        if x == y: continue
        if d in FLOATS:
            if isnan_bits(x, d) and isnan_bits(y, d): continue
            if isnan_bits(x, d) or isnan_bits(y, d): return 'values(nan)'
            u = ulps(x, y, d)
            if u > tol: worst = max(worst, u)
        else:
            return 'values'
    if worst: return 'values(>%d ulp)' % tol
    return None

def build_driver(src, lib, exe):
    """Compile scripts/torchdiff/<src> against the static library lib into exe (every harness's
    driver links the same way); returns exe."""
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    subprocess.check_call(['gcc', '-O1', '-std=c11', '-D_GNU_SOURCE', '-I' + root + '/include',
                           os.path.join(here, src), lib, '-llapacke', '-lopenblas', '-fopenmp',
                           '-lm', '-ldl', '-o', exe])
    return exe

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--lib', default='build/libctorch.a')
    ap.add_argument('-n', type=int, default=5000)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--show', type=int, default=2)
    ap.add_argument('--only', default=None)
    ap.add_argument('--full', action='store_true', help='print the shown cases untruncated')
    ap.add_argument('--exact', action='store_true', help='tolerance 0 for every op (bit for bit)')
    a = ap.parse_args()
    global EXACT
    EXACT = a.exact
    exe = build_driver('driver.c', a.lib, '/tmp/torchdiff_driver')
    rng = random.Random(a.seed)
    cases = []
    while len(cases) < a.n:
        line, thunk, op, dts = gen(rng)
        if a.only and op not in a.only.split(','): continue
        try:
            r = thunk()
            exp = ref_line(r)
        except Exception as ex:
            exp = 'ERR'
            if 'not implemented for' in str(ex):
                exp = 'UNIMPL'
        cases.append((line, exp, op, dts))
    inp = '\n'.join(c[0] for c in cases) + '\n'
    out = subprocess.run([exe], input=inp, capture_output=True, text=True).stdout.splitlines()
    classes = collections.defaultdict(list)
    for (line, exp, op, dts), got in zip(cases, out):
        c = compare(op, got, exp)
        if c and 'EMPTY' in dts:
            c += ' (zero-size input)'
        if c: classes[(op, c)].append((dts, line, exp, got))
    print('%d cases, %d mismatching' % (len(cases), sum(len(v) for v in classes.values())))
    for k in sorted(classes, key=lambda k: -len(classes[k])):
        v = classes[k]
        dd = collections.Counter(','.join(x[0]) for x in v)
        print('%-14s %-22s %5d  dtypes: %s' % (k[0], k[1], len(v), ' '.join('%s:%d' % kv for kv in dd.most_common(6))))
        for x in v[:a.show]:
            w = None if a.full else 300
            print('    in :', x[1][:w]); print('    exp:', x[2][:w and 200]); print('    got:', x[3][:w and 200])

if __name__ == '__main__':
    main()
