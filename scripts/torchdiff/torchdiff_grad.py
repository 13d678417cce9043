#!/usr/bin/python3
"""Gradient differential harness: the random cases of torchdiff.py for differentiable ops with
f32/f64 inputs, backward with the upstream gradient u[i] = 0.5 + (i % 5) / 4 through ctorch
(driver.c's "g:" mode) and torch 1.13; classifies the input gradients that differ.
Run: /usr/bin/python3 scripts/torchdiff/torchdiff_grad.py --lib build/libctorch.a [-n N]
(needs torch; never run by the tests)."""
import argparse, collections, math, os, random, struct, subprocess, sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torchdiff as td  # noqa: E402

GRAD_OPS = (set(['neg', 'abs', 'exp', 'log', 'sqrt', 'rsqrt', 'tanh', 'sigmoid', 'relu', 'erf',
                 'erfc', 'sin', 'cos', 'exp2', 'log2', 'log1p', 'expm1', 'tan', 'atan', 'asin',
                 'acos', 'sinh', 'cosh', 'asinh', 'acosh', 'atanh', 'log10', 'reciprocal', 'atan2',
                 'floor', 'ceil', 'round',
                 'trunc', 'sign', 'silu', 'mish', 'add', 'sub', 'mul', 'div', 'maximum', 'minimum',
                 'remainder', 'fmod', 'pow', 'clamp', 'where', 'addcmul', 'addcdiv', 'sum', 'mean',
                 'amax', 'amin', 'prod', 'cumsum', 'cumprod', 'max_dim', 'min_dim', 'logsumexp',
                 'var', 'std', 'softmax', 'log_softmax', 'layer_norm', 'matmul', 'bmm', 'gelu',
                 'add_scaled', 'sub_scaled', 'add_scalar', 'sub_scalar', 'mul_scalar', 'div_scalar',
                 'reshape', 'view', 'expand', 'permute', 'transpose', 'narrow', 'slice', 'squeeze',
                 'unsqueeze', 'embedding', 'hypot', 'logaddexp', 'logaddexp2', 'xlogy', 'copysign',
                 'fmax', 'fmin', 'heaviside', 'pow_tensor', 'frac', 'logit', 'sinc', 'nan_to_num',
                 'square', 'deg2rad', 'rad2deg', 'lgamma', 'digamma', 'erfinv', 'i0',
                 'special_i0e', 'special_i1', 'special_i1e', 'special_ndtr', 'special_ndtri',
                 'special_log_ndtr', 'special_erfcx', 'special_entr', 'special_xlog1py']))
FL = (torch.float32, torch.float64)


def upstream(r):
    n = r.numel()
    u = 0.5 + (torch.arange(n, dtype=torch.float64) % 5) / 4
    return u.reshape(r.shape).to(r.dtype)


def part_line(t):
    if t is None:
        return 'N'
    return ' '.join([str(td.DT.index(t.dtype)), str(t.dim())] + [str(s) for s in t.shape] + td.bits(t))


def gen_case(rng):
    """a case of a differentiable op whose floating inputs are all f32/f64"""
    while True:
        line, thunk, op, dts = td.gen(rng)
        if op not in GRAD_OPS:
            continue
        if any(getattr(t, 'lay', 0) for t in thunk.T if t is not None):
            continue  # the driver's gradient mode builds contiguous inputs
        names = [n for n in dts if n != 'EMPTY']
        if not all(n in ('f32', 'f64', 'bool', 'i32', 'i64', '-') for n in names):
            continue
        if any(n in ('f32', 'f64') for n in names):
            return line, thunk, op, dts


def run_torch(thunk):
    """('OK' | 'ERR' | 'SKIP', the f32/f64 inputs in the line's order, now requiring grad)"""
    ts = [t for t in thunk.T if t is not None and t.dtype in FL]
    for t in ts:
        t.requires_grad_(True)
    try:
        r = thunk()
    except Exception as ex:
        return 'ERR forward: ' + str(ex).split('\n')[0][:120], ts
    if not isinstance(r, torch.Tensor) or r.dtype not in FL or not r.requires_grad:
        return 'SKIP', ts
    try:
        r.backward(upstream(r))
    except Exception as ex:
        return 'ERR backward: ' + str(ex).split('\n')[0][:120], ts
    return 'OK', ts


def fval(x, d):
    x = int(x, 16)
    if d == 8:
        return struct.unpack('<f', struct.pack('<I', x))[0]
    return struct.unpack('<d', struct.pack('<Q', x))[0]


EXACT = False  # --exact: any difference in the bits is a mismatch


def close(g, e, d):
    """g, e: lists of hex bits of float dtype d; class of the worst difference or None"""
    ge = [fval(x, d) for x in g]
    ee = [fval(x, d) for x in e]
    scale = max([abs(x) for x in ee if math.isfinite(x)] + [0.0])
    rtol = 1e-9 if d == 9 else 1e-4
    for x, y in zip(ge, ee):
        if x == y or (math.isnan(x) and math.isnan(y)):
            continue
        if math.isnan(x) != math.isnan(y):
            return 'nan'
        if math.isinf(x) or math.isinf(y):
            return 'inf'
        if EXACT or abs(x - y) > rtol * (abs(y) + scale):
            return 'values'
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--lib', default='build/libctorch.a')
    ap.add_argument('-n', type=int, default=3000)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--show', type=int, default=2)
    ap.add_argument('--only', default=None)
    ap.add_argument('--exact', action='store_true', help='compare bits (no tolerance)')
    a = ap.parse_args()
    global EXACT
    EXACT = a.exact
    exe = td.build_driver('driver.c', a.lib, '/tmp/torchdiff_driver')
    rng = random.Random(a.seed)
    cases = []
    while len(cases) < a.n:
        line, thunk, op, dts = gen_case(rng)
        if a.only and op not in a.only.split(','):
            continue
        st, ts = run_torch(thunk)
        if st == 'SKIP':
            continue
        exp = st if st.startswith('ERR') else ts
        cases.append(('g:' + line, exp, op, dts))
    inp = '\n'.join(c[0] for c in cases) + '\n'
    out = subprocess.run([exe], input=inp, capture_output=True, text=True).stdout.splitlines()
    classes = collections.defaultdict(list)
    for (line, exp, op, dts), got in zip(cases, out):
        c = compare(line, exp, got)
        if c and 'EMPTY' in dts:
            c += ' (zero-size input)'
        if c:
            classes[(op, c)].append((dts, line, exp if isinstance(exp, str) else
                                     ' | '.join(part_line(t.grad) for t in exp), got))
    print('%d cases, %d mismatching' % (len(cases), sum(len(v) for v in classes.values())))
    for k in sorted(classes, key=lambda k: -len(classes[k])):
        v = classes[k]
        dd = collections.Counter(','.join(x[0]) for x in v)
        print('%-14s %-22s %5d  dtypes: %s' % (k[0], k[1], len(v),
                                                ' '.join('%s:%d' % kv for kv in dd.most_common(6))))
        for x in v[:a.show]:
            print('    in :', x[1][:300])
            print('    exp:', x[2][:300])
            print('    got:', x[3][:300])


def compare(line, exp, got):
    if isinstance(exp, str):  # torch failed
        return None if got.startswith('ERR') else 'no_error'
    if got.startswith('ERR'):
        return 'error'
    parts = [p.strip() for p in got.split('|')[1:]]
    fl = [p for p in parts if p != '-']
    # exp: torch's f32/f64 inputs, the driver's parts: every input in the line's order ('-': not
    # floating)
    if len(fl) != len(exp):
        return 'input_count'
    for p, t in zip(fl, exp):
        g = t.grad
        if p == 'N' or g is None:
            if (p == 'N') != (g is None):
                # torch None vs ctorch zeros (or the reverse) is a class of its own
                if g is not None and not g.any():
                    return 'none_vs_zero'
                if p != 'N' and all(int(x, 16) & 0x7fffffffffffffff == 0 for x in p.split()[2 + int(p.split()[1]):]):
                    return 'zero_vs_none'
                return 'missing_grad'
            continue
        tok = p.split()
        d, nd = int(tok[0]), int(tok[1])
        if d != td.DT.index(g.dtype):
            return 'dtype'
        if [int(x) for x in tok[2:2 + nd]] != list(g.shape):
            return 'shape'
        c = close(tok[2 + nd:], td.bits(g), d)
        if c:
            return c
    return None


if __name__ == '__main__':
    main()
