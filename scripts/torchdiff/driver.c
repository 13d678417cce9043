/* torchdiff driver: reads one op case per stdin line, runs it through ctorch and prints one result
 * line (status, dtype, shape, element bits). Developer tool for scripts/torchdiff/torchdiff.py;
 * not built by CMake and not run by the tests (CI has no torch).
 *
 * Line: <op> <nt> <tensor>... <nd> <double>... <ni> <int>...
 * tensor: <dtype> <ndim> <shape...> <layout> <hex bits of each element, C order>
 *   layout 0 contiguous, 1 transposed storage (last two dims), 2 every other element of the last
 * dim Output: "OK <dtype> <ndim> <shape...> <hex bits...>" or "ERR <status>".
 * Gradient mode (torchdiff_grad.py): an op name prefixed "g:" makes every f32/f64 input a leaf
 * that requires grad (layouts ignored: values only), runs the op, calls ct_backward with the
 * upstream gradient u[i] = 0.5 + (i % 5) / 4 in the result's dtype, and prints "OK" then, per
 * input, " | <dtype> <ndim> <shape...> <bits...>" or " | N" (no gradient). An op name suffix
 * "/<mask>" (gradient mode only, torchdiff_grad_more.py) makes only the f32/f64 inputs whose bit
 * is set in the decimal mask require grad (batch_norm's running statistics are buffers); the
 * others print " | -". */
#include "ctorch/ctorch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ct_ctx *ctx;

static char *tok(char **p) { return strtok_r(NULL, " \n", p); }

static ct_tensor *mk(const int dt, int nd, const int64_t *sh, int layout, const void *buf) {
    ct_tensor *t = NULL, *u = NULL, *v = NULL;
    if (ct_tensor_from_host(ctx, buf, (ct_dtype)dt, nd, sh, &t) != CT_OK) return NULL;
    if (layout == 1 && nd >= 2) {
        ct_tensor_transpose(ctx, t, -1, -2, &u);
        ct_tensor_clone(ctx, u, &v);
        ct_tensor_release(u);
        ct_tensor_release(t);
        ct_tensor_transpose(ctx, v, -1, -2, &t);
        ct_tensor_release(v);
    } else if (layout == 2 && nd >= 1) {
        int64_t s2[CT_MAX_DIMS];
        memcpy(s2, sh, sizeof(int64_t) * (size_t)nd);
        s2[nd - 1] *= 2;
        ct_tensor_zeros(ctx, (ct_dtype)dt, nd, s2, &u);
        ct_tensor_slice(ctx, u, -1, 0, s2[nd - 1], 2, &v);
        ct_tensor_copy_(ctx, v, t);
        ct_tensor_release(u);
        ct_tensor_release(t);
        t = v;
    }
    return t;
}

/* " <dtype> <ndim> <shape...> <hex bits...>" of t */
static void print_tensor(const ct_tensor *t) {
    int nd = ct_tensor_ndim(t);
    ct_dtype dt = ct_tensor_dtype(t);
    printf(" %d %d", (int)dt, nd);
    for (int i = 0; i < nd; i++)
        printf(" %lld", (long long)ct_tensor_shape(t)[i]);
    int64_t n = ct_tensor_numel(t);
    size_t isz = ct_dtype_size(dt);
    unsigned char *b = malloc((size_t)(n ? n : 1) * isz);
    ct_tensor_to_host(t, b, (size_t)n * isz);
    for (int64_t i = 0; i < n; i++) {
        uint64_t x = 0;
        memcpy(&x, b + i * (int64_t)isz, isz);
        printf(" %llx", (unsigned long long)x);
    }
    free(b);
}

/* " | <dtype> <ndim> <shape...> <bits...>" of t, or " | N" */
static void emit_part(const ct_tensor *t) {
    printf(" |");
    if (t)
        print_tensor(t);
    else
        printf(" N");
}

static void emit(ct_status st, ct_tensor *r) {
    if (st != CT_OK) {
        printf("ERR %d\n", (int)st);
        return;
    }
    printf("OK");
    print_tensor(r);
    printf("\n");
}

int main(void) {
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    static char line[1 << 22];
    while (fgets(line, sizeof line, stdin)) {
        char *p = NULL;
        char *op = strtok_r(line, " \n", &p);
        if (!op) continue;
        const bool gmode = !strncmp(op, "g:", 2);
        if (gmode) op += 2;
        unsigned gmask = ~0u; /* the inputs that require grad in gradient mode */
        char *slash = gmode ? strchr(op, '/') : NULL;
        if (slash) {
            gmask = (unsigned)atoi(slash + 1);
            *slash = 0;
        }
        int nt = atoi(tok(&p));
        ct_tensor *T[8] = {0};
        for (int k = 0; k < nt; k++) {
            int dt = atoi(tok(&p)), nd = atoi(tok(&p));
            if (dt == 99) { /* a NULL tensor (layer_norm without weight or bias) */
                tok(&p);
                continue;
            }
            int64_t sh[CT_MAX_DIMS], n = 1;
            for (int i = 0; i < nd; i++)
                n *= sh[i] = atoll(tok(&p));
            int layout = atoi(tok(&p));
            size_t isz = ct_dtype_size((ct_dtype)dt);
            unsigned char *buf = calloc((size_t)(n ? n : 1), isz);
            for (int64_t i = 0; i < n; i++) {
                uint64_t x = strtoull(tok(&p), NULL, 16);
                memcpy(buf + i * (int64_t)isz, &x, isz);
            }
            T[k] = mk(dt, nd, sh, gmode ? 0 : layout, buf);
            if (gmode && T[k] && (dt == CT_FLOAT32 || dt == CT_FLOAT64) && (gmask >> k & 1))
                ct_tensor_set_requires_grad(T[k], true);
            free(buf);
        }
        int ndb = atoi(tok(&p));
        double D[64];
        for (int i = 0; i < ndb; i++)
            D[i] = strtod(tok(&p), NULL);
        int ni = atoi(tok(&p));
        int I[64];
        int64_t L[64];
        for (int i = 0; i < ni; i++)
            L[i] = atoll(tok(&p)), I[i] = (int)L[i];
        ct_tensor *r = NULL;
        ct_status st = CT_ERR_UNSUPPORTED;
        ct_tensor *a = T[0], *b = T[1], *c = T[2];
#define BIN(name) else if (!strcmp(op, #name)) st = ct_##name(ctx, a, b, &r);
#define SCAL(name) else if (!strcmp(op, #name)) st = ct_##name(ctx, a, D[0], &r);
#define UN(name) else if (!strcmp(op, #name)) st = ct_##name(ctx, a, &r);
#define INPL(name)                                                                                 \
    else if (!strcmp(op, #name)) {                                                                 \
        st = ct_##name(ctx, a, b);                                                                 \
        if (st == CT_OK) r = ct_tensor_retain(a);                                                  \
    }
#define INPLS(name)                                                                                \
    else if (!strcmp(op, #name)) {                                                                 \
        st = ct_##name(ctx, a, D[0]);                                                              \
        if (st == CT_OK) r = ct_tensor_retain(a);                                                  \
    }
        if (0) {
        }
        BIN(add)
        BIN(sub)
        BIN(mul)
        BIN(div)
        BIN(eq)
        BIN(ne)
        BIN(lt)
        BIN(le)
        BIN(gt)
        BIN(ge)
        BIN(matmul) BIN(bmm) BIN(embedding) SCAL(add_scalar) SCAL(sub_scalar) SCAL(mul_scalar)
            SCAL(div_scalar) SCAL(eq_scalar) SCAL(ne_scalar) SCAL(lt_scalar) SCAL(le_scalar)
                SCAL(gt_scalar) SCAL(ge_scalar) SCAL(pow) UN(neg) UN(abs) UN(exp) UN(log) UN(sqrt)
                    UN(rsqrt) UN(tanh) UN(sigmoid) UN(relu) INPL(add_) INPL(sub_) INPL(mul_)
                        INPL(div_) INPLS(add_scalar_) INPLS(sub_scalar_) INPLS(mul_scalar_)
                            INPLS(div_scalar_) else if (!strcmp(op, "add_scaled")) st =
                                ct_add_scaled(ctx, a, b, D[0], &r);
        else if (!strcmp(op, "sub_scaled")) st = ct_sub_scaled(ctx, a, b, D[0], &r);
        else if (!strcmp(op, "gelu")) st = ct_gelu(ctx, a, (ct_gelu_approx)I[0], &r);
        else if (!strcmp(op, "clamp")) st =
            ct_clamp(ctx, a, I[0] ? &D[0] : NULL, I[1] ? &D[1] : NULL, &r);
        else if (!strcmp(op, "where")) st = ct_where(ctx, a, b, c, &r);
        else if (!strcmp(op, "addcmul")) st = ct_addcmul(ctx, a, b, c, D[0], &r);
        else if (!strcmp(op, "addcdiv")) st = ct_addcdiv(ctx, a, b, c, D[0], &r);
        else if (!strcmp(op, "cast")) st = ct_cast(ctx, a, (ct_dtype)I[0], &r);
        else if (!strcmp(op, "sum")) st = ct_sum(ctx, a, ni - 1, I + 1, I[0], &r);
        else if (!strcmp(op, "mean")) st = ct_mean(ctx, a, ni - 1, I + 1, I[0], &r);
        else if (!strcmp(op, "amax")) st = ct_amax(ctx, a, ni - 1, I + 1, I[0], &r);
        else if (!strcmp(op, "amin")) st = ct_amin(ctx, a, ni - 1, I + 1, I[0], &r);
        else if (!strcmp(op, "argmax")) st = ct_argmax(ctx, a, I[1], I[0], &r);
        else if (!strcmp(op, "softmax")) st = ct_softmax(ctx, a, I[0], &r);
        else if (!strcmp(op, "log_softmax")) st = ct_log_softmax(ctx, a, I[0], &r);
        else if (!strcmp(op, "layer_norm")) st = ct_layer_norm(ctx, a, I[0], b, c, D[0], &r);
        else if (!strcmp(op, "arange")) st =
            ct_tensor_arange(ctx, (ct_dtype)I[0], D[0], D[1], D[2], &r);
        else if (!strcmp(op, "full")) st =
            ct_tensor_full(ctx, (ct_dtype)I[0], ni - 1, L + 1, D[0], &r);
        else if (!strcmp(op, "zeros")) st = ct_tensor_zeros(ctx, (ct_dtype)I[0], ni - 1, L + 1, &r);
        else if (!strcmp(op, "reshape")) st = ct_tensor_reshape(ctx, a, ni, L, &r);
        else if (!strcmp(op, "view")) st = ct_tensor_view(ctx, a, ni, L, &r);
        else if (!strcmp(op, "expand")) st = ct_tensor_expand(ctx, a, ni, L, &r);
        else if (!strcmp(op, "permute")) st = ct_tensor_permute(ctx, a, I, &r);
        else if (!strcmp(op, "transpose")) st = ct_tensor_transpose(ctx, a, I[0], I[1], &r);
        else if (!strcmp(op, "narrow")) st = ct_tensor_narrow(ctx, a, I[0], L[1], L[2], &r);
        else if (!strcmp(op, "slice")) st = ct_tensor_slice(ctx, a, I[0], L[1], L[2], L[3], &r);
        else if (!strcmp(op, "squeeze")) st = ct_tensor_squeeze(ctx, a, I[0], &r);
        else if (!strcmp(op, "unsqueeze")) st = ct_tensor_unsqueeze(ctx, a, I[0], &r);
        UN(erf)
        UN(erfc)
        UN(sin)
        UN(cos)
        UN(exp2)
        UN(log2)
        UN(log1p)
        UN(expm1)
        UN(tan) UN(atan) UN(asin) UN(acos) UN(sinh) UN(cosh) UN(asinh) UN(acosh) UN(atanh) UN(log10)
            UN(reciprocal) BIN(atan2) UN(floor) UN(ceil) UN(round) UN(trunc) UN(sign) UN(silu)
                UN(mish) UN(isnan) UN(isinf) UN(isfinite) UN(logical_not) UN(bitwise_not)
                    BIN(maximum) BIN(minimum) BIN(remainder) BIN(fmod) BIN(logical_and)
                        BIN(logical_or) BIN(logical_xor) BIN(bitwise_and) BIN(bitwise_or)
                            BIN(bitwise_xor) else if (!strcmp(op, "prod")) st =
                                ct_prod(ctx, a, I[1], I[0], &r);
        else if (!strcmp(op, "cumsum")) st = ct_cumsum(ctx, a, I[1], &r);
        else if (!strcmp(op, "cumprod")) st = ct_cumprod(ctx, a, I[1], &r);
        else if (!strncmp(op, "max_dim", 7) || !strncmp(op, "min_dim", 7)) {
            ct_tensor *vv = NULL, *ii = NULL;
            st = op[1] == 'a' ? ct_max_dim(ctx, a, I[1], I[0], &vv, &ii)
                              : ct_min_dim(ctx, a, I[1], I[0], &vv, &ii);
            r = ct_tensor_retain(strstr(op, "idx") ? ii : vv);
            ct_tensor_release(vv), ct_tensor_release(ii);
        }
        else if (!strcmp(op, "logsumexp")) st = ct_logsumexp(ctx, a, ni - 1, I + 1, I[0], &r);
        else if (!strcmp(op, "all")) st = ct_all(ctx, a, ni - 1, I + 1, I[0], &r);
        else if (!strcmp(op, "any")) st = ct_any(ctx, a, ni - 1, I + 1, I[0], &r);
        else if (!strcmp(op, "count_nonzero")) st = ct_count_nonzero(ctx, a, ni - 1, I + 1, &r);
        else if (!strcmp(op, "var")) st = ct_var(ctx, a, ni - 1, I + 1, D[0], I[0], &r);
        else if (!strcmp(op, "std")) st = ct_std(ctx, a, ni - 1, I + 1, D[0], I[0], &r);
        else if (!strcmp(op, "elu")) st = ct_elu(ctx, a, D[0], &r);
        else if (!strcmp(op, "hardtanh")) st = ct_hardtanh(ctx, a, D[0], D[1], &r);
        else if (!strcmp(op, "leaky_relu")) st = ct_leaky_relu(ctx, a, D[0], &r);
        else if (!strcmp(op, "softplus")) st = ct_softplus(ctx, a, D[0], D[1], &r);
        UN(frac)
        UN(sinc) UN(signbit) UN(square) UN(deg2rad) UN(rad2deg) BIN(hypot) BIN(logaddexp)
            BIN(logaddexp2) BIN(xlogy) BIN(copysign) BIN(fmax) BIN(fmin) BIN(heaviside)
                BIN(pow_tensor) UN(lgamma) UN(digamma) UN(erfinv) UN(i0) UN(special_i0e)
                    UN(special_i1) UN(special_i1e) UN(special_ndtr) UN(special_ndtri)
                        UN(special_log_ndtr) UN(special_erfcx) UN(special_entr)
                            BIN(special_xlog1py) BIN(nextafter) BIN(gcd) BIN(lcm) else if (!strcmp(op, "logit")) st = ct_logit(ctx, a, D[0], &r);
        else if (!strcmp(op, "isclose")) st = ct_isclose(ctx, a, b, D[0], D[1], I[0], &r);
        else if (!strcmp(op, "nan_to_num")) /* I: which replacements are given */
            st = ct_nan_to_num(ctx, a, I[0] ? &D[0] : NULL, I[1] ? &D[1] : NULL,
                               I[2] ? &D[2] : NULL, &r);
        else if (!strcmp(op, "lerp")) st = ct_lerp(ctx, a, b, c, &r);
        else if (!strcmp(op, "lerp_scalar")) st = ct_lerp_scalar(ctx, a, b, D[0], &r);
        else if (!strcmp(op, "group_norm")) st = ct_group_norm(ctx, a, I[0], b, c, D[0], &r);
        else if (!strncmp(op, "batch_norm", 10)) {
            st = ct_batch_norm(ctx, a, b, c, T[3], T[4], I[0], D[0], D[1], &r);
            if (st == CT_OK && op[10]) { /* _rm / _rv: the running statistic after the call */
                ct_tensor_release(r);
                r = ct_tensor_retain(op[12] == 'm' ? b : c);
                if (!r) st = CT_ERR_INVALID_ARG; /* none given: as the harness's torch side */
            }
        }
        else if (!strncmp(op, "sort_", 5) || !strncmp(op, "topk_", 5) || !strncmp(op, "kth_", 4)) {
            ct_tensor *vv = NULL, *ii = NULL;
            if (op[0] == 's')
                st = ct_sort(ctx, a, I[0], I[1], I[2], &vv, &ii);
            else if (op[0] == 't')
                st = ct_topk(ctx, a, L[0], I[1], I[2], I[3], &vv, &ii);
            else
                st = ct_kthvalue(ctx, a, L[0], I[1], I[2], &vv, &ii);
            r = ct_tensor_retain(op[strlen(op) - 1] == 'i' ? ii : vv);
            ct_tensor_release(vv), ct_tensor_release(ii);
        }
        else if (!strcmp(op, "argsort")) st = ct_argsort(ctx, a, I[0], I[1], &r);
        else if (!strcmp(op, "argmin")) st = ct_argmin(ctx, a, I[1], I[0], &r);
        else if (!strcmp(op, "gather")) st = ct_gather(ctx, a, I[0], b, &r);
        else if (!strcmp(op, "scatter")) st = ct_scatter(ctx, a, I[0], b, c, &r);
        else if (!strcmp(op, "scatter_add")) st = ct_scatter_add(ctx, a, I[0], b, c, &r);
        else if (!strcmp(op, "index_select")) st = ct_index_select(ctx, a, I[0], b, &r);
        else if (!strcmp(op, "index_add")) st = ct_index_add(ctx, a, I[0], b, c, D[0], &r);
        else if (!strcmp(op, "masked_fill")) st = ct_masked_fill(ctx, a, b, D[0], &r);
        else if (!strcmp(op, "masked_select")) st = ct_masked_select(ctx, a, b, &r);
        else if (!strcmp(op, "take_along_dim")) st = ct_take_along_dim(ctx, a, b, I[0], &r);
        else if (!strcmp(op, "cat")) st = ct_cat(ctx, nt, (const ct_tensor *const *)T, I[0], &r);
        else if (!strcmp(op, "stack")) st =
            ct_stack(ctx, nt, (const ct_tensor *const *)T, I[0], &r);
        else if (!strcmp(op, "flip")) st = ct_flip(ctx, a, ni, I, &r);
        else if (!strcmp(op, "roll")) { /* I: n, shifts[n], dims[n] (or no dims: flattened) */
            int64_t sh[8];
            int dd[8];
            for (int i = 0; i < I[0]; i++)
                sh[i] = L[1 + i], dd[i] = ni > 1 + I[0] ? I[1 + I[0] + i] : 0;
            st = ct_roll(ctx, a, I[0], sh, ni > 1 + I[0] ? dd : NULL, &r);
        }
        else if (!strcmp(op, "repeat")) st = ct_repeat(ctx, a, ni, L, &r);
        else if (!strcmp(op, "tril")) st = ct_tril(ctx, a, L[0], &r);
        else if (!strcmp(op, "triu")) st = ct_triu(ctx, a, L[0], &r);
        else if (!strcmp(op, "max_pool2d")) st = ct_max_pool2d(ctx, a, L, L + 2, L + 4, L + 6, &r);
        else if (!strcmp(op, "avg_pool2d")) st = ct_avg_pool2d(ctx, a, L, L + 2, L + 4, &r);
        else if (!strcmp(op, "adaptive_avg_pool2d")) st = ct_adaptive_avg_pool2d(ctx, a, L, &r);
        else if (!strncmp(op, "max_pool2d_ex", 13)) { /* L: k, s, p, d, ceil; _i: the indices */
            ct_tensor *ii = NULL;
            st = ct_max_pool2d_ex(ctx, a, L, L + 2, L + 4, L + 6, I[8], &r, &ii);
            if (st == CT_OK && op[13]) {
                ct_tensor_release(r);
                r = ii;
            } else {
                ct_tensor_release(ii);
            }
        }
        else if (!strcmp(op, "avg_pool2d_ex")) st =
            ct_avg_pool2d_ex(ctx, a, L, L + 2, L + 4, I[6], I[7], &r);
        else if (!strcmp(op, "interpolate_scale")) st =
            ct_interpolate_scale(ctx, a, ndb, D, (ct_interp_mode)I[0], I[1], I[2], &r);
        else if (!strcmp(op, "conv1d")) st = ct_conv1d(ctx, a, b, c, L[0], L[1], L[2], I[3], &r);
        else if (!strcmp(op, "conv2d")) st = ct_conv2d(ctx, a, b, c, L, L + 2, L + 4, I[6], &r);
        else if (!strcmp(op, "interpolate")) st =
            ct_interpolate(ctx, a, ni - 2, L + 2, (ct_interp_mode)I[0], I[1], &r);
        else if (!strcmp(op, "pad")) st =
            ct_pad(ctx, a, ni - 1, L + 1, (ct_pad_mode)I[0], D[0], &r);
        else if (!strcmp(op, "one_hot")) st = ct_one_hot(ctx, a, L[0], &r);
        else if (!strncmp(op, "unique_", 7)) {
            ct_tensor *vv = NULL, *ii = NULL, *cc = NULL;
            st = ct_unique(ctx, a, true, &vv, &ii, &cc);
            r = ct_tensor_retain(op[7] == 'v' ? vv : op[7] == 'i' ? ii : cc);
            ct_tensor_release(vv), ct_tensor_release(ii), ct_tensor_release(cc);
        }
        else if (!strcmp(op, "nonzero")) st = ct_nonzero(ctx, a, &r);
        else if (!strcmp(op, "norm")) st = ct_norm(ctx, a, D[0], ni - 1, I + 1, I[0], &r);
        else if (!strcmp(op, "addmm")) st = ct_addmm(ctx, a, b, c, D[0], D[1], &r);
        else if (!strcmp(op, "baddbmm")) st = ct_baddbmm(ctx, a, b, c, D[0], D[1], &r);
        else if (!strcmp(op, "bitwise_left_shift")) st = ct_bitwise_left_shift(ctx, a, b, &r);
        else if (!strcmp(op, "bitwise_right_shift")) st = ct_bitwise_right_shift(ctx, a, b, &r);
        else if (!strcmp(op, "fmod_scalar")) st = ct_fmod_scalar(ctx, a, D[0], &r);
        else if (!strcmp(op, "remainder_scalar")) st = ct_remainder_scalar(ctx, a, D[0], &r);
        else if (!strcmp(op, "movedim")) st = ct_movedim(ctx, a, ni / 2, I, I + ni / 2, &r);
        else if (!strcmp(op, "einsum")) { /* I: the equation's characters */
            char eq[64] = {0};
            for (int k = 0; k < ni && k < 63; k++)
                eq[k] = (char)I[k];
            st = ct_einsum(ctx, eq, nt, (const ct_tensor *const *)T, &r);
        }
        else if (!strcmp(op, "searchsorted")) st = ct_searchsorted(ctx, a, b, I[0], I[1], &r);
        else if (!strcmp(op, "bucketize")) st = ct_bucketize(ctx, a, b, I[0], I[1], &r);
        else if (!strcmp(op, "isin")) st = ct_isin(ctx, a, b, I[0], &r);
        else if (!strcmp(op, "bincount")) st = ct_bincount(ctx, a, b, L[0], &r);
        else if (!strncmp(op, "aminmax", 7)) { /* _0 min, _1 max; I: keepdim, dims */
            ct_tensor *r2 = NULL;
            st = ct_aminmax(ctx, a, ni - 1, I + 1, I[0], &r, &r2);
            if (op[8] == '1') {
                ct_tensor_release(r);
                r = r2;
            } else {
                ct_tensor_release(r2);
            }
        }
        else if (!strcmp(op, "cov")) st = ct_cov(ctx, a, L[0], &r);
        else if (!strcmp(op, "corrcoef")) st = ct_corrcoef(ctx, a, &r);
        else if (!strcmp(op, "trapezoid")) st = ct_trapezoid(ctx, a, D[0], I[0], &r);
        else if (!strcmp(op, "rot90")) st = ct_rot90(ctx, a, L[0], I[1], I[2], &r);
        else if (!strcmp(op, "kron")) st = ct_kron(ctx, a, b, &r);
        else if (!strcmp(op, "margin_ranking_loss"))
            st = ct_margin_ranking_loss(ctx, a, b, c, D[0], (ct_reduction)I[0], &r);
        else if (!strcmp(op, "hinge_embedding_loss"))
            st = ct_hinge_embedding_loss(ctx, a, b, D[0], (ct_reduction)I[0], &r);
        else if (!strcmp(op, "soft_margin_loss"))
            st = ct_soft_margin_loss(ctx, a, b, (ct_reduction)I[0], &r);
        else if (!strcmp(op, "cosine_embedding_loss"))
            st = ct_cosine_embedding_loss(ctx, a, b, c, D[0], (ct_reduction)I[0], &r);
        else if (!strcmp(op, "poisson_nll_loss"))
            st = ct_poisson_nll_loss(ctx, a, b, I[1], I[2], D[0], (ct_reduction)I[0], &r);
        else if (!strcmp(op, "gaussian_nll_loss"))
            st = ct_gaussian_nll_loss(ctx, a, b, c, I[1], D[0], (ct_reduction)I[0], &r);
        else if (!strcmp(op, "triplet_margin_loss"))
            st = ct_triplet_margin_loss(ctx, a, b, c, D[0], D[1], D[2], I[1], (ct_reduction)I[0],
                                        &r);
        else if (!strcmp(op, "multilabel_soft_margin_loss"))
            st = ct_multilabel_soft_margin_loss(ctx, a, b, NULL, (ct_reduction)I[0], &r);
        else if (!strcmp(op, "pairwise_distance"))
            st = ct_pairwise_distance(ctx, a, b, D[0], D[1], I[0], &r);
        else if (!strcmp(op, "pixel_shuffle")) st = ct_pixel_shuffle(ctx, a, I[0], &r);
        else if (!strcmp(op, "cumulative_trapezoid"))
            st = ct_cumulative_trapezoid(ctx, a, D[0], I[0], &r);
        else if (!strcmp(op, "cumulative_trapezoid_x"))
            st = ct_cumulative_trapezoid_x(ctx, a, b, I[0], &r);
        else if (!strcmp(op, "matrix_norm")) {
            static const char *const ords[8] = {"fro", "nuc", "inf", "-inf", "1", "-1", "2", "-2"};
            st = ct_linalg_matrix_norm(ctx, a, ords[I[0]], I[1], I[2], I[3], &r);
        }
        else if (!strcmp(op, "pinv")) st = ct_linalg_pinv(ctx, a, D[0], D[1], &r);
        else if (!strcmp(op, "multi_dot"))
            st = ct_linalg_multi_dot(ctx, nt, (const ct_tensor *const *)T, &r);
        else if (!strcmp(op, "cdist")) st = ct_cdist(ctx, a, b, D[0], &r);
        else if (!strcmp(op, "pixel_unshuffle")) st = ct_pixel_unshuffle(ctx, a, I[0], &r);
        else if (!strcmp(op, "hstack")) st = ct_hstack(ctx, nt, (const ct_tensor *const *)T, &r);
        else if (!strcmp(op, "vstack")) st = ct_vstack(ctx, nt, (const ct_tensor *const *)T, &r);
        else if (!strcmp(op, "dstack")) st = ct_dstack(ctx, nt, (const ct_tensor *const *)T, &r);
        else if (!strcmp(op, "column_stack"))
            st = ct_column_stack(ctx, nt, (const ct_tensor *const *)T, &r);
        else if (!strcmp(op, "block_diag"))
            st = ct_block_diag(ctx, nt, (const ct_tensor *const *)T, &r);
        else if (!strcmp(op, "cartesian_prod"))
            st = ct_cartesian_prod(ctx, nt, (const ct_tensor *const *)T, &r);
        else if (!strcmp(op, "tensor_split") || !strcmp(op, "tensor_split_i")) {
            ct_tensor *outs[16] = {0};
            int np = 0, which = 0;
            if (!strcmp(op, "tensor_split")) { /* I: sections, dim, which */
                np = (int)I[0], which = (int)I[2];
                st = ct_tensor_split(ctx, a, (int)I[0], (int)I[1], outs);
            } else { /* I: dim, which, indices... */
                np = ni - 1, which = (int)I[1];
                st = ct_tensor_split_indices(ctx, a, ni - 2, L + 2, (int)I[0], outs);
            }
            for (int k = 0; k < np && k < 16; k++)
                if (k == which) r = outs[k];
                else ct_tensor_release(outs[k]);
        }
        else if (!strcmp(op, "tensordot")) /* I: n, dims_a[n], dims_b[n] */
            st = ct_tensordot(ctx, a, b, (int)I[0], I + 1, I + 1 + I[0], &r);
        else if (!strcmp(op, "addmv")) st = ct_addmv(ctx, a, b, c, D[0], D[1], &r);
        else if (!strcmp(op, "addr")) st = ct_addr(ctx, a, b, c, D[0], D[1], &r);
        else if (!strcmp(op, "matrix_power")) st = ct_linalg_matrix_power(ctx, a, L[0], &r);
        else if (!strcmp(op, "logdet")) st = ct_logdet(ctx, a, &r);
        else if (!strcmp(op, "diag_embed")) st = ct_diag_embed(ctx, a, L[0], I[1], I[2], &r);
        else if (!strcmp(op, "vander")) st = ct_vander(ctx, a, L[0], I[1] != 0, &r);
        else if (!strcmp(op, "logspace"))
            st = ct_tensor_logspace(ctx, (ct_dtype)I[1], D[0], D[1], L[0], D[2], &r);
        else if (!strcmp(op, "repeat_interleave")) /* I: repeats, has dim, dim */
            st = ct_repeat_interleave(ctx, a, L[0], I[1] ? I[2] : CT_ALL_DIMS, &r);
        else if (!strcmp(op, "logcumsumexp")) st = ct_logcumsumexp(ctx, a, I[0], &r);
        else if (!strncmp(op, "cummax", 6) || !strncmp(op, "cummin", 6)) {
            ct_tensor *r2 = NULL; /* _v values, _i indices; I: dim */
            st = (op[4] == 'a' ? ct_cummax : ct_cummin)(ctx, a, I[0], &r, &r2);
            if (op[7] == 'i') {
                ct_tensor_release(r);
                r = r2;
            } else {
                ct_tensor_release(r2);
            }
        }
        else if (!strcmp(op, "median")) st = ct_median(ctx, a, &r);
        else if (!strcmp(op, "nanmedian")) st = ct_nanmedian(ctx, a, &r);
        else if (!strncmp(op, "median_dim", 10) || !strncmp(op, "nanmedian_dim", 13)) {
            ct_tensor *r2 = NULL; /* _v values, _i indices; I: dim, keepdim */
            st = (op[0] == 'm' ? ct_median_dim : ct_nanmedian_dim)(ctx, a, I[0], I[1], &r, &r2);
            if (op[strlen(op) - 1] == 'i') {
                ct_tensor_release(r);
                r = r2;
            } else {
                ct_tensor_release(r2);
            }
        }
        else if (!strcmp(op, "dot")) st = ct_dot(ctx, a, b, &r);
        else if (!strcmp(op, "mv")) st = ct_mv(ctx, a, b, &r);
        else if (!strcmp(op, "outer")) st = ct_outer(ctx, a, b, &r);
        else if (!strcmp(op, "cross")) st = ct_cross(ctx, a, b, I[0], &r);
        else if (!strcmp(op, "trace")) st = ct_trace(ctx, a, &r);
        else if (!strcmp(op, "diagonal")) st = ct_diagonal(ctx, a, L[0], I[1], I[2], &r);
        else if (!strcmp(op, "diag")) st = ct_diag(ctx, a, L[0], &r);
        else if (!strcmp(op, "tile")) st = ct_tile(ctx, a, ni, L, &r);
        else if (!strcmp(op, "diff")) st = ct_diff(ctx, a, I[0], I[1], b, c, &r);
        else if (!strcmp(op, "nansum")) st = ct_nansum(ctx, a, ni - 1, I + 1, I[0], &r);
        else if (!strcmp(op, "nanmean")) st = ct_nanmean(ctx, a, ni - 1, I + 1, I[0], &r);
        else if (!strncmp(op, "var_mean", 8) || !strncmp(op, "std_mean", 8)) {
            ct_tensor *r2 = NULL; /* _0 the var / std, _1 the mean */
            st = (op[0] == 'v' ? ct_var_mean : ct_std_mean)(ctx, a, ni - 1, I + 1, D[0], I[0], &r,
                                                            &r2);
            if (op[9] == '1') {
                ct_tensor_release(r);
                r = r2;
            } else {
                ct_tensor_release(r2);
            }
        } else if (!strncmp(op, "meshgrid", 8)) { /* I: indexing, which output */
            ct_tensor *outs[8] = {0};
            st = ct_meshgrid(ctx, nt, (const ct_tensor *const *)T, (ct_meshgrid_indexing)I[0],
                             outs);
            for (int k = 0; k < nt; k++)
                if (k == I[1]) r = outs[k];
                else ct_tensor_release(outs[k]);
        }
        else if (!strcmp(op, "div_trunc")) st = ct_div_mode(ctx, a, b, CT_ROUND_TRUNC, &r);
        else if (!strcmp(op, "div_floor")) st = ct_div_mode(ctx, a, b, CT_ROUND_FLOOR, &r);
        else if (!strcmp(op, "floor_divide")) st = ct_floor_divide(ctx, a, b, &r);
        else if (!strcmp(op, "div_trunc_scalar")) st =
            ct_div_scalar_mode(ctx, a, D[0], CT_ROUND_TRUNC, &r);
        else if (!strcmp(op, "div_floor_scalar")) st =
            ct_div_scalar_mode(ctx, a, D[0], CT_ROUND_FLOOR, &r);
        if (gmode && st == CT_OK) {
            /* the upstream gradient, then each input's gradient */
            const ct_dtype rd = ct_tensor_dtype(r);
            const int64_t rn = ct_tensor_numel(r);
            double *u = malloc(sizeof(double) * (size_t)(rn ? rn : 1));
            for (int64_t i = 0; i < rn; i++)
                u[i] = 0.5 + (double)(i % 5) / 4;
            ct_tensor *u64 = NULL, *ug = NULL;
            st = ct_tensor_from_host(ctx, u, CT_FLOAT64, ct_tensor_ndim(r), ct_tensor_shape(r),
                                     &u64);
            free(u);
            if (st == CT_OK) st = ct_cast(ctx, u64, rd, &ug);
            if (st == CT_OK) st = ct_backward(ctx, r, ug, false);
            ct_tensor_release(u64);
            ct_tensor_release(ug);
            if (st != CT_OK) {
                printf("ERR %d\n", (int)st);
            } else {
                printf("OK");
                for (int k = 0; k < nt; k++)
                    if (T[k] && ct_tensor_requires_grad(T[k]))
                        emit_part(ct_tensor_grad(T[k]));
                    else if (T[k])
                        printf(" | -");
                printf("\n");
            }
        } else {
            emit(st, r);
        }
        fflush(stdout);
        ct_tensor_release(r);
        for (int k = 0; k < nt; k++)
            ct_tensor_release(T[k]);
    }
    ct_ctx_free(ctx);
    return 0;
}
