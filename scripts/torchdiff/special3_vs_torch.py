#!/usr/bin/python3
"""torch 1.13's error on tests/data/special3_ref.h (the mpmath table test_special3 checks ctorch
against): per function and dtype, the worst error in ulps over the well-conditioned rows
(cond 2^-64 below an ulp, cond = |x f'(x)|) and over all rows in units of max(ulp, cond 2^-64),
the measure test_special3 prints for ctorch; NaN where mpmath has a finite value counts as inf.
Rows whose degree torch would iterate through for long (n > 2e5) are skipped.
Run: /usr/bin/python3 scripts/torchdiff/special3_vs_torch.py"""
import math
import os
import re

import numpy as np
import torch

src = open(os.path.join(os.path.dirname(__file__), "../../tests/data/special3_ref.h")).read()
tabs = {}
for name, body in re.findall(r"static const double (\w+)\[\]\[\d\] = \{(.*?)\};", src, re.S):
    rows = re.findall(r"\{([^{}]*)\}", body)
    tabs[name] = [[float(v.replace("INFINITY", "inf").replace("NAN", "nan")) for v in r.split(",")] for r in rows]
S = torch.special
fns = {"t_cheb_t": S.chebyshev_polynomial_t, "t_cheb_u": S.chebyshev_polynomial_u,
       "t_cheb_v": S.chebyshev_polynomial_v, "t_cheb_w": S.chebyshev_polynomial_w,
       "t_scheb_t": S.shifted_chebyshev_polynomial_t, "t_scheb_u": S.shifted_chebyshev_polynomial_u,
       "t_scheb_v": S.shifted_chebyshev_polynomial_v, "t_scheb_w": S.shifted_chebyshev_polynomial_w,
       "t_hermite_h": S.hermite_polynomial_h, "t_hermite_he": S.hermite_polynomial_he,
       "t_laguerre": S.laguerre_polynomial_l, "t_legendre": S.legendre_polynomial_p,
       "t_airy_ai": S.airy_ai}
for name, f in fns.items():
    rows = np.array(tabs[name])
    w = rows.shape[1]
    if w == 4:
        rows = rows[rows[:, 1] <= 2e5]
    for dt, nd in ((torch.float64, np.float64), (torch.float32, np.float32)):
        args = [torch.tensor(rows[:, i], dtype=dt) for i in range(w - 2)]
        got = f(*args).double().numpy()
        with np.errstate(over="ignore"):
            want = rows[:, w - 2].astype(nd).astype(np.float64)
        worst = worst_wc = 0.0
        nan_rows = 0
        for i in range(len(want)):
            if not math.isfinite(want[i]):
                continue
            u = float(np.spacing(nd(abs(want[i]))))
            uc = max(u, rows[i, w - 1] * 2.0 ** -64)
            if not math.isfinite(got[i]):
                nan_rows += 1
                err = math.inf
            else:
                err = abs(got[i] - want[i]) / uc
            worst = max(worst, err)
            if uc == u:
                worst_wc = max(worst_wc, err)
        print(f"{name[2:]:12s} {str(dt)[6:]:8s} torch: {worst_wc:.3g} ulp where well conditioned, "
              f"{worst:.3g} in max(ulp, cond 2^-64); {nan_rows} non-finite where mpmath is finite")
