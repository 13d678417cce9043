#!/usr/bin/env python3
"""torch 1.13's accuracy on the special-function reference table (tests/data/special_ref.h, mpmath
at 60 digits): the largest error in ulp for float32 and float64, next to which ctorch's own is
printed by test_special ("max ulp f64 ... f32 ..."). Usage:
  /usr/bin/python3 scripts/torchdiff/special_vs_torch.py
"""
import math
import os
import re
import struct

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
REF = os.path.join(HERE, '..', '..', 'tests', 'data', 'special_ref.h')

FN = {
    'lgamma': torch.lgamma, 'digamma': torch.digamma,
    'polygamma1': lambda t: torch.polygamma(1, t), 'polygamma2': lambda t: torch.polygamma(2, t),
    'polygamma3': lambda t: torch.polygamma(3, t), 'polygamma7': lambda t: torch.polygamma(7, t),
    'erfinv': torch.erfinv, 'i0': torch.i0, 'i0e': torch.special.i0e, 'i1': torch.special.i1,
    'i1e': torch.special.i1e, 'ndtr': torch.special.ndtr, 'ndtri': torch.special.ndtri,
    'log_ndtr': torch.special.log_ndtr, 'erfcx': torch.special.erfcx, 'entr': torch.special.entr,
}


def parse(path):
    tables, cur = {}, None
    for line in open(path):
        m = re.match(r'static const ct_special_ref ct_ref_(\w+)\[\]', line)
        if m:
            cur = tables.setdefault(m.group(1), [])
            continue
        m = re.match(r'\s*\{(\S+), (\S+), (\d)\},', line)
        if m and cur is not None:
            conv = lambda s: float('inf') if s == 'INFINITY' else -float('inf') if s == '-INFINITY' \
                else float.fromhex(s)
            cur.append((conv(m.group(1)), conv(m.group(2)), m.group(3) == '1'))
    return tables


def ulps(got, want, f32):
    if math.isnan(want):
        return 0 if math.isnan(got) else math.inf
    if math.isinf(want) or math.isinf(got):
        return 0 if got == want else math.inf
    mant, emin = (23, -126) if f32 else (52, -1022)
    e = max(math.frexp(want)[1] - 1, emin)
    return abs(got - want) / math.ldexp(1.0, e - mant)


def main():
    for name, rows in parse(REF).items():
        out = []
        for f32 in (False, True):
            xs = [r for r in rows if r[2] or not f32]
            dt = torch.float32 if f32 else torch.float64
            t = torch.tensor([r[0] for r in xs], dtype=dt)
            got = FN[name](t).double().tolist()
            worst, at = 0.0, 0.0
            for (x, ref, _), g in zip(xs, got):
                want = struct.unpack('f', struct.pack('f', ref))[0] if f32 and abs(ref) < 3.4e38 \
                    else (ref if not f32 else math.copysign(math.inf, ref))
                u = ulps(g, want, f32)
                if u > worst:
                    worst, at = u, x
            out.append('%s %.3g (at %.9g)' % ('f32' if f32 else 'f64', worst, at))
        print('torch %-11s max ulp %s' % (name, ', '.join(out)))


if __name__ == '__main__':
    main()
