/* Batched symmetric eigensolver kernels (linalg.eigh): declarations shared by the linalg front end
 * and the ref/avx2/avx512 kernel files, plus the lane-batched Jacobi template those files
 * instantiate.
 *
 * Kernel contract (every ISA, f32 and f64):
 *   a     : `batch` contiguous row-major n x n matrices; only the lower (upper == 0) or upper
 *           (upper != 0) triangle is read, the other triangle may hold garbage.
 *   w     : (batch, n) eigenvalues, ascending.
 *   v     : (batch, n, n) eigenvectors as columns, or NULL (eigenvalues only). Each column's
 *           first component of largest magnitude is positive.
 *   info  : (batch) int32 or NULL: 0 converged, CT__EIGH_INFO_NONFINITE if the matrix holds
 *           NaN/Inf (w and v of that matrix are NaN), CT__EIGH_INFO_NOCONV if Jacobi hit the
 *           sweep limit (results are the last iterate).
 * Kernels take raw pointers only (no context, no allocation) so the embedded runtime can link
 * them; they are single-threaded, the front end splits the batch over threads. 1 <= n <=
 * CT__EIGH_JACOBI_MAX_N. One matrix per SIMD lane: results of a matrix do not depend on which
 * other matrices share its vector. */
#ifndef CTORCH_EIGH_KERNELS_H
#define CTORCH_EIGH_KERNELS_H

#include <stdint.h>

#define CT__EIGH_JACOBI_MAX_N 32
#define CT__EIGH_INFO_NONFINITE 1
#define CT__EIGH_INFO_NOCONV 2

#define CT__EIGH_KERNEL_DECL(name, T)                                                              \
    void name(int64_t batch, int n, const T *a, int upper, T *w, T *v, int32_t *info)

typedef void (*ct__eigh_f32_fn)(int64_t batch, int n, const float *a, int upper, float *w,
                                float *v, int32_t *info);
typedef void (*ct__eigh_f64_fn)(int64_t batch, int n, const double *a, int upper, double *w,
                                double *v, int32_t *info);

CT__EIGH_KERNEL_DECL(ct__eigh_jacobi_f32_ref, float);
CT__EIGH_KERNEL_DECL(ct__eigh_jacobi_f64_ref, double);
CT__EIGH_KERNEL_DECL(ct__eigh_jacobi_f32_avx2, float);
CT__EIGH_KERNEL_DECL(ct__eigh_jacobi_f64_avx2, double);
CT__EIGH_KERNEL_DECL(ct__eigh_jacobi_f32_avx512, float);
CT__EIGH_KERNEL_DECL(ct__eigh_jacobi_f64_avx512, double);

#endif /* CTORCH_EIGH_KERNELS_H */

/* ------------------------------------------------------------------------------------------------
 * Lane-batched cyclic Jacobi template. A kernel file defines, then includes this header with
 * CT__EIGH_TMPL defined:
 *   ELT (float/double), VT (vector of LANES ELTs), MT (lane mask), LANES, TN(x) (name mangler),
 *   CT__EIGH_ENTRY (exported function name), and the V_* / M_* operations below.
 * Algorithm (per lane = per matrix):
 *   1. read the used triangle, mirror it, flag non-finite matrices (zeroed, NaN results), scale by
 *      a power of two so max|a_ij| is in [1,2) (exact; avoids over/underflow of squares);
 *   2. sweeps of Jacobi rotations in round-robin order: each round rotates n/2 disjoint pairs,
 *      whose parameters are independent (instruction-level parallelism). A rotation is masked
 *      to the identity in lanes where |a_pq| <= u*sqrt|a_pp a_qq| or |a_pq| <= tiny, so each
 *      lane stops on its own; the loop ends when no lane has a pair above threshold;
 *   3. odd-even transposition sort of the eigenvalues (stable), moving vector columns along;
 *      sign fix; undo the scaling; store.
 * ---------------------------------------------------------------------------------------------- */
#ifdef CT__EIGH_TMPL

#ifndef CT__EIGH_MAX_SWEEPS
#define CT__EIGH_MAX_SWEEPS 40
#endif

/* Rotation parameters for one pair in every lane: t = tan, c = cos, s = sin; identity where the
 * lane's mask is off. d = a_qq - a_pp, t = sign(d) 2 a_pq / (|d| + sqrt(d^2 + 4 a_pq^2)). */
static inline __attribute__((always_inline)) MT TN(rot)(VT app, VT aqq, VT apq, VT *t_,
                                                         VT *tau_, VT *s_) {
    const VT one = V_SET1((ELT)1);
    VT b2 = V_ADD(apq, apq);
    VT bb = V_MUL(apq, apq);
    MT need = M_AND(M_GT(bb, V_SET1(EIGH_TINY2)), M_GT(bb, V_MUL(V_SET1(EIGH_U2), V_ABS(V_MUL(app, aqq)))));
    VT d = V_SUB(aqq, app);
    VT r = V_FMA(d, d, V_MUL(b2, b2));
    VT sq = V_MUL(r, V_RSQRT(r));
    VT den = V_ADD(V_ABS(d), sq);
    VT t = V_MUL(V_XOR(b2, V_SIGN(d)), V_RCP(den));
    t = V_SEL(need, V_ZERO(), t);
    VT c = V_RSQRT(V_FMA(t, t, one));
    c = V_SEL(need, one, c);
    VT s = V_MUL(t, c);
    *t_ = t;
    /* tau = tan(theta/2) = s / (1 + c): updates are written x - s (y + tau x), a small
     * correction to x, which keeps V closer to orthogonal than c x - s y. */
    *tau_ = V_MUL(s, V_RCP(V_ADD(one, c)));
    *s_ = s;
    return need;
}

/* Pair k of round r in the circle (round-robin) schedule over m = n rounded up to even players;
 * returns 0 for a pair with the dummy player (odd n). */
static inline __attribute__((always_inline)) int TN(pair)(int n, int m, int r, int k, int *p,
                                                         int *q) {
    int x, y;
    if (k == 0) {
        x = r;
        y = m - 1;
    } else {
        x = (r + k) % (m - 1);
        y = (r - k + m - 1) % (m - 1);
    }
    if (x > y) {
        int tmp = x;
        x = y;
        y = tmp;
    }
    *p = x;
    *q = y;
    return y < n;
}

/* Core for G groups of LANES lanes. A, V: [G][n][n] (A full symmetric). Leaves eigen-pairs in
 * diag(A) and V's columns (unsorted); notconv[g] = lanes that still had a pair above threshold. */
static inline __attribute__((always_inline)) void TN(solve)(const int n, const int G, VT *A,
                                                           VT *V, MT *notconv) {
    const int m = n + (n & 1);
    for (int g = 0; g < G; g++)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) V[(g * n + i) * n + j] = V_SET1((ELT)(i == j));
    for (int sweep = 0;; sweep++) {
        int any = 0;
        for (int g = 0; g < G; g++) {
            MT act = M_NONE();
            VT *Ag = A + g * n * n;
            for (int p = 0; p < n; p++)
                for (int q = p + 1; q < n; q++) {
                    VT t, c, s;
                    act = M_OR(act, TN(rot)(Ag[p * n + p], Ag[q * n + q], Ag[p * n + q], &t, &c, &s));
                }
            notconv[g] = act;
            any |= M_ANY(act);
        }
        if (!any || sweep == CT__EIGH_MAX_SWEEPS) break;
        for (int r = 0; r < m - 1; r++) {
            /* this round's disjoint pairs (P[k], Q[k]); for odd n one index sits out */
            int P[CT__EIGH_JACOBI_MAX_N / 2], Q[CT__EIGH_JACOBI_MAX_N / 2], np = 0, single = -1;
            for (int k = 0; k < m / 2; k++) {
                int p, q;
                if (TN(pair)(n, m, r, k, &p, &q)) {
                    P[np] = p;
                    Q[np] = q;
                    np++;
                } else {
                    single = p;
                }
            }
            for (int g = 0; g < G; g++) {
                VT *Ag = A + g * n * n, *Vg = V + g * n * n;
                VT T[CT__EIGH_JACOBI_MAX_N / 2], U[CT__EIGH_JACOBI_MAX_N / 2],
                    S[CT__EIGH_JACOBI_MAX_N / 2], APQ[CT__EIGH_JACOBI_MAX_N / 2];
                for (int k = 0; k < np; k++) {
                    const int p = P[k], q = Q[k];
                    VT app = Ag[p * n + p], aqq = Ag[q * n + q];
                    APQ[k] = Ag[p * n + q];
                    TN(rot)(app, aqq, APQ[k], &T[k], &U[k], &S[k]);
                    /* the rotated 2x2 block takes its exact values */
                    VT ta = V_MUL(T[k], APQ[k]);
                    Ag[p * n + p] = V_SUB(app, ta);
                    Ag[q * n + q] = V_ADD(aqq, ta);
                }
                /* A <- J^T A J block by block: the 2x2 block (rows of pair k, columns of pair l)
                 * is rotated on the left by k and on the right by l, then mirrored. U = tau:
                 * x' = x - s (y + tau x), y' = y + s (x - tau y), the identity when s = 0. */
                for (int k = 0; k < np; k++) {
                    const int pk = P[k], qk = Q[k];
                    const VT sk = S[k], uk = U[k];
                    for (int l = k + 1; l < np; l++) {
                        const int pl = P[l], ql = Q[l];
                        const VT sl = S[l], ul = U[l];
                        VT x11 = Ag[pk * n + pl], x12 = Ag[pk * n + ql];
                        VT x21 = Ag[qk * n + pl], x22 = Ag[qk * n + ql];
                        VT y11 = V_FNMA(sk, V_FMA(uk, x11, x21), x11);
                        VT y21 = V_FMA(sk, V_FNMA(uk, x21, x11), x21);
                        VT y12 = V_FNMA(sk, V_FMA(uk, x12, x22), x12);
                        VT y22 = V_FMA(sk, V_FNMA(uk, x22, x12), x22);
                        x11 = V_FNMA(sl, V_FMA(ul, y11, y12), y11);
                        x12 = V_FMA(sl, V_FNMA(ul, y12, y11), y12);
                        x21 = V_FNMA(sl, V_FMA(ul, y21, y22), y21);
                        x22 = V_FMA(sl, V_FNMA(ul, y22, y21), y22);
                        Ag[pk * n + pl] = x11;
                        Ag[pl * n + pk] = x11;
                        Ag[pk * n + ql] = x12;
                        Ag[ql * n + pk] = x12;
                        Ag[qk * n + pl] = x21;
                        Ag[pl * n + qk] = x21;
                        Ag[qk * n + ql] = x22;
                        Ag[ql * n + qk] = x22;
                    }
                    if (single >= 0) {
                        const int x = single;
                        VT a1 = Ag[pk * n + x], a2 = Ag[qk * n + x];
                        VT b1 = V_FNMA(sk, V_FMA(uk, a1, a2), a1);
                        VT b2 = V_FMA(sk, V_FNMA(uk, a2, a1), a2);
                        Ag[pk * n + x] = b1;
                        Ag[x * n + pk] = b1;
                        Ag[qk * n + x] = b2;
                        Ag[x * n + qk] = b2;
                    }
                    VT z = V_SEL(M_GT(V_ABS(T[k]), V_ZERO()), APQ[k], V_ZERO());
                    Ag[pk * n + qk] = z;
                    Ag[qk * n + pk] = z;
                    for (int j = 0; j < n; j++) {
                        VT x = Vg[j * n + pk], y = Vg[j * n + qk];
                        Vg[j * n + pk] = V_FNMA(sk, V_FMA(uk, x, y), x);
                        Vg[j * n + qk] = V_FMA(sk, V_FNMA(uk, y, x), y);
                    }
                }
            }
        }
    }
}

/* Sort eigenvalues ascending (stable odd-even transposition sort), moving V's columns, then make
 * each column's first largest-magnitude component positive. W: [n], V: [n][n] of one group. */
static inline __attribute__((always_inline)) void TN(sortfix)(const int n, VT *W, VT *V,
                                                             int want_v) {
    for (int round = 0; round < n; round++)
        for (int i = round & 1; i + 1 < n; i += 2) {
            MT sw = M_GT(W[i], W[i + 1]);
            VT lo = V_SEL(sw, W[i], W[i + 1]), hi = V_SEL(sw, W[i + 1], W[i]);
            W[i] = lo;
            W[i + 1] = hi;
            if (want_v)
                for (int k = 0; k < n; k++) {
                    VT x = V[k * n + i], y = V[k * n + i + 1];
                    V[k * n + i] = V_SEL(sw, x, y);
                    V[k * n + i + 1] = V_SEL(sw, y, x);
                }
        }
    if (!want_v) return;
    for (int j = 0; j < n; j++) {
        VT best = V_ABS(V[j]), sg = V_SIGN(V[j]);
        for (int k = 1; k < n; k++) {
            VT x = V[k * n + j];
            MT gt = M_GT(V_ABS(x), best);
            best = V_SEL(gt, best, V_ABS(x));
            sg = V_SEL(gt, sg, V_SIGN(x));
        }
        for (int k = 0; k < n; k++) V[k * n + j] = V_XOR(V[k * n + j], sg);
    }
}

/* Full block: G groups of LANES matrices (nmat <= G*LANES of them valid) from a to w/v/info. */
static inline __attribute__((always_inline)) void
TN(block)(const int n, const int G, VT *A, VT *V, const ELT *a, int64_t nmat, int upper, ELT *w,
          ELT *v, int32_t *info) {
    MT bad[4], notconv[4];
    VT usc[4];
    const int64_t nn = (int64_t)n * n;
    for (int g = 0; g < G; g++) {
        VT *Ag = A + g * n * n;
        int64_t base = (int64_t)g * LANES;
        int nl = nmat - base < LANES ? (int)(nmat - base) : LANES;
        if (nl < 0) nl = 0;
        VT mx = V_ZERO();
        MT b = M_NONE();
        for (int i = 0; i < n; i++)
            for (int j = 0; j <= i; j++) {
                VT x;
                int64_t off = upper ? (int64_t)j * n + i : (int64_t)i * n + j;
                if (nl == LANES)
                    x = V_GATHER(a + base * nn + off, nn);
                else {
                    ELT tmp[LANES] __attribute__((aligned(64)));
                    for (int l = 0; l < LANES; l++) tmp[l] = l < nl ? a[(base + l) * nn + off] : 0;
                    x = V_LOAD(tmp);
                }
                b = M_OR(b, M_NOTFINITE(x));
                mx = V_MAX(mx, V_ABS(x));
                Ag[i * n + j] = x;
            }
        VT sc;
        V_EXPSCALE(mx, &sc, &usc[g]);
        for (int i = 0; i < n; i++)
            for (int j = 0; j <= i; j++) {
                VT x = V_SEL(b, V_MUL(Ag[i * n + j], sc), V_ZERO());
                Ag[i * n + j] = x;
                Ag[j * n + i] = x;
            }
        bad[g] = b;
    }
    TN(solve)(n, G, A, V, notconv);
    for (int g = 0; g < G; g++) {
        VT *Ag = A + g * n * n, *Vg = V + g * n * n;
        VT W[CT__EIGH_JACOBI_MAX_N];
        for (int i = 0; i < n; i++) W[i] = Ag[i * n + i];
        TN(sortfix)(n, W, Vg, v != 0);
        const VT nan = V_SET1((ELT)NAN);
        for (int i = 0; i < n; i++) W[i] = V_SEL(bad[g], V_MUL(W[i], usc[g]), nan);
        int64_t base = (int64_t)g * LANES;
        int nl = nmat - base < LANES ? (int)(nmat - base) : LANES;
        if (nl <= 0) continue;
        ELT tmp[LANES] __attribute__((aligned(64)));
        for (int i = 0; i < n; i++) {
            V_STORE(tmp, W[i]);
            for (int l = 0; l < nl; l++) w[(base + l) * n + i] = tmp[l];
        }
        if (v)
            for (int k = 0; k < nn; k++) {
                V_STORE(tmp, V_SEL(bad[g], Vg[k], nan));
                for (int l = 0; l < nl; l++) v[(base + l) * nn + k] = tmp[l];
            }
        if (info) {
            int32_t ti[LANES];
            M_TOINFO(bad[g], notconv[g], ti);
            for (int l = 0; l < nl; l++) info[base + l] = ti[l];
        }
    }
}

#define CT__EIGH_INST(N, G)                                                                        \
    static void TN(blk##N)(const ELT *a, int64_t nmat, int upper, ELT *w, ELT *v,                  \
                           int32_t *info) {                                                         \
        VT A[(G) * (N) * (N)], V[(G) * (N) * (N)];                                                  \
        TN(block)(N, G, A, V, a, nmat, upper, w, v, info);                                         \
    }
CT__EIGH_INST(2, 2)
CT__EIGH_INST(3, 2)
CT__EIGH_INST(4, 2)
#undef CT__EIGH_INST

static void TN(blkn)(int n, const ELT *a, int64_t nmat, int upper, ELT *w, ELT *v,
                     int32_t *info) {
    VT A[CT__EIGH_JACOBI_MAX_N * CT__EIGH_JACOBI_MAX_N];
    VT V[CT__EIGH_JACOBI_MAX_N * CT__EIGH_JACOBI_MAX_N];
    TN(block)(n, 1, A, V, a, nmat, upper, w, v, info);
}


#ifdef CT__EIGH_N3
/* ---- specialised n = 3: lower triangle in 6 registers, V in 9, G independent groups in flight
 * (the rotation is a long serial chain; interleaving groups hides its latency). The ISA file
 * provides V_N3_LOAD(ptr, upper, a6) / V_N3_STORE(ptr, n, x, k) for full groups (in-register
 * transposes) and EIGH_TINY (added under the square root so an inactive lane never divides 0/0).
 * A lane is active in a sweep iff one of its pairs is above threshold at the sweep's start;
 * inactive lanes rotate by exactly the identity (b = 0 gives s = 0, c forced to 1). ---- */
static inline __attribute__((always_inline)) MT TN(n3need)(VT app, VT aqq, VT apq) {
    VT bb = V_MUL(apq, apq);
    return M_AND(M_GT(bb, V_SET1(EIGH_TINY2)),
                 M_GT(bb, V_MUL(V_SET1(EIGH_U2), V_ABS(V_MUL(app, aqq)))));
}

/* One rotation of pair (p,q) with the third index r: A entries app, aqq, apq, arp, arq; V columns
 * vp, vq (3 rows each). */
static inline __attribute__((always_inline)) void TN(n3rot)(MT act, VT *app, VT *aqq, VT *apq,
                                                           VT *arp, VT *arq, VT *vp, VT *vq,
                                                           int want_v) {
    const VT one = V_SET1((ELT)1);
    VT b = V_SEL(act, V_ZERO(), *apq);
    VT d = V_SUB(*aqq, *app);
    VT b2 = V_ADD(b, b);
    VT b22 = V_MUL(b2, b2);
    VT r = V_FMA(d, d, V_ADD(b22, V_SET1(EIGH_TINY)));
    VT den = V_FMA(r, V_RSQRT(r), V_ABS(d));
    VT sb = V_XOR(b2, V_SIGN(d));
    VT g = V_RSQRT(V_FMA(den, den, b22));
    VT t = V_MUL(sb, V_RCP(den));
    VT c = V_SEL(act, one, V_MUL(den, g));
    VT s = V_MUL(sb, g);
    VT tb = V_MUL(t, b);
    *app = V_SUB(*app, tb);
    *aqq = V_ADD(*aqq, tb);
    *apq = V_SEL(act, *apq, V_ZERO());
    VT x = *arp, y = *arq;
    *arp = V_FNMA(s, y, V_MUL(c, x));
    *arq = V_FMA(s, x, V_MUL(c, y));
    if (want_v) {
        VT tau = V_MUL(s, V_RCP(V_ADD(one, c)));
        for (int k = 0; k < 3; k++) {
            VT vx = vp[k], vy = vq[k];
            vp[k] = V_FNMA(s, V_FMA(tau, vx, vy), vx);
            vq[k] = V_FMA(s, V_FNMA(tau, vy, vx), vy);
        }
    }
}

/* G groups of LANES 3x3 matrices, all full (no tail), contiguous from a. */
static inline __attribute__((always_inline)) void TN(n3block)(const int G, const ELT *a, int upper,
                                                             ELT *w, ELT *v, int32_t *info) {
    VT A[4][6], V[4][3][3]; /* A: a00 a10 a11 a20 a21 a22; V[g][col][row] */
    MT bad[4], notconv[4];
    VT usc[4];
    for (int g = 0; g < G; g++) {
        V_N3_LOAD(a + (int64_t)g * LANES * 9, upper, A[g]);
        VT mx = V_ZERO();
        MT bd = M_NONE();
        for (int k = 0; k < 6; k++) {
            bd = M_OR(bd, M_NOTFINITE(A[g][k]));
            mx = V_MAX(mx, V_ABS(A[g][k]));
        }
        VT sc;
        V_EXPSCALE(mx, &sc, &usc[g]);
        for (int k = 0; k < 6; k++) A[g][k] = V_SEL(bd, V_MUL(A[g][k], sc), V_ZERO());
        bad[g] = bd;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) V[g][i][j] = V_SET1((ELT)(i == j));
    }
    for (int sweep = 0;; sweep++) {
        int any = 0;
        MT act[4];
        for (int g = 0; g < G; g++) {
            VT *x = A[g];
            act[g] = M_OR(M_OR(TN(n3need)(x[0], x[2], x[1]), TN(n3need)(x[0], x[5], x[3])),
                          TN(n3need)(x[2], x[5], x[4]));
            notconv[g] = act[g];
            any |= M_ANY(act[g]);
        }
        if (!any || sweep == CT__EIGH_MAX_SWEEPS) break;
        for (int g = 0; g < G; g++) {
            VT *x = A[g];
            TN(n3rot)(act[g], &x[0], &x[2], &x[1], &x[3], &x[4], V[g][0], V[g][1], v != 0);
        }
        for (int g = 0; g < G; g++) {
            VT *x = A[g];
            TN(n3rot)(act[g], &x[0], &x[5], &x[3], &x[1], &x[4], V[g][0], V[g][2], v != 0);
        }
        for (int g = 0; g < G; g++) {
            VT *x = A[g];
            TN(n3rot)(act[g], &x[2], &x[5], &x[4], &x[1], &x[3], V[g][1], V[g][2], v != 0);
        }
    }
    const VT nan = V_SET1((ELT)NAN);
    for (int g = 0; g < G; g++) {
        VT W[3] = {A[g][0], A[g][2], A[g][5]};
        VT (*C)[3] = V[g];
        /* sorting network (0,1) (1,2) (0,1), stable: swap only on strict > */
        static const int ce[3][2] = {{0, 1}, {1, 2}, {0, 1}};
        for (int e = 0; e < 3; e++) {
            int i = ce[e][0], j = ce[e][1];
            MT sw = M_GT(W[i], W[j]);
            VT lo = V_SEL(sw, W[i], W[j]), hi = V_SEL(sw, W[j], W[i]);
            W[i] = lo;
            W[j] = hi;
            if (v)
                for (int k = 0; k < 3; k++) {
                    VT x = C[i][k], y = C[j][k];
                    C[i][k] = V_SEL(sw, x, y);
                    C[j][k] = V_SEL(sw, y, x);
                }
        }
        for (int i = 0; i < 3; i++) W[i] = V_SEL(bad[g], V_MUL(W[i], usc[g]), nan);
        V_N3_STORE(w + (int64_t)g * LANES * 3, 1, W, 3);
        if (v) {
            VT out[9];
            for (int j = 0; j < 3; j++) {
                VT best = V_ABS(C[j][0]), sg = V_SIGN(C[j][0]);
                for (int k = 1; k < 3; k++) {
                    MT gt = M_GT(V_ABS(C[j][k]), best);
                    best = V_SEL(gt, best, V_ABS(C[j][k]));
                    sg = V_SEL(gt, sg, V_SIGN(C[j][k]));
                }
                for (int k = 0; k < 3; k++) out[k * 3 + j] = V_SEL(bad[g], V_XOR(C[j][k], sg), nan);
            }
            V_N3_STORE(v + (int64_t)g * LANES * 9, 3, out, 9);
        }
        if (info) {
            int32_t ti[LANES];
            M_TOINFO(bad[g], notconv[g], ti);
            for (int l = 0; l < LANES; l++) info[(int64_t)g * LANES + l] = ti[l];
        }
    }
}
#define CT__EIGH_N3_G 2
static void TN(n3blk)(const ELT *a, int upper, ELT *w, ELT *v, int32_t *info) {
    TN(n3block)(CT__EIGH_N3_G, a, upper, w, v, info);
}
static void TN(n3blk1)(const ELT *a, int upper, ELT *w, ELT *v, int32_t *info) {
    TN(n3block)(1, a, upper, w, v, info);
}
#endif /* CT__EIGH_N3 */

void CT__EIGH_ENTRY(int64_t batch, int n, const ELT *a, int upper, ELT *w, ELT *v,
                    int32_t *info) {
    if (n <= 0 || batch <= 0) return;
    const int64_t nn = (int64_t)n * n;
    if (n == 1) {
        for (int64_t b = 0; b < batch; b++) {
            ELT x = a[b];
            int fin = (x - x) == (x - x);
            w[b] = fin ? x : (ELT)NAN;
            if (v) v[b] = fin ? (ELT)1 : (ELT)NAN;
            if (info) info[b] = fin ? 0 : CT__EIGH_INFO_NONFINITE;
        }
        return;
    }
    int G = n <= 4 ? 2 : 1;
    int64_t step = (int64_t)G * LANES;
    int64_t b0 = 0;
#ifdef CT__EIGH_N3
    if (n == 3) {
        for (; b0 + (int64_t)CT__EIGH_N3_G * LANES <= batch; b0 += (int64_t)CT__EIGH_N3_G * LANES)
            TN(n3blk)(a + b0 * 9, upper, w + b0 * 3, v ? v + b0 * 9 : 0, info ? info + b0 : 0);
        for (; b0 + LANES <= batch; b0 += LANES)
            TN(n3blk1)(a + b0 * 9, upper, w + b0 * 3, v ? v + b0 * 9 : 0, info ? info + b0 : 0);
        if (b0 < batch) {
            /* tail: pad with zero matrices so every matrix takes the same code path (results
             * never depend on the batch size or position) */
            ELT ta[LANES * 9] = {0}, tw[LANES * 3], tv[LANES * 9];
            int32_t ti[LANES];
            int64_t nm = batch - b0;
            for (int64_t k = 0; k < nm * 9; k++) ta[k] = a[b0 * 9 + k];
            TN(n3blk1)(ta, upper, tw, v ? tv : 0, ti);
            for (int64_t k = 0; k < nm * 3; k++) w[b0 * 3 + k] = tw[k];
            if (v)
                for (int64_t k = 0; k < nm * 9; k++) v[b0 * 9 + k] = tv[k];
            if (info)
                for (int64_t k = 0; k < nm; k++) info[b0 + k] = ti[k];
        }
        return;
    }
#endif
    for (; b0 < batch; b0 += step) {
        int64_t nm = batch - b0 < step ? batch - b0 : step;
        const ELT *ab = a + b0 * nn;
        ELT *wb = w + b0 * n, *vb = v ? v + b0 * nn : 0;
        int32_t *ib = info ? info + b0 : 0;
        switch (n) {
        case 2: TN(blk2)(ab, nm, upper, wb, vb, ib); break;
        case 3: TN(blk3)(ab, nm, upper, wb, vb, ib); break;
        case 4: TN(blk4)(ab, nm, upper, wb, vb, ib); break;
        default: TN(blkn)(n, ab, nm, upper, wb, vb, ib); break;
        }
    }
}

#endif /* CT__EIGH_TMPL */
