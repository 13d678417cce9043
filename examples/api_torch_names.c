/* More of torch's everyday names on a small matrix, each checked against a value worked out by
 * hand: torch.max / min, the dtype predicates, angle, real / conj and friends, frobenius_norm,
 * nuclear_norm, linalg.norm, linalg.vander / cross / diagonal / matmul, and the older
 * torch.svd / qr / cholesky / slogdet / triangular_solve / lu_solve / matrix_power / matrix_exp /
 * orgqr, the views Tensor.unfold / torch.as_strided, the *_copy ops (a view's values in memory of
 * their own), mm, scalar_tensor, empty_strided, range, igamma / igammac and constant_pad_nd.
 * Build and run: see README ("Examples"). */
#include <ctorch/ctorch.h>
#include <math.h>
#include <stdio.h>

static ct_ctx *ctx;
static ct_tensor *pool[128];
static int npool;

#define CHECK(call)                                                                                \
    do {                                                                                           \
        ct_status st_ = (call);                                                                    \
        if (st_ != CT_OK) {                                                                        \
            fprintf(stderr, "%s:%d: %s -> %s: %s\n", __FILE__, __LINE__, #call,                    \
                    ct_status_str(st_), ct_ctx_last_error(ctx));                                   \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)
#define SHP(...)                                                                                   \
    (const int64_t[]) { __VA_ARGS__ }
static ct_tensor *keep(ct_tensor *t) {
    if (t && npool == 128) ct_tensor_release(t);
    return t && npool < 128 ? (pool[npool++] = t) : NULL;
}
/* element i of t as double */
static double at(const ct_tensor *t, int64_t i) {
    double v[16] = {0};
    ct_tensor *c = NULL;
    if (!t || ct_tensor_numel(t) > 16 || ct_cast(ctx, t, CT_FLOAT64, &c) != CT_OK) return NAN;
    ct_status st = ct_tensor_to_host(c, v, sizeof(double) * (size_t)ct_tensor_numel(c));
    ct_tensor_release(c);
    return st == CT_OK ? v[i] : NAN;
}
static int near(const char *what, double got, double want) {
    const int ok = fabs(got - want) <= 1e-12 * (1 + fabs(want));
    printf("%-32s %.15g%s\n", what, got, ok ? "" : " (expected a different value)");
    return !ok;
}

int main(void) {
    int rc = 1;
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    ct_tensor *a = NULL, *r = NULL, *r2 = NULL, *r3 = NULL;
    /* A = [[4, 2], [2, 3]]: symmetric positive definite, det 8, eigenvalues (7 +- sqrt(17)) / 2 */
    CHECK(ct_tensor_from_host(ctx, (const double[]){4, 2, 2, 3}, CT_FLOAT64, 2, SHP(2, 2), &a));
    keep(a);
    CHECK(ct_max(ctx, a, &r));
    if (near("max", at(keep(r), 0), 4)) goto fail;
    CHECK(ct_min(ctx, a, &r));
    if (near("min", at(keep(r), 0), 2)) goto fail;
    bool nz = false;
    CHECK(ct_is_nonzero(ctx, r, &nz));
    ct_dtype pd = CT_BOOL;
    CHECK(ct_promote_types(CT_INT32, CT_FLOAT32, &pd));
    printf("is_floating_point %d, is_complex %d, is_signed %d, is_same_size %d, is_nonzero %d, "
           "promote_types(int32, float32) %s\n",
           ct_is_floating_point(a), ct_is_complex(a), ct_is_signed(a), ct_is_same_size(a, a), nz,
           ct_dtype_name(pd));
    if (!ct_is_floating_point(a) || ct_is_complex(a) || !nz || pd != CT_FLOAT32) goto fail;
    ct_tensor *neg = NULL;
    CHECK(ct_neg(ctx, a, &neg));
    keep(neg);
    CHECK(ct_angle(ctx, neg, &r));
    if (near("angle(-4)", at(keep(r), 0), M_PI)) goto fail;
    CHECK(ct_real(ctx, a, &r));
    keep(r);
    CHECK(ct_conj(ctx, a, &r));
    keep(r);
    CHECK(ct_conj_physical(ctx, a, &r));
    keep(r);
    CHECK(ct_resolve_conj(ctx, a, &r));
    keep(r);
    CHECK(ct_resolve_neg(ctx, a, &r));
    keep(r);
    if (ct_imag(ctx, a, &r) != CT_ERR_DTYPE) goto fail; /* no complex dtype */
    CHECK(ct_frobenius_norm(ctx, a, 0, NULL, false, &r));
    if (near("frobenius_norm", at(keep(r), 0), sqrt(33.0))) goto fail;
    CHECK(ct_nuclear_norm(ctx, a, NULL, false, &r)); /* SPD: the trace */
    if (near("nuclear_norm", at(keep(r), 0), 7)) goto fail;
    CHECK(ct_linalg_norm(ctx, a, "2", 0, NULL, false, &r)); /* the largest eigenvalue */
    if (near("linalg.norm(A, 2)", at(keep(r), 0), (7 + sqrt(17.0)) / 2)) goto fail;
    ct_tensor *v = NULL;
    CHECK(ct_tensor_from_host(ctx, (const double[]){2, 3, 1}, CT_FLOAT64, 1, SHP(3), &v));
    keep(v);
    CHECK(ct_linalg_vander(ctx, v, -1, &r)); /* rows 1, x, x^2 */
    if (near("linalg.vander [1, 2]", at(keep(r), 5), 9)) goto fail;
    ct_tensor *e1 = NULL, *e2 = NULL;
    CHECK(ct_tensor_from_host(ctx, (const double[]){1, 0, 0}, CT_FLOAT64, 1, SHP(3), &e1));
    keep(e1);
    CHECK(ct_tensor_from_host(ctx, (const double[]){0, 1, 0}, CT_FLOAT64, 1, SHP(3), &e2));
    keep(e2);
    CHECK(ct_linalg_cross(ctx, e1, e2, -1, &r)); /* e1 x e2 = e3 */
    if (near("linalg.cross e1 x e2 [2]", at(keep(r), 2), 1)) goto fail;
    CHECK(ct_linalg_diagonal(ctx, a, 0, -2, -1, &r));
    if (near("linalg.diagonal [1]", at(keep(r), 1), 3)) goto fail;
    CHECK(ct_linalg_matmul(ctx, a, a, &r)); /* A^2 [0, 0] = 16 + 4 */
    if (near("linalg.matmul [0, 0]", at(keep(r), 0), 20)) goto fail;
    CHECK(ct_svd(ctx, a, true, true, &r, &r2, &r3));
    keep(r), keep(r2), keep(r3);
    if (near("svd S[0]", at(r2, 0), (7 + sqrt(17.0)) / 2)) goto fail;
    CHECK(ct_qr(ctx, a, true, &r, &r2));
    keep(r), keep(r2);
    if (near("qr |R[0, 0]|", fabs(at(r2, 0)), sqrt(20.0))) goto fail;
    CHECK(ct_cholesky(ctx, a, false, &r)); /* L = [[2, 0], [1, sqrt 2]] */
    if (near("cholesky L[1, 1]", at(keep(r), 3), sqrt(2.0))) goto fail;
    ct_tensor *L = r;
    CHECK(ct_slogdet(ctx, a, &r, &r2));
    keep(r), keep(r2);
    if (near("slogdet log|det|", at(r2, 0), log(8.0))) goto fail;
    ct_tensor *b = NULL;
    CHECK(ct_tensor_from_host(ctx, (const double[]){2, 4}, CT_FLOAT64, 2, SHP(2, 1), &b));
    keep(b);
    CHECK(ct_triangular_solve(ctx, b, L, false, false, false, &r, NULL)); /* L x = b */
    if (near("triangular_solve x[1]", at(keep(r), 1), 3 / sqrt(2.0))) goto fail;
    CHECK(ct_linalg_lu_factor(ctx, a, &r, &r2));
    keep(r), keep(r2);
    CHECK(ct_lu_solve(ctx, b, r, r2, &r3)); /* A x = b: x = (-0.25, 1.5) */
    if (near("lu_solve x[1]", at(keep(r3), 1), 1.5)) goto fail;
    CHECK(ct_matrix_power(ctx, a, 2, &r));
    if (near("matrix_power [0, 1]", at(keep(r), 1), 14)) goto fail;
    ct_tensor *z = NULL;
    CHECK(ct_tensor_zeros(ctx, CT_FLOAT64, 2, SHP(2, 2), &z));
    keep(z);
    CHECK(ct_matrix_exp(ctx, z, &r)); /* exp(0) = I */
    if (near("matrix_exp(0) [0, 0]", at(keep(r), 0), 1)) goto fail;
    ct_tensor *tau = NULL;
    CHECK(ct_tensor_zeros(ctx, CT_FLOAT64, 1, SHP(1), &tau));
    keep(tau);
    CHECK(ct_orgqr(ctx, a, tau, &r)); /* tau 0: the identity's first column */
    if (near("orgqr [0, 0]", at(keep(r), 0), 1)) goto fail;
    ct_tensor *seq = NULL;
    CHECK(ct_tensor_arange(ctx, CT_FLOAT64, 0, 6, 1, &seq));
    keep(seq);
    CHECK(ct_tensor_unfold(ctx, seq, 0, 3, 2, &r)); /* windows [0 1 2] [2 3 4] */
    if (near("unfold [1, 0]", at(keep(r), 3), 2)) goto fail;
    CHECK(ct_tensor_as_strided(ctx, seq, 2, SHP(2, 2), SHP(1, 1), 3, &r)); /* [[3 4] [4 5]] */
    if (near("as_strided [1, 1]", at(keep(r), 3), 5)) goto fail;
    /* the *_copy ops: the view's values, in memory of their own (seq = 0..5, a = [[4 2] [2 3]]) */
    CHECK(ct_permute_copy(ctx, a, (const int[]){1, 0}, &r));
    if (near("permute_copy [0, 1]", at(keep(r), 1), 2)) goto fail;
    CHECK(ct_t_copy(ctx, a, &r));
    if (near("t_copy [1, 1]", at(keep(r), 3), 3)) goto fail;
    CHECK(ct_transpose_copy(ctx, a, 0, 1, &r));
    if (near("transpose_copy [1, 0]", at(keep(r), 2), 2)) goto fail;
    CHECK(ct_expand_copy(ctx, e1, 2, SHP(2, 3), &r));
    if (near("expand_copy [1, 0]", at(keep(r), 3), 1)) goto fail;
    CHECK(ct_narrow_copy(ctx, seq, 0, 2, 3, &r));
    if (near("narrow_copy [0]", at(keep(r), 0), 2)) goto fail;
    CHECK(ct_select_copy(ctx, a, 0, 1, &r));
    if (near("select_copy [1]", at(keep(r), 1), 3)) goto fail;
    CHECK(ct_slice_copy(ctx, seq, 0, 1, 6, 2, &r)); /* [1 3 5] */
    if (near("slice_copy [2]", at(keep(r), 2), 5)) goto fail;
    CHECK(ct_unsqueeze_copy(ctx, seq, 0, &r));
    ct_tensor *u = keep(r);
    CHECK(ct_squeeze_copy(ctx, u, 0, &r));
    if (near("squeeze_copy [4]", at(keep(r), 4), 4)) goto fail;
    CHECK(ct_view_copy(ctx, seq, 2, SHP(2, 3), &r));
    if (near("view_copy [1, 0]", at(keep(r), 3), 3)) goto fail;
    CHECK(ct_diagonal_copy(ctx, a, 0, 0, 1, &r));
    if (near("diagonal_copy [1]", at(keep(r), 1), 3)) goto fail;
    CHECK(ct_unfold_copy(ctx, seq, 0, 3, 2, &r));
    if (near("unfold_copy [1, 0]", at(keep(r), 3), 2)) goto fail;
    CHECK(ct_as_strided_copy(ctx, seq, 2, SHP(2, 2), SHP(1, 1), 3, &r));
    if (near("as_strided_copy [1, 1]", at(keep(r), 3), 5)) goto fail;
    CHECK(ct_alias_copy(ctx, a, &r));
    if (near("alias_copy [0, 0]", at(keep(r), 0), 4)) goto fail;
    CHECK(ct_detach_copy(ctx, a, &r));
    if (near("detach_copy [0, 1]", at(keep(r), 1), 2)) goto fail;
    CHECK(ct_view_as_complex_copy(ctx, a, &r)); /* [4+2i, 2+3i] */
    ct_tensor *zc = keep(r);
    CHECK(ct_view_as_real_copy(ctx, zc, &r));
    if (near("view_as_real_copy [1, 1]", at(keep(r), 3), 3)) goto fail;
    ct_tensor *parts[6] = {NULL};
    int np = 0;
    CHECK(ct_split_copy(ctx, seq, 4, 0, 2, parts, &np)); /* [0 1 2 3] [4 5] */
    keep(parts[0]), keep(parts[1]);
    if (np != 2 || near("split_copy [1][1]", at(parts[1], 1), 5)) goto fail;
    CHECK(ct_split_with_sizes_copy(ctx, seq, 2, SHP(1, 5), 0, parts));
    keep(parts[0]), keep(parts[1]);
    if (near("split_with_sizes_copy [1][0]", at(parts[1], 0), 1)) goto fail;
    CHECK(ct_unbind_copy(ctx, a, 1, 2, parts, &np)); /* the columns */
    keep(parts[0]), keep(parts[1]);
    if (near("unbind_copy [1][1]", at(parts[1], 1), 3)) goto fail;
    /* mm, scalar_tensor, empty_strided, range, igamma / igammac, constant_pad_nd */
    CHECK(ct_mm(ctx, a, a, &r));
    if (near("mm [0, 0]", at(keep(r), 0), 20)) goto fail;
    CHECK(ct_scalar_tensor(ctx, 2.5, CT_FLOAT32, &r));
    if (near("scalar_tensor", at(keep(r), 0), 2.5)) goto fail;
    CHECK(ct_tensor_empty_strided(ctx, CT_FLOAT32, 2, SHP(2, 3), SHP(1, 2), &r));
    if (ct_tensor_stride(keep(r))[1] != 2) goto fail;
    CHECK(ct_tensor_range(ctx, CT_FLOAT64, 1, 2, 0.5, &r)); /* [1 1.5 2]: end included */
    if (near("range [2]", at(keep(r), 2), 2)) goto fail;
    ct_tensor *one = NULL;
    CHECK(ct_tensor_ones(ctx, CT_FLOAT64, 1, SHP(1), &one));
    keep(one);
    CHECK(ct_igamma(ctx, one, one, &r)); /* P(1, 1) = 1 - 1/e */
    if (near("igamma(1, 1)", at(keep(r), 0), 1 - exp(-1.0))) goto fail;
    CHECK(ct_igammac(ctx, one, one, &r));
    if (near("igammac(1, 1)", at(keep(r), 0), exp(-1.0))) goto fail;
    CHECK(ct_constant_pad_nd(ctx, seq, 2, SHP(1, -4), -1, &r)); /* [-1 0 1] */
    if (near("constant_pad_nd [0]", at(keep(r), 0), -1)) goto fail;
    printf("all torch-name checks passed\n");
    rc = 0;
fail:
    for (int i = 0; i < npool; i++)
        ct_tensor_release(pool[i]);
    ct_ctx_free(ctx);
    return rc;
}
