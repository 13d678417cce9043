#!/usr/bin/python3
"""How far the second linear algebra set lands from torch 1.13 on random batches: ctorch through
build/libctorch.so (ctypes), torch here; prints max |ctorch - torch| / max |torch| per op and
dtype. Not run by the tests (tests/test_linalg_more.c holds fixed tables).
Run: /usr/bin/python3 scripts/torchdiff/linalg_more_accuracy.py [build/libctorch.so]"""
import ctypes
import math
import sys

import torch

lib = ctypes.CDLL(sys.argv[1] if len(sys.argv) > 1 else 'build/libctorch.so')
vp, i64 = ctypes.c_void_p, ctypes.c_int64
P = ctypes.POINTER(vp)
lib.ct_ctx_create.argtypes = [vp, P]
lib.ct_tensor_from_host.argtypes = [vp, vp, ctypes.c_int, ctypes.c_int, ctypes.POINTER(i64), P]
lib.ct_tensor_to_host.argtypes = [vp, vp, ctypes.c_size_t]
lib.ct_tensor_release.argtypes = [vp]
lib.ct_tensor_numel.argtypes = [vp]
lib.ct_tensor_numel.restype = i64
lib.ct_ctx_last_error.argtypes = [vp]
lib.ct_ctx_last_error.restype = ctypes.c_char_p
DT = {torch.float32: (8, ctypes.c_float), torch.float64: (9, ctypes.c_double)}
ctx = vp()
assert lib.ct_ctx_create(None, ctypes.byref(ctx)) == 0


def to_ct(t):
    code, ct = DT[t.dtype]
    flat = t.contiguous().reshape(-1).tolist()
    buf = (ct * max(len(flat), 1))(*flat)
    shape = (i64 * max(t.dim(), 1))(*t.shape)
    out = vp()
    assert lib.ct_tensor_from_host(ctx, buf, code, t.dim(), shape, ctypes.byref(out)) == 0
    return out


def from_ct(h, like):
    n = lib.ct_tensor_numel(h)
    _, ct = DT[like.dtype]
    buf = (ct * max(n, 1))()
    assert lib.ct_tensor_to_host(h, buf, n * ctypes.sizeof(ct)) == 0
    return torch.tensor(list(buf)[:n], dtype=like.dtype).reshape(like.shape)


def call(fn, *args):
    outs = [vp() for _ in range(4)]
    st = fn(ctx, *args, *[ctypes.byref(o) for o in outs])
    if st != 0:
        raise RuntimeError(lib.ct_ctx_last_error(ctx).decode())
    return outs


def rel(ct, ref):
    d = (ct.double() - ref.double()).abs().max().item() if ref.numel() else 0.0
    return d / max(ref.double().abs().max().item(), 1e-300)


def well(b, n, dt, g):
    return torch.randn(b, n, n, dtype=dt, generator=g) + 3 * torch.eye(n, dtype=dt)


def main():
    g = torch.Generator().manual_seed(0)
    res = {}
    cb = ctypes.c_bool
    for dt in (torch.float32, torch.float64):
        for trial in range(40):
            n, b = 1 + trial % 8, 1 + trial % 3
            A, B = well(b, n, dt, g), torch.randn(b, n, 2, dtype=dt, generator=g)
            W = torch.randn(b, n + 3, n, dtype=dt, generator=g)
            ha, hb, hw = to_ct(A), to_ct(B), to_ct(W)
            cases = []
            f = lib.ct_linalg_solve_triangular
            f.argtypes = [vp, vp, vp, cb, cb, cb, P]
            o = call(f, ha, hb, True, True, False)
            cases.append(('solve_triangular', o[0], torch.linalg.solve_triangular(A, B, upper=True)))
            f = lib.ct_linalg_lu_factor
            f.argtypes = [vp, vp, P, P]
            o = call(f, hw)
            LU, piv = torch.linalg.lu_factor(W)
            cases.append(('lu_factor', o[0], LU))
            lib.ct_tensor_release(o[1])
            o2 = call(f, ha)
            LUa, pa = torch.linalg.lu_factor(A)
            f = lib.ct_linalg_lu_solve
            f.argtypes = [vp, vp, vp, vp, cb, cb, P]
            o3 = call(f, o2[0], o2[1], hb, True, True)
            cases.append(('lu_solve adjoint', o3[0], torch.linalg.lu_solve(LUa, pa, B, adjoint=True)))
            lib.ct_tensor_release(o2[0]), lib.ct_tensor_release(o2[1])
            L = torch.linalg.cholesky(A @ A.mT)
            hl = to_ct(L)
            f = lib.ct_cholesky_solve
            f.argtypes = [vp, vp, vp, cb, P]
            cases.append(('cholesky_solve', call(f, hb, hl, False)[0], torch.cholesky_solve(B, L)))
            f = lib.ct_cholesky_inverse
            f.argtypes = [vp, vp, cb, P]
            cases.append(('cholesky_inverse', call(f, hl, False)[0], torch.cholesky_inverse(L)))
            lib.ct_tensor_release(hl)
            f = lib.ct_linalg_lstsq
            f.argtypes = [vp, vp, vp, ctypes.c_double, ctypes.c_char_p, P, P, P, P]
            Bw = torch.randn(b, n + 3, 2, dtype=dt, generator=g)
            hbw = to_ct(Bw)
            for drv in ('gelsy', 'gelsd', 'gels', 'gelss'):
                o = call(f, hw, hbw, math.nan, drv.encode())
                cases.append(('lstsq ' + drv, o[0], torch.linalg.lstsq(W, Bw, driver=drv).solution))
                for h in o[1:]:
                    lib.ct_tensor_release(h)
            lib.ct_tensor_release(hbw)
            f = lib.ct_linalg_svdvals
            f.argtypes = [vp, vp, P]
            cases.append(('svdvals', call(f, hw)[0], torch.linalg.svdvals(W)))
            f = lib.ct_linalg_matrix_exp
            f.argtypes = [vp, vp, P]
            M = torch.randn(b, n, n, dtype=dt, generator=g) * (0.05 * 2 ** (trial % 10))
            hm = to_ct(M)
            cases.append(('matrix_exp', call(f, hm)[0], torch.linalg.matrix_exp(M)))
            lib.ct_tensor_release(hm)
            tau = torch.rand(b, min(n, 2), dtype=dt, generator=g) + 0.5
            ht = to_ct(tau)
            f = lib.ct_linalg_householder_product
            f.argtypes = [vp, vp, vp, P]
            cases.append(('householder_product', call(f, hw, ht)[0],
                          torch.linalg.householder_product(W, tau)))
            lib.ct_tensor_release(ht)
            f = lib.ct_linalg_cond
            f.argtypes = [vp, vp, ctypes.c_char_p, P]
            for o in (None, 'fro', 'nuc', 'inf'):
                ref = torch.linalg.cond(A, o if o != 'inf' else math.inf)
                cases.append(('cond %s' % o, call(f, ha, o.encode() if o else None)[0], ref))
            for name, h, ref in cases:
                e = rel(from_ct(h, ref), ref)
                lib.ct_tensor_release(h)
                k = (name, str(dt).split('.')[1])
                res[k] = max(res.get(k, 0.0), e)
            for h in (ha, hb, hw):
                lib.ct_tensor_release(h)
    for (name, dt), e in sorted(res.items()):
        print('%-22s %-8s max relative difference %.2e' % (name, dt, e))
    return 0


if __name__ == '__main__':
    sys.exit(main())
