#!/usr/bin/python3
"""How far the second linear algebra set lands from torch 1.13 on random batches: ctorch through
build/libctorch.so (ctypes), torch here; prints max |ctorch - torch| / max |torch| per op and
dtype. Not run by the tests (tests/test_linalg_more.c holds fixed tables).
Run: /usr/bin/python3 scripts/torchdiff/linalg_more_accuracy.py [--grad] [build/libctorch.so]
(--grad: the gradients of a weighted sum instead, float64)."""
import ctypes
import math
import sys

import torch

lib = ctypes.CDLL(next((a for a in sys.argv[1:] if a.endswith('.so')), 'build/libctorch.so'))
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
DT = {torch.float32: (8, ctypes.c_float), torch.float64: (9, ctypes.c_double),
      torch.int32: (4, ctypes.c_int32)}
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


if __name__ == '__main__' and '--grad' not in sys.argv:
    sys.exit(main())


def grads():
    """Gradients of sum(w * f(A, ...)) for fixed weights w, ctorch against torch (float64)."""
    lib.ct_tensor_set_requires_grad.argtypes = [vp, ctypes.c_bool]
    lib.ct_tensor_grad.argtypes = [vp]
    lib.ct_tensor_grad.restype = vp
    lib.ct_mul.argtypes = [vp, vp, vp, P]
    lib.ct_sum.argtypes = [vp, vp, ctypes.c_int, vp, ctypes.c_bool, P]
    lib.ct_backward.argtypes = [vp, vp, vp, ctypes.c_bool]
    g = torch.Generator().manual_seed(3)
    d = torch.float64
    cb = ctypes.c_bool
    worst = {}

    def run(name, make_inputs, ct_fn, th_fn):
        ins = make_inputs()
        th = [x.clone().requires_grad_(True) for x in ins]
        out = th_fn(*th)
        w = torch.sin(torch.arange(out.numel(), dtype=d)).reshape(out.shape)
        (out * w).sum().backward()
        hs = [to_ct(x) for x in ins]
        for h in hs:
            lib.ct_tensor_set_requires_grad(h, True)
        o = ct_fn(*hs)
        hw, prod, s = to_ct(w), vp(), vp()
        assert lib.ct_mul(ctx, o, hw, ctypes.byref(prod)) == 0
        assert lib.ct_sum(ctx, prod, 0, None, False, ctypes.byref(s)) == 0
        assert lib.ct_backward(ctx, s, None, False) == 0
        for h, x in zip(hs, th):
            e = rel(from_ct(lib.ct_tensor_grad(h), x), x.grad)
            worst[name] = max(worst.get(name, 0.0), e)
        for h in hs + [o, hw, prod, s]:
            lib.ct_tensor_release(h)

    def one(fn, *args):
        return call(fn, *args)[0]

    n = 4
    wellm = lambda: torch.randn(n, n, dtype=d, generator=g) + 4 * torch.eye(n, dtype=d)
    rnd = lambda *s: torch.randn(*s, dtype=d, generator=g)
    for _ in range(10):
        f = lib.ct_linalg_solve_triangular
        f.argtypes = [vp, vp, vp, cb, cb, cb, P]
        run('solve_triangular', lambda: [wellm(), rnd(n, 3)],
            lambda a, b: one(f, a, b, True, True, True),
            lambda a, b: torch.linalg.solve_triangular(a, b, upper=True, unitriangular=True))
        f2 = lib.ct_linalg_lu_factor
        f2.argtypes = [vp, vp, P, P]
        for shape in ((n, n), (n + 2, n), (n, n + 2)):
            run('lu_factor %dx%d' % shape, lambda: [rnd(*shape)], lambda a: one(f2, a),
                lambda a: torch.linalg.lu_factor(a)[0])
        f3 = lib.ct_cholesky_solve
        f3.argtypes = [vp, vp, vp, cb, P]
        run('cholesky_solve (full L)', lambda: [rnd(n, 2), wellm()],
            lambda b, l: one(f3, b, l, False), lambda b, l: torch.cholesky_solve(b, l))
        f4 = lib.ct_cholesky_inverse
        f4.argtypes = [vp, vp, cb, P]
        run('cholesky_inverse (full L)', lambda: [wellm()], lambda l: one(f4, l, True),
            lambda l: torch.cholesky_inverse(l, upper=True))
        f5 = lib.ct_linalg_lstsq
        f5.argtypes = [vp, vp, vp, ctypes.c_double, ctypes.c_char_p, P, P, P, P]
        run('lstsq', lambda: [rnd(n + 2, n), rnd(n + 2, 2)],
            lambda a, b: one(f5, a, b, math.nan, b'gelsd'),
            lambda a, b: torch.linalg.lstsq(a, b, driver='gelsd').solution)
        f6 = lib.ct_linalg_matrix_exp
        f6.argtypes = [vp, vp, P]
        run('matrix_exp', lambda: [rnd(n, n)], lambda a: one(f6, a),
            lambda a: torch.linalg.matrix_exp(a))
        f7 = lib.ct_linalg_householder_product
        f7.argtypes = [vp, vp, vp, P]
        run('householder_product', lambda: [rnd(n + 1, n), rnd(n - 1)],
            lambda a, t: one(f7, a, t), lambda a, t: torch.linalg.householder_product(a, t))
        f8 = lib.ct_linalg_lu_solve
        f8.argtypes = [vp, vp, vp, vp, cb, cb, P]
        f10 = lib.ct_linalg_lu_factor
        f10.argtypes = [vp, vp, P, P]
        for left, adj in ((True, False), (True, True), (False, False), (False, True)):
            def ct_lus(a, b):
                lu = call(f10, a)
                x = one(f8, lu[0], lu[1], b, left, adj)
                lib.ct_tensor_release(lu[0]), lib.ct_tensor_release(lu[1])
                return x
            run('lu_solve left=%d adjoint=%d' % (left, adj),
                lambda: [wellm(), rnd(n, 2) if left else rnd(2, n)], ct_lus,
                lambda a, b: torch.linalg.lu_solve(*torch.linalg.lu_factor(a), b, left=left,
                                                   adjoint=adj))
        f9 = lib.ct_linalg_cond
        f9.argtypes = [vp, vp, ctypes.c_char_p, P]
        # fro / inf / 1: torch 1.13's backward fails (its masked_fill_ writes into inv_ex's
        # saved output); ctorch differentiates them
        for o in (None, 'nuc', '-2'):
            run('cond %s' % o, lambda: [wellm()], lambda a: one(f9, a, o.encode() if o else None),
                lambda a: torch.linalg.cond(a, -2 if o == '-2' else o))
    for name, e in sorted(worst.items()):
        print('grad %-26s max relative difference %.2e' % (name, e))


if __name__ == '__main__' and '--grad' in sys.argv:
    grads()
