#!/usr/bin/env python3
"""mpmath reference values for tests/test_special3.c: torch.special's Chebyshev polynomials T U V W
(and the shifted ones), Hermite H and He, Laguerre L, Legendre P and Airy Ai. Rows are
(x, n, value, cond) for the polynomials and (x, value, cond) for Ai, value rounded to double and
cond = |x f'(x)| (the change of f under a relative change of x: the test allows cond 2^-64 besides
a few ulps, the error of evaluating f at x perturbed by one long double rounding). The points are
float32 values so one table checks float32 and float64. mpmath at 60 digits (more for a large
degree); V and W through their closed forms V_n = U_n - U_n-1, W_n = U_n + U_n-1, He through
He_n(x) = 2^(-n/2) H_n(x / sqrt 2). Writes tests/data/special3_ref.h."""
import random
import struct
import sys

import mpmath as mp

mp.mp.dps = 60
rng = random.Random(1913)


def f32(v):
    return struct.unpack('f', struct.pack('f', v))[0]


def lu(lo, hi):
    return 10 ** rng.uniform(lo, hi)


def cheb_closed(kind, n, x):
    """Chebyshev of the first / second kind for a large degree: cos(n t), sin((n + 1) t) / sin t,
    t = acos(x) (complex outside [-1, 1]; the real part is the value)"""
    t = mp.acos(x)
    if kind == 't':
        return mp.re(mp.cos(n * t))
    if x == 1 or x == -1:
        return mp.mpf(n + 1) * (1 if x == 1 or n % 2 == 0 else -1)
    return mp.re(mp.sin((n + 1) * t) / mp.sin(t))


def cheb(kind, n, x):
    if n < 0:
        return mp.mpf(0)
    big = n > 400
    if kind in ('t', 'u'):
        if big:
            return cheb_closed(kind, n, x)
        return mp.chebyt(n, x) if kind == 't' else mp.chebyu(n, x)
    u = (lambda m: cheb_closed('u', m, x)) if big else (lambda m: mp.chebyu(m, x) if m >= 0 else mp.mpf(0))
    return u(n) - u(n - 1) if kind == 'v' else u(n) + u(n - 1)


def hermite_h(n, x):
    return mp.hermite(n, x)


def hermite_he(n, x):
    return mp.hermite(n, x / mp.sqrt(2)) / mp.power(2, mp.mpf(n) / 2)


FUNCS = {
    't_cheb_t': lambda x, n: cheb('t', n, x),
    't_cheb_u': lambda x, n: cheb('u', n, x),
    't_cheb_v': lambda x, n: cheb('v', n, x),
    't_cheb_w': lambda x, n: cheb('w', n, x),
    't_scheb_t': lambda x, n: cheb('t', n, 2 * x - 1),
    't_scheb_u': lambda x, n: cheb('u', n, 2 * x - 1),
    't_scheb_v': lambda x, n: cheb('v', n, 2 * x - 1),
    't_scheb_w': lambda x, n: cheb('w', n, 2 * x - 1),
    't_hermite_h': lambda x, n: hermite_h(n, x),
    't_hermite_he': lambda x, n: hermite_he(n, x),
    't_laguerre': lambda x, n: mp.laguerre(n, 0, x, maxterms=10**6),
    't_legendre': lambda x, n: mp.legendre(n, x, maxterms=10**6),
}


def dps_for(n):
    return 60 + int(mp.log10(max(n, 1)) * 3)


def value_cond(f, x, n):
    m = int(n)  # torch truncates the degree toward zero; a negative one gives 0
    if m < 0:
        return mp.mpf(0), mp.mpf(0)
    with mp.workdps(dps_for(m)):
        xm = mp.mpf(x)
        v = f(xm, m)
        d = mp.diff(lambda t: f(t, m), xm)
        return v, abs(xm * d)


def to_c(v):
    if isinstance(v, float) and v != v:
        return "NAN"
    v = mp.mpf(v)
    if mp.isnan(v):
        return "NAN"
    if abs(v) > mp.mpf('1.7976931348623157e308') * (1 + mp.mpf(2) ** -54):
        return "INFINITY" if v > 0 else "-INFINITY"
    r = repr(float(v))
    return r.replace("inf", "INFINITY")


out = []


def poly_table(name, pts):
    f = FUNCS[name]
    body = []
    for x, n in pts:
        x = f32(x)
        v, c = value_cond(f, x, n)
        body.append("{%s, %s, %s, %s}" % (repr(x), repr(float(n)), to_c(v), to_c(c)))
    out.append(f"static const double {name}[][4] = {{\n    " + ",\n    ".join(body) + "};")


def cheb_points(shifted):
    lo, hi = (0.0, 1.0) if shifted else (-1.0, 1.0)
    mid = (lo + hi) / 2
    half = (hi - lo) / 2
    p = [(rng.uniform(lo, hi), rng.randint(0, 12)) for _ in range(80)]
    p += [(rng.uniform(lo, hi), int(lu(1, 3))) for _ in range(40)]
    p += [(rng.uniform(lo, hi), n) for n in (10**4, 10**4 + 1, 123457, 10**6, 10**6 + 1)]
    # near the ends, just outside, far outside (overflow), near the middle (odd degrees vanish)
    p += [(mid + s * half * (1 - 2.0 ** -k), rng.randint(1, 300)) for k in (4, 10, 16, 22) for s in (1, -1)]
    p += [(mid + s * half * (1 + lu(-6, 0.5)), rng.randint(1, 30)) for s in (1, -1) for _ in range(12)]
    p += [(mid + s * half * (1 + 2.0 ** -20), n) for s in (1, -1) for n in (100, 1000, 10**5)]
    p += [(mid + s * half * lu(0.5, 3), n) for s in (1, -1) for n in (5, 40, 200)]
    p += [(mid + s * half * lu(-12, -3), n) for s in (1, -1) for n in (1, 3, 4, 5, 17, 1001)]
    p += [(mid, n) for n in (0, 1, 2, 3, 7, 10)]
    # n truncated toward zero, negative n
    p += [(rng.uniform(lo, hi), n) for n in (2.7, 5.5, 0.5, -0.5, -1.0, -3.0)]
    return p


for nm in ('t', 'u', 'v', 'w'):
    poly_table('t_cheb_' + nm, cheb_points(False))
for nm in ('t', 'u', 'v', 'w'):
    poly_table('t_scheb_' + nm, cheb_points(True))

hp = [(rng.uniform(-8, 8), rng.randint(0, 30)) for _ in range(80)]
hp += [(rng.uniform(-25, 25), rng.randint(30, 200)) for _ in range(30)]
hp += [(lu(-10, -2) * s, n) for s in (1, -1) for n in (1, 3, 9, 31)]
hp += [(lu(0, 2), 400), (rng.uniform(-3, 3), 1000), (1e20, 30), (-1e20, 31), (0.0, 7), (0.0, 8)]
hp += [(rng.uniform(-5, 5), n) for n in (2.7, -0.5, -2.0)]
poly_table('t_hermite_h', hp)
poly_table('t_hermite_he', hp)

lp = [(rng.uniform(0, 30), rng.randint(0, 30)) for _ in range(60)]
lp += [(rng.uniform(-20, 0), rng.randint(0, 30)) for _ in range(20)]
lp += [(rng.uniform(0, 4 * n), n) for n in (int(lu(1.5, 3)) for _ in range(30))]
lp += [(lu(-8, -2), n) for n in (1, 2, 5, 50)]
lp += [(rng.uniform(0, 1), 10**4), (rng.uniform(0, 50), 10**5), (-lu(0, 2), 10**4), (1e30, 40), (-1e30, 40)]
lp += [(rng.uniform(0, 5), n) for n in (3.9, -0.5, -7.0)]
poly_table('t_laguerre', lp)

pp = [(rng.uniform(-1, 1), rng.randint(0, 30)) for _ in range(80)]
pp += [(rng.uniform(-1, 1), int(lu(1.5, 3))) for _ in range(40)]
pp += [(rng.uniform(-1, 1), n) for n in (10**4, 10**5)]
pp += [(s * (1 - 2.0 ** -k), rng.randint(1, 300)) for k in (4, 12, 20) for s in (1, -1)]
pp += [(s * (1 + lu(-6, 0.5)), rng.randint(1, 60)) for s in (1, -1) for _ in range(10)]
pp += [(s * lu(-10, -3), n) for s in (1, -1) for n in (1, 3, 5, 11)]
pp += [(1e30, 30), (-1e30, 31), (0.0, 9), (0.0, 10)]
pp += [(rng.uniform(-1, 1), n) for n in (6.99, -0.5, -4.0)]
poly_table('t_legendre', pp)

# Airy Ai: the oscillating side far out, the series range, the decaying side up to underflow
ax = [rng.uniform(-60, 6) for _ in range(200)] + [rng.uniform(-3.5, 2.5) for _ in range(60)]
ax += [-lu(1.8, 6) for _ in range(40)] + [lu(-8, 2.1) for _ in range(30)] + [-lu(-8, 0) for _ in range(10)]
ax += [lu(0.7, 1.2) for _ in range(20)] + [0.0, 2.0, -2.8, 2.0000002, -2.7999999, 120.0, 1e10]
body = []
for x in ax:
    x = f32(x)
    with mp.workdps(80):
        xm = mp.mpf(x)
        v = mp.airyai(xm)
        c = abs(xm * mp.airyai(xm, derivative=1))
    body.append("{%s, %s, %s}" % (repr(x), to_c(v), to_c(c)))
out.append("static const double t_airy_ai[][3] = {\n    " + ",\n    ".join(body) + "};")

# torch 1.13's own values at the edges (degree rules, x = +-1 and the shifted ends 0 and 1, NaN,
# small degrees at +-2), which ctorch follows: rows (function index in test_special3's table, x, n, torch's value)
try:
    import torch
    S = torch.special
    tfns = [S.chebyshev_polynomial_t, S.chebyshev_polynomial_u, S.chebyshev_polynomial_v,
            S.chebyshev_polynomial_w, S.shifted_chebyshev_polynomial_t,
            S.shifted_chebyshev_polynomial_u, S.shifted_chebyshev_polynomial_v,
            S.shifted_chebyshev_polynomial_w, S.hermite_polynomial_h, S.hermite_polynomial_he,
            S.laguerre_polynomial_l, S.legendre_polynomial_p]
    exs = [float('nan'), 1.0, -1.0, 0.0, 2.0, -2.0]
    ens = [0.0, 1.0, 4.0, 5.0, -1.0, -0.5, 2.9, float('nan'), float('inf'), float('-inf'), 1e30, 2.0 ** 63]
    body = []
    for i, fn in enumerate(tfns):
        xs = torch.tensor([x for x in exs for _ in ens], dtype=torch.float64)
        ns = torch.tensor([n for _ in exs for n in ens], dtype=torch.float64)
        for x, n, v in zip(xs.tolist(), ns.tolist(), fn(xs, ns).tolist()):
            body.append("{%d, %s, %s, %s}" % (i, to_c(x), to_c(n), to_c(v)))
    out.append("/* torch %s */\nstatic const double t_torch_edges[][4] = {\n    " % torch.__version__ +
               ",\n    ".join(body) + "};")
    ax = torch.tensor([0.0, -0.0, float('nan')], dtype=torch.float64)
    out.append("static const double t_torch_airy[][2] = {\n    " + ",\n    ".join(
        "{%s, %s}" % (to_c(x), to_c(v)) for x, v in zip(ax.tolist(), S.airy_ai(ax).tolist())) + "};")
except ImportError:
    sys.exit("torch 1.13 is needed for the edge rows: run with /usr/bin/python3")

with open(sys.argv[1] if len(sys.argv) > 1 else "tests/data/special3_ref.h", "w") as f:
    f.write("/* Generated by scripts/gen_special3_ref.py (mpmath %s, 60+ digits); do not edit. */\n" % mp.__version__)
    f.write("#include <math.h>\n")
    f.write("\n".join(out) + "\n")
