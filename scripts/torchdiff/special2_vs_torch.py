#!/usr/bin/python3
"""torch 1.13's error on tests/data/special2_ref.h (the mpmath table test_special2 checks ctorch
against): max ulp per function in float64 and float32, with the same envelope rule for Bessel J / Y
near their zeros. Run: /usr/bin/python3 scripts/torchdiff/special2_vs_torch.py"""
import math
import os
import re

import numpy as np
import torch

src = open(os.path.join(os.path.dirname(__file__), "../../tests/data/special2_ref.h")).read()
tabs = {}
for name, body in re.findall(r"static const double (\w+)\[\]\[\d\] = \{(.*?)\};", src, re.S):
    rows = re.findall(r"\{([^{}]*)\}", body)
    tabs[name] = [[float(v.replace("INFINITY", "inf").replace("NAN", "nan")) for v in r.split(",")] for r in rows]
S = torch.special
fns = {"t_j0": S.bessel_j0, "t_j1": S.bessel_j1, "t_y0": S.bessel_y0, "t_y1": S.bessel_y1,
       "t_k0": S.modified_bessel_k0, "t_k1": S.modified_bessel_k1,
       "t_k0e": S.scaled_modified_bessel_k0, "t_k1e": S.scaled_modified_bessel_k1,
       "t_sj0": S.spherical_bessel_j0, "t_zeta": S.zeta, "t_gammainc": S.gammainc,
       "t_gammaincc": S.gammaincc}
for name, f in fns.items():
    rows = np.array(tabs[name])
    for dt, nd in ((torch.float64, np.float64), (torch.float32, np.float32)):
        args = [torch.tensor(rows[:, i], dtype=dt) for i in range(rows.shape[1] - 1)]
        got = f(*args).double().numpy()
        want = rows[:, -1].astype(nd).astype(np.float64)
        worst = 0.0
        for i in range(len(want)):
            if not math.isfinite(want[i]):
                continue
            u = float(np.spacing(nd(abs(want[i]))))
            if name in ("t_j0", "t_j1", "t_y0", "t_y1"):
                e = math.sqrt(2 / (math.pi * max(abs(rows[i, 0]), 1)))
                u = max(u, float(np.spacing(nd(e))))
            err = abs(got[i] - want[i]) / u if math.isfinite(got[i]) else math.inf
            worst = max(worst, err)
        print(f"{name[2:]:12s} {str(dt)[6:]:8s} torch max {worst:.3g} ulp")
