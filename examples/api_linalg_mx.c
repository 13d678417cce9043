/* A tour of four numeric corners of ctorch, one short section per call:
 *
 *   1. linear algebra (ctorch/linalg.h): eigh / eigvalsh / eigh_ex, cholesky / cholesky_ex, inv,
 *      solve, det, slogdet, qr and svd on small float64 matrices;
 *   2. low-precision casts and OCP Microscaling (ctorch/mx.h): element casts to FP8 / FP4 / E8M0,
 *      MX quantize / dequantize, the MX tensor's metadata, the MX linear layer and GGUF MXFP4;
 *   3. 2:4 semi-structured sparsity (ctorch/sparse.h): compressing, pruning with FP8 row scales,
 *      the sparse matmul;
 *   4. FlexAttention extras (ctorch/attention.h): the ready-made mask and score functions, block
 *      kinds of a block mask, and the backward pass checked against finite differences.
 *
 * Every result is checked against something computed independently in this file (hand-derived
 * values, algebraic identities, a naive loop), so the program exits 1 if the library is wrong.
 * Build the examples with CMake and run `./build/example_api_linalg_mx` (no arguments). */
#include "ctorch/ctorch.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static ct_ctx *ctx;

/* Fail with the library's message when a call does not return CT_OK. */
#define CHECK(call)                                                                                \
    do {                                                                                           \
        ct_status st_ = (call);                                                                    \
        if (st_ != CT_OK) {                                                                        \
            fprintf(stderr, "line %d: %s failed: %s: %s\n", __LINE__, #call, ct_status_str(st_),   \
                    ct_ctx_last_error(ctx));                                                       \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

/* Fail when an expectation about a result does not hold. */
#define EXPECT(cond)                                                                               \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "line %d: check failed: %s\n", __LINE__, #cond);                       \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

/* Expect a call to fail with a given status, and show the context's message. */
#define EXPECT_ERROR(call, status)                                                                 \
    do {                                                                                           \
        ct_status st_ = (call);                                                                    \
        if (st_ != (status)) {                                                                     \
            fprintf(stderr, "line %d: %s returned %s, expected %s\n", __LINE__, #call,             \
                    ct_status_str(st_), ct_status_str(status));                                    \
            return 1;                                                                              \
        }                                                                                          \
        printf("  expected error (%s): %s\n", ct_status_str(st_), ct_ctx_last_error(ctx));         \
    } while (0)

#define NEAR(a, b, tol) (fabs((double)(a) - (double)(b)) <= (tol))

/* ---- small host-side helpers used by the checks ---- */

/* C = A (m x k) @ B (k x n), row-major doubles. */
static void matmul_d(const double *A, const double *B, double *C, int m, int k, int n) {
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int p = 0; p < k; p++)
                s += A[i * k + p] * B[p * n + j];
            C[i * n + j] = s;
        }
}

/* Largest |A - B| over n entries. */
static double max_diff(const double *A, const double *B, int n) {
    double d = 0;
    for (int i = 0; i < n; i++)
        d = fmax(d, fabs(A[i] - B[i]));
    return d;
}

/* ======================================= 1. linear algebra ==================================== */

static const int64_t SHAPE_33[2] = {3, 3};

/* ct_linalg_eigh: eigenvalues (ascending) and eigenvectors (columns) of a batch of symmetric
 * matrices. Only the 'L' triangle is read, so the upper one may hold anything (here NaN). */
static int demo_eigh(void) {
    /* matrix 0 has eigenvalues 1, 3, 5 (a 2x2 block [[2,1],[1,2]] plus 5); matrix 1 is diagonal */
    const double a[2][9] = {{2, 1, 0, 1, 2, 0, 0, 0, 5}, {4, 0, 0, 0, -1, 0, 0, 0, 2}};
    double a_lower[2][9];
    memcpy(a_lower, a, sizeof a);
    for (int b = 0; b < 2; b++)
        a_lower[b][1] = a_lower[b][2] = a_lower[b][5] = NAN; /* never read with uplo = 'L' */
    const int64_t shape[3] = {2, 3, 3};
    ct_tensor *t, *w, *v;
    CHECK(ct_tensor_from_host(ctx, a_lower, CT_FLOAT64, 3, shape, &t));
    CHECK(ct_linalg_eigh(ctx, t, 'L', &w, &v));
    double wh[2][3], vh[2][9];
    CHECK(ct_tensor_to_host(w, wh, sizeof wh));
    CHECK(ct_tensor_to_host(v, vh, sizeof vh));
    /* hand-derived: eigenvalues ascending; each eigenvector's largest component made positive
     * (for (1, -1, 0) / sqrt 2 the first of the two tied components) */
    const double r = sqrt(0.5);
    const double w_exp[2][3] = {{1, 3, 5}, {-1, 2, 4}};
    const double v_exp[2][9] = {{r, r, 0, -r, r, 0, 0, 0, 1}, {0, 0, 1, 1, 0, 0, 0, 1, 0}};
    for (int b = 0; b < 2; b++) {
        EXPECT(max_diff(wh[b], w_exp[b], 3) < 1e-12);
        EXPECT(max_diff(vh[b], v_exp[b], 9) < 1e-12);
        /* identity: A v_j = w_j v_j for every column j */
        double av[9];
        matmul_d(a[b], vh[b], av, 3, 3, 3);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                EXPECT(NEAR(av[i * 3 + j], wh[b][j] * vh[b][i * 3 + j], 1e-12));
    }
    printf("eigh: eigenvalues [%g %g %g] and [%g %g %g]; A v = w v holds\n", wh[0][0], wh[0][1],
           wh[0][2], wh[1][0], wh[1][1], wh[1][2]);
    ct_tensor_release(t), ct_tensor_release(w), ct_tensor_release(v);
    return 0;
}

/* ct_linalg_eigvalsh: eigenvalues only (cheaper), here reading the upper triangle. */
static int demo_eigvalsh(void) {
    const double a[9] = {2, 1, 0, 1, 2, 0, 0, 0, 5};
    ct_tensor *t, *w;
    CHECK(ct_tensor_from_host(ctx, a, CT_FLOAT64, 2, SHAPE_33, &t));
    CHECK(ct_linalg_eigvalsh(ctx, t, 'U', &w));
    double wh[3];
    CHECK(ct_tensor_to_host(w, wh, sizeof wh));
    EXPECT(NEAR(wh[0], 1, 1e-12) && NEAR(wh[1], 3, 1e-12) && NEAR(wh[2], 5, 1e-12));
    printf("eigvalsh: [%g %g %g]\n", wh[0], wh[1], wh[2]);
    ct_tensor_release(t), ct_tensor_release(w);
    return 0;
}

/* ct_linalg_eigh_ex: as eigh plus a per-matrix info code; a matrix holding NaN gets NaN results
 * and info = CT_EIGH_INFO_NONFINITE while the rest of the batch is unaffected. Passing NULL for
 * the eigenvectors computes eigenvalues only. */
static int demo_eigh_ex(void) {
    const double a[2][9] = {{2, 1, 0, 1, 2, 0, 0, 0, 5}, {1, 0, 0, NAN, 1, 0, 0, 0, 1}};
    const int64_t shape[3] = {2, 3, 3};
    ct_tensor *t, *w, *info;
    CHECK(ct_tensor_from_host(ctx, a, CT_FLOAT64, 3, shape, &t));
    CHECK(ct_linalg_eigh_ex(ctx, t, 'L', &w, NULL, &info));
    double wh[2][3];
    int32_t ih[2];
    CHECK(ct_tensor_to_host(w, wh, sizeof wh));
    CHECK(ct_tensor_to_host(info, ih, sizeof ih));
    EXPECT(ih[0] == CT_EIGH_INFO_OK && ih[1] == CT_EIGH_INFO_NONFINITE);
    EXPECT(NEAR(wh[0][0], 1, 1e-12) && NEAR(wh[0][1], 3, 1e-12) && NEAR(wh[0][2], 5, 1e-12));
    EXPECT(isnan(wh[1][0]) && isnan(wh[1][1]) && isnan(wh[1][2]));
    printf("eigh_ex: info [%d %d], matrix 0 eigenvalues [%g %g %g], matrix 1 NaN\n", ih[0], ih[1],
           wh[0][0], wh[0][1], wh[0][2]);
    ct_tensor_release(t), ct_tensor_release(w), ct_tensor_release(info);
    return 0;
}

/* ct_linalg_cholesky: the factor L with A = L L^T (upper = true: U with A = U^T U). The plain
 * call fails on a matrix that is not positive-definite and names it. */
static int demo_cholesky(void) {
    const double L0[9] = {2, 0, 0, 1, 3, 0, -1, 2, 1}, L0t[9] = {2, 1, -1, 0, 3, 2, 0, 0, 1};
    double A[9];
    matmul_d(L0, L0t, A, 3, 3, 3); /* A = L0 L0^T = [[4,2,-2],[2,10,5],[-2,5,6]] */
    ct_tensor *t, *L, *U;
    CHECK(ct_tensor_from_host(ctx, A, CT_FLOAT64, 2, SHAPE_33, &t));
    CHECK(ct_linalg_cholesky(ctx, t, false, &L));
    CHECK(ct_linalg_cholesky(ctx, t, true, &U));
    double lh[9], uh[9];
    CHECK(ct_tensor_to_host(L, lh, sizeof lh));
    CHECK(ct_tensor_to_host(U, uh, sizeof uh));
    /* the factor with a positive diagonal is unique: it must be L0 (and L0^T) */
    EXPECT(max_diff(lh, L0, 9) < 1e-12 && max_diff(uh, L0t, 9) < 1e-12);
    printf("cholesky: L diagonal [%g %g %g], U = L^T\n", lh[0], lh[4], lh[8]);

    const double N[9] = {1, 2, 0, 2, 1, 0, 0, 0, 1}; /* leading 2x2 minor 1 - 4 < 0 */
    ct_tensor *n, *bad = NULL;
    CHECK(ct_tensor_from_host(ctx, N, CT_FLOAT64, 2, SHAPE_33, &n));
    EXPECT_ERROR(ct_linalg_cholesky(ctx, n, false, &bad), CT_ERR_INVALID_ARG);
    EXPECT(bad == NULL);
    ct_tensor_release(t), ct_tensor_release(L), ct_tensor_release(U), ct_tensor_release(n);
    return 0;
}

/* ct_linalg_cholesky_ex: the same, reporting per matrix in `info` (0, or the order of the first
 * non-positive leading minor) instead of failing. */
static int demo_cholesky_ex(void) {
    const double a[2][9] = {{4, 2, -2, 2, 10, 5, -2, 5, 6}, {1, 2, 0, 2, 1, 0, 0, 0, 1}};
    const int64_t shape[3] = {2, 3, 3};
    ct_tensor *t, *L, *info;
    CHECK(ct_tensor_from_host(ctx, a, CT_FLOAT64, 3, shape, &t));
    CHECK(ct_linalg_cholesky_ex(ctx, t, false, &L, &info));
    int32_t ih[2];
    double lh[2][9];
    CHECK(ct_tensor_to_host(info, ih, sizeof ih));
    CHECK(ct_tensor_to_host(L, lh, sizeof lh));
    EXPECT(ih[0] == 0 && ih[1] == 2); /* matrix 1: its 2x2 leading minor is -3 */
    EXPECT(NEAR(lh[0][0], 2, 1e-12) && NEAR(lh[0][4], 3, 1e-12) && NEAR(lh[0][8], 1, 1e-12));
    printf("cholesky_ex: info [%d %d]\n", ih[0], ih[1]);
    ct_tensor_release(t), ct_tensor_release(L), ct_tensor_release(info);
    return 0;
}

/* ct_linalg_inv: the inverse; checked by A inv(A) = I. */
static int demo_inv(void) {
    const double A[9] = {4, 2, -2, 2, 10, 5, -2, 5, 6}, I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    ct_tensor *t, *inv;
    CHECK(ct_tensor_from_host(ctx, A, CT_FLOAT64, 2, SHAPE_33, &t));
    CHECK(ct_linalg_inv(ctx, t, &inv));
    double ih[9], prod[9];
    CHECK(ct_tensor_to_host(inv, ih, sizeof ih));
    matmul_d(A, ih, prod, 3, 3, 3);
    const double err = max_diff(prod, I, 9);
    EXPECT(err < 1e-12);
    printf("inv: max |A inv(A) - I| < 1e-12\n");
    ct_tensor_release(t), ct_tensor_release(inv);
    return 0;
}

/* ct_linalg_solve: x with A x = b (b a vector here; (n, k) right-hand sides work too). A b whose
 * length does not match A is a shape error. */
static int demo_solve(void) {
    const double A[9] = {4, 2, -2, 2, 10, 5, -2, 5, 6}, x_true[3] = {1, -2, 3};
    double b[3];
    matmul_d(A, x_true, b, 3, 3, 1); /* b = A x_true */
    const int64_t n3 = 3, n4 = 4;
    ct_tensor *ta, *tb, *x, *tb4, *bad = NULL;
    CHECK(ct_tensor_from_host(ctx, A, CT_FLOAT64, 2, SHAPE_33, &ta));
    CHECK(ct_tensor_from_host(ctx, b, CT_FLOAT64, 1, &n3, &tb));
    CHECK(ct_linalg_solve(ctx, ta, tb, &x));
    double xh[3];
    CHECK(ct_tensor_to_host(x, xh, sizeof xh));
    EXPECT(max_diff(xh, x_true, 3) < 1e-12);
    printf("solve: x = [%g %g %g]\n", xh[0], xh[1], xh[2]);
    const double b4[4] = {1, 2, 3, 4};
    CHECK(ct_tensor_from_host(ctx, b4, CT_FLOAT64, 1, &n4, &tb4));
    EXPECT_ERROR(ct_linalg_solve(ctx, ta, tb4, &bad), CT_ERR_SHAPE);
    ct_tensor_release(ta), ct_tensor_release(tb), ct_tensor_release(x), ct_tensor_release(tb4);
    return 0;
}

/* ct_linalg_det: determinants of a batch: a triangular matrix (product of its diagonal) and
 * A = L0 L0^T (det(L0)^2 = (2 * 3 * 1)^2). */
static int demo_det(void) {
    const double a[2][9] = {{2, 7, -3, 0, -1, 5, 0, 0, 4}, {4, 2, -2, 2, 10, 5, -2, 5, 6}};
    const int64_t shape[3] = {2, 3, 3};
    ct_tensor *t, *d;
    CHECK(ct_tensor_from_host(ctx, a, CT_FLOAT64, 3, shape, &t));
    CHECK(ct_linalg_det(ctx, t, &d));
    double dh[2];
    CHECK(ct_tensor_to_host(d, dh, sizeof dh));
    EXPECT(NEAR(dh[0], 2 * -1 * 4, 1e-12) && NEAR(dh[1], 36, 1e-11));
    printf("det: [%g %g]\n", dh[0], dh[1]);
    ct_tensor_release(t), ct_tensor_release(d);
    return 0;
}

/* ct_linalg_slogdet: sign and log|det| (no overflow for large matrices); a singular matrix gives
 * sign 0 (here -0: the signed product of the LU diagonal, as torch prints it) and -inf. */
static int demo_slogdet(void) {
    const double a[2][9] = {{2, 7, -3, 0, -1, 5, 0, 0, 4}, {1, 2, 3, 2, 4, 6, 1, 0, 1}};
    const int64_t shape[3] = {2, 3, 3};
    ct_tensor *t, *sign, *logabs;
    CHECK(ct_tensor_from_host(ctx, a, CT_FLOAT64, 3, shape, &t));
    CHECK(ct_linalg_slogdet(ctx, t, &sign, &logabs));
    double sh[2], lh[2];
    CHECK(ct_tensor_to_host(sign, sh, sizeof sh));
    CHECK(ct_tensor_to_host(logabs, lh, sizeof lh));
    EXPECT(sh[0] == -1 && NEAR(lh[0], log(8.0), 1e-12)); /* det = -8 */
    EXPECT(sh[1] == 0 && isinf(lh[1]) && lh[1] < 0);     /* row 1 = 2 * row 0 */
    printf("slogdet: sign [%g %g], log|det| [%.6f %g]\n", sh[0], sh[1], lh[0], lh[1]);
    ct_tensor_release(t), ct_tensor_release(sign), ct_tensor_release(logabs);
    return 0;
}

/* ct_linalg_qr: reduced QR of a 4x3 matrix: Q (4, 3) with orthonormal columns, R (3, 3) upper
 * triangular, Q R = M. */
static int demo_qr(void) {
    const double M[12] = {1, 2, 0, 0, 1, 1, 1, 0, 1, 2, 1, 3};
    const int64_t shape[2] = {4, 3};
    ct_tensor *t, *Q, *R;
    CHECK(ct_tensor_from_host(ctx, M, CT_FLOAT64, 2, shape, &t));
    CHECK(ct_linalg_qr(ctx, t, &Q, &R));
    EXPECT(ct_tensor_size(Q, 0) == 4 && ct_tensor_size(Q, 1) == 3);
    EXPECT(ct_tensor_size(R, 0) == 3 && ct_tensor_size(R, 1) == 3);
    double qh[12], rh[9], qr[12], qtq[9], qt[12];
    const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    CHECK(ct_tensor_to_host(Q, qh, sizeof qh));
    CHECK(ct_tensor_to_host(R, rh, sizeof rh));
    matmul_d(qh, rh, qr, 4, 3, 3);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++)
            qt[j * 4 + i] = qh[i * 3 + j];
    matmul_d(qt, qh, qtq, 3, 4, 3);
    EXPECT(max_diff(qr, M, 12) < 1e-12 && max_diff(qtq, I, 9) < 1e-12);
    EXPECT(rh[3] == 0 && rh[6] == 0 && rh[7] == 0); /* below the diagonal of R */
    printf("qr: Q (4, 3), R (3, 3); Q R = M and Q^T Q = I hold\n");
    ct_tensor_release(t), ct_tensor_release(Q), ct_tensor_release(R);
    return 0;
}

/* ct_linalg_svd: reduced SVD, U (m, r), S (r) descending, Vh (r, n) with U diag(S) Vh = M. U and
 * Vh may be NULL when only the singular values are wanted. */
static int demo_svd(void) {
    const double M[12] = {1, 2, 0, 0, 1, 1, 1, 0, 1, 2, 1, 3};
    const int64_t shape[2] = {4, 3};
    ct_tensor *t, *U, *S, *Vh;
    CHECK(ct_tensor_from_host(ctx, M, CT_FLOAT64, 2, shape, &t));
    CHECK(ct_linalg_svd(ctx, t, &U, &S, &Vh));
    double uh[12], sh[3], vh[9], us[12], usv[12], fro2 = 0;
    CHECK(ct_tensor_to_host(U, uh, sizeof uh));
    CHECK(ct_tensor_to_host(S, sh, sizeof sh));
    CHECK(ct_tensor_to_host(Vh, vh, sizeof vh));
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++)
            us[i * 3 + j] = uh[i * 3 + j] * sh[j];
    matmul_d(us, vh, usv, 4, 3, 3);
    for (int i = 0; i < 12; i++)
        fro2 += M[i] * M[i]; /* sum of S^2 = ||M||_F^2 = 23 */
    EXPECT(max_diff(usv, M, 12) < 1e-12);
    EXPECT(sh[0] >= sh[1] && sh[1] >= sh[2] && sh[2] >= 0);
    EXPECT(NEAR(sh[0] * sh[0] + sh[1] * sh[1] + sh[2] * sh[2], fro2, 1e-12));
    printf("svd: S = [%.6f %.6f %.6f], U diag(S) Vh = M holds\n", sh[0], sh[1], sh[2]);

    /* singular values only: [[0, 3], [4, 0]] has singular values 4 and 3 */
    const double P[4] = {0, 3, 4, 0};
    const int64_t s22[2] = {2, 2};
    ct_tensor *p, *S2;
    CHECK(ct_tensor_from_host(ctx, P, CT_FLOAT64, 2, s22, &p));
    CHECK(ct_linalg_svd(ctx, p, NULL, &S2, NULL));
    double s2[2];
    CHECK(ct_tensor_to_host(S2, s2, sizeof s2));
    EXPECT(NEAR(s2[0], 4, 1e-12) && NEAR(s2[1], 3, 1e-12));
    printf("svd (values only): [%g %g]\n", s2[0], s2[1]);
    ct_tensor_release(t), ct_tensor_release(U), ct_tensor_release(S), ct_tensor_release(Vh);
    ct_tensor_release(p), ct_tensor_release(S2);
    return 0;
}

/* ============================== 2. low-precision casts and MX ================================= */

/* ct_cast_f32_to / ct_cast_to_f32: encode floats into FP8 / FP4 / E8M0 codes (one per byte) and
 * decode them back. The expected codes are written out by hand from the bit layouts:
 * E4M3 = s.eeee.mmm (bias 7), E2M1 = s.ee.m (bias 1), E8M0 = 2^(code - 127). */
static int demo_casts(void) {
    const float x[7] = {1.0f, -2.0f, 0.5f, 448.0f, 500.0f, 0.0f, 0x1p-9f};
    const uint8_t e4m3_default[7] = {0x38, 0xC0, 0x30, 0x7E, 0x7F, 0x00, 0x01};
    uint8_t c[7], cs[7];
    CHECK(ct_cast_f32_to(CT_FLOAT8_E4M3FN, x, c, 7, CT_CAST_DEFAULT));
    CHECK(ct_cast_f32_to(CT_FLOAT8_E4M3FN, x, cs, 7, CT_CAST_SATURATE));
    EXPECT(memcmp(c, e4m3_default, 7) == 0); /* 500 > 448 (max): NaN 0x7F by default */
    EXPECT(cs[4] == 0x7E);                   /* ... and 448 when saturating */
    float back[7];
    CHECK(ct_cast_to_f32(CT_FLOAT8_E4M3FN, c, back, 7));
    for (int i = 0; i < 7; i++)
        EXPECT(i == 4 ? isnan(back[i]) : back[i] == x[i]); /* exactly representable: round trip */
    printf("cast e4m3: 1 -> 0x%02X, -2 -> 0x%02X, 448 -> 0x%02X, 500 -> 0x%02X (saturate 0x%02X)\n",
           c[0], c[1], c[3], c[4], cs[4]);

    /* FP4 E2M1: 7 overflows to the max 6; 0.25 is a tie between 0 and 0.5 and goes to even (0) */
    const float y[5] = {6.0f, 0.5f, -1.0f, 7.0f, 0.25f};
    const uint8_t fp4_exp[5] = {0x7, 0x1, 0xA, 0x7, 0x0};
    uint8_t c4[5];
    CHECK(ct_cast_f32_to(CT_FLOAT4_E2M1FN, y, c4, 5, CT_CAST_DEFAULT));
    EXPECT(memcmp(c4, fp4_exp, 5) == 0);
    /* E8M0: the nearest power of two (1.5 * 2^k ties round up); 0 has no code and gives NaN */
    const float z[4] = {8.0f, 1.0f, 3.0f, 0.0f};
    const uint8_t e8m0_exp[4] = {130, 127, 129, 0xFF};
    uint8_t c8[4];
    float z_back[4];
    CHECK(ct_cast_f32_to(CT_FLOAT8_E8M0FNU, z, c8, 4, CT_CAST_DEFAULT));
    CHECK(ct_cast_to_f32(CT_FLOAT8_E8M0FNU, c8, z_back, 4));
    EXPECT(memcmp(c8, e8m0_exp, 4) == 0 && z_back[0] == 8.0f && z_back[2] == 4.0f);
    printf("cast fp4: 6 -> 0x%X, -1 -> 0x%X; e8m0: 8 -> %d, 3 -> %d (decodes to %g)\n", c4[0],
           c4[2], c8[0], c8[2], z_back[2]);

    /* the casts take no context: an unsupported dtype is reported by the status alone */
    const ct_status st = ct_cast_f32_to(CT_INT32, x, c, 1, CT_CAST_DEFAULT);
    EXPECT(st == CT_ERR_DTYPE);
    printf("  expected error: %s\n", ct_status_str(st));
    return 0;
}

/* The OCP MX shared exponent of a block (FLOOR mode): floor(log2(amax)) - emax_elem, as an E8M0
 * code; computed here with frexp, independently of the library. */
static int e8m0_floor_code(double amax, int emax_elem) {
    int e;
    frexp(amax, &e); /* amax = f * 2^e with f in [0.5, 1): floor(log2 amax) = e - 1 */
    return (e - 1) - emax_elem + 127;
}

/* ct_mx_quantize / ct_mx_dequantize and the MX tensor's metadata: a (2, 64) tensor in MXFP8 E4M3
 * blocks of 32 along the last axis. The values are small integers and powers of two, exactly
 * representable after the block's power-of-two scale, so they come back exactly. */
static int demo_mx_quantize(void) {
    enum { R = 2, C = 64, BS = 32 };
    float x[R][C];
    for (int i = 0; i < BS; i++) {
        x[0][i] = (float)((i * 7) % 33 - 16);                           /* ints in [-16, 16] */
        x[0][BS + i] = (i % 2 ? -1.0f : 1.0f) * ldexpf(1.0f, -(i % 5)); /* 1 .. 1/16 */
        x[1][i] = (float)((i * 5) % 13 - 6) * 0.5f;                     /* -3 .. 3 in halves */
        x[1][BS + i] = (float)((i * 3) % 13 - 6) * 0.125f;              /* -0.75 .. 0.75 */
    }
    const int64_t shape[2] = {R, C};
    ct_tensor *t, *deq;
    ct_mx_tensor *q;
    CHECK(ct_tensor_from_host(ctx, x, CT_FLOAT32, 2, shape, &t));
    CHECK(ct_mx_quantize(ctx, t, CT_MXFP8_E4M3, BS, -1, CT_MX_SCALE_FLOOR, &q));

    /* metadata: the format, blocking, and the logical shape */
    EXPECT(ct_mx_format_of(q) == CT_MXFP8_E4M3 && ct_mx_block_size(q) == BS);
    EXPECT(ct_mx_axis(q) == 1 && ct_mx_ndim(q) == 2); /* axis -1 is reported as 1 */
    const int64_t *qs = ct_mx_shape(q);
    EXPECT(qs[0] == R && qs[1] == C);
    EXPECT(strcmp(ct_mx_format_name(ct_mx_format_of(q)), "mxfp8_e4m3") == 0);
    printf("mx: %s, block %d along axis %d, shape (%lld, %lld)\n",
           ct_mx_format_name(ct_mx_format_of(q)), ct_mx_block_size(q), ct_mx_axis(q),
           (long long)qs[0], (long long)qs[1]);

    /* ct_mx_scales: one E8M0 byte per block, here (2, 2) = the block max's power of two minus
     * E4M3's emax (8) */
    ct_tensor *scales = ct_mx_scales(q), *codes = ct_mx_codes(q); /* borrowed */
    EXPECT(ct_tensor_dtype(scales) == CT_FLOAT8_E8M0FNU && ct_tensor_size(scales, 1) == C / BS);
    EXPECT(ct_tensor_dtype(codes) == CT_UINT8 && ct_tensor_size(codes, 1) == C);
    uint8_t sh[R][C / BS], ch[R][C];
    CHECK(ct_tensor_to_host(scales, sh, sizeof sh));
    CHECK(ct_tensor_to_host(codes, ch, sizeof ch));
    for (int r = 0; r < R; r++)
        for (int b = 0; b < C / BS; b++) {
            double amax = 0;
            for (int i = 0; i < BS; i++)
                amax = fmax(amax, fabs(x[r][b * BS + i]));
            EXPECT(sh[r][b] == e8m0_floor_code(amax, 8));
        }
    /* ct_mx_codes: element 16 of block (0, 0) has scale 2^(4-8) = 1/16, so its code is 256 in
     * E4M3: exponent 8 + 7 = 15, mantissa 0 -> 0 1111 000 = 0x78 */
    int i16 = -1;
    for (int i = 0; i < BS; i++)
        if (x[0][i] == 16.0f) i16 = i;
    EXPECT(i16 >= 0 && ch[0][i16] == 0x78);
    printf("mx scales (E8M0 codes): [[%d %d] [%d %d]]; code of 16 in block 0: 0x%02X\n", sh[0][0],
           sh[0][1], sh[1][0], sh[1][1], ch[0][i16]);

    /* ct_mx_dequantize: back to float32 in the original shape, exactly equal here */
    CHECK(ct_mx_dequantize(ctx, q, CT_FLOAT32, &deq));
    float xd[R][C];
    CHECK(ct_tensor_to_host(deq, xd, sizeof xd));
    EXPECT(memcmp(xd, x, sizeof x) == 0);
    printf("mx dequantize: all %d values round-trip exactly\n", R * C);
    ct_tensor_release(t), ct_tensor_release(deq);
    ct_mx_tensor_free(q); /* also drops the borrowed codes and scales */
    return 0;
}

/* The E2M1 code of a value of the FP4 grid {0, .5, 1, 1.5, 2, 3, 4, 6} (sign in bit 3), by table
 * lookup: independent of the library's encoder. */
static int fp4_code(float v) {
    static const float grid[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
    for (int i = 0; i < 8; i++)
        if (fabsf(v) == grid[i]) return i | (signbit(v) ? 8 : 0); /* -0 keeps its sign */
    return -1;
}

/* MXFP4 weights W (3, 32): rows 0 and 1 reach 6 (scale 2^0), row 2 reaches 3 (scale 2^-1). */
static void make_fp4_weights(float w[3][32]) {
    static const float grid[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
    for (int n = 0; n < 3; n++)
        for (int k = 0; k < 32; k++) {
            const float v = grid[(k * (n + 3) + n) % 8] * ((k + n) % 3 == 0 ? -1.0f : 1.0f);
            w[n][k] = n == 2 ? v * 0.5f : v;
        }
    w[0][31] = 6, w[1][31] = -6, w[2][31] = 3; /* pin each row's max */
}

/* ct_mx_linear (y = x @ W^T + bias with W in MX blocks, dequantised inside the kernel) and
 * ct_mx_dequantize_into (into a tensor the caller already has). */
static int demo_mx_linear(void) {
    enum { B = 2, K = 32, N = 3 };
    float w[N][K], x[B][K], bias[N] = {0.5f, -1.0f, 2.0f};
    make_fp4_weights(w);
    for (int b = 0; b < B; b++)
        for (int k = 0; k < K; k++)
            x[b][k] = (float)((k * (b + 2)) % 7 - 3);
    const int64_t ws[2] = {N, K}, xs[2] = {B, K}, bs[1] = {N};
    ct_tensor *tw, *tx, *tb, *y, *wd;
    ct_mx_tensor *qw;
    CHECK(ct_tensor_from_host(ctx, w, CT_FLOAT32, 2, ws, &tw));
    CHECK(ct_tensor_from_host(ctx, x, CT_FLOAT32, 2, xs, &tx));
    CHECK(ct_tensor_from_host(ctx, bias, CT_FLOAT32, 1, bs, &tb));
    CHECK(ct_mx_quantize(ctx, tw, CT_MXFP4_E2M1, 32, 1, CT_MX_SCALE_FLOOR, &qw));

    /* dequantize_into: W is on the FP4 grid after its scale, so it comes back exactly */
    CHECK(ct_tensor_empty(ctx, CT_FLOAT32, 2, ws, &wd));
    CHECK(ct_mx_dequantize_into(ctx, qw, wd));
    float wb[N][K];
    CHECK(ct_tensor_to_host(wd, wb, sizeof wb));
    EXPECT(memcmp(wb, w, sizeof w) == 0);
    printf("mx dequantize_into: MXFP4 weights (3, 32) restored exactly\n");

    CHECK(ct_mx_linear(ctx, tx, qw, tb, &y));
    EXPECT(ct_tensor_size(y, 0) == B && ct_tensor_size(y, 1) == N);
    float yh[B][N];
    CHECK(ct_tensor_to_host(y, yh, sizeof yh));
    for (int b = 0; b < B; b++)
        for (int n = 0; n < N; n++) {
            double s = bias[n]; /* naive loop: every term is a small multiple of 1/4, exact */
            for (int k = 0; k < K; k++)
                s += (double)x[b][k] * w[n][k];
            EXPECT(yh[b][n] == (float)s);
        }
    printf("mx linear: y[0] = [%g %g %g] matches the naive loop\n", yh[0][0], yh[0][1], yh[0][2]);
    ct_tensor_release(tw), ct_tensor_release(tx), ct_tensor_release(tb), ct_tensor_release(y);
    ct_tensor_release(wd);
    ct_mx_tensor_free(qw);
    return 0;
}

/* ct_mx_to_gguf_mxfp4 / ct_mx_from_gguf_mxfp4: ggml's block_mxfp4 layout, 17 bytes per 32
 * elements: the E8M0 scale, then 16 bytes with element j in the low and j + 16 in the high nibble.
 */
static int demo_gguf(void) {
    enum { N = 3, K = 32, NB = N * K / 32 * 17 };
    float w[N][K];
    make_fp4_weights(w);
    const int64_t ws[2] = {N, K};
    ct_tensor *tw, *back;
    ct_mx_tensor *q, *q2, *bad = NULL;
    CHECK(ct_tensor_from_host(ctx, w, CT_FLOAT32, 2, ws, &tw));
    CHECK(ct_mx_quantize(ctx, tw, CT_MXFP4_E2M1, 32, -1, CT_MX_SCALE_FLOOR, &q));
    uint8_t blocks[NB];
    CHECK(ct_mx_to_gguf_mxfp4(ctx, q, blocks, sizeof blocks));
    /* check every byte against the layout, the scales against the OCP rule (emax of E2M1 is 2) */
    for (int n = 0; n < N; n++) {
        const uint8_t *blk = blocks + n * 17;
        const int scale_code = e8m0_floor_code(n == 2 ? 3 : 6, 2); /* 127 (x1) and 126 (x1/2) */
        EXPECT(blk[0] == scale_code);
        const float inv = ldexpf(1.0f, 127 - scale_code);
        for (int j = 0; j < 16; j++)
            EXPECT(blk[1 + j] == (fp4_code(w[n][j] * inv) | fp4_code(w[n][j + 16] * inv) << 4));
    }
    printf("gguf: %d bytes, block scales %d %d %d, layout as ggml's block_mxfp4\n", NB, blocks[0],
           blocks[17], blocks[34]);

    /* and back: a new MX tensor from the blocks, dequantised to the same weights */
    CHECK(ct_mx_from_gguf_mxfp4(ctx, blocks, sizeof blocks, 2, ws, &q2));
    EXPECT(ct_mx_format_of(q2) == CT_MXFP4_E2M1 && ct_mx_block_size(q2) == 32);
    CHECK(ct_mx_dequantize(ctx, q2, CT_FLOAT32, &back));
    float wb[N][K];
    CHECK(ct_tensor_to_host(back, wb, sizeof wb));
    EXPECT(memcmp(wb, w, sizeof w) == 0);
    printf("gguf: imported blocks dequantize to the original weights\n");
    /* the byte count must be numel / 32 * 17 */
    EXPECT_ERROR(ct_mx_from_gguf_mxfp4(ctx, blocks, sizeof blocks - 1, 2, ws, &bad), CT_ERR_FORMAT);
    EXPECT(bad == NULL);
    ct_tensor_release(tw), ct_tensor_release(back);
    ct_mx_tensor_free(q), ct_mx_tensor_free(q2);
    return 0;
}

/* ======================================= 3. 2:4 sparsity ====================================== */

/* ct_sparse24_from_dense: compress a matrix that already is 2:4 (at most two non-zeros in every
 * group of four along a row); ct_sparse24_values / _dtype / _scales show the parts. A matrix
 * that is not 2:4 is refused with the first offending group named. */
static int demo_sparse_from_dense(void) {
    const float d[2][8] = {{0, 5, 0, 7, 1, 0, 0, 2}, {0, 3, -4, 0, 0, 0, 0, 6}};
    const float kept[2][4] = {{5, 7, 1, 2}, {3, -4, 0, 6}}; /* in k order, 2 per group */
    const int64_t shape[2] = {2, 8};
    ct_tensor *t, *tbad;
    ct_sparse24 *s, *bad = NULL;
    CHECK(ct_tensor_from_host(ctx, d, CT_FLOAT32, 2, shape, &t));
    CHECK(ct_sparse24_from_dense(ctx, t, CT_FLOAT32, &s));
    ct_tensor *values = ct_sparse24_values(s); /* borrowed: (2, 4) */
    EXPECT(ct_sparse24_dtype(s) == CT_FLOAT32 && ct_sparse24_scales(s) == NULL);
    EXPECT(ct_tensor_size(values, 0) == 2 && ct_tensor_size(values, 1) == 4);
    float vh[2][4];
    CHECK(ct_tensor_to_host(values, vh, sizeof vh));
    for (int r = 0; r < 2; r++)
        for (int j = 0; j < 4; j++)
            EXPECT(vh[r][j] == kept[r][j]);
    printf("sparse24 from_dense: values [[%g %g %g %g] [%g %g %g %g]] (%s)\n", vh[0][0], vh[0][1],
           vh[0][2], vh[0][3], vh[1][0], vh[1][1], vh[1][2], vh[1][3],
           ct_dtype_name(ct_sparse24_dtype(s)));

    const float dbad[2][8] = {{1, 2, 3, 0, 0, 0, 0, 0}, {0}}; /* three non-zeros in group 0 */
    CHECK(ct_tensor_from_host(ctx, dbad, CT_FLOAT32, 2, shape, &tbad));
    EXPECT_ERROR(ct_sparse24_from_dense(ctx, tbad, CT_FLOAT32, &bad), CT_ERR_INVALID_ARG);
    EXPECT(bad == NULL);
    ct_tensor_release(t), ct_tensor_release(tbad);
    ct_sparse24_free(s);
    return 0;
}

/* ct_sparse24_from_dense_ex: the same with FP8 E4M3 values and row scales chosen by the caller
 * (value = code * scale); ct_sparse24_scales returns them. */
static int demo_sparse_from_dense_ex(void) {
    const float d[2][8] = {{0, 5, 0, 7, 1, 0, 0, 2}, {0, 3, -4, 0, 0, 0, 0, 6}};
    const float kept[2][4] = {{5, 7, 1, 2}, {3, -4, 0, 6}};
    const float row_scale[2] = {0.5f, 0.25f};
    const int64_t shape[2] = {2, 8}, two = 2;
    ct_tensor *t, *ts;
    ct_sparse24 *s;
    CHECK(ct_tensor_from_host(ctx, d, CT_FLOAT32, 2, shape, &t));
    CHECK(ct_tensor_from_host(ctx, row_scale, CT_FLOAT32, 1, &two, &ts));
    const ct_sparse24_options opts = {.size = sizeof opts, .scales = ts};
    CHECK(ct_sparse24_from_dense_ex(ctx, t, CT_FLOAT8_E4M3FN, &opts, &s));
    EXPECT(ct_sparse24_dtype(s) == CT_FLOAT8_E4M3FN);
    float sh[2], vals[2][4];
    uint8_t codes[2][4];
    CHECK(ct_tensor_to_host(ct_sparse24_scales(s), sh, sizeof sh));
    CHECK(ct_tensor_to_host(ct_sparse24_values(s), codes, sizeof codes));
    CHECK(ct_cast_to_f32(CT_FLOAT8_E4M3FN, codes, &vals[0][0], 8));
    EXPECT(sh[0] == 0.5f && sh[1] == 0.25f);
    for (int r = 0; r < 2; r++)
        for (int j = 0; j < 4; j++)
            EXPECT(vals[r][j] * sh[r] == kept[r][j]); /* 5 / 0.5 = 10 etc.: exact in E4M3 */
    printf("sparse24 from_dense_ex: e4m3 codes of row 0 [%g %g %g %g] x scale %g\n", vals[0][0],
           vals[0][1], vals[0][2], vals[0][3], sh[0]);
    ct_tensor_release(t), ct_tensor_release(ts);
    ct_sparse24_free(s);
    return 0;
}

/* ct_sparse24_prune_ex (keep the two largest |x| of each group of 4, ties to the lower index, with
 * given FP8 scales), then ct_sparse24_mm: out = alpha * (A @ B) + bias[:, None], and
 * ct_sparse24_mm_ex, where an FP8 B carries its own scale (b_scale). Both are compared with a
 * naive dense loop over the matrix pruned by hand. */
static int demo_sparse_mm(void) {
    enum { M = 4, K = 8, N = 3 };
    const float w[M][K] = {{3, -3, 1, 3, 0, 2, -5, 1},
                           {1, 2, 3, 4, -4, -3, 2, 1},
                           {0, 0, 0, 0, 7, 0, 0, -1},
                           {-2, 8, 2, -6, 1, 1, 1, 1}};
    float wp[M][K] = {{0}}; /* pruned by hand: two largest |x| per group, first index on ties */
    for (int m = 0; m < M; m++)
        for (int g = 0; g < K; g += 4) {
            int first = g, second = -1;
            for (int i = g + 1; i < g + 4; i++)
                if (fabsf(w[m][i]) > fabsf(w[m][first])) first = i;
            for (int i = g; i < g + 4; i++)
                if (i != first && (second < 0 || fabsf(w[m][i]) > fabsf(w[m][second]))) second = i;
            wp[m][first] = w[m][first], wp[m][second] = w[m][second];
        }
    float b[K][N], bias[M] = {1, -1, 0.5f, 0};
    for (int k = 0; k < K; k++)
        for (int n = 0; n < N; n++)
            b[k][n] = (float)((k * 3 + n * 5) % 9 - 4); /* -4 .. 4 */
    const double alpha = 2.0;
    float expect[M][N];
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            double s = 0;
            for (int k = 0; k < K; k++)
                s += (double)wp[m][k] * b[k][n];
            expect[m][n] = (float)(alpha * s + bias[m]);
        }

    const int64_t as[2] = {M, K}, bsh[2] = {K, N}, ms = M;
    const float ones[M] = {1, 1, 1, 1}; /* scale 1: the integers are their own E4M3 codes */
    ct_tensor *ta, *tb, *tbias, *tscale, *out;
    ct_sparse24 *s;
    CHECK(ct_tensor_from_host(ctx, w, CT_FLOAT32, 2, as, &ta));
    CHECK(ct_tensor_from_host(ctx, b, CT_FLOAT32, 2, bsh, &tb));
    CHECK(ct_tensor_from_host(ctx, bias, CT_FLOAT32, 1, &ms, &tbias));
    CHECK(ct_tensor_from_host(ctx, ones, CT_FLOAT32, 1, &ms, &tscale));
    const ct_sparse24_options opts = {.size = sizeof opts, .scales = tscale};
    CHECK(ct_sparse24_prune_ex(ctx, ta, CT_FLOAT8_E4M3FN, &opts, &s));
    CHECK(ct_sparse24_mm(ctx, s, tb, tbias, alpha, CT_FLOAT32, &out));
    float oh[M][N];
    CHECK(ct_tensor_to_host(out, oh, sizeof oh));
    EXPECT(memcmp(oh, expect, sizeof oh) == 0);
    printf("sparse24 prune_ex + mm: out row 0 = [%g %g %g], equals the dense loop\n", oh[0][0],
           oh[0][1], oh[0][2]);

    /* mm_ex: B stored as E4M3 codes of B / b_scale (b_scale = 0.5, so codes of 2 B) */
    float b2[K][N];
    uint8_t b8[K][N];
    for (int k = 0; k < K; k++)
        for (int n = 0; n < N; n++)
            b2[k][n] = 2 * b[k][n];
    CHECK(ct_cast_f32_to(CT_FLOAT8_E4M3FN, &b2[0][0], b8, K * N, CT_CAST_DEFAULT));
    ct_tensor *tb8, *out2;
    CHECK(ct_tensor_from_host(ctx, b8, CT_FLOAT8_E4M3FN, 2, bsh, &tb8));
    const ct_sparse24_mm_options mo = {.size = sizeof mo, .b_scale = 0.5};
    CHECK(ct_sparse24_mm_ex(ctx, s, tb8, tbias, alpha, CT_FLOAT32, &mo, &out2));
    CHECK(ct_tensor_to_host(out2, oh, sizeof oh));
    EXPECT(memcmp(oh, expect, sizeof oh) == 0);
    printf("sparse24 mm_ex: FP8 B with b_scale 0.5 gives the same product\n");
    ct_tensor_release(ta), ct_tensor_release(tb), ct_tensor_release(tbias);
    ct_tensor_release(tscale), ct_tensor_release(out), ct_tensor_release(tb8);
    ct_tensor_release(out2);
    ct_sparse24_free(s);
    return 0;
}

/* ==================================== 4. FlexAttention ======================================== */

/* Expected block kinds of an 8 x 8 mask in 4 x 4 blocks: [q block][kv block], 0 skipped,
 * 1 partial, 2 full. */
static int check_mask(const char *name, ct_mask_mod_fn fn, void *user, const int kinds[2][2]) {
    /* the row of query 5, from calling the mask function directly */
    char row[9] = {0};
    for (int kv = 0; kv < 8; kv++)
        row[kv] = fn(0, 0, 5, kv, user) ? '1' : '0';
    ct_block_mask *m;
    CHECK(ct_create_block_mask(ctx, fn, user, 1, 1, 8, 8, 4, &m));
    for (int qb = 0; qb < 2; qb++)
        for (int kb = 0; kb < 2; kb++)
            EXPECT(ct_block_mask_block_kind(m, 0, 0, qb, kb) == kinds[qb][kb]);
    EXPECT(ct_block_mask_block_kind(m, 0, 0, 2, 0) == -1); /* no such block */
    printf("%-15s query 5 sees %s; blocks [[%d %d] [%d %d]]\n", name, row, kinds[0][0], kinds[0][1],
           kinds[1][0], kinds[1][1]);
    ct_block_mask_free(m);
    return 0;
}

/* The ready-made mask functions (called directly and through ct_create_block_mask) and
 * ct_block_mask_block_kind; the expected rows and block kinds are worked out from each mask's
 * rule by hand. */
static int demo_masks(void) {
    /* causal: kv <= q */
    static const int causal[2][2] = {{1, 0}, {2, 1}};
    if (check_mask("causal", ct_mask_mod_causal(), NULL, causal)) return 1;
    EXPECT(ct_mask_mod_causal()(0, 0, 5, 5, NULL) && !ct_mask_mod_causal()(0, 0, 5, 6, NULL));

    /* sliding window 2: kv <= q and q - kv < 2 (query 5 sees keys 4 and 5) */
    ct_sliding_window_params win = {.window = 2};
    static const int sliding[2][2] = {{1, 0}, {1, 1}};
    if (check_mask("sliding_window", ct_mask_mod_sliding_window(), &win, sliding)) return 1;
    EXPECT(ct_mask_mod_sliding_window()(0, 0, 5, 4, &win));
    EXPECT(!ct_mask_mod_sliding_window()(0, 0, 5, 3, &win));

    /* document: two packed sequences of 4 tokens; a query sees only its own document */
    const int64_t doc[8] = {0, 0, 0, 0, 1, 1, 1, 1};
    ct_document_params dp = {.q_doc = doc, .kv_doc = NULL};
    static const int document[2][2] = {{2, 0}, {0, 2}};
    if (check_mask("document", ct_mask_mod_document(), &dp, document)) return 1;
    EXPECT(ct_mask_mod_document()(0, 0, 5, 7, &dp) && !ct_mask_mod_document()(0, 0, 5, 3, &dp));

    /* prefix LM with a prefix of 4: every query sees the prefix, then causal */
    ct_prefix_lm_params pp = {.prefix_len = 4};
    static const int prefix[2][2] = {{2, 0}, {2, 1}};
    if (check_mask("prefix_lm", ct_mask_mod_prefix_lm(), &pp, prefix)) return 1;
    EXPECT(ct_mask_mod_prefix_lm()(0, 0, 1, 3, &pp) && !ct_mask_mod_prefix_lm()(0, 0, 1, 4, &pp));
    return 0;
}

/* ct_score_mod_softcap: cap * tanh(score / cap), called directly. */
static int demo_softcap(void) {
    ct_softcap_params cap = {.cap = 2.0f};
    const ct_score_mod_fn f = ct_score_mod_softcap();
    const float s1 = f(1.0f, 0, 0, 0, 0, &cap), s100 = f(100.0f, 0, 0, 0, 0, &cap);
    EXPECT(NEAR(s1, 2 * tanh(0.5), 1e-6) && NEAR(s100, 2.0, 1e-6));
    printf("softcap(cap 2): 1 -> %.6f, 100 -> %.6f\n", s1, s100);
    return 0;
}

/* A naive float64 attention for the check below: softcapped scaled scores, causal mask, softmax;
 * returns sum(g_out * out) + sum(g_lse * lse). */
enum { AL = 6, AE = 3, AEV = 2 };
static double naive_loss(const double *q, const double *k, const double *v, const double *g_out,
                         const double *g_lse, double cap, double *out, double *lse) {
    double loss = 0;
    for (int i = 0; i < AL; i++) {
        double s[AL], mx = -INFINITY, sum = 0;
        for (int j = 0; j <= i; j++) {
            double dot = 0;
            for (int e = 0; e < AE; e++)
                dot += q[i * AE + e] * k[j * AE + e];
            s[j] = cap * tanh(dot / sqrt((double)AE) / cap);
            mx = fmax(mx, s[j]);
        }
        for (int j = 0; j <= i; j++)
            sum += (s[j] = exp(s[j] - mx));
        const double l = mx + log(sum);
        if (lse) lse[i] = l;
        loss += g_lse[i] * l;
        for (int c = 0; c < AEV; c++) {
            double o = 0;
            for (int j = 0; j <= i; j++)
                o += s[j] / sum * v[j * AEV + c];
            if (out) out[i * AEV + c] = o;
            loss += g_out[i * AEV + c] * o;
        }
    }
    return loss;
}

/* Central difference of naive_loss in element i of x. */
static double fd(double *x, int i, const double *q, const double *k, const double *v,
                 const double *go, const double *gl, double cap) {
    const double h = 1e-5, x0 = x[i];
    x[i] = x0 + h;
    const double lp = naive_loss(q, k, v, go, gl, cap, NULL, NULL);
    x[i] = x0 - h;
    const double lm = naive_loss(q, k, v, go, gl, cap, NULL, NULL);
    x[i] = x0;
    return (lp - lm) / (2 * h);
}

static float user_score(float s, int64_t b, int64_t h, int64_t q, int64_t kv, void *user) {
    (void)b, (void)h, (void)q, (void)kv, (void)user;
    return s * s;
}

/* ct_flex_attention_backward: gradients of loss = sum(g_out * out) + sum(g_lse * lse) for a
 * causal, softcapped attention in float64, compared with central differences of a naive
 * implementation. */
static int demo_flex_backward(void) {
    double q[AL * AE], k[AL * AE], v[AL * AEV], go[AL * AEV], gl[AL];
    for (int i = 0; i < AL * AE; i++)
        q[i] = 1.5 * sin(1.0 + 0.7 * i), k[i] = 1.5 * cos(0.3 + 1.1 * i);
    for (int i = 0; i < AL * AEV; i++)
        v[i] = sin(2.0 + 0.9 * i), go[i] = cos(0.5 * i);
    for (int i = 0; i < AL; i++)
        gl[i] = 0.25 * (i % 3) - 0.2;
    const double cap = 1.5;
    const int64_t qs[4] = {1, 1, AL, AE}, vs[4] = {1, 1, AL, AEV}, ls[3] = {1, 1, AL};
    ct_tensor *tq, *tk, *tv, *tgo, *tgl, *out, *lse, *dq, *dk, *dv;
    CHECK(ct_tensor_from_host(ctx, q, CT_FLOAT64, 4, qs, &tq));
    CHECK(ct_tensor_from_host(ctx, k, CT_FLOAT64, 4, qs, &tk));
    CHECK(ct_tensor_from_host(ctx, v, CT_FLOAT64, 4, vs, &tv));
    CHECK(ct_tensor_from_host(ctx, go, CT_FLOAT64, 4, vs, &tgo));
    CHECK(ct_tensor_from_host(ctx, gl, CT_FLOAT64, 3, ls, &tgl));
    ct_block_mask *mask;
    CHECK(ct_create_block_mask(ctx, ct_mask_mod_causal(), NULL, 1, 1, AL, AL, 4, &mask));
    ct_softcap_params sp = {.cap = (float)cap};
    ct_flex_options o = {.size = sizeof o,
                         .score_mod = ct_score_mod_softcap(),
                         .score_user = &sp,
                         .block_mask = mask,
                         .return_lse = true};
    CHECK(ct_flex_attention(ctx, tq, tk, tv, &o, &out, &lse));
    CHECK(ct_flex_attention_backward(ctx, tq, tk, tv, out, lse, tgo, tgl, &o, &dq, &dk, &dv));

    /* the forward against the naive one, then each gradient against central differences */
    double oh[AL * AEV], lh[AL], on[AL * AEV], ln[AL];
    CHECK(ct_tensor_to_host(out, oh, sizeof oh));
    CHECK(ct_tensor_to_host(lse, lh, sizeof lh));
    naive_loss(q, k, v, go, gl, cap, on, ln);
    EXPECT(max_diff(oh, on, AL * AEV) < 1e-12 && max_diff(lh, ln, AL) < 1e-12);
    double dqh[AL * AE], dkh[AL * AE], dvh[AL * AEV], err = 0;
    CHECK(ct_tensor_to_host(dq, dqh, sizeof dqh));
    CHECK(ct_tensor_to_host(dk, dkh, sizeof dkh));
    CHECK(ct_tensor_to_host(dv, dvh, sizeof dvh));
    for (int i = 0; i < AL * AE; i++) {
        err = fmax(err, fabs(dqh[i] - fd(q, i, q, k, v, go, gl, cap)));
        err = fmax(err, fabs(dkh[i] - fd(k, i, q, k, v, go, gl, cap)));
    }
    for (int i = 0; i < AL * AEV; i++)
        err = fmax(err, fabs(dvh[i] - fd(v, i, q, k, v, go, gl, cap)));
    EXPECT(err < 1e-7);
    printf("flex backward (f64, causal, softcap): dq[0] = %.6f, max |grad - finite diff| < 1e-7\n",
           dqh[0]);

    /* a user score_mod needs its derivative (score_mod_grad) for the backward pass */
    ct_flex_options ou = {.size = sizeof ou, .score_mod = user_score, .return_lse = true};
    ct_tensor *out2, *lse2, *a = NULL, *b = NULL, *c = NULL;
    CHECK(ct_flex_attention(ctx, tq, tk, tv, &ou, &out2, &lse2));
    EXPECT_ERROR(
        ct_flex_attention_backward(ctx, tq, tk, tv, out2, lse2, tgo, NULL, &ou, &a, &b, &c),
        CT_ERR_UNSUPPORTED);
    EXPECT(a == NULL && b == NULL && c == NULL);
    ct_tensor_release(tq), ct_tensor_release(tk), ct_tensor_release(tv), ct_tensor_release(tgo);
    ct_tensor_release(tgl), ct_tensor_release(out), ct_tensor_release(lse), ct_tensor_release(dq);
    ct_tensor_release(dk), ct_tensor_release(dv), ct_tensor_release(out2), ct_tensor_release(lse2);
    ct_block_mask_free(mask);
    return 0;
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0); /* keep the lines printed before a failure */
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    int (*const demos[])(void) = {demo_eigh,
                                  demo_eigvalsh,
                                  demo_eigh_ex,
                                  demo_cholesky,
                                  demo_cholesky_ex,
                                  demo_inv,
                                  demo_solve,
                                  demo_det,
                                  demo_slogdet,
                                  demo_qr,
                                  demo_svd,
                                  demo_casts,
                                  demo_mx_quantize,
                                  demo_mx_linear,
                                  demo_gguf,
                                  demo_sparse_from_dense,
                                  demo_sparse_from_dense_ex,
                                  demo_sparse_mm,
                                  demo_masks,
                                  demo_softcap,
                                  demo_flex_backward};
    int failed = 0;
    for (size_t i = 0; i < sizeof demos / sizeof demos[0] && !failed; i++)
        failed = demos[i]();
    const int64_t live = ct_ctx_live_tensors(ctx); /* everything released: 0 */
    ct_ctx_free(ctx);
    if (!failed && live != 0) fprintf(stderr, "%lld tensors still alive\n", (long long)live);
    printf("%s\n", failed || live ? "FAILED" : "ok");
    return failed || live ? 1 : 0;
}
