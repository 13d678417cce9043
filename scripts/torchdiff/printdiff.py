#!/usr/bin/python3
"""Randomized differential test of ctorch's tensor printing against PyTorch 1.13's str(tensor).

Random tensors (every printable dtype; 0-d to 4-d shapes with empty dims, sizes around the 1000
element summarization threshold and the 80 column wrap; values from families that stress the
formatter: small ints as floats, huge/tiny magnitudes, mixes spanning > 1e8, exact decimals,
NaN/inf/-0.0, subnormals, values that round at the 4th decimal, integers near 2^53/2^63, only -0.0,
values at the sci-mode thresholds) are printed by torch and, through print_driver.c (compiled here
with gcc against the static library), by ct_tensor_to_string; the strings must be equal. Mismatches
are grouped into classes (kind of difference x dtype) with a few examples each.

Run: /usr/bin/python3 scripts/torchdiff/printdiff.py --lib build/libctorch.a [-n N] [--seed S]
"""
import argparse, collections, math, os, random, re, subprocess, sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torchdiff as td  # noqa: E402

CT = {torch.bool: 0, torch.uint8: 1, torch.int8: 2, torch.int16: 3, torch.int32: 4, torch.int64: 5,
      torch.float16: 6, torch.bfloat16: 7, torch.float32: 8, torch.float64: 9}
FLOATS = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
INTS = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]
SUBNORMAL_MIN = {torch.float16: 2.0**-24, torch.bfloat16: 2.0**-133, torch.float32: 2.0**-149,
                 torch.float64: 2.0**-1074}
NORMAL_MIN = {torch.float16: 2.0**-14, torch.bfloat16: 2.0**-126, torch.float32: 2.0**-126,
              torch.float64: 2.0**-1022}

# ---- values ---------------------------------------------------------------------------------

def sgn(rng):
    return -1.0 if rng.random() < 0.4 else 1.0

THRESH = [1e-4, 1.0001e-4, 0.99999e-4, 1e8, 1e8 + 1, 99999999.0, 100000000.5, 1e16, 1e-16, 1000.0,
          1.0, 0.001, 0.1, 1e-5, 1e5, 12345.0, 1e7, 9.99999e7, 0.0001, 1e3 + 0.5]
ROUND4 = [0.99995, 9.99995, 99.99995, 0.00015, 0.00025, 1.00005, 0.12345, 0.99994999, 9.99994,
          0.50005, 2.49995, 12345.67885, 999.99995, 0.999949, 0.0001499, 1.5e-4, 0.00005]


def float_value(fam, rng, dt, ctx):
    if fam == 'randn':
        return rng.gauss(0, 1) * ctx['scale']
    if fam == 'smallint':
        return float(rng.randint(-20, 20))
    if fam == 'bigint':
        return float(rng.randint(-10**9, 10**9))
    if fam == 'huge':
        return sgn(rng) * 10 ** rng.uniform(8, 300)
    if fam == 'tiny':
        return sgn(rng) * 10 ** rng.uniform(-320, -4)
    if fam == 'span':
        return sgn(rng) * 10 ** rng.uniform(-10, 10)
    if fam == 'decimal':
        return sgn(rng) * rng.choice([0.5, 0.25, 1.125, 2.5, 0.75, 3.0625, 100.5, 0.0625, 1.5,
                                       rng.randint(0, 4000) / 8.0, rng.randint(0, 1000) / 16.0,
                                       # binary ties at the 4th decimal / 4th mantissa digit
                                       rng.randint(0, 4000) / 32.0, rng.randint(0, 4000) / 64.0,
                                       rng.randint(0, 40000) / 128.0, 1.03125, 0.00015625 * 2**-4,
                                       2.0**rng.randint(-30, 30) * rng.randint(1, 64) / 32.0])
    if fam == 'round4':
        return sgn(rng) * rng.choice(ROUND4) * rng.choice([1, 1, 1, 10, 100, 0.1])
    if fam == 'special':
        return rng.choice([math.nan, math.inf, -math.inf, -0.0, 0.0, -math.nan])
    if fam == 'subnormal':
        lo = SUBNORMAL_MIN[dt]
        return sgn(rng) * rng.choice([lo, lo * rng.randint(1, 1000), NORMAL_MIN[dt],
                                      NORMAL_MIN[dt] * 0.5])
    if fam == 'near2p':
        b = rng.choice([2.0**53, 2.0**63, 2.0**64, 2.0**24, 2.0**31, 2.0**11, 65504.0, 2.0**127])
        return sgn(rng) * (b + rng.choice([-2, -1, 0, 1, 2, 0.5]) * rng.choice([1, 1, b * 2**-52]))
    if fam == 'negzero':
        return -0.0
    if fam == 'thresh':
        return sgn(rng) * rng.choice(THRESH)
    if fam == 'ratio':
        return sgn(rng) * ctx['base'] * rng.choice([1.0, 1000.0, 1000.0 * (1 + 1e-6),
                                                    1000.0 * (1 - 1e-6), 999.0, 1001.0])
    raise ValueError(fam)

FLOAT_FAMS = ['randn', 'smallint', 'bigint', 'huge', 'tiny', 'span', 'decimal', 'round4', 'special',
              'subnormal', 'near2p', 'negzero', 'thresh', 'ratio']
INT_FAMS = ['small', 'range', 'extreme', 'near2p']


def int_value(fam, rng, dt):
    info = torch.iinfo(dt)
    if fam == 'small':
        return max(info.min, min(info.max, rng.randint(-20, 20)))
    if fam == 'range':
        return rng.randint(info.min, info.max)
    if fam == 'extreme':
        return rng.choice([info.min, info.max, info.min + 1, info.max - 1, 0, -1 if info.min else 1])
    b = rng.choice([2**53, 2**63 - 1, 2**31, 2**15, 2**7, 10**18, 10**9])
    v = sgn(rng) * b + rng.randint(-2, 2)
    return int(max(info.min, min(info.max, v)))

# ---- shapes ---------------------------------------------------------------------------------

def gen_shape(rng):
    r = rng.random()
    if r < 0.10:
        return ()
    if r < 0.40:
        return (rng.choice([0, 1, 2, 3, 5, 6, 7, 8, 10, 13, 20, 25, 33, 40, rng.randint(0, 120),
                            rng.randint(995, 1010), rng.randint(1001, 3000)]),)
    if r < 0.70:
        big = rng.random() < 0.25
        if big:
            return rng.choice([(10, 100), (10, 101), (7, 143), (143, 7), (2, 501), (501, 2),
                               (1001, 1), (1, 1001), (32, 32), (40, 25), (6, 200), (200, 6),
                               (7, 7 * rng.randint(21, 60)), (rng.randint(30, 60), rng.randint(20, 60))])
        return tuple(rng.choice([0, 1, 2, 3, 4, 5, 6, 7, 8, 12]) for _ in range(2))
    if r < 0.88:
        if rng.random() < 0.2:
            return rng.choice([(10, 10, 11), (7, 7, 21), (2, 3, 200), (11, 10, 10), (1, 1, 1001),
                               (6, 6, 28), (7, 6, 24)])
        return tuple(rng.choice([0, 1, 2, 3, 4, 6, 7]) for _ in range(3))
    if r < 0.96:
        if rng.random() < 0.2:
            return rng.choice([(3, 3, 3, 38), (7, 7, 7, 3), (2, 2, 2, 126), (1, 7, 1, 150),
                               (4, 4, 8, 8)])
        return tuple(rng.choice([0, 1, 2, 3, 4, 7]) for _ in range(4))
    # 5-d to 8-d (ctorch's CT_MAX_DIMS)
    nd = rng.randint(5, 8)
    if rng.random() < 0.2:
        return tuple(rng.choice([2, 7]) for _ in range(nd - 3)) + (2, 1, 7)
    return tuple(rng.choice([0, 1, 1, 2, 3]) for _ in range(nd))


def gen_case(rng):
    dt = rng.choice([torch.bool] + INTS + FLOATS * 3)
    shape = gen_shape(rng)
    n = 1
    for s in shape:
        n *= s
    if dt == torch.bool:
        p = rng.choice([0.0, 0.5, 1.0, 0.9])
        t = torch.tensor([rng.random() < p for _ in range(n)], dtype=torch.bool)
        fams = ('bool',)
    elif dt in INTS:
        fams = tuple(sorted(set(rng.choice(INT_FAMS) for _ in range(rng.randint(1, 2)))))
        t = torch.tensor([int_value(rng.choice(fams), rng, dt) for _ in range(n)], dtype=dt)
    else:
        fams = tuple(sorted(set(rng.choice(FLOAT_FAMS) for _ in range(rng.randint(1, 3)))))
        ctx = {'scale': 10 ** rng.uniform(-6, 10), 'base': 10 ** rng.uniform(-8, 6)}
        vals = [float_value(rng.choice(fams), rng, dt, ctx) for _ in range(n)]
        if 'special' in fams and n > 0 and rng.random() < 0.5:
            # a few specials sprinkled over another family's values
            other = [f for f in fams if f != 'special'] or ['randn']
            vals = [float_value(rng.choice(other), rng, dt, ctx) if rng.random() < 0.8 else v
                    for v in vals]
        with torch.no_grad():
            t = torch.tensor(vals, dtype=torch.float64).to(dt)
    t = t.reshape(shape)
    grad = '-'
    if dt in FLOATS and rng.random() < 0.2:
        grad = 'leaf' if rng.random() < 0.3 else rng.choice([o for o, nd in GRAD_OPS if t.dim() >= nd])
    r = rng.random()
    layout = 1 if len(shape) >= 2 and r < 0.2 else 2 if len(shape) >= 1 and r > 0.85 else 0
    if grad in ('view', 'reshape', 'reshape_t') and layout:  # torch's x is contiguous
        layout = 0
    if grad == 'unsqueeze' and t.dim() == 8:  # ctorch's CT_MAX_DIMS
        grad = 'leaf'
    return t, layout, dt, fams, grad


# op (as print_driver.c's grad_op names it), minimum ndim; values exact in torch and ctorch
GRAD_OPS = [('mul_s', 0), ('add', 0), ('neg', 0), ('abs', 0), ('relu', 0), ('maximum', 0),
            ('cast64', 0), ('clone', 0), ('tril', 2), ('triu', 2), ('transpose', 2), ('slice', 1),
            ('unsqueeze', 0), ('view', 0), ('reshape', 0), ('reshape_t', 2), ('squeeze0', 1),
            ('squeeze', 0)]


def torch_grad(t, grad):
    """The tensor torch prints for a case's grad field."""
    if grad == '-':
        return t
    x = t.clone().requires_grad_()
    if grad == 'leaf':
        return x
    return {'mul_s': lambda: x * 2.0, 'add': lambda: x + x, 'neg': lambda: -x, 'abs': x.abs,
            'relu': x.relu, 'maximum': lambda: torch.maximum(x, x), 'cast64': lambda: x.to(torch.float64, copy=True),
            'clone': x.clone, 'tril': x.tril, 'triu': x.triu, 'transpose': lambda: x.transpose(0, 1),
            'slice': lambda: x[1:], 'unsqueeze': lambda: x.unsqueeze(0),
            'view': lambda: x.view(-1), 'reshape': lambda: x.reshape(-1),
            'reshape_t': lambda: x.transpose(0, 1).reshape(-1), 'squeeze0': lambda: x.squeeze(0),
            'squeeze': x.squeeze}[grad]()


def raw_hex(t):
    if t.dtype == torch.bool:
        b = t.to(torch.uint8).contiguous().numpy().tobytes()
    elif t.dtype in (torch.float16, torch.bfloat16):
        b = t.contiguous().view(torch.int16).numpy().tobytes()
    else:
        b = t.contiguous().numpy().tobytes()
    return b.hex() or '-'


def case_line(t, layout, grad):
    stored = t
    if layout == 1:
        stored = t.transpose(-1, -2).contiguous()
    elif layout == 2:  # each element followed by a filler the view skips
        stored = torch.stack([t, torch.zeros_like(t)], -1)
    return '%d %d %s %d %s' % (CT[t.dtype], t.dim(), ' '.join(str(s) for s in t.shape), layout,
                              raw_hex(stored)) + ' ' + grad

# ---- classification -------------------------------------------------------------------------

TOK = re.compile(r'[^\s,\[\]()]+')


def classify(exp, got):
    if got.startswith('ERR'):
        return 'error'
    te, tg = TOK.findall(exp), TOK.findall(got)
    if te != tg:
        if len(te) != len(tg):
            return 'token count'
        for a, b in zip(te, tg):
            if a != b:
                ea, eb = 'e' in a and 'nan' not in a, 'e' in b and 'nan' not in b
                if ea != eb:
                    return 'sci vs fixed mode'
                if a.endswith('.') != b.endswith('.'):
                    return 'int mode'
                if a.startswith('dtype') or b.startswith('dtype'):
                    return 'dtype suffix'
                if re.match('(grad_fn|requires_grad)', a) or re.match('(grad_fn|requires_grad)', b):
                    return 'grad suffix'
                return 'element text'
    if exp.count('\n') != got.count('\n'):
        return 'line breaks'
    return 'padding/width'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--lib', default='build/libctorch.a')
    ap.add_argument('-n', type=int, default=5000)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--show', type=int, default=2)
    ap.add_argument('--full', action='store_true', help='print the shown cases untruncated')
    a = ap.parse_args()
    exe = td.build_driver('print_driver.c', a.lib, '/tmp/printdiff_driver')
    rng = random.Random(a.seed)
    torch.manual_seed(a.seed)
    cases = []
    for _ in range(a.n):
        t, layout, dt, fams, grad = gen_case(rng)
        try:
            torch_grad(t, grad)
        except RuntimeError:  # torch 1.13 lacks some float16 CPU kernels
            grad = 'leaf'
        cases.append((case_line(t, layout, grad), str(torch_grad(t, grad)), dt,
                      fams + ((('grad:' + grad),) if grad != '-' else ()), t))
    inp = '\n'.join(c[0] for c in cases) + '\n'
    res = subprocess.run([exe], input=inp, capture_output=True, text=True)
    out = res.stdout.split('\n')
    if len(out) < len(cases):
        sys.exit('driver stopped early (rc %d): %s' % (res.returncode, res.stderr[-2000:]))
    classes = collections.defaultdict(list)
    for (line, exp, dt, fams, t), got in zip(cases, out):
        got = got.replace('\\n', '\n').replace('\\\\', '\\')
        if got != exp:
            classes[(classify(exp, got), str(dt).replace('torch.', ''))].append((fams, t, exp, got))
    print('%d cases, %d mismatching' % (len(cases), sum(len(v) for v in classes.values())))
    w = None if a.full else 600
    for k in sorted(classes, key=lambda k: -len(classes[k])):
        v = classes[k]
        fc = collections.Counter(f for x in v for f in x[0])
        print('%-18s %-9s %5d  families: %s' % (k[0], k[1], len(v),
                                               ' '.join('%s:%d' % kv for kv in fc.most_common(6))))
        for fams, t, exp, got in v[:a.show]:
            vals = t.reshape(-1)[:8].tolist()
            print('    shape %s, first values %r' % (tuple(t.shape), vals))
            print('    torch :', exp[:w].replace('\n', '\n            '))
            print('    ctorch:', got[:w].replace('\n', '\n            '))
    return 0


if __name__ == '__main__':
    main()
