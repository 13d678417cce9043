/* Batched symmetric eigensolver kernels (linalg.eigh): declarations shared by the linalg front end
 * and the ref/avx2/avx512 kernel files, plus the lane-batched template those files instantiate
 * (cyclic Jacobi for n <= 4, Householder tridiagonalisation + implicit QR for n >= 5).
 *
 * Kernel contract (every ISA, f32 and f64):
 *   a     : `batch` contiguous row-major n x n matrices; only the lower (upper == 0) or upper
 *           (upper != 0) triangle is read, the other triangle may hold garbage.
 *   w     : (batch, n) eigenvalues, ascending.
 *   v     : (batch, n, n) eigenvectors as columns, or NULL (eigenvalues only). Each column's
 *           first component of largest magnitude is positive.
 *   info  : (batch) int32 or NULL: 0 converged, CT__EIGH_INFO_NONFINITE if the matrix holds
 *           NaN/Inf (w and v of that matrix are NaN), CT__EIGH_INFO_NOCONV if the iteration hit
 *           its limit (results are the last iterate).
 *   work  : needed when n > CT__EIGH_STACK_MAX_N (ct__eigh_lane_work_bytes(n) bytes, 64-byte
 *           aligned, private to the calling thread); may be NULL otherwise.
 *   hint  : may be NULL. hint->next, next_cnt: the matrices the caller will pass next on this
 *           thread, prefetched into L2 during the last block (never written). hint->stream_out:
 *           write v with non-temporal stores where aligned (for outputs far larger than the
 *           caches: no read-for-ownership). The results never depend on the hint.
 * 1 <= n <= CT__EIGH_LANES_MAX_N. Kernels take raw pointers only (no context, no allocation) so
 * the embedded runtime can link them; they are single-threaded, the front end splits the batch
 * over threads. One matrix per SIMD lane: a matrix's result does not depend on which other
 * matrices share its vector. */
#ifndef CTORCH_EIGH_KERNELS_H
#define CTORCH_EIGH_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#define CT__EIGH_LANES_MAX_N 64
/* Up to this n the per-lane-group matrices live on the stack; above it (n <= MAX_N) the caller
 * passes `work` of ct__eigh_lane_work_bytes(n) bytes, 64-byte aligned, private to the thread. */
#define CT__EIGH_STACK_MAX_N 16
/* Up to this n several lane groups run in lockstep (their serial QR chases interleave); above it
 * one group, so the working set (2 n x n lane arrays per group) stays in L2. */
#define CT__EIGH_G2_MAX_N 32
/* Lane groups in flight for STACK_MAX_N < n <= G2_MAX_N: the QR chase is latency-bound, and a
 * third group still fits in L2 (3 x 2 x 64 KB at n = 32): 3-5% faster than two at n = 20..32. */
#ifndef CT__EIGH_GMID
#define CT__EIGH_GMID 3
#endif
/* lane groups in flight for size n (an ISA file may raise n = 8's with CT__EIGH_G8) */
static inline int ct__eigh_groups(int n) {
    return n <= CT__EIGH_STACK_MAX_N ? 2 : n <= CT__EIGH_G2_MAX_N ? CT__EIGH_GMID : 1;
}
static inline size_t ct__eigh_lane_work_bytes(int n) {
    const size_t groups = (size_t)ct__eigh_groups(n);
    return n <= CT__EIGH_STACK_MAX_N ? 0 : groups * 2 * (size_t)n * (size_t)n * 64;
}
/* software prefetch cursor: lines [p, end) of the input the next block will load */
typedef struct {
    const char *p, *end;
    int stream; /* v through non-temporal stores */
} ct__eigh_pf;
#define CT__EIGH_INFO_NONFINITE 1
#define CT__EIGH_INFO_NOCONV 2

typedef struct {
    const void *next; /* input matrices this thread processes next, or NULL */
    int64_t next_cnt;
    int stream_out; /* non-temporal stores for v where aligned */
} ct__eigh_hint;

#define CT__EIGH_KERNEL_DECL(name, T)                                                              \
    void name(int64_t batch, int n, const T *a, int upper, T *w, T *v, int32_t *info, void *work,  \
              const ct__eigh_hint *hint)

typedef void (*ct__eigh_f32_fn)(int64_t batch, int n, const float *a, int upper, float *w, float *v,
                                int32_t *info, void *work, const ct__eigh_hint *hint);
typedef void (*ct__eigh_f64_fn)(int64_t batch, int n, const double *a, int upper, double *w,
                                double *v, int32_t *info, void *work, const ct__eigh_hint *hint);

CT__EIGH_KERNEL_DECL(ct__eigh_lanes_f32_ref, float);
CT__EIGH_KERNEL_DECL(ct__eigh_lanes_f64_ref, double);
CT__EIGH_KERNEL_DECL(ct__eigh_lanes_f32_avx2, float);
CT__EIGH_KERNEL_DECL(ct__eigh_lanes_f64_avx2, double);
CT__EIGH_KERNEL_DECL(ct__eigh_lanes_f32_avx512, float);
CT__EIGH_KERNEL_DECL(ct__eigh_lanes_f64_avx512, double);

#endif /* CTORCH_EIGH_KERNELS_H */

/* ------------------------------------------------------------------------------------------------
 * Lane-batched cyclic Jacobi template. A kernel file defines, then includes this header with
 * CT__EIGH_TMPL defined:
 *   ELT (float/double), VT (vector of LANES ELTs), MT (lane mask), LANES, TN(x) (name mangler),
 *   CT__EIGH_ENTRY (exported function name), and the V_* / M_* operations below.
 * Algorithm (per lane = per matrix):
 *   1. read the used triangle, mirror it, flag non-finite matrices (zeroed, NaN results), scale by
 *      a power of two so max|a_ij| is in [1,2) (exact; avoids over/underflow of squares);
 *   2. n <= 4: sweeps of Jacobi rotations in round-robin order: each round rotates n/2 disjoint
 *      pairs, whose parameters are independent (instruction-level parallelism). A rotation is
 *      masked to the identity in lanes where |a_pq| <= u*sqrt|a_pp a_qq| or |a_pq| <= tiny, so
 *      each lane stops on its own; the loop ends when no lane has a pair above threshold.
 *      n >= 5: Householder tridiagonalisation + implicit QR (tdred / tdqr below);
 *   3. ranks of the eigenvalues (stable) and eigenvector signs in SoA, then per lane: undo the
 *      scaling, store eigenvalue i at position rank_i and eigenvector i, sign-fixed, as column
 *      rank_i (perm_t: one transposing pass).
 * ---------------------------------------------------------------------------------------------- */
#ifdef CT__EIGH_TMPL

/* The QR path's reciprocal (square roots): V_RSQRT_QR / V_RCP_QR for the chase's rotation (an ISA
 * may pick a square root and a division where those are cheaper than its refined estimates),
 * V_RSQRT_SHIFT / V_RCP_SHIFT for Wilkinson's shift (it only steers convergence: an estimate
 * will do). Default: V_RSQRT / V_RCP. */
#ifndef V_RSQRT_QR
#define V_RSQRT_QR V_RSQRT
#endif
#ifndef V_RCP_QR
#define V_RCP_QR V_RCP
#endif
#ifndef V_RSQRT_SHIFT
#define V_RSQRT_SHIFT V_RSQRT
#endif
#ifndef V_RCP_SHIFT
#define V_RCP_SHIFT V_RCP
#endif
#ifndef CT__EIGH_MAX_SWEEPS
#define CT__EIGH_MAX_SWEEPS 40
#endif
#ifndef CT__EIGH_MAX_QR_IT
#define CT__EIGH_MAX_QR_IT 40
#endif
/* n from which the tridiagonal QR path replaces Jacobi (see docs/linalg.md for the numbers) */
#ifndef CT__EIGH_TDQR_MIN_N
#define CT__EIGH_TDQR_MIN_N 5
#endif
#define CT__EIGH_USE_TDQR
/* size of the trailing block whose eigenvalue nearest Wilkinson's shift is the QR shift (2:
 * Wilkinson's alone) */
#ifndef CT__EIGH_SHIFT_K
#define CT__EIGH_SHIFT_K 6
#endif
/* n from which that refinement pays for itself (kernel, one thread, f64, with vs without:
 * n = 8 +10%, 12 +3.5%, 14 -1.6%, 16 -2%, 20 -4%, 32 -6.5%, 64 -8% time) */
#ifndef CT__EIGH_SHIFT_IT
#define CT__EIGH_SHIFT_IT 2 /* Newton steps */
#endif
#ifndef CT__EIGH_SHIFT_MIN_N
#define CT__EIGH_SHIFT_MIN_N 14
#endif

/* Rotation parameters for one pair in every lane: t = tan, c = cos, s = sin; identity where the
 * lane's mask is off. d = a_qq - a_pp, t = sign(d) 2 a_pq / (|d| + sqrt(d^2 + 4 a_pq^2)). */
static inline __attribute__((always_inline)) MT TN(rot)(VT app, VT aqq, VT apq, VT *t_, VT *tau_,
                                                        VT *s_) {
    const VT one = V_SET1((ELT)1);
    VT b2 = V_ADD(apq, apq);
    VT bb = V_MUL(apq, apq);
    MT need = M_AND(M_GT(bb, V_SET1(EIGH_TINY2)),
                    M_GT(bb, V_MUL(V_SET1(EIGH_U2), V_ABS(V_MUL(app, aqq)))));
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
static inline __attribute__((always_inline)) void TN(solve)(const int n, const int G, VT *A, VT *V,
                                                            MT *notconv) {
    const int m = n + (n & 1);
    for (int g = 0; g < G; g++)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                V[(g * n + i) * n + j] = V_SET1((ELT)(i == j));
    for (int sweep = 0;; sweep++) {
        int any = 0, gany[4];
        for (int g = 0; g < G; g++) {
            MT act = M_NONE();
            VT *Ag = A + g * n * n;
            for (int p = 0; p < n; p++)
                for (int q = p + 1; q < n; q++) {
                    VT t, c, s;
                    act =
                        M_OR(act, TN(rot)(Ag[p * n + p], Ag[q * n + q], Ag[p * n + q], &t, &c, &s));
                }
            notconv[g] = act;
            gany[g] = M_ANY(act);
            any |= gany[g];
        }
        if (!any || sweep == CT__EIGH_MAX_SWEEPS) break;
        for (int r = 0; r < m - 1; r++) {
            /* this round's disjoint pairs (P[k], Q[k]); for odd n one index sits out */
            int P[CT__EIGH_LANES_MAX_N / 2], Q[CT__EIGH_LANES_MAX_N / 2], np = 0, single = -1;
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
                if (!gany[g]) continue; /* every rotation of this group is the identity */
                VT *Ag = A + g * n * n, *Vg = V + g * n * n;
                VT T[CT__EIGH_LANES_MAX_N / 2], U[CT__EIGH_LANES_MAX_N / 2],
                    S[CT__EIGH_LANES_MAX_N / 2], APQ[CT__EIGH_LANES_MAX_N / 2];
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

/* ---- medium n: Householder tridiagonalisation + implicit QR (Wilkinson shift), lanes in
 * lockstep. A (scaled, full symmetric) is reduced to T = Q^T A Q, with the reflectors kept in A's
 * columns; V receives Z^T (rows = columns of Z) so rotations touch contiguous rows; QR steps on
 * the window [0, hi] run until e[hi-1] is negligible in every lane (lanes already converged rotate
 * by the exact identity). Negligible interior e[j] are set to 0 and the bulge chase restarts
 * below them with the same shift, so a split lane still iterates on its bottom block. On exit
 * diag(A) holds the eigenvalues and V the eigenvectors as columns (unsorted). ---- */
/* sum_i x[i*sx] y[i*sy] for i < m with four partial sums (the FMA latency, not one chain) */
static inline __attribute__((always_inline)) VT TN(dot4)(const int m, const VT *x, const int sx,
                                                         const VT *y, const int sy) {
    VT s0 = V_ZERO(), s1 = V_ZERO(), s2 = V_ZERO(), s3 = V_ZERO();
    int i = 0;
    for (; i + 4 <= m; i += 4) {
        s0 = V_FMA(x[i * sx], y[i * sy], s0);
        s1 = V_FMA(x[(i + 1) * sx], y[(i + 1) * sy], s1);
        s2 = V_FMA(x[(i + 2) * sx], y[(i + 2) * sy], s2);
        s3 = V_FMA(x[(i + 3) * sx], y[(i + 3) * sy], s3);
    }
    for (; i < m; i++)
        s0 = V_FMA(x[i * sx], y[i * sy], s0);
    return V_ADD(V_ADD(s0, s1), V_ADD(s2, s3));
}

/* Step 1, reflector k of one group: it maps A[k+1.., k] to (alpha, 0, ..., 0); E[k], TAU[k] and
 * the reflector (in A's column k) are set, the trailing block updated. */
static inline __attribute__((always_inline)) void TN(tdstep)(const int n, const int k, VT *A,
                                                             VT *TAU, VT *E) {
    VT vv[CT__EIGH_LANES_MAX_N], pw[CT__EIGH_LANES_MAX_N];
    const VT zero = V_ZERO(), one = V_SET1((ELT)1), half = V_SET1((ELT)0.5);
    {
        const int m = n - k - 1, o = k + 1;
        VT x0 = A[o * n + k];
        VT sig = TN(dot4)(m - 1, A + (o + 1) * n + k, n, A + (o + 1) * n + k, n);
        MT nz = M_GT(sig, V_SET1(EIGH_TINY2));
        VT s2 = V_FMA(x0, x0, sig);
        VT nrm = V_MUL(s2, V_RSQRT(V_SEL(nz, one, s2)));
        VT alpha = V_XOR(nrm, V_XOR(V_SIGN(x0), V_SET1((ELT)-0.0))); /* -sign(x0) |x| */
        VT tau = V_RCP(V_SEL(nz, one, V_MUL(nrm, V_ADD(nrm, V_ABS(x0)))));
        tau = V_SEL(nz, zero, tau);
        E[k] = V_SEL(nz, x0, alpha);
        vv[0] = V_SEL(nz, zero, V_SUB(x0, alpha));
        A[o * n + k] = vv[0];
        for (int i = 1; i < m; i++)
            vv[i] = A[(o + i) * n + k];
        TAU[k] = tau;
        /* p = tau B v, w = p - (tau/2)(v.p) v, B -= v w^T + w v^T. Only B's lower triangle is
         * kept (B_ij, j > i, is read as B_ji): half the rank-2 update. Each VT is a whole cache
         * line, so reading a column costs the same as reading a row. */
        VT kk = zero;
        const VT *B = A + o * n + o; /* B_ij = B[i * n + j], i >= j */
        int i0 = 0;
        /* four rows at a time: four independent FMA chains sharing the loads of v */
        for (; i0 + 4 <= m; i0 += 4) {
            VT acc[4] = {zero, zero, zero, zero};
            for (int j = 0; j < i0; j++)
                for (int r = 0; r < 4; r++)
                    acc[r] = V_FMA(B[(i0 + r) * n + j], vv[j], acc[r]);
            for (int j = i0; j < i0 + 4; j++)
                for (int r = 0; r < 4; r++)
                    acc[r] =
                        V_FMA(j <= i0 + r ? B[(i0 + r) * n + j] : B[j * n + i0 + r], vv[j], acc[r]);
            for (int j = i0 + 4; j < m; j++)
                for (int r = 0; r < 4; r++)
                    acc[r] = V_FMA(B[j * n + i0 + r], vv[j], acc[r]);
            for (int r = 0; r < 4; r++)
                pw[i0 + r] = V_MUL(tau, acc[r]);
        }
        for (; i0 < m; i0++) {
            VT acc = zero;
            for (int j = 0; j <= i0; j++)
                acc = V_FMA(B[i0 * n + j], vv[j], acc);
            for (int j = i0 + 1; j < m; j++)
                acc = V_FMA(B[j * n + i0], vv[j], acc);
            pw[i0] = V_MUL(tau, acc);
        }
        kk = TN(dot4)(m, vv, 1, pw, 1);
        kk = V_MUL(V_MUL(kk, tau), half);
        for (int i = 0; i < m; i++)
            pw[i] = V_FNMA(kk, vv[i], pw[i]);
        /* four rows at a time: the loads of v_j, w_j are shared (same arithmetic per entry) */
        int i1 = 0;
        for (; i1 + 4 <= m; i1 += 4) {
            VT *row = A + (o + i1) * n + o;
            VT vi[4], wi[4];
            for (int r = 0; r < 4; r++) {
                vi[r] = vv[i1 + r];
                wi[r] = pw[i1 + r];
            }
            for (int j = 0; j <= i1; j++) {
                const VT vj = vv[j], wj = pw[j];
                for (int r = 0; r < 4; r++)
                    row[r * n + j] = V_FNMA(vi[r], wj, V_FNMA(wi[r], vj, row[r * n + j]));
            }
            for (int j = i1 + 1; j < i1 + 4; j++)
                for (int r = j - i1; r < 4; r++)
                    row[r * n + j] = V_FNMA(vi[r], pw[j], V_FNMA(wi[r], vv[j], row[r * n + j]));
        }
        for (; i1 < m; i1++) {
            VT *row = A + (o + i1) * n + o;
            const VT vi = vv[i1], wi = pw[i1];
            for (int j = 0; j <= i1; j++)
                row[j] = V_FNMA(vi, pw[j], V_FNMA(wi, vv[j], row[j]));
        }
    }
}

/* Steps 1-2 for one group: T = Q^T A Q into (D, E), Z^T = Q^T into V when want_v. With `made`
 * (not NULL) the reflectors are already made (tdstep for every k, their tau in made): only D,
 * E[n-2] and Z^T here. */
static inline __attribute__((always_inline)) void TN(tdred)(const int n, VT *A, VT *V, VT *D, VT *E,
                                                            const int want_v, const VT *made) {
    VT vv[CT__EIGH_LANES_MAX_N], pw[CT__EIGH_LANES_MAX_N], own[CT__EIGH_LANES_MAX_N];
    const VT zero = V_ZERO();
    for (int k = 0; k < n - 2 && !made; k++)
        TN(tdstep)(n, k, A, own, E);
    const VT *TAU = made ? made : own;
    if (n >= 2) E[n - 2] = A[(n - 1) * n + n - 2];
    for (int i = 0; i < n; i++)
        D[i] = A[i * n + i];
    /* 2. Z^T = (H_0 ... H_{n-3})^T by backward accumulation, in V */
    for (int i = 0; i < n && want_v; i++)
        for (int j = 0; j < n; j++)
            V[i * n + j] = V_SET1((ELT)(i == j));
    /* Two reflectors per pass, H_k then H_{k-1}, on columns k.. of rows k..: with v1 = v_k
     * (0 in column k), v2 = v_{k-1}, d1 = r.v1, d2 = r.v2: a1 = tau_k d1,
     * a2 = tau_{k-1} (d2 - a1 v1.v2), r -= a1 v1 + a2 v2 (row k is e_k, so d1 = 0 there). Each
     * row is loaded twice and stored once per two reflectors instead of per one. */
    int k = n - 3;
    for (; k >= 1 && want_v; k -= 2) {
        const int m = n - k;
        vv[0] = zero;
        for (int i = 1; i < m; i++)
            vv[i] = A[(k + i) * n + k];
        for (int i = 0; i < m; i++)
            pw[i] = A[(k + i) * n + k - 1];
        VT w12 = TN(dot4)(m - 1, vv + 1, 1, pw + 1, 1);
        const VT t1 = TAU[k], t2 = TAU[k - 1], t2w = V_MUL(t2, w12);
        int j = k;
        for (; j + 4 <= n; j += 4) {
            VT *row = V + j * n + k;
            VT a1[4], a2[4];
            for (int r = 0; r < 4; r++) {
                a1[r] = zero;
                a2[r] = V_MUL(pw[0], row[r * n]);
            }
            for (int i = 1; i < m; i++)
                for (int r = 0; r < 4; r++) {
                    a1[r] = V_FMA(vv[i], row[r * n + i], a1[r]);
                    a2[r] = V_FMA(pw[i], row[r * n + i], a2[r]);
                }
            for (int r = 0; r < 4; r++) {
                a1[r] = V_MUL(a1[r], t1);
                a2[r] = V_FNMA(t2w, a1[r], V_MUL(a2[r], t2));
            }
            for (int r = 0; r < 4; r++)
                row[r * n] = V_FNMA(a2[r], pw[0], row[r * n]);
            for (int i = 1; i < m; i++)
                for (int r = 0; r < 4; r++)
                    row[r * n + i] = V_FNMA(a2[r], pw[i], V_FNMA(a1[r], vv[i], row[r * n + i]));
        }
        for (; j < n; j++) {
            VT *row = V + j * n + k;
            VT a1 = zero, a2 = V_MUL(pw[0], row[0]);
            for (int i = 1; i < m; i++) {
                a1 = V_FMA(vv[i], row[i], a1);
                a2 = V_FMA(pw[i], row[i], a2);
            }
            a1 = V_MUL(a1, t1);
            a2 = V_FNMA(t2w, a1, V_MUL(a2, t2));
            row[0] = V_FNMA(a2, pw[0], row[0]);
            for (int i = 1; i < m; i++)
                row[i] = V_FNMA(a2, pw[i], V_FNMA(a1, vv[i], row[i]));
        }
    }
    for (; k >= 0 && want_v; k--) {
        const int m = n - k - 1, o = k + 1;
        for (int i = 0; i < m; i++)
            vv[i] = A[(o + i) * n + k];
        const VT tau = TAU[k];
        int j = o;
        for (; j + 4 <= n; j += 4) { /* four rows: independent chains, shared loads of v */
            VT *row = V + j * n + o;
            VT acc[4] = {zero, zero, zero, zero};
            for (int i = 0; i < m; i++)
                for (int r = 0; r < 4; r++)
                    acc[r] = V_FMA(vv[i], row[r * n + i], acc[r]);
            for (int r = 0; r < 4; r++)
                acc[r] = V_MUL(acc[r], tau);
            for (int i = 0; i < m; i++)
                for (int r = 0; r < 4; r++)
                    row[r * n + i] = V_FNMA(acc[r], vv[i], row[r * n + i]);
        }
        for (; j < n; j++) {
            VT *row = V + j * n + o;
            VT acc = zero;
            for (int i = 0; i < m; i++)
                acc = V_FMA(vv[i], row[i], acc);
            acc = V_MUL(acc, tau);
            for (int i = 0; i < m; i++)
                row[i] = V_FNMA(acc, vv[i], row[i]);
        }
    }
}

#ifndef CT__EIGH_ZC
#define CT__EIGH_ZC 16 /* most Z^T columns carried in registers through a rotation chain */
#endif

/* Columns j0 .. j0+C-1 of Z^T through the rotation chain k = 0 .. nr-1 (see zrot). */
static inline __attribute__((always_inline)) void
TN(zrotc)(const int n, const int nr, VT *V, const VT *S, const VT *TU, const int j0, const int C) {
    VT x[CT__EIGH_ZC];
    for (int c = 0; c < C; c++)
        x[c] = V[j0 + c];
    for (int k = 0; k < nr; k++) {
        const VT s = S[k], tu = TU[k];
        VT *r0 = V + k * n + j0, *r1 = r0 + n;
        for (int c = 0; c < C; c++) {
            VT u = V_FMA(tu, x[c], r1[c]);
            VT xn = V_FNMA(s, u, x[c]);
            r0[c] = xn;
            x[c] = V_FMA(tu, xn, u);
        }
    }
    for (int c = 0; c < C; c++)
        V[nr * n + j0 + c] = x[c];
}

/* Apply the rotations (S[k], TU[k]) of one QR step, k = 0 .. nr-1 in order, to rows k, k+1 of
 * Z^T (V: [n][n]). Each column of Z^T is carried in a register through the whole chain, so an
 * element is loaded and stored once per QR step instead of twice per rotation; many columns at
 * once hide the chain's latency. A rotation is written as three shears (u = y + tau x,
 * x' = x - s u, y' = u + tau x'; tau = s / (1 + c), |tau| <= 1 since c >= 0): 3 FMAs instead of
 * 4, and the exact identity where s = tau = 0. */
static inline __attribute__((always_inline)) void TN(zrot)(const int n, const int nr, VT *V,
                                                           const VT *S, const VT *TU) {
    int j0 = 0;
    for (; j0 + CT__EIGH_ZC <= n; j0 += CT__EIGH_ZC)
        TN(zrotc)(n, nr, V, S, TU, j0, CT__EIGH_ZC);
#if CT__EIGH_ZC > 8
    if (j0 + 8 <= n) {
        TN(zrotc)(n, nr, V, S, TU, j0, 8);
        j0 += 8;
    }
#endif
#if CT__EIGH_ZC > 4
    if (j0 + 4 <= n) {
        TN(zrotc)(n, nr, V, S, TU, j0, 4);
        j0 += 4;
    }
#endif
    for (; j0 < n; j0++)
        TN(zrotc)(n, nr, V, S, TU, j0, 1);
}

/* Two QR steps at once: columns j0 .. j0+C-1 of Z^T through chain 1 (S1, TU1; k = 0 .. nr-1)
 * and, one row behind it, chain 2 (S2, TU2; same length, the exact identity past its own end),
 * so that rows are loaded and stored once per two steps. Row k leaves chain 1 final and enters
 * chain 2 straight from a register. */
static inline __attribute__((always_inline)) void TN(zrot2c)(const int n, const int nr, VT *V,
                                                             const VT *S1, const VT *TU1,
                                                             const VT *S2, const VT *TU2,
                                                             const int j0, const int C) {
    VT x1[CT__EIGH_ZC], x2[CT__EIGH_ZC];
    for (int c = 0; c < C; c++) {
        x1[c] = V[j0 + c];
        x2[c] = V_ZERO(); /* set at k = 0 */
    }
    for (int k = 0; k < nr; k++) {
        const VT s = S1[k], tu = TU1[k];
        VT *r1 = V + (k + 1) * n + j0;
        if (k == 0) {
            for (int c = 0; c < C; c++) {
                VT u = V_FMA(tu, x1[c], r1[c]);
                VT xn = V_FNMA(s, u, x1[c]);
                x2[c] = xn;
                x1[c] = V_FMA(tu, xn, u);
            }
        } else {
            const VT s2 = S2[k - 1], tu2 = TU2[k - 1];
            VT *r0 = V + (k - 1) * n + j0;
            for (int c = 0; c < C; c++) {
                VT u = V_FMA(tu, x1[c], r1[c]);
                VT xn = V_FNMA(s, u, x1[c]);
                x1[c] = V_FMA(tu, xn, u);
                VT u2 = V_FMA(tu2, x2[c], xn);
                VT xn2 = V_FNMA(s2, u2, x2[c]);
                r0[c] = xn2;
                x2[c] = V_FMA(tu2, xn2, u2);
            }
        }
    }
    const VT s2 = S2[nr - 1], tu2 = TU2[nr - 1];
    VT *r0 = V + (nr - 1) * n + j0, *r1 = r0 + n;
    for (int c = 0; c < C; c++) {
        VT u2 = V_FMA(tu2, x2[c], x1[c]);
        VT xn2 = V_FNMA(s2, u2, x2[c]);
        r0[c] = xn2;
        r1[c] = V_FMA(tu2, xn2, u2);
    }
}

static inline __attribute__((always_inline)) void TN(zrot2)(const int n, const int nr, VT *V,
                                                            const VT *S1, const VT *TU1,
                                                            const VT *S2, const VT *TU2) {
    /* Blocks of ZC/2 columns; the tail is one block too (a short one merged into the last full
     * block): a one-column block is a single latency-bound chain (n = 31 ran at 1.3 FMA/cycle
     * against 1.75 at n = 32 with single-column tails). */
    const int zb = CT__EIGH_ZC / 2, rem = n % zb;
    const int merge = rem > 0 && rem < zb / 2 && n >= zb;
    int j0 = 0;
    for (; j0 + zb <= n - (merge ? zb : 0); j0 += zb)
        TN(zrot2c)(n, nr, V, S1, TU1, S2, TU2, j0, zb);
#define CT__ZT(C)                                                                                  \
    case C: TN(zrot2c)(n, nr, V, S1, TU1, S2, TU2, j0, C); break;
    switch (n - j0) {
        CT__ZT(1)
        CT__ZT(2)
        CT__ZT(3)
        CT__ZT(4)
        CT__ZT(5)
#if CT__EIGH_ZC >= 12
        CT__ZT(6)
        CT__ZT(7)
        CT__ZT(8)
        CT__ZT(9)
        CT__ZT(10)
        CT__ZT(11)
#endif
    default: break;
    }
#undef CT__ZT
}

/* e, or 0 where e is negligible against its diagonal neighbours d0, d1 */
static inline __attribute__((always_inline)) VT TN(negl)(VT e, VT d0, VT d1) {
    /* kept iff |e| > EIGH_U (|d0| + |d1|) + tiny (EIGH_U = eps of the dtype), as one compare (no
     * NaN reaches here) */
    VT lim = V_FMA(V_SET1(EIGH_U), V_ADD(V_ABS(d0), V_ABS(d1)), V_SET1(EIGH_TINYABS));
    return V_SEL(M_GT(V_ABS(e), lim), V_ZERO(), e);
}

/* Step 3 for G groups (independent rotation chains interleave, hiding latency). Every lane has its
 * own active window [0, hi_l] (HI, exact small integers as floats): a lane deflates as soon as its
 * e[hi_l - 1] is negligible and goes on with the next eigenvalue, so a step costs the slowest
 * lane's window, not the sum over lanes of the worst step count per eigenvalue. Rotations k >= hi_l
 * are the exact identity in that lane (e[hi_l] is exactly 0, so no bulge leaks out of the window).
 */
static inline __attribute__((always_inline)) void
TN(tdqr)(const int n, const int G, VT *A, VT *V, MT *notconv, const int want_v, ct__eigh_pf *pf) {
    VT D[4][CT__EIGH_LANES_MAX_N], E[4][CT__EIGH_LANES_MAX_N];
    /* rotations of the last two QR steps per group: Z^T is updated every second step */
    VT S[4][2][CT__EIGH_LANES_MAX_N], TU[4][2][CT__EIGH_LANES_MAX_N];
    int pend[4] = {0, 0, 0, 0}, pnr[4] = {0, 0, 0, 0};
    const VT zero = V_ZERO(), one = V_SET1((ELT)1), half = V_SET1((ELT)0.5);
    {
        /* n = 8: the groups' reflectors are made side by side (k outer). A reflector is a long
         * dependent chain (norm, square root, tau, p, w), and the groups' chains then overlap
         * (AVX2 8x8 f32: ~4% of the kernel, the same bits); at the runtime sizes (5, 6, 16) the
         * same order was 10-15% slower on AVX2, so those keep one group after the other. */
        VT TAU8[4][8];
        const int side = G > 1 && n == 8;
        for (int k = 0; k < n - 2 && side; k++)
            for (int g = 0; g < G; g++)
                TN(tdstep)(n, k, A + g * n * n, TAU8[g], E[g]);
        for (int g = 0; g < G; g++) {
            TN(tdred)(n, A + g * n * n, V + g * n * n, D[g], E[g], want_v, side ? TAU8[g] : 0);
            E[g][n - 1] = zero;
        }
    }
    MT nc[4];
    VT HI[4], IT[4], mu[4], DL[4], DH[4], EE[4];
    for (int g = 0; g < 4; g++)
        mu[g] = DL[g] = DH[g] = EE[g] = V_ZERO();
#if CT__EIGH_SHIFT_K > 2
    VT BD[4][CT__EIGH_SHIFT_K], BE[4][CT__EIGH_SHIFT_K];
    for (int g = 0; g < 4; g++)
        for (int r = 0; r < CT__EIGH_SHIFT_K; r++)
            BD[g][r] = BE[g][r] = V_ZERO();
#endif
    /* chase state per group, carried from rotation k to k + 1 (set at k = 0) */
    VT cs_s[4], cs_c[4], cs_g[4], cs_p[4], eprev[4], adprev[4];
    for (int g = 0; g < 4; g++)
        cs_s[g] = cs_c[g] = cs_g[g] = cs_p[g] = eprev[g] = adprev[g] = V_ZERO();
    int maxhi[4];
    for (int g = 0; g < G; g++) {
        nc[g] = M_NONE();
        HI[g] = V_SET1((ELT)(n - 1));
        IT[g] = zero;
        maxhi[g] = n - 1;
    }
#define CT__EQ(x, j) M_EQ((x), V_SET1((ELT)(j))) /* x == j (x holds exact small integers) */
    for (int first = 1;; first = 0) {
        int mh = 0;
        for (int g = 0; g < G; g++) {
            VT *Dg = D[g], *Eg = E[g];
            if (maxhi[g] == 0) continue;
            /* the chase below checks e[j] as soon as it is final; before the first step, here */
            for (int j = 0; j < maxhi[g] && first; j++)
                Eg[j] = TN(negl)(Eg[j], Dg[j], Dg[j + 1]);
            /* iteration limit: deflate by force (e zeroed, info = 2) */
            MT lim =
                M_AND(M_GT(IT[g], V_SET1((ELT)CT__EIGH_MAX_QR_IT - (ELT)0.5)), M_GT(HI[g], half));
            if (M_ANY(lim)) {
                nc[g] = M_OR(nc[g], lim);
                for (int j = 1; j <= maxhi[g]; j++)
                    Eg[j - 1] = V_SEL(M_AND(lim, CT__EQ(HI[g], j)), Eg[j - 1], zero);
            }
            /* deflate from the top down (cascades): lanes with hi == j and e[j-1] == 0; a lane
             * that stops at j (e[j-1] != 0) takes its trailing 2x2 block for the Wilkinson shift.
             * Rows above every lane's window end are skipped. */
            VT dl = zero, dh = zero, ee = zero;
#if CT__EIGH_SHIFT_K > 2
            for (int r = 0; r < CT__EIGH_SHIFT_K; r++)
                BD[g][r] = BE[g][r] = zero;
#endif
            for (int j = maxhi[g]; j >= 1; j--) {
                /* done when every active lane's window ends above j */
                if (!M_ANY(M_AND(M_GT(HI[g], half), M_GT(V_SET1((ELT)j + (ELT)0.5), HI[g])))) break;
                MT m = CT__EQ(HI[g], j);
                MT keep = M_GT(V_ABS(Eg[j - 1]), zero);
                VT dec = V_SEL(keep, V_SUB(HI[g], one), HI[g]);
                VT itr = V_SEL(keep, zero, IT[g]);
                HI[g] = V_SEL(m, HI[g], dec);
                IT[g] = V_SEL(m, IT[g], itr);
                MT fin = M_AND(m, keep);
                dl = V_SEL(fin, dl, Dg[j - 1]);
                dh = V_SEL(fin, dh, Dg[j]);
                ee = V_SEL(fin, ee, Eg[j - 1]);
#if CT__EIGH_SHIFT_K > 2
                /* the trailing K x K block of the lanes that stop here (rows above 0: zero) */
                for (int r = 0; r < CT__EIGH_SHIFT_K && n >= CT__EIGH_SHIFT_MIN_N; r++) {
                    const int i = j - CT__EIGH_SHIFT_K + 1 + r;
                    if (i < 0) continue;
                    BD[g][r] = V_SEL(fin, BD[g][r], Dg[i]);
                    if (r + 1 < CT__EIGH_SHIFT_K) BE[g][r] = V_SEL(fin, BE[g][r], Eg[i]);
                }
#endif
            }
            while (maxhi[g] > 0 && !M_ANY(M_GT(HI[g], V_SET1((ELT)maxhi[g] - (ELT)0.5))))
                maxhi[g]--;
            if (maxhi[g] == 0) continue;
            MT act = M_GT(HI[g], half);
            IT[g] = V_ADD(IT[g], V_SEL(act, zero, one));
            DL[g] = dl;
            DH[g] = dh;
            EE[g] = ee;
            if (maxhi[g] > mh) mh = maxhi[g];
        }
        if (mh == 0) break;
        /* Wilkinson's shift from each lane's trailing 2x2 block, the groups side by side */
        for (int g = 0; g < G; g++) {
            if (maxhi[g] == 0) continue;
            const MT act = M_GT(HI[g], half);
            const VT dd = V_MUL(half, V_SUB(DL[g], DH[g]));
            const VT ee2 = V_MUL(EE[g], EE[g]);
            const VT q = V_FMA(dd, dd, ee2);
            const VT hyp = V_MUL(q, V_RSQRT_SHIFT(V_SEL(act, one, q)));
            const VT den = V_XOR(V_ADD(V_ABS(dd), hyp), V_SIGN(dd));
            mu[g] = V_SUB(DH[g], V_MUL(ee2, V_RCP_SHIFT(V_SEL(act, one, den))));
        }
#if CT__EIGH_SHIFT_K > 2
        /* Refine the shift to the eigenvalue of the trailing K x K block nearest Wilkinson's (an
         * eigenvalue of the trailing 2 x 2): two Newton steps on the block's characteristic
         * polynomial (three-term recurrence, rows above the matrix are identity factors). A
         * step larger than |e[hi-1]| + |e[hi-2]| (or not finite) is refused. This costs ~1/8 of
         * the QR steps' rotations at n = 32 (a shift nearer the eigenvalue the bottom converges
         * to). Groups interleave: the Newton chains are independent. */
        for (int it = 0; it < CT__EIGH_SHIFT_IT && n >= CT__EIGH_SHIFT_MIN_N; it++) {
            /* row by row across the groups: G independent recurrences side by side */
            VT p0[4], p1[4], q0[4], q1[4];
            for (int g = 0; g < G; g++) {
                p0[g] = p1[g] = one;
                q0[g] = q1[g] = zero;
            }
            for (int r = 0; r < CT__EIGH_SHIFT_K; r++)
                for (int g = 0; g < G; g++) {
                    const MT valid =
                        M_GT(HI[g], V_SET1((ELT)(CT__EIGH_SHIFT_K - 1 - r) - (ELT)0.5));
                    const VT a = V_SUB(BD[g][r], mu[g]);
                    const VT b2 = r > 0 ? V_MUL(BE[g][r - 1], BE[g][r - 1]) : zero;
                    const VT p2 = V_FNMA(b2, p0[g], V_MUL(a, p1[g]));
                    const VT q2 = V_FNMA(b2, q0[g], V_SUB(V_MUL(a, q1[g]), p1[g]));
                    p0[g] = p1[g];
                    q0[g] = q1[g];
                    p1[g] = V_SEL(valid, p1[g], p2);
                    q1[g] = V_SEL(valid, q1[g], q2);
                }
            for (int g = 0; g < G; g++) {
                if (maxhi[g] == 0) continue;
                const VT step = V_MUL(p1[g], V_RCP(V_SEL(M_GT(V_ABS(q1[g]), zero), one, q1[g])));
                const VT bound =
                    V_ADD(V_ABS(BE[g][CT__EIGH_SHIFT_K - 2]), V_ABS(BE[g][CT__EIGH_SHIFT_K - 3]));
                const MT okn = M_AND(M_AND(M_GT(HI[g], half), M_GT(V_ABS(q1[g]), zero)),
                                     M_GT(bound, V_ABS(step)));
                mu[g] = V_SEL(okn, mu[g], V_SUB(mu[g], step));
            }
        }
#endif
        /* The chase in the p/g form of LAPACK's dsteqr (QR direction): rotation k takes
         * (g, f = s e_k) to (r, 0) with c = |g| / r >= 0, and carries the pending update p of
         * d_k and the next g; e_{k-1} = r is final after it. Per lane: rotations k >= hi_l are
         * forced to the identity (c = 1, s = 0, r = g), which leaves d, e unchanged and applies
         * the lane's final d_hi -= p, e_{hi-1} = g on the way; where e_{k-1} was 0 before the
         * step (a split inside the window) the chase restarts at k with the same shift, so the
         * block below the split iterates too. */
        for (int k = 0; k < mh; k++) {
            /* the next block's input, one line per rotation: its load then hits L2 */
            for (int g = 0; g < G && pf->p < pf->end; g++, pf->p += 64)
                __builtin_prefetch(pf->p, 0, 2);
            for (int g = 0; g < G; g++) {
                if (k >= maxhi[g]) continue;
                VT *Dg = D[g], *Eg = E[g];
                const MT act = M_GT(HI[g], V_SET1((ELT)k + (ELT)0.5));
                const VT ek = Eg[k], dk = Dg[k];
                VT sp, cp, gg, p;
                MT rs = M_NONE();
                if (k == 0) {
                    sp = one;
                    cp = one;
                    p = zero;
                    gg = V_SUB(dk, mu[g]);
                } else {
                    rs = M_AND(act, M_EQ(eprev[g], zero));
                    sp = V_SEL(rs, cs_s[g], one);
                    cp = V_SEL(rs, cs_c[g], one);
                    gg = V_SEL(rs, cs_g[g], V_SUB(dk, mu[g]));
                    p = cs_p[g];
                }
                const VT f = V_MUL(sp, ek), b = V_MUL(cp, ek);
                const VT r2 = V_FMA(gg, gg, V_MUL(f, f));
                const MT ok = M_AND(act, M_GT(r2, V_SET1(EIGH_TINY2)));
#ifdef V_RSQRT_SPLIT
                VT ry, rp;
                V_RSQRT_SPLIT(V_SEL(ok, one, r2), &ry, &rp);
                const VT t = V_XOR(V_MUL(ry, rp), V_SIGN(gg));
#else
                const VT t = V_XOR(V_RSQRT_QR(V_SEL(ok, one, r2)), V_SIGN(gg));
#endif
                const VT c = V_SEL(ok, one, V_MUL(gg, t));
                const VT sn = V_SEL(ok, zero, V_MUL(f, t));
                VT r = V_SEL(ok, gg, V_MUL(r2, t));
                const VT g2 = V_SUB(dk, p);
                const VT rq = V_FMA(V_SUB(Dg[k + 1], g2), sn, V_MUL(V_ADD(c, c), b));
                p = V_MUL(sn, rq);
                const VT dn = V_ADD(g2, p);
                Dg[k] = dn;
                cs_g[g] = V_SUB(V_MUL(c, rq), b);
                cs_s[g] = sn;
                cs_c[g] = c;
                cs_p[g] = p;
                const VT ad = V_ABS(dn);
                if (k > 0) {
                    /* e_{k-1} is final: 0 where negligible (or where the chase restarted) */
                    const VT lim =
                        V_FMA(V_SET1(EIGH_U), V_ADD(adprev[g], ad), V_SET1(EIGH_TINYABS));
                    r = V_SEL(rs, r, zero);
                    Eg[k - 1] = V_SEL(M_GT(V_ABS(r), lim), zero, r);
                }
                adprev[g] = ad;
                eprev[g] = ek;
                if (want_v) {
                    /* Z^T rows k, k+1 rotate by (c, -s) in zrot's convention */
                    const VT ms = V_XOR(sn, V_SET1((ELT)-0.0));
                    S[g][pend[g]][k] = ms;
                    TU[g][pend[g]][k] = V_MUL(ms, V_RCP_QR(V_ADD(one, c)));
                }
            }
        }
        for (int g = 0; g < G; g++)
            if (maxhi[g] > 0) {
                const int j = maxhi[g];
                D[g][j] = V_SUB(D[g][j], cs_p[g]);
                E[g][j - 1] = TN(negl)(cs_g[g], D[g][j - 1], D[g][j]);
            }
        for (int g = 0; g < G && want_v; g++) {
            if (maxhi[g] == 0) continue;
            if (!pend[g]) {
                pend[g] = 1;
                pnr[g] = maxhi[g];
                continue;
            }
            /* this step's window is inside the previous one's: pad with identities */
            for (int k = maxhi[g]; k < pnr[g]; k++)
                S[g][1][k] = TU[g][1][k] = zero;
            TN(zrot2)(n, pnr[g], V + g * n * n, S[g][0], TU[g][0], S[g][1], TU[g][1]);
            pend[g] = 0;
        }
    }
    for (int g = 0; g < G && want_v; g++)
        if (pend[g]) TN(zrot)(n, pnr[g], V + g * n * n, S[g][0], TU[g][0]);
#undef CT__EQ
    for (int g = 0; g < G; g++) {
        VT *Ag = A + g * n * n, *Vg = V + g * n * n;
        notconv[g] = nc[g];
        (void)Vg; /* V holds Z^T: eigenvectors as rows */
        for (int i = 0; i < n; i++)
            Ag[i * n + i] = D[g][i];
    }
}

/* Layout helpers: SoA <-> AoS and the sorted, sign-fixed eigenvector output. An ISA file may
 * define V_TRANSPOSE(r) (an in-register LANES x LANES transpose of r[LANES]) with V_LOADU /
 * V_STOREU; the helpers then move whole LANES x LANES blocks through registers. V_STREAM (with
 * V_SFENCE) adds non-temporal stores for the eigenvector output. */
#ifdef V_TRANSPOSE
/* lane l's `cnt` elements go to dst[l*cnt ...] (nl lanes); the tail one by one */
static __attribute__((noinline)) void TN(store_aos)(ELT *dst, const VT *src, int cnt, int nl) {
    int e0 = 0;
    for (; e0 + LANES <= cnt; e0 += LANES) {
        VT r[LANES];
        for (int i = 0; i < LANES; i++)
            r[i] = src[e0 + i];
        V_TRANSPOSE(r);
        for (int l = 0; l < nl; l++)
            V_STOREU(dst + (int64_t)l * cnt + e0, r[l]);
    }
    ELT tmp[LANES] __attribute__((aligned(64)));
    for (; e0 < cnt; e0++) {
        V_STORE(tmp, src[e0]);
        for (int l = 0; l < nl; l++)
            dst[(int64_t)l * cnt + e0] = tmp[l];
    }
}
/* LANES full matrices of `cnt` elements each (stride cnt) to SoA: dst[e] lane l = src[l*cnt + e]
 * (replaces gathers, which are slow on the development CPU) */
static __attribute__((noinline)) void TN(load_soa)(VT *dst, const ELT *src, int cnt) {
    int e0 = 0;
    for (; e0 + LANES <= cnt; e0 += LANES) {
        VT r[LANES];
        for (int l = 0; l < LANES; l++)
            r[l] = V_LOADU(src + (int64_t)l * cnt + e0);
        V_TRANSPOSE(r);
        for (int i = 0; i < LANES; i++)
            dst[e0 + i] = r[i];
    }
    ELT tmp[LANES] __attribute__((aligned(64)));
    for (; e0 < cnt; e0++) {
        for (int l = 0; l < LANES; l++)
            tmp[l] = src[(int64_t)l * cnt + e0];
        dst[e0] = V_LOAD(tmp);
    }
}
#else
static __attribute__((noinline)) void TN(store_aos)(ELT *dst, const VT *src, int cnt, int nl) {
    ELT tmp[LANES] __attribute__((aligned(64)));
    for (int e = 0; e < cnt; e++) {
        V_STORE(tmp, src[e]);
        for (int l = 0; l < nl; l++)
            dst[(int64_t)l * cnt + e] = tmp[l];
    }
}
#endif

/* out[r][c] = sg[i] * z[i][r] with i = perm[c]: eigenvector i (row i of z, n x n) to column c,
 * sign-fixed (the product by +-1 is exact). With V_TRANSPOSE: LANES x LANES blocks, output rows
 * in order (the stores stream through memory), non-temporal where `stream` (the caller checked
 * whole aligned lines) and V_STREAM exists; the edges one by one. */
static __attribute__((noinline)) void TN(perm_t)(const int n, const ELT *z, const ELT *sg,
                                                 const int *perm, ELT *out, int stream) {
    const ELT *zi[CT__EIGH_LANES_MAX_N];
    ELT sc[CT__EIGH_LANES_MAX_N];
    for (int c = 0; c < n; c++) {
        zi[c] = z + (int64_t)perm[c] * n;
        sc[c] = sg[perm[c]];
    }
    int nb = 0;
#ifdef V_TRANSPOSE
    nb = n - n % LANES;
    for (int r0 = 0; r0 < nb; r0 += LANES)
        for (int c0 = 0; c0 < nb; c0 += LANES) {
            VT x[LANES];
            for (int q = 0; q < LANES; q++)
                x[q] = V_MUL(V_SET1(sc[c0 + q]), V_LOADU(zi[c0 + q] + r0));
            V_TRANSPOSE(x);
#ifdef V_STREAM
            if (stream) {
                for (int q = 0; q < LANES; q++)
                    V_STREAM(out + (int64_t)(r0 + q) * n + c0, x[q]);
                continue;
            }
#endif
            for (int q = 0; q < LANES; q++)
                V_STOREU(out + (int64_t)(r0 + q) * n + c0, x[q]);
        }
#endif
    (void)stream;
    for (int r = 0; r < n; r++) /* the edges: columns >= nb of rows < nb, then rows >= nb */
        for (int c = r < nb ? nb : 0; c < n; c++)
            out[(int64_t)r * n + c] = sc[c] * zi[c][r];
}

/* Full block: G groups of LANES matrices (nmat <= G*LANES of them valid) from a to w/v/info. */
static inline __attribute__((always_inline)) void TN(block)(const int n, const int G, VT *A, VT *V,
                                                            const ELT *a, int64_t nmat, int upper,
                                                            ELT *w, ELT *v, int32_t *info,
                                                            ct__eigh_pf *pf) {
    MT bad[4], notconv[4];
    VT usc[4];
    const int64_t nn = (int64_t)n * n;
    for (int g = 0; g < G; g++) {
        VT *Ag = A + g * n * n;
        int64_t base = (int64_t)g * LANES;
        int nl = nmat - base < LANES ? (int)(nmat - base) : LANES;
        if (nl < 0) nl = 0;
        VT mx = V_ZERO();
        MT b = M_NONE(), b4[4] = {M_NONE(), M_NONE(), M_NONE(), M_NONE()};
        VT mx4[4] = {mx, mx, mx, mx};
#ifdef V_TRANSPOSE
        /* full group: transpose all n*n entries into V (free until the solver sets it) */
        if (nl == LANES) TN(load_soa)(V + g * n * n, a + base * nn, (int)nn);
#endif
        for (int i = 0; i < n; i++)
            for (int j = 0; j <= i; j++) {
                VT x;
                int64_t off = upper ? (int64_t)j * n + i : (int64_t)i * n + j;
                if (nl == LANES)
#ifdef V_TRANSPOSE
                    x = V[g * n * n + off];
#else
                    x = V_GATHER(a + base * nn + off, nn);
#endif
                else {
                    ELT tmp[LANES] __attribute__((aligned(64)));
                    for (int l = 0; l < LANES; l++)
                        tmp[l] = l < nl ? a[(base + l) * nn + off] : 0;
                    x = V_LOAD(tmp);
                }
                /* four accumulators by row: independent chains */
                b4[i & 3] = M_OR(b4[i & 3], M_NOTFINITE(x));
                mx4[i & 3] = V_MAX(mx4[i & 3], V_ABS(x));
                Ag[i * n + j] = x;
            }
        mx = V_MAX(V_MAX(mx4[0], mx4[1]), V_MAX(mx4[2], mx4[3]));
        b = M_OR(M_OR(b4[0], b4[1]), M_OR(b4[2], b4[3]));
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
#ifdef CT__EIGH_USE_TDQR
    if (n >= CT__EIGH_TDQR_MIN_N) {
        TN(tdqr)(n, G, A, V, notconv, v != 0, pf);
    } else
#endif
    {
        TN(solve)(n, G, A, V, notconv);
        /* eigenvectors as rows, like the QR path */
        for (int g = 0; g < G && v; g++) {
            VT *Vg = V + g * n * n;
            for (int i = 0; i < n; i++)
                for (int j = i + 1; j < n; j++) {
                    VT t = Vg[i * n + j];
                    Vg[i * n + j] = Vg[j * n + i];
                    Vg[j * n + i] = t;
                }
        }
    }
    for (int g = 0; g < G; g++) {
        VT *Ag = A + g * n * n, *Vg = V + g * n * n;
        VT W[CT__EIGH_LANES_MAX_N];
        for (int i = 0; i < n; i++)
            W[i] = Ag[i * n + i];
        /* rank of each eigenvalue in its lane (stable: ties keep index order) */
        const VT zero = V_ZERO(), one = V_SET1((ELT)1);
        VT R[CT__EIGH_LANES_MAX_N];
        for (int i = 0; i < n; i++) {
            VT r = zero;
            for (int j = 0; j < i; j++)
                r = V_ADD(r, V_SEL(M_GT(W[j], W[i]), one, zero));
            for (int j = i + 1; j < n; j++)
                r = V_ADD(r, V_SEL(M_GT(W[i], W[j]), zero, one));
            R[i] = r;
        }
        const VT nan = V_SET1((ELT)NAN);
        for (int i = 0; i < n; i++)
            W[i] = V_SEL(bad[g], V_MUL(W[i], usc[g]), nan);
        int64_t base = (int64_t)g * LANES;
        int nl = nmat - base < LANES ? (int)(nmat - base) : LANES;
        if (nl <= 0) continue;
        /* Sign of each eigenvector (row i of V): +-1 so that its first component of largest
         * magnitude becomes positive; NaN for a non-finite input matrix. */
        VT SG[CT__EIGH_LANES_MAX_N];
        for (int i0 = 0; i0 < n && v; i0 += 4) { /* four rows at a time: independent chains */
            const int nr = n - i0 < 4 ? n - i0 : 4;
            VT best[4], sg[4];
            for (int q = 0; q < nr; q++) {
                best[q] = V_ABS(Vg[(i0 + q) * n]);
                sg[q] = V_SIGN(Vg[(i0 + q) * n]);
            }
            for (int e = 1; e < n; e++)
                for (int q = 0; q < nr; q++) {
                    const VT x = Vg[(i0 + q) * n + e];
                    MT gt = M_GT(V_ABS(x), best[q]);
                    best[q] = V_SEL(gt, best[q], V_ABS(x));
                    sg[q] = V_SEL(gt, sg[q], V_SIGN(x));
                }
            for (int q = 0; q < nr; q++)
                SG[i0 + q] = V_SEL(bad[g], V_XOR(one, sg[q]), nan);
        }
#ifdef V_TRANSPOSE
        if (v && n == LANES && nl == LANES && !pf->stream) {
            /* n = LANES, a full group: the sort as selects in SoA (output column c takes
             * eigenvector i where R[i] == c, sign-fixed), then one transpose per output block,
             * instead of two transposes and a scatter lane by lane (8x8 f32 on AVX2: ~8%) */
            VT *O = Ag; /* A's storage is free (W holds the diagonal) */
            VT WO[LANES];
            for (int i = 0; i < n; i++)
                for (int r = 0; r < n; r++)
                    Vg[i * n + r] = V_MUL(SG[i], Vg[i * n + r]);
            for (int c = 0; c < n; c++) {
                const VT cv = V_SET1((ELT)c);
                VT wo = W[0];
                for (int r = 0; r < n; r++)
                    O[r * n + c] = Vg[r];
                for (int i = 1; i < n; i++) {
                    const MT m = M_EQ(R[i], cv);
                    wo = V_SEL(m, wo, W[i]);
                    for (int r = 0; r < n; r++)
                        O[r * n + c] = V_SEL(m, O[r * n + c], Vg[i * n + r]);
                }
                WO[c] = wo;
            }
            TN(store_aos)(w + base * n, WO, n, LANES);
            TN(store_aos)(v + base * nn, O, (int)nn, LANES);
        } else
#endif
        {
            /* Lane by lane from here: the eigenvectors (rows of V) go to A's memory as each lane's
             * n x n block, then eigenvalue i and eigenvector i go to sorted position R[i] while
             * being transposed into columns and sign-fixed (one pass over the output). */
            ELT *scr = (ELT *)Ag;
            /* zeroed: GCC cannot see that store_aos writes every entry the lane loop reads */
            ELT wl[LANES * CT__EIGH_LANES_MAX_N] = {0}, rl[LANES * CT__EIGH_LANES_MAX_N] = {0},
                           sl[LANES * CT__EIGH_LANES_MAX_N];
            TN(store_aos)(wl, W, n, nl);
            TN(store_aos)(rl, R, n, nl);
            if (v) {
                TN(store_aos)(sl, SG, n, nl);
                TN(store_aos)(scr, Vg, (int)nn, nl);
            }
            for (int l = 0; l < nl; l++) {
                int perm[CT__EIGH_LANES_MAX_N];
                ELT *wo = w + (base + l) * n;
                for (int i = 0; i < n; i++) {
                    const int p = (int)rl[l * n + i];
                    perm[p] = i;
                    wo[p] = wl[l * n + i];
                }
                if (v)
                    TN(perm_t)(n, scr + l * nn, sl + l * n, perm, v + (base + l) * nn, pf->stream);
            }
        }
        if (info) {
            int32_t ti[LANES];
            M_TOINFO(bad[g], notconv[g], ti);
            for (int l = 0; l < nl; l++)
                info[base + l] = ti[l];
        }
    }
}

/* Lane groups in flight at n = 8 (an ISA file may define CT__EIGH_G8, at most 4: the QR step's
 * per-group state arrays). Four interleaved QR chases hide more of the rotation chain's latency
 * than two on AVX2 (4-13% at 8x8 f32, one thread); on AVX-512 the four groups' A and V (32 KiB in
 * f32) crowd L1 and two are as fast. */
#ifndef CT__EIGH_G8
#define CT__EIGH_G8 2
#endif
#define CT__EIGH_INST(N, G)                                                                        \
    static void TN(blk##N)(const ELT *a, int64_t nmat, int upper, ELT *w, ELT *v, int32_t *info,   \
                           ct__eigh_pf *pf) {                                                      \
        VT A[(G) * (N) * (N)], V[(G) * (N) * (N)];                                                 \
        TN(block)(N, G, A, V, a, nmat, upper, w, v, info, pf);                                     \
    }
CT__EIGH_INST(2, 2)
CT__EIGH_INST(3, 2)
CT__EIGH_INST(4, 2)
CT__EIGH_INST(8, CT__EIGH_G8)
#undef CT__EIGH_INST

/* runtime n <= 16: two groups in flight */
static void TN(blkn2)(int n, const ELT *a, int64_t nmat, int upper, ELT *w, ELT *v, int32_t *info,
                      ct__eigh_pf *pf) {
    VT A[2 * 16 * 16], V[2 * 16 * 16];
    TN(block)(n, 2, A, V, a, nmat, upper, w, v, info, pf);
}

/* n > CT__EIGH_STACK_MAX_N: G groups' A and V in the caller's workspace */
static void TN(blkn)(int n, int G, const ELT *a, int64_t nmat, int upper, ELT *w, ELT *v,
                     int32_t *info, void *work, ct__eigh_pf *pf) {
    VT *A = (VT *)work, *V = A + G * n * n;
    TN(block)(n, G, A, V, a, nmat, upper, w, v, info, pf);
}

#ifdef CT__EIGH_N3
/* ---- specialised n = 3: lower triangle in 6 registers, G independent groups in flight (the
 * rotation is a long serial chain; interleaving groups hides its latency). The ISA file provides
 * V_N3_LOAD(ptr, upper, a6) / V_N3_STORE(ptr, n, x, k) for full groups (in-register transposes)
 * and EIGH_TINY (added under the square root so an inactive lane never divides 0/0); optionally
 * CT__EIGH_N3_G (groups per block, <= 4; default 2), CT__EIGH_N3_QUAT (accumulate V as a
 * quaternion, see n3rot), V_RSQRT_ANGLE / V_RSQRT_CS / V_RCP_T / V_RCP_TAU (cheaper estimates for
 * the angle's root, the root giving c and s, t's and tau's reciprocals).
 * A lane is active in a sweep iff one of its pairs is above threshold at the sweep's start;
 * inactive lanes rotate by exactly the identity (b = 0 gives s = 0, c forced to 1). ---- */
#ifndef CT__EIGH_N3_G
#define CT__EIGH_N3_G 2
#endif
static inline __attribute__((always_inline)) MT TN(n3need)(VT app, VT aqq, VT apq) {
    /* bb > tiny2 and bb > u2 |app aqq|, as one compare (no NaN reaches here) */
    VT bb = V_MUL(apq, apq);
    return M_GT(bb, V_MAX(V_SET1(EIGH_TINY2), V_MUL(V_SET1(EIGH_U2), V_ABS(V_MUL(app, aqq)))));
}

/* One rotation of pair (p, q) = (ip, iq) with the third index r, in every group g < G: A[g]
 * entries ip, iq (diagonal), ipq, irp, irq (the lower triangle a00 a10 a11 a20 a21 a22). Each
 * step is written across the groups, so the out-of-order core sees G independent chains side by
 * side (one group's long chain after another's filled the scheduler with waiting operations: the
 * groups ran nearly serially).
 * V: columns cp, cq of V[g][col][row] are updated by the rotation (x - s (y + tau x),
 * y + s (x - tau y)); or, with CT__EIGH_N3_QUAT, V = R(Q) is kept as an unnormalised quaternion
 * Q[g] = (w, x, y, z) and multiplied on the right by (1, u e_axis), u = -+tau = tan(-+angle / 2)
 * (the plane rotation (0,1) is a rotation about z by -angle, (0,2) about y by +angle, (1,2) about
 * x by -angle): 4 FMAs instead of 12 and 4 registers instead of 9; R(Q) is formed once at the end
 * and is orthogonal by construction. */
static inline __attribute__((always_inline)) void
TN(n3rot)(const int G, const MT *act, VT (*A)[6], const int ip, const int iq, const int ipq,
          const int irp, const int irq, VT (*V)[3][3], const int cp, const int cq, VT (*Q)[4],
          const int axis, const int want_v) {
    const VT one = V_SET1((ELT)1);
    VT b[4], d[4], b2[4], b22[4], den[4], sb[4], gg[4], c[4], s[4], tb[4];
#define N3G for (int g = 0; g < G; g++)
    N3G b[g] = V_SEL(act[g], V_ZERO(), A[g][ipq]);
    N3G d[g] = V_SUB(A[g][iq], A[g][ip]);
    N3G b2[g] = V_ADD(b[g], b[g]);
    N3G b22[g] = V_MUL(b2[g], b2[g]);
    N3G {
        VT r = V_FMA(d[g], d[g], V_ADD(b22[g], V_SET1(EIGH_TINY)));
#ifdef V_RSQRT_ANGLE /* den only sets the angle: c, s and t stay consistent with each other */
        den[g] = V_FMA(r, V_RSQRT_ANGLE(r), V_ABS(d[g]));
#else
        den[g] = V_FMA(r, V_RSQRT(r), V_ABS(d[g]));
#endif
    }
    N3G sb[g] = V_XOR(b2[g], V_SIGN(d[g]));
#ifdef V_RSQRT_CS /* with the quaternion V, c and s only rotate A: V stays orthogonal */
    N3G gg[g] = V_RSQRT_CS(V_FMA(den[g], den[g], b22[g]));
#else
    N3G gg[g] = V_RSQRT(V_FMA(den[g], den[g], b22[g]));
#endif
#ifdef V_RCP_T /* t only moves the diagonal (t b): its last bit is not needed */
    N3G tb[g] = V_MUL(V_MUL(sb[g], V_RCP_T(den[g])), b[g]);
#else
    N3G tb[g] = V_MUL(V_MUL(sb[g], V_RCP(den[g])), b[g]);
#endif
    N3G c[g] = V_SEL(act[g], one, V_MUL(den[g], gg[g]));
    N3G s[g] = V_MUL(sb[g], gg[g]);
    N3G A[g][ip] = V_SUB(A[g][ip], tb[g]);
    N3G A[g][iq] = V_ADD(A[g][iq], tb[g]);
    N3G A[g][ipq] = V_SEL(act[g], A[g][ipq], V_ZERO());
    N3G {
        VT x = A[g][irp], y = A[g][irq];
        A[g][irp] = V_FNMA(s[g], y, V_MUL(c[g], x));
        A[g][irq] = V_FMA(s[g], x, V_MUL(c[g], y));
    }
    if (!want_v) return;
    VT tau[4]; /* tan(angle / 2) */
#ifdef V_RCP_TAU
    N3G tau[g] = V_MUL(s[g], V_RCP_TAU(V_ADD(one, c[g])));
#else
    N3G tau[g] = V_MUL(s[g], V_RCP(V_ADD(one, c[g])));
#endif
#ifdef CT__EIGH_N3_QUAT
    (void)V;
    (void)cp;
    (void)cq;
    N3G {
        VT *q = Q[g], w0 = q[0], x0 = q[1], y0 = q[2], z0 = q[3], u = tau[g];
        if (axis == 2) { /* (0,1): (1, -tau e_z) */
            q[0] = V_FMA(u, z0, w0);
            q[1] = V_FNMA(u, y0, x0);
            q[2] = V_FMA(u, x0, y0);
            q[3] = V_FNMA(u, w0, z0);
        } else if (axis == 1) { /* (0,2): (1, +tau e_y) */
            q[0] = V_FNMA(u, y0, w0);
            q[1] = V_FNMA(u, z0, x0);
            q[2] = V_FMA(u, w0, y0);
            q[3] = V_FMA(u, x0, z0);
        } else { /* (1,2): (1, -tau e_x) */
            q[0] = V_FMA(u, x0, w0);
            q[1] = V_FNMA(u, w0, x0);
            q[2] = V_FNMA(u, z0, y0);
            q[3] = V_FMA(u, y0, z0);
        }
    }
#else
    (void)Q;
    (void)axis;
    N3G for (int k = 0; k < 3; k++) {
        VT vx = V[g][cp][k], vy = V[g][cq][k];
        V[g][cp][k] = V_FNMA(s[g], V_FMA(tau[g], vx, vy), vx);
        V[g][cq][k] = V_FMA(s[g], V_FNMA(tau[g], vy, vx), vy);
    }
#endif
#undef N3G
}

/* G groups of LANES 3x3 matrices, all full (no tail), contiguous from a. */
static inline __attribute__((always_inline)) void TN(n3block)(const int G, const ELT *a, int upper,
                                                              ELT *w, ELT *v, int32_t *info) {
    VT A[4][6], V[4][3][3]; /* A: a00 a10 a11 a20 a21 a22; V[g][col][row] */
    VT Q[4][4];             /* with CT__EIGH_N3_QUAT: V = R(Q[g]) */
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
        for (int k = 0; k < 6; k++)
            A[g][k] = V_SEL(bd, V_MUL(A[g][k], sc), V_ZERO());
        bad[g] = bd;
#ifdef CT__EIGH_N3_QUAT
        Q[g][0] = V_SET1((ELT)1);
        Q[g][1] = Q[g][2] = Q[g][3] = V_ZERO();
#else
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                V[g][i][j] = V_SET1((ELT)(i == j));
#endif
    }
    for (int sweep = 0;; sweep++) {
        int nact = 0, gact[4];
        MT act[4];
        for (int g = 0; g < G; g++) {
            VT *x = A[g];
            act[g] = M_OR(M_OR(TN(n3need)(x[0], x[2], x[1]), TN(n3need)(x[0], x[5], x[3])),
                          TN(n3need)(x[2], x[5], x[4]));
            notconv[g] = act[g];
            if (M_ANY(act[g])) gact[nact++] = g;
        }
        if (nact == 0 || sweep == CT__EIGH_MAX_SWEEPS) break;
        if (nact == G) {
            TN(n3rot)(G, act, A, 0, 2, 1, 3, 4, V, 0, 1, Q, 2, v != 0);
            TN(n3rot)(G, act, A, 0, 5, 3, 1, 4, V, 0, 2, Q, 1, v != 0);
            TN(n3rot)(G, act, A, 2, 5, 4, 1, 3, V, 1, 2, Q, 0, v != 0);
        } else {
            /* the last sweep usually has a few active lanes in one group (random f32: in half
             * the blocks of 4 x 8, 2% of the lanes): the other groups' rotations would be the
             * identity, so they are skipped (~10% of the rotations at 3x3) */
            for (int i = 0; i < nact; i++) {
                const int g = gact[i];
                TN(n3rot)(1, act + g, A + g, 0, 2, 1, 3, 4, V + g, 0, 1, Q + g, 2, v != 0);
                TN(n3rot)(1, act + g, A + g, 0, 5, 3, 1, 4, V + g, 0, 2, Q + g, 1, v != 0);
                TN(n3rot)(1, act + g, A + g, 2, 5, 4, 1, 3, V + g, 1, 2, Q + g, 0, v != 0);
            }
        }
    }
#ifdef CT__EIGH_N3_QUAT
    if (v)
        for (int g = 0; g < G; g++) { /* V = R(Q / |Q|), in V[g][col][row] */
            VT w0 = Q[g][0], x0 = Q[g][1], y0 = Q[g][2], z0 = Q[g][3];
            VT n2 = V_FMA(w0, w0, V_FMA(x0, x0, V_FMA(y0, y0, V_MUL(z0, z0))));
#ifdef V_DIV
            VT s2 = V_DIV(V_SET1((ELT)2), n2);
#else
            VT s2 = V_MUL(V_SET1((ELT)2), V_RCP(n2));
#endif
            VT xs = V_MUL(x0, s2), ys = V_MUL(y0, s2), zs = V_MUL(z0, s2);
            VT xx = V_MUL(x0, xs), yy = V_MUL(y0, ys), zz = V_MUL(z0, zs);
            VT xy = V_MUL(x0, ys), xz = V_MUL(x0, zs), yz = V_MUL(y0, zs);
            VT wx = V_MUL(w0, xs), wy = V_MUL(w0, ys), wz = V_MUL(w0, zs);
            const VT one = V_SET1((ELT)1);
            V[g][0][0] = V_SUB(one, V_ADD(yy, zz));
            V[g][1][1] = V_SUB(one, V_ADD(xx, zz));
            V[g][2][2] = V_SUB(one, V_ADD(xx, yy));
            V[g][1][0] = V_SUB(xy, wz); /* R01 */
            V[g][0][1] = V_ADD(xy, wz); /* R10 */
            V[g][2][0] = V_ADD(xz, wy); /* R02 */
            V[g][0][2] = V_SUB(xz, wy); /* R20 */
            V[g][2][1] = V_SUB(yz, wx); /* R12 */
            V[g][1][2] = V_ADD(yz, wx); /* R21 */
        }
#else
    (void)Q;
#endif
    const VT nan = V_SET1((ELT)NAN);
    for (int g = 0; g < G; g++) {
        VT W[3] = {A[g][0], A[g][2], A[g][5]};
        VT(*C)[3] = V[g];
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
        for (int i = 0; i < 3; i++)
            W[i] = V_SEL(bad[g], V_MUL(W[i], usc[g]), nan);
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
                for (int k = 0; k < 3; k++)
                    out[k * 3 + j] = V_SEL(bad[g], V_XOR(C[j][k], sg), nan);
            }
            V_N3_STORE(v + (int64_t)g * LANES * 9, 3, out, 9);
        }
        if (info) {
            int32_t ti[LANES];
            M_TOINFO(bad[g], notconv[g], ti);
            for (int l = 0; l < LANES; l++)
                info[(int64_t)g * LANES + l] = ti[l];
        }
    }
}
static void TN(n3blk)(const ELT *a, int upper, ELT *w, ELT *v, int32_t *info) {
    TN(n3block)(CT__EIGH_N3_G, a, upper, w, v, info);
}
static void TN(n3blk1)(const ELT *a, int upper, ELT *w, ELT *v, int32_t *info) {
    TN(n3block)(1, a, upper, w, v, info);
}
#endif /* CT__EIGH_N3 */

void CT__EIGH_ENTRY(int64_t batch, int n, const ELT *a, int upper, ELT *w, ELT *v, int32_t *info,
                    void *work, const ct__eigh_hint *hint) {
    const ELT *next = hint ? (const ELT *)hint->next : 0;
    const int64_t next_cnt = hint ? hint->next_cnt : 0;
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
    const int G = n == 8 ? CT__EIGH_G8 : ct__eigh_groups(n);
    int64_t step = (int64_t)G * LANES;
#ifdef V_STREAM
    /* non-temporal stores need whole, aligned cache lines per output row block */
    const int stream = hint && hint->stream_out && v && n % (64 / (int)sizeof(ELT)) == 0 &&
                       ((uintptr_t)v & 63) == 0;
#else
    const int stream = 0;
#endif
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
            for (int64_t k = 0; k < nm * 9; k++)
                ta[k] = a[b0 * 9 + k];
            TN(n3blk1)(ta, upper, tw, v ? tv : 0, ti);
            for (int64_t k = 0; k < nm * 3; k++)
                w[b0 * 3 + k] = tw[k];
            if (v)
                for (int64_t k = 0; k < nm * 9; k++)
                    v[b0 * 9 + k] = tv[k];
            if (info)
                for (int64_t k = 0; k < nm; k++)
                    info[b0 + k] = ti[k];
        }
        return;
    }
#endif
    for (; b0 < batch; b0 += step) {
        int64_t nm = batch - b0 < step ? batch - b0 : step;
        const ELT *ab = a + b0 * nn;
        ELT *wb = w + b0 * n, *vb = v ? v + b0 * nn : 0;
        int32_t *ib = info ? info + b0 : 0;
        /* the next block's matrices: in this call, or the caller's hint after the last block */
        const ELT *na = ab + nm * nn;
        int64_t nx = batch - b0 - nm;
        if (nx == 0 && next) {
            na = next;
            nx = next_cnt;
        }
        if (nx > step) nx = step;
        ct__eigh_pf pf = {(const char *)na, (const char *)(na + nx * nn), stream};
        switch (n) {
        case 2: TN(blk2)(ab, nm, upper, wb, vb, ib, &pf); break;
        case 3: TN(blk3)(ab, nm, upper, wb, vb, ib, &pf); break;
        case 4: TN(blk4)(ab, nm, upper, wb, vb, ib, &pf); break;
        case 8: TN(blk8)(ab, nm, upper, wb, vb, ib, &pf); break;
        default:
            if (n <= CT__EIGH_STACK_MAX_N)
                TN(blkn2)(n, ab, nm, upper, wb, vb, ib, &pf);
            else
                TN(blkn)(n, G, ab, nm, upper, wb, vb, ib, work, &pf);
            break;
        }
    }
#ifdef V_STREAM
    if (stream) V_SFENCE(); /* order the non-temporal stores before the caller reads v */
#endif
}

#undef CT__EIGH_N3_G
#undef CT__EIGH_N3_QUAT
#undef CT__EIGH_G8
#undef V_RSQRT_QR
#undef V_RCP_QR
#undef V_RSQRT_SHIFT
#undef V_RCP_SHIFT
#endif /* CT__EIGH_TMPL */
