#!/usr/bin/env python3
"""torch 1.13's answers for tests/test_complex_linalg2.c: the linear algebra of complex matrices
beyond the first set (solve_triangular / triangular_solve, lu_factor / lu / lu_unpack / lu_solve,
inv_ex / solve_ex, lstsq with each driver, cholesky_solve / cholesky_inverse, ldl_factor /
ldl_solve (symmetric and Hermitian), matrix_rank, cond, matrix_norm, nuclear_norm, vecdot,
vander, renorm, householder_product), complex64 and complex128, batched; gradients (svd's too) against torch's backward.

    /usr/bin/python3 scripts/gen_complex_linalg2_ref.py > tests/data/complex_linalg2_ref.h
"""
import math
import warnings

import torch

warnings.filterwarnings("ignore")
torch.manual_seed(7)
DT = {torch.float32: 0, torch.float64: 1, torch.complex64: 2, torch.complex128: 3, torch.int32: 4,
      torch.int64: 5}
pool = []
cases = []


def num(x):
    if math.isnan(x):
        return "NAN"
    if math.isinf(x):
        return "INFINITY" if x > 0 else "-INFINITY"
    return repr(float(x))


def put(t):
    t = t.detach().contiguous()
    off = len(pool)
    if t.is_complex():
        for z in t.reshape(-1).tolist():
            pool.extend([z.real, z.imag])
    else:
        pool.extend(float(v) for v in t.reshape(-1).tolist())
    shape = list(t.shape)
    assert len(shape) <= 4
    return "{%d, %d, {%s}, %d}" % (DT[t.dtype], len(shape),
                                   ", ".join(str(s) for s in shape + [0] * (4 - len(shape))), off)


def case(op, ins, outs, iv=(), dv=(), sv=""):
    iv = list(iv) + [0] * (4 - len(iv))
    dv = list(dv) + [0.0] * (2 - len(dv))
    z = "{0, 0, {0, 0, 0, 0}, 0}"
    ti = [put(t) for t in ins] + [z] * (4 - len(ins))
    to = [put(t) for t in outs] + [z] * (4 - len(outs))
    cases.append("    {\"%s\", {%s}, {%s}, \"%s\", %d, {%s}, %d, {%s}}" % (
        op, ", ".join(str(int(i)) for i in iv), ", ".join(num(d) for d in dv), sv, len(ins),
        ", ".join(ti), len(outs), ", ".join(to)))


def crandn(*shape, dt=torch.complex128):
    return torch.randn(*shape, dtype=dt)


for dt in (torch.complex64, torch.complex128):
    # triangular solves: each side, triangle and unit flag, batched B broadcast against A
    A = crandn(2, 4, 4, dt=dt) + 4 * torch.eye(4, dtype=dt)
    for upper in (False, True):
        for left in (True, False):
            for unit in (False, True):
                B = crandn(2, 4, 3, dt=dt) if left else crandn(2, 3, 4, dt=dt)
                X = torch.linalg.solve_triangular(A, B, upper=upper, left=left,
                                                  unitriangular=unit)
                case("solve_triangular", [A, B], [X], [upper, left, unit])
    for tr in (False, True):
        B = crandn(2, 4, 2, dt=dt)
        X = torch.triangular_solve(B, A, upper=True, transpose=tr)
        case("triangular_solve", [B, A], [X.solution, X.cloned_coefficient], [1, tr])
    # LU: square, tall and wide, batched; unpack, solve with every (left, adjoint)
    for shape in ((3, 4, 4), (5, 3), (3, 5)):
        M = crandn(*shape, dt=dt)
        LU, piv = torch.linalg.lu_factor(M)
        case("lu_factor", [M], [LU, piv])
        P, L, U = torch.linalg.lu(M)
        case("lu", [M], [P, L, U])
        P2, L2, U2 = torch.lu_unpack(LU, piv)
        case("lu_unpack", [LU, piv], [P2, L2, U2])
    M = crandn(3, 4, 4, dt=dt)
    LU, piv = torch.linalg.lu_factor(M)
    for left in (True, False):
        for adj in (False, True):
            B = crandn(3, 4, 2, dt=dt) if left else crandn(3, 2, 4, dt=dt)
            case("lu_solve", [LU, piv, B], [torch.linalg.lu_solve(LU, piv, B, left=left,
                                                                  adjoint=adj)], [left, adj])
    B = crandn(3, 4, 2, dt=dt)
    case("lu_solve_old", [B, LU, piv], [torch.lu_solve(B, LU, piv)])
    # inv_ex / solve_ex, one singular matrix in the batch (info > 0, torch's values)
    M = crandn(3, 3, 3, dt=dt)
    inv, info = torch.linalg.inv_ex(M)
    case("inv_ex", [M], [inv, info])
    Ms = M.clone()
    Ms[1] = 0
    Ms[1, 0, 0] = 1
    inv, info = torch.linalg.inv_ex(Ms)
    case("inv_ex_info", [Ms], [info])
    B = crandn(3, 3, 2, dt=dt)
    X, info = torch.linalg.solve_ex(M, B)
    case("solve_ex", [M, B], [X, info])
    # least squares: tall (residuals), wide, each driver
    for shape, q in (((2, 6, 3), 2), ((2, 3, 5), 2), ((4, 4), 1)):
        Am = crandn(*shape, dt=dt)
        Bm = crandn(*shape[:-1], q, dt=dt)
        for d, drv in enumerate(("gels", "gelsy", "gelsd", "gelss")):
            if drv == "gels" and shape[-2] < shape[-1]:
                continue  # gels needs full rank; wide is fine, but torch's gels path differs
            r = torch.linalg.lstsq(Am, Bm, driver=drv)
            outs = [r.solution, r.residuals, r.rank, r.singular_values]
            case("lstsq", [Am, Bm], outs, [d])
    # Hermitian positive definite: cholesky_solve / cholesky_inverse, both triangles
    G = crandn(2, 4, 4, dt=dt)
    H = G @ G.mH + 4 * torch.eye(4, dtype=dt)
    for upper in (False, True):
        Lc = torch.linalg.cholesky(H, upper=upper)
        B = crandn(2, 4, 3, dt=dt)
        case("cholesky_solve", [B, Lc], [torch.cholesky_solve(B, Lc, upper=upper)], [upper])
        case("cholesky_inverse", [Lc[0]], [torch.cholesky_inverse(Lc[0], upper=upper)], [upper])
    # LDL: complex symmetric (sytrf) and Hermitian (hetrf), then ldl_solve
    S = crandn(2, 4, 4, dt=dt)
    S = S + S.mT
    Hh = crandn(2, 4, 4, dt=dt)
    Hh = Hh + Hh.mH
    for herm, Mx in ((False, S), (True, Hh)):
        LD, pv = torch.linalg.ldl_factor(Mx, hermitian=herm)
        case("ldl_factor", [Mx], [LD, pv], [herm])
        B = crandn(2, 4, 2, dt=dt)
        case("ldl_solve", [LD, pv, B], [torch.linalg.ldl_solve(LD, pv, B, hermitian=herm)], [herm])
    # rank, cond, norms
    R = crandn(3, 5, 2, dt=dt) @ crandn(3, 2, 4, dt=dt)  # rank 2
    case("matrix_rank", [R], [torch.linalg.matrix_rank(R)], [0])
    Rh = R[:, :4, :4] @ R[:, :4, :4].mH
    case("matrix_rank", [Rh], [torch.linalg.matrix_rank(Rh, hermitian=True)], [1])
    case("matrix_rank_tol", [R], [torch.linalg.matrix_rank(R, atol=1.0, rtol=0.0)], [0],
         [1.0, 0.0])
    C = crandn(2, 4, 4, dt=dt)
    for o in (None, "fro", "nuc", "inf", "-inf", "1", "-1", "2", "-2"):
        ordv = o if o in (None, "fro", "nuc") else float(o)
        case("cond", [C], [torch.linalg.cond(C, ordv)], sv=o or "")
    for o in ("fro", "nuc", "inf", "-inf", "1", "-1", "2", "-2"):
        ordv = o if o in ("fro", "nuc") else float(o)
        case("matrix_norm", [C], [torch.linalg.matrix_norm(C, ordv)], sv=o)
    case("matrix_norm_dims", [C], [torch.linalg.matrix_norm(C, "fro", dim=(0, 2), keepdim=True)],
         sv="fro")
    case("nuclear_norm", [C[0]], [torch.nuclear_norm(C[0])])
    x, y = crandn(3, 5, dt=dt), crandn(3, 5, dt=dt)
    case("vecdot", [x, y], [torch.linalg.vecdot(x, y, dim=-1)], [-1])
    case("vecdot", [x, y], [torch.linalg.vecdot(x, y, dim=0)], [0])
    v = crandn(2, 4, dt=dt)
    case("vander", [v], [torch.linalg.vander(v)], [-1])
    case("vander", [v], [torch.linalg.vander(v, N=6)], [6])
    Rn = crandn(3, 4, 2, dt=dt)
    case("renorm", [Rn], [torch.renorm(Rn, 2, 0, 1.5)], [0], [2.0, 1.5])
    case("renorm", [Rn], [torch.renorm(Rn, 1, 2, 2.0)], [2], [1.0, 2.0])
    # householder_product from geqrf's reflectors
    Q0 = crandn(2, 5, 3, dt=dt)
    ref, tau = torch.geqrf(Q0)
    case("householder_product", [ref, tau], [torch.linalg.householder_product(ref, tau)])
    case("householder_product", [ref[..., :2], tau[..., :2]],
         [torch.linalg.householder_product(ref[..., :2], tau[..., :2])])
    # geqrf (LAPACK's compact form, as torch) and ormqr (left / right, with / without transpose)
    for shape in ((2, 5, 3), (3, 5), (4, 4), (2, 0, 3)):
        Mg = crandn(*shape, dt=dt)
        g_a, g_t = torch.geqrf(Mg)
        case("geqrf", [Mg], [g_a, g_t])
    Mg = crandn(2, 5, 3, dt=dt)
    g_a, g_t = torch.geqrf(Mg)
    for left in (True, False):
        for tr in (False, True):
            Ot = crandn(2, 5, 2, dt=dt) if left else crandn(2, 2, 5, dt=dt)
            case("ormqr", [g_a, g_t, Ot], [torch.ormqr(g_a, g_t, Ot, left=left, transpose=tr)],
                 [left, tr])
    Ot = crandn(2, 5, 2, dt=dt)
    case("ormqr", [g_a, g_t[..., :2], Ot], [torch.ormqr(g_a, g_t[..., :2], Ot)], [1, 0])



def gcase(op, fn, ins, diff, iv=(), dv=(), sv=""):
    """gradients: fn(*ins) -> one output y; y.backward(w); the grads of the inputs marked in diff
    (the case's inputs are ins + [w], its outputs those grads; iv[3] the mask)"""
    xs = [t.clone().requires_grad_(d) for t, d in zip(ins, diff)]
    y = fn(*xs)
    w = torch.randn(y.shape, dtype=y.dtype)
    y.backward(w)
    case("grad:" + op, ins + [w], [x.grad for x, d in zip(xs, diff) if d],
         (list(iv) + [0] * 3)[:3] + [sum(1 << i for i, d in enumerate(diff) if d)], dv, sv)


for dt in (torch.complex64, torch.complex128):
    A = crandn(2, 4, 4, dt=dt) + 4 * torch.eye(4, dtype=dt)
    for upper, left, unit in ((True, True, False), (False, False, True), (False, True, False)):
        B = crandn(2, 4, 3, dt=dt) if left else crandn(2, 3, 4, dt=dt)
        gcase("solve_triangular", lambda a, b: torch.linalg.solve_triangular(
            a, b, upper=upper, left=left, unitriangular=unit), [A, B], [True, True],
            [upper, left, unit])
    for shape in ((2, 4, 4), (5, 3), (3, 5)):
        M = crandn(*shape, dt=dt)
        gcase("lu_factor", lambda a: torch.linalg.lu_factor(a)[0], [M], [True])
        gcase("lu_L", lambda a: torch.linalg.lu(a)[1], [M], [True])
        gcase("lu_U", lambda a: torch.linalg.lu(a)[2], [M], [True])
    M = crandn(2, 4, 4, dt=dt)
    LU, piv = torch.linalg.lu_factor(M)
    for left, adj in ((True, False), (True, True), (False, True)):
        B = crandn(2, 4, 2, dt=dt) if left else crandn(2, 2, 4, dt=dt)
        gcase("lu_solve", lambda lu, p, b: torch.linalg.lu_solve(lu, p, b, left=left,
                                                                  adjoint=adj),
              [LU, piv, B], [True, False, True], [left, adj])
    G = crandn(2, 4, 4, dt=dt)
    H = G @ G.mH + 4 * torch.eye(4, dtype=dt)
    for upper in (False, True):
        Lc = torch.linalg.cholesky(H, upper=upper)
        B = crandn(2, 4, 3, dt=dt)
        gcase("cholesky_solve", lambda b, l: torch.cholesky_solve(b, l, upper=upper), [B, Lc],
              [True, True], [upper])
        gcase("cholesky_inverse", lambda l: torch.cholesky_inverse(l, upper=upper), [Lc[0]],
              [True], [upper])
    for shape, q in (((2, 6, 3), 2), ((3, 5), 2), ((4, 4), 1)):
        Am = crandn(*shape, dt=dt)
        Bm = crandn(*shape[:-1], q, dt=dt)
        gcase("lstsq", lambda a, b: torch.linalg.lstsq(a, b, driver="gelsd").solution, [Am, Bm],
              [True, True])
    M = crandn(2, 3, 3, dt=dt)
    gcase("inv_ex", lambda a: torch.linalg.inv_ex(a)[0], [M], [True])
    B = crandn(2, 3, 2, dt=dt)
    gcase("solve_ex", lambda a, b: torch.linalg.solve_ex(a, b)[0], [M, B], [True, True])
    Q0 = crandn(2, 5, 3, dt=dt)
    ref, tau = torch.geqrf(Q0)
    gcase("householder_product", torch.linalg.householder_product, [ref, tau], [True, True])
    # ormqr: torch 1.13 has no derivative; the reference differentiates the same product written
    # with householder_product (the complete Q from the reflectors padded with zero tau)
    def ormqr_ref(a_, t_, o_, left=True, tr=False):
        m_ = a_.shape[-2]
        ap = torch.cat([a_[..., :t_.shape[-1]],
                        torch.zeros(*a_.shape[:-1], m_ - t_.shape[-1], dtype=a_.dtype)], -1)
        tp = torch.cat([t_, torch.zeros(*t_.shape[:-1], m_ - t_.shape[-1], dtype=t_.dtype)], -1)
        Q_ = torch.linalg.householder_product(ap, tp)
        Q_ = Q_.mH if tr else Q_
        return Q_ @ o_ if left else o_ @ Q_
    for left, tr in ((True, False), (False, True)):
        Ot = crandn(2, 5, 2, dt=dt) if left else crandn(2, 2, 5, dt=dt)
        gcase("ormqr", lambda a_, t_, o_: ormqr_ref(a_, t_, o_, left, tr), [ref, tau, Ot],
              [True, True, True], [left, tr])
    x, y = crandn(3, 5, dt=dt), crandn(3, 5, dt=dt)
    gcase("vecdot", lambda a, b: torch.linalg.vecdot(a, b, dim=-1), [x, y], [True, True], [-1])
    v = crandn(2, 4, dt=dt)
    gcase("vander", lambda a: torch.linalg.vander(a), [v], [True], [-1])
    Rn = crandn(3, 4, 2, dt=dt)
    gcase("renorm", lambda a: torch.renorm(a, 2, 0, 1.5), [Rn], [True], [0], [2.0, 1.5])
    # through the SVD (gauge-invariant losses: the singular values, U Vh, pinv, the 2- and
    # nuclear norms, cond)
    for shape in ((2, 4, 4), (5, 3), (3, 5)):
        M = crandn(*shape, dt=dt)
        gcase("svd_S", lambda a: torch.linalg.svd(a, full_matrices=False)[1], [M], [True])
        gcase("svd_UVh", lambda a: (lambda r: r[0] @ r[2])(torch.linalg.svd(a, full_matrices=False)),
              [M], [True])
        gcase("svdvals", torch.linalg.svdvals, [M], [True])
        gcase("pinv", torch.linalg.pinv, [M], [True])
        gcase("qr_Q", lambda a: torch.linalg.qr(a)[0], [M], [True])
        gcase("qr_R", lambda a: torch.linalg.qr(a)[1], [M], [True])
    # eig (general matrices, real and complex input): eigenvalues and |V| (phase-invariant)
    for M in (crandn(2, 4, 4, dt=dt), torch.randn(2, 4, 4, dtype=torch.float64 if dt ==
                                                   torch.complex128 else torch.float32)):
        gcase("eigvals", torch.linalg.eigvals, [M], [True])
        gcase("eig_L", lambda a: torch.linalg.eig(a)[0], [M], [True])
        gcase("eig_absV", lambda a: torch.linalg.eig(a)[1].abs(), [M], [True])
    Ms = crandn(2, 3, 3, dt=dt)
    gcase("slogdet_sign", lambda a: torch.linalg.slogdet(a)[0], [Ms], [True])
    gcase("slogdet_logabs", lambda a: torch.linalg.slogdet(a)[1], [Ms], [True])
    C = crandn(2, 4, 4, dt=dt)
    for o in ("2", "nuc"):
        ordv = o if o == "nuc" else float(o)
        gcase("matrix_norm", lambda a: torch.linalg.matrix_norm(a, ordv), [C], [True], sv=o)
    gcase("cond", lambda a: torch.linalg.cond(a), [C], [True])
    for o in ("fro", "1", "inf"):
        ordv = o if o == "fro" else float(o)
        gcase("matrix_norm", lambda a: torch.linalg.matrix_norm(a, ordv), [C], [True], sv=o)

print("/* Generated by scripts/gen_complex_linalg2_ref.py (torch %s): do not edit. */"
      % torch.__version__)
print("#include <math.h>\n#include <stdint.h>")
print("/* dt: 0 float32, 1 float64, 2 complex64, 3 complex128, 4 int32, 5 int64; off into "
      "cl2_pool\n * (complex values as pairs) */")
print("typedef struct {\n    int dt, nd;\n    int64_t shape[4];\n    int64_t off;\n} cl2_t;")
print("typedef struct {\n    const char *op;\n    int iv[4];\n    double dv[2];\n    const char *sv;"
      "\n    int n_in;\n    cl2_t in[4];\n    int n_out;\n    cl2_t out[4];\n} cl2_case;")
print("static const double cl2_pool[] = {")
for i in range(0, len(pool), 6):
    print("    " + ", ".join(num(v) for v in pool[i:i + 6]) + ",")
print("};")
print("static const cl2_case cl2_cases[] = {")
print(",\n".join(cases))
print("};")
