/* Reverse-mode autograd (include/ctorch/autograd.h). Every differentiable op and view is checked
 * in float64 against central finite differences with PyTorch's gradcheck tolerances (eps 1e-6,
 * atol 1e-5, rtol 1e-3), over the full Jacobian (one ct_autograd_grad per output element), with
 * broadcast shapes, non-contiguous inputs, 0-d and zero-size tensors; gradgradcheck (create_graph)
 * for elementwise, reduction, matmul, softmax and slice ops; the error cases (backward twice,
 * in-place modification of a saved tensor, flags on non-leaves and integer tensors, implicit grad
 * of a non-scalar); accumulation across backward calls; no_grad; OOM injection over forward +
 * backward; gradients of small models against PyTorch 1.13 (tests/data/autograd_torch_ref.h);
 * a captured training step replayed 100 times against 100 eager steps, bit for bit; and the
 * grad_fn name every differentiable op's result prints, against torch 1.13's
 * (tests/data/gradfn_torch_ref.h, the cases of tests/gradfn_cases.h). */
#include "ctorch/linalg.h"
#include "test_util.h"

static ct_ctx *ctx;
static unsigned long long rng = 12345;

#define EPS 1e-6
#define ATOL 1e-5
#define RTOL 1e-3

/* ---- tensors ---- */
static ct_tensor *from_vals(ct_dtype dt, int nd, const int64_t *shape, const double *v) {
    int64_t n = 1;
    for (int i = 0; i < nd; i++)
        n *= shape[i];
    void *buf = malloc((size_t)(n + 1) * 8);
    for (int64_t i = 0; i < n; i++)
        tu_set(buf, dt, i, v[i]);
    ct_tensor *t = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, buf, dt, nd, shape, &t));
    free(buf);
    return t;
}
/* f64 leaf requiring grad, values in [lo, hi]; mode 1: transposed view, 2: strided slice. */
static ct_tensor *leaf(int nd, const int64_t *shape, double lo, double hi, int mode) {
    ct_tensor *t = tu_make(ctx, &rng, CT_FLOAT64, nd, shape, mode, lo, hi, NULL);
    CHECK(t != NULL);
    CHECK_OK(ct_tensor_set_requires_grad(t, true));
    return t;
}
static double item(const ct_tensor *t) {
    double v = NAN;
    CHECK_OK(ct_tensor_item(t, &v));
    return v;
}
/* x's .grad as doubles (zeros, and a failed check, when there is none). */
static double *grad_vals(const ct_tensor *x) {
    const ct_tensor *g = ct_tensor_grad(x);
    CHECK(g != NULL);
    if (!g) return calloc((size_t)ct_tensor_numel(x) + 1, sizeof(double));
    return tu_read(g);
}
/* Address of logical element j (C order) of a CPU tensor with any strides. */
static double *elem(const ct_tensor *t, int64_t j) {
    int nd = ct_tensor_ndim(t);
    const int64_t *sh = ct_tensor_shape(t), *st = ct_tensor_stride(t);
    int64_t off = 0;
    for (int d = nd - 1; d >= 0; d--) {
        off += (j % sh[d]) * st[d];
        j /= sh[d];
    }
    return (double *)ct_tensor_data_ptr(t) + off;
}

/* ---- gradcheck ---- */
typedef ct_status (*fwd_fn)(ct_tensor **in, ct_tensor **out, const void *p);

/* Full Jacobian of f at `in` (inputs with requires_grad are differentiated): analytic rows from
 * ct_autograd_grad (create_graph as asked, to exercise it), numeric columns from central
 * differences. Returns the number of mismatches. */
static int gradcheck(const char *name, int n, ct_tensor **in, fwd_fn f, const void *p) {
    ct_tensor *y = NULL;
    CHECK_OK(f(in, &y, p));
    if (!y) return 1;
    int64_t m = ct_tensor_numel(y);
    int nd = 0, idx[8];
    const ct_tensor *din[8];
    for (int i = 0; i < n; i++)
        if (in[i] && ct_tensor_requires_grad(in[i])) {
            idx[nd] = i;
            din[nd++] = in[i];
        }
    int bad = 0;
    double *Ja[8] = {0};
    for (int k = 0; k < nd; k++)
        Ja[k] = calloc((size_t)(m * ct_tensor_numel(din[k]) + 1), sizeof(double));
    /* a result without history has a zero Jacobian (e.g. the gradient of a sum is constant) */
    for (int64_t r = 0; r < m && ct_tensor_requires_grad(y); r++) {
        double *e = calloc((size_t)m, sizeof(double));
        e[r] = 1;
        ct_tensor *go = from_vals(CT_FLOAT64, ct_tensor_ndim(y), ct_tensor_shape(y), e);
        free(e);
        for (int k = 0; k < nd; k++) {
            /* one input at a time: an input the output does not use has a zero row (torch's
             * allow_unused) */
            ct_tensor *gr[1] = {NULL};
            const ct_tensor *ys[1] = {y}, *gos[1] = {go}, *xs[1] = {din[k]};
            ct_status st = ct_autograd_grad(ctx, 1, ys, gos, 1, xs, true, false, gr);
            if (st == CT_ERR_STATE && strstr(ct_ctx_last_error(ctx), "not have been used"))
                continue;
            CHECK_MSG(st == CT_OK, "%s: autograd_grad: %s", name, ct_ctx_last_error(ctx));
            if (st != CT_OK) continue;
            CHECK(ct_tensor_dtype(gr[0]) == ct_tensor_dtype(din[k]));
            CHECK(ct_tensor_numel(gr[0]) == ct_tensor_numel(din[k]));
            CHECK(ct_tensor_ndim(gr[0]) == ct_tensor_ndim(din[k]));
            double *v = tu_read(gr[0]);
            int64_t ni = ct_tensor_numel(din[k]);
            for (int64_t j = 0; j < ni; j++)
                Ja[k][r * ni + j] = v[j];
            free(v);
            ct_tensor_release(gr[0]);
        }
        ct_tensor_release(go);
    }
    for (int k = 0; k < nd; k++) {
        int64_t ni = ct_tensor_numel(din[k]);
        for (int64_t j = 0; j < ni; j++) {
            double *x = elem(din[k], j), x0 = *x;
            ct_tensor *yp = NULL, *ym = NULL;
            *x = x0 + EPS;
            CHECK_OK(f(in, &yp, p));
            *x = x0 - EPS;
            CHECK_OK(f(in, &ym, p));
            *x = x0;
            double *vp = tu_read(yp), *vm = tu_read(ym);
            for (int64_t r = 0; r < m; r++) {
                double num = (vp[r] - vm[r]) / (2 * EPS), ana = Ja[k][r * ni + j];
                if (!(fabs(ana - num) <= ATOL + RTOL * fabs(num))) {
                    if (bad < 4)
                        printf("  %s: d out[%lld] / d in%d[%lld]: analytic %.9g numeric %.9g\n",
                               name, (long long)r, idx[k], (long long)j, ana, num);
                    bad++;
                }
            }
            free(vp), free(vm);
            ct_tensor_release(yp), ct_tensor_release(ym);
        }
        free(Ja[k]);
    }
    ct_tensor_release(y);
    CHECK_MSG(bad == 0, "%s: %d Jacobian entries differ", name, bad);
    return bad;
}

/* gradgradcheck: gradcheck of x -> d sum(f(x) * v) / dx computed with create_graph. */
typedef struct {
    fwd_fn f;
    const void *p;
    int n, which;
    ct_tensor **in;
    ct_tensor *v;
} gg_args;
static ct_status gg_fwd(ct_tensor **in, ct_tensor **out, const void *p) {
    const gg_args *a = p;
    ct_tensor *y = NULL, *yv = NULL, *s = NULL;
    ct_status st = a->f(in, &y, a->p);
    if (st == CT_OK) st = ct_mul(ctx, y, a->v, &yv);
    if (st == CT_OK) st = ct_sum(ctx, yv, 0, NULL, false, &s);
    const ct_tensor *outs[1] = {s}, *ins[1] = {in[a->which]};
    if (st == CT_OK) st = ct_autograd_grad(ctx, 1, outs, NULL, 1, ins, false, true, out);
    ct_tensor_release(y), ct_tensor_release(yv), ct_tensor_release(s);
    return st;
}
static void gradgradcheck(const char *name, int n, ct_tensor **in, int which, fwd_fn f,
                          const void *p) {
    ct_tensor *y = NULL;
    CHECK_OK(f(in, &y, p));
    ct_tensor *v =
        tu_make(ctx, &rng, CT_FLOAT64, ct_tensor_ndim(y), ct_tensor_shape(y), 0, -1, 1, NULL);
    ct_tensor_release(y);
    /* the gradient for input `which`, differentiated w.r.t. every input (cross terms too) */
    gg_args a = {f, p, n, which, in, v};
    char nm[96];
    snprintf(nm, sizeof nm, "%s (double backward)", name);
    gradcheck(nm, n, in, gg_fwd, &a);
    ct_tensor_release(v);
}

static void release_all(int n, ct_tensor **t) {
    for (int i = 0; i < n; i++)
        ct_tensor_release(t[i]);
}

/* ---- forward functions ---- */
typedef struct {
    int op;
    double s;
} ew_p;
enum {
    ADD,
    ADD_SC,
    SUB,
    SUB_SC,
    MUL,
    DIV,
    ADD_S,
    SUB_S,
    MUL_S,
    DIV_S,
    NEG,
    ABS,
    EXP,
    LOG,
    SQRT,
    RSQRT,
    TANH,
    SIGMOID,
    RELU,
    GELU,
    GELU_T,
    POW,
    CLAMP,
    CLAMP_LO,
    CLAMP_HI,
    WHERE,
    ADDCMUL,
    ADDCDIV
};
static ct_status ew(ct_tensor **in, ct_tensor **out, const void *pp) {
    const ew_p *p = pp;
    double lo = -0.5, hi = 0.5;
    switch (p->op) {
    case ADD: return ct_add(ctx, in[0], in[1], out);
    case ADD_SC: return ct_add_scaled(ctx, in[0], in[1], p->s, out);
    case SUB: return ct_sub(ctx, in[0], in[1], out);
    case SUB_SC: return ct_sub_scaled(ctx, in[0], in[1], p->s, out);
    case MUL: return ct_mul(ctx, in[0], in[1], out);
    case DIV: return ct_div(ctx, in[0], in[1], out);
    case ADD_S: return ct_add_scalar(ctx, in[0], p->s, out);
    case SUB_S: return ct_sub_scalar(ctx, in[0], p->s, out);
    case MUL_S: return ct_mul_scalar(ctx, in[0], p->s, out);
    case DIV_S: return ct_div_scalar(ctx, in[0], p->s, out);
    case NEG: return ct_neg(ctx, in[0], out);
    case ABS: return ct_abs(ctx, in[0], out);
    case EXP: return ct_exp(ctx, in[0], out);
    case LOG: return ct_log(ctx, in[0], out);
    case SQRT: return ct_sqrt(ctx, in[0], out);
    case RSQRT: return ct_rsqrt(ctx, in[0], out);
    case TANH: return ct_tanh(ctx, in[0], out);
    case SIGMOID: return ct_sigmoid(ctx, in[0], out);
    case RELU: return ct_relu(ctx, in[0], out);
    case GELU: return ct_gelu(ctx, in[0], CT_GELU_ERF, out);
    case GELU_T: return ct_gelu(ctx, in[0], CT_GELU_TANH, out);
    case POW: return ct_pow(ctx, in[0], p->s, out);
    case CLAMP: return ct_clamp(ctx, in[0], &lo, &hi, out);
    case CLAMP_LO: return ct_clamp(ctx, in[0], &lo, NULL, out);
    case CLAMP_HI: return ct_clamp(ctx, in[0], NULL, &hi, out);
    case WHERE: return ct_where(ctx, in[2], in[0], in[1], out);
    case ADDCMUL: return ct_addcmul(ctx, in[0], in[1], in[2], p->s, out);
    case ADDCDIV: return ct_addcdiv(ctx, in[0], in[1], in[2], p->s, out);
    }
    return CT_ERR_INVALID_ARG;
}

/* values kept away from kinks (0 for abs/relu, the clamp bounds) so differences are smooth */
static ct_tensor *leaf_away(int nd, const int64_t *shape, double lo, double hi, int mode,
                            const double *kinks, int nk) {
    ct_tensor *t = leaf(nd, shape, lo, hi, mode);
    for (int64_t j = 0; j < ct_tensor_numel(t); j++) {
        double *x = elem(t, j);
        for (int k = 0; k < nk; k++)
            if (fabs(*x - kinks[k]) < 0.05) *x = kinks[k] + 0.1;
    }
    return t;
}

TEST(gradcheck_binary_broadcast) {
    const int64_t s23[2] = {2, 3}, s3[1] = {3}, s213[3] = {2, 1, 3}, s43[2] = {4, 3};
    const struct {
        int op;
        double s;
    } ops[] = {{ADD, 0}, {ADD_SC, 2.5}, {SUB, 0}, {SUB_SC, -1.5}, {MUL, 0}, {DIV, 0}};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        ew_p p = {ops[k].op, ops[k].s};
        for (int mode = 0; mode < 3; mode++) {
            /* (2, 3) with (3); (2, 1, 3) with (4, 3); a non-contiguous first operand */
            ct_tensor *in[3] = {leaf(2, s23, -1, 1, mode), leaf(1, s3, 0.5, 2, 0), NULL};
            char nm[64];
            snprintf(nm, sizeof nm, "binary %d mode %d", ops[k].op, mode);
            gradcheck(nm, 2, in, ew, &p);
            release_all(2, in);
            ct_tensor *in2[2] = {leaf(3, s213, -1, 1, 0), leaf(2, s43, 0.5, 2, mode)};
            gradcheck(nm, 2, in2, ew, &p);
            release_all(2, in2);
        }
    }
    /* zero-size with broadcasting: the (3) operand's gradient is a sum over no rows (zeros) */
    const int64_t s03[2] = {0, 3};
    for (int op = ADD; op <= DIV; op++) {
        ew_p p = {op, 2};
        ct_tensor *z[2] = {leaf(2, s03, -1, 1, 0), leaf(1, s3, 0.5, 2, 0)};
        gradcheck("binary zero-size", 2, z, ew, &p);
        ct_tensor *y = NULL, *l = NULL;
        CHECK_OK(ew(z, &y, &p));
        CHECK_OK(ct_sum(ctx, y, 0, NULL, false, &l));
        CHECK_OK(ct_backward(ctx, l, NULL, false));
        double *g = grad_vals(z[1]);
        CHECK(g[0] == 0 && g[1] == 0 && g[2] == 0);
        free(g);
        ct_tensor_release(y), ct_tensor_release(l);
        release_all(2, z);
    }
    /* only one operand requires grad; a 0-d operand */
    ew_p pm = {MUL, 0};
    ct_tensor *in[2] = {leaf(2, s23, -1, 1, 0), NULL};
    double two = 2;
    in[1] = from_vals(CT_FLOAT64, 0, NULL, &two);
    gradcheck("mul by a constant 0-d", 2, in, ew, &pm);
    CHECK_OK(ct_tensor_set_requires_grad(in[1], true));
    gradcheck("mul by a 0-d leaf", 2, in, ew, &pm);
    release_all(2, in);
}

TEST(gradcheck_unary_and_scalar) {
    const int64_t s[2] = {3, 4};
    const struct {
        int op;
        double s, lo, hi;
    } ops[] = {{ADD_S, 1.5, -1, 1}, {SUB_S, 2, -1, 1},    {MUL_S, -3, -1, 1},  {DIV_S, 4, -1, 1},
               {NEG, 0, -1, 1},     {ABS, 0, -1, 1},      {EXP, 0, -1, 1},     {LOG, 0, 0.5, 2},
               {SQRT, 0, 0.5, 2},   {RSQRT, 0, 0.5, 2},   {TANH, 0, -2, 2},    {SIGMOID, 0, -3, 3},
               {RELU, 0, -1, 1},    {GELU, 0, -3, 3},     {GELU_T, 0, -3, 3},  {POW, 3, -1.5, 1.5},
               {POW, 2, -1, 1},     {POW, 0.5, 0.5, 2},   {POW, -1.5, 0.5, 2}, {POW, 0, -1, 1},
               {CLAMP, 0, -1, 1},   {CLAMP_LO, 0, -1, 1}, {CLAMP_HI, 0, -1, 1}};
    const double kinks[3] = {0, -0.5, 0.5};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        ew_p p = {ops[k].op, ops[k].s};
        for (int mode = 0; mode < 3; mode++) {
            ct_tensor *in[1] = {leaf_away(2, s, ops[k].lo, ops[k].hi, mode, kinks, 3)};
            char nm[64];
            snprintf(nm, sizeof nm, "unary %d (%g) mode %d", ops[k].op, ops[k].s, mode);
            gradcheck(nm, 1, in, ew, &p);
            release_all(1, in);
        }
        /* 0-d and zero-size inputs */
        ct_tensor *z[1] = {leaf_away(0, NULL, ops[k].lo, ops[k].hi, 0, kinks, 3)};
        gradcheck("unary 0-d", 1, z, ew, &p);
        release_all(1, z);
        const int64_t s0[2] = {0, 3};
        ct_tensor *e[1] = {leaf(2, s0, 0.5, 1, 0)};
        gradcheck("unary zero-size", 1, e, ew, &p);
        release_all(1, e);
    }
}

TEST(gradcheck_ternary) {
    const int64_t s23[2] = {2, 3}, s3[1] = {3}, s21[2] = {2, 1};
    for (int op = WHERE; op <= ADDCDIV; op++) {
        ew_p p = {op, op == ADDCMUL ? 0.7 : -1.3};
        ct_tensor *in[3] = {leaf(2, s23, -1, 1, 1), leaf(1, s3, 0.5, 2, 0), NULL};
        if (op == WHERE) {
            double c[6] = {1, 0, 1, 0, 0, 1};
            in[2] = from_vals(CT_BOOL, 2, s23, c);
        } else {
            in[2] = leaf(2, s21, 0.5, 2, 0);
        }
        gradcheck(op == WHERE ? "where" : op == ADDCMUL ? "addcmul" : "addcdiv", 3, in, ew, &p);
        release_all(3, in);
    }
}

TEST(cast_backward) {
    const int64_t s[1] = {4};
    ct_tensor *x = leaf(1, s, -1, 1, 0), *y = NULL, *z = NULL, *l = NULL;
    CHECK_OK(ct_cast(ctx, x, CT_FLOAT32, &y));
    CHECK(ct_tensor_requires_grad(y));
    CHECK_OK(ct_mul_scalar(ctx, y, 3, &z));
    CHECK_OK(ct_sum(ctx, z, 0, NULL, false, &l));
    CHECK_OK(ct_backward(ctx, l, NULL, false));
    ct_tensor *g = ct_tensor_grad(x);
    CHECK(g && ct_tensor_dtype(g) == CT_FLOAT64);
    double *v = g ? tu_read(g) : NULL;
    for (int i = 0; v && i < 4; i++)
        CHECK(v[i] == 3);
    free(v);
    /* integer results never require grad */
    ct_tensor *xi = NULL;
    CHECK_OK(ct_cast(ctx, x, CT_INT32, &xi));
    CHECK(!ct_tensor_requires_grad(xi));
    ct_tensor *am = NULL, *cmp = NULL;
    CHECK_OK(ct_argmax(ctx, x, 0, false, &am));
    CHECK(!ct_tensor_requires_grad(am));
    CHECK_OK(ct_gt_scalar(ctx, x, 0, &cmp));
    CHECK(!ct_tensor_requires_grad(cmp));
    ct_tensor_release(am), ct_tensor_release(cmp);
    ct_tensor_release(xi), ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(z);
    ct_tensor_release(l);
}

/* ---- reductions, softmax ---- */
typedef struct {
    int op, n_dims, dims[3];
    bool keep;
} red_p;
static ct_status red(ct_tensor **in, ct_tensor **out, const void *pp) {
    const red_p *p = pp;
    switch (p->op) {
    case 0: return ct_sum(ctx, in[0], p->n_dims, p->dims, p->keep, out);
    case 1: return ct_mean(ctx, in[0], p->n_dims, p->dims, p->keep, out);
    case 2: return ct_amax(ctx, in[0], p->n_dims, p->dims, p->keep, out);
    case 3: return ct_amin(ctx, in[0], p->n_dims, p->dims, p->keep, out);
    case 4: return ct_softmax(ctx, in[0], p->dims[0], out);
    case 5: return ct_log_softmax(ctx, in[0], p->dims[0], out);
    }
    return CT_ERR_INVALID_ARG;
}
TEST(gradcheck_reductions) {
    const int64_t s[3] = {2, 3, 4};
    const red_p ps[] = {{0, 0, {0}, false}, {0, 1, {1}, false},  {0, 2, {0, -1}, true},
                        {1, 0, {0}, false}, {1, 1, {-1}, true},  {1, 2, {2, 0}, false},
                        {2, 1, {1}, false}, {2, 0, {0}, false},  {3, 1, {2}, true},
                        {4, 1, {1}, false}, {4, 1, {-1}, false}, {5, 1, {0}, false},
                        {5, 1, {2}, false}};
    for (size_t k = 0; k < sizeof ps / sizeof ps[0]; k++)
        for (int mode = 0; mode < 3; mode++) {
            ct_tensor *in[1] = {leaf(3, s, -2, 2, mode)};
            char nm[64];
            snprintf(nm, sizeof nm, "reduce %d case %zu mode %d", ps[k].op, k, mode);
            gradcheck(nm, 1, in, red, &ps[k]);
            release_all(1, in);
        }
    /* 0-d and zero-size */
    for (int op = 0; op < 6; op++) {
        red_p p = {op, 0, {0}, false};
        ct_tensor *z[1] = {leaf(0, NULL, -1, 1, 0)};
        gradcheck("reduce 0-d", 1, z, red, &p);
        release_all(1, z);
        if (op == 2 || op == 3) continue; /* amax of an empty dim is an error */
        const int64_t s0[2] = {0, 3};
        red_p p1 = {op, 1, {op >= 4 ? 1 : 0}, false};
        ct_tensor *e[1] = {leaf(2, s0, -1, 1, 0)};
        gradcheck("reduce zero-size", 1, e, red, &p1);
        release_all(1, e);
    }
}

TEST(amax_ties_split_evenly) {
    /* torch: amax's gradient is shared evenly by the tied maxima */
    const int64_t s[2] = {2, 3};
    double v[6] = {1, 3, 3, 2, 2, 2};
    ct_tensor *x = from_vals(CT_FLOAT64, 2, s, v), *m = NULL, *l = NULL, *mn = NULL, *l2 = NULL;
    CHECK_OK(ct_tensor_set_requires_grad(x, true));
    int d = 1;
    CHECK_OK(ct_amax(ctx, x, 1, &d, false, &m));
    CHECK_OK(ct_sum(ctx, m, 0, NULL, false, &l));
    CHECK_OK(ct_backward(ctx, l, NULL, false));
    double *g = grad_vals(x);
    const double want[6] = {0, 0.5, 0.5, 1.0 / 3, 1.0 / 3, 1.0 / 3};
    for (int i = 0; i < 6; i++)
        CHECK_MSG(fabs(g[i] - want[i]) < 1e-15, "amax grad[%d] = %g", i, g[i]);
    free(g);
    CHECK_OK(ct_tensor_zero_grad(x));
    CHECK_OK(ct_amin(ctx, x, 0, NULL, false, &mn)); /* min 1 once */
    CHECK_OK(ct_mul_scalar(ctx, mn, 2, &l2));
    CHECK_OK(ct_backward(ctx, l2, NULL, false));
    g = grad_vals(x);
    CHECK(g[0] == 2 && g[1] == 0 && g[5] == 0);
    free(g);
    ct_tensor_release(x), ct_tensor_release(m), ct_tensor_release(l), ct_tensor_release(mn);
    ct_tensor_release(l2);
}

/* ---- matmul, nn ---- */
static ct_status mm(ct_tensor **in, ct_tensor **out, const void *p) {
    return *(const int *)p ? ct_bmm(ctx, in[0], in[1], out) : ct_matmul(ctx, in[0], in[1], out);
}
TEST(gradcheck_matmul) {
    const struct {
        int na;
        int64_t a[4];
        int nb;
        int64_t b[4];
    } cs[] = {{2, {3, 4}, 2, {4, 2}},       {1, {4}, 2, {4, 2}},
              {2, {3, 4}, 1, {4}},          {1, {4}, 1, {4}},
              {3, {2, 3, 4}, 3, {2, 4, 5}}, {3, {2, 3, 4}, 2, {4, 2}},
              {2, {3, 4}, 3, {2, 4, 2}},    {4, {2, 1, 3, 4}, 3, {2, 4, 2}},
              {1, {4}, 3, {2, 4, 3}},       {3, {2, 3, 4}, 1, {4}}};
    int bmm = 0;
    for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++)
        for (int mode = 0; mode < 2; mode++) {
            ct_tensor *in[2] = {leaf(cs[k].na, cs[k].a, -1, 1, mode),
                                leaf(cs[k].nb, cs[k].b, -1, 1, mode)};
            char nm[64];
            snprintf(nm, sizeof nm, "matmul case %zu mode %d", k, mode);
            gradcheck(nm, 2, in, mm, &bmm);
            release_all(2, in);
        }
    bmm = 1;
    const int64_t a[3] = {2, 3, 4}, b[3] = {2, 4, 2};
    ct_tensor *in[2] = {leaf(3, a, -1, 1, 1), leaf(3, b, -1, 1, 0)};
    gradcheck("bmm", 2, in, mm, &bmm);
    release_all(2, in);
    /* zero-size inner dim: gradients are zero-size / zeros */
    bmm = 0;
    const int64_t a0[2] = {3, 0}, b0[2] = {0, 2};
    ct_tensor *z[2] = {leaf(2, a0, -1, 1, 0), leaf(2, b0, -1, 1, 0)};
    gradcheck("matmul K = 0", 2, z, mm, &bmm);
    release_all(2, z);
}

static ct_status ln(ct_tensor **in, ct_tensor **out, const void *p) {
    return ct_layer_norm(ctx, in[0], *(const int *)p, in[1], in[2], 1e-5, out);
}
static ct_status emb(ct_tensor **in, ct_tensor **out, const void *p) {
    (void)p;
    return ct_embedding(ctx, in[0], in[1], out);
}
static ct_status lin(ct_tensor **in, ct_tensor **out, const void *p) {
    (void)p;
    return ct_linear(ctx, in[0], in[1], in[2], out);
}
TEST(gradcheck_nn) {
    const int64_t x3[3] = {2, 3, 4}, w1[1] = {4}, w2[2] = {3, 4};
    int nn = 1;
    ct_tensor *in[3] = {leaf(3, x3, -2, 2, 1), leaf(1, w1, 0.5, 1.5, 0), leaf(1, w1, -1, 1, 0)};
    gradcheck("layer_norm n=1", 3, in, ln, &nn);
    release_all(3, in);
    nn = 2;
    ct_tensor *in2[3] = {leaf(3, x3, -2, 2, 0), leaf(2, w2, 0.5, 1.5, 1), NULL};
    gradcheck("layer_norm n=2 no bias", 3, in2, ln, &nn);
    release_all(3, in2);
    nn = 3;
    ct_tensor *in3[3] = {leaf(3, x3, -2, 2, 0), NULL, NULL};
    gradcheck("layer_norm all dims, no affine", 3, in3, ln, &nn);
    release_all(3, in3);
    /* embedding: dense gradient to the weight, repeated indices accumulate */
    const int64_t ws[2] = {5, 3}, is[2] = {2, 3};
    double ids[6] = {0, 4, 4, 2, 0, 4};
    ct_tensor *e[2] = {leaf(2, ws, -1, 1, 0), from_vals(CT_INT64, 2, is, ids)};
    gradcheck("embedding", 2, e, emb, NULL);
    release_all(2, e);
    /* linear with and without bias, batched input */
    const int64_t xs[3] = {2, 2, 4}, lw[2] = {3, 4}, lb[1] = {3};
    ct_tensor *l[3] = {leaf(3, xs, -1, 1, 0), leaf(2, lw, -1, 1, 1), leaf(1, lb, -1, 1, 0)};
    gradcheck("linear", 3, l, lin, NULL);
    ct_tensor_release(l[2]);
    l[2] = NULL;
    gradcheck("linear no bias", 3, l, lin, NULL);
    release_all(3, l);
}

typedef struct {
    int kind;
    ct_reduction red;
    double ls;
} loss_p;
static ct_status loss(ct_tensor **in, ct_tensor **out, const void *pp) {
    const loss_p *p = pp;
    if (p->kind == 0) return ct_mse_loss(ctx, in[0], in[1], p->red, out);
    if (p->kind == 1) return ct_nll_loss(ctx, in[0], in[1], p->red, out);
    return ct_cross_entropy(ctx, in[0], in[1], p->red, p->ls, out);
}
TEST(gradcheck_losses) {
    const int64_t s[2] = {4, 5}, n[1] = {4};
    double t[4] = {0, 4, 2, 2};
    for (int red = 0; red < 3; red++) {
        loss_p p = {0, (ct_reduction)red, 0};
        ct_tensor *m[2] = {leaf(2, s, -1, 1, 1), leaf(2, s, -1, 1, 0)};
        gradcheck("mse_loss", 2, m, loss, &p);
        release_all(2, m);
        for (int kind = 1; kind < 3; kind++)
            for (int smooth = 0; smooth < (kind == 2 ? 2 : 1); smooth++) {
                loss_p q = {kind, (ct_reduction)red, smooth ? 0.2 : 0};
                ct_tensor *c[2] = {leaf(2, s, -2, 2, smooth), from_vals(CT_INT64, 1, n, t)};
                gradcheck(kind == 1 ? "nll_loss" : "cross_entropy", 2, c, loss, &q);
                release_all(2, c);
            }
    }
    /* bad targets */
    ct_tensor *x = leaf(2, s, -1, 1, 0), *out = NULL;
    double bad[4] = {0, 5, 1, 1};
    ct_tensor *tb = from_vals(CT_INT64, 1, n, bad), *tf = from_vals(CT_FLOAT64, 1, n, t);
    CHECK_ST(ct_cross_entropy(ctx, x, tb, CT_REDUCTION_MEAN, 0, &out), CT_ERR_INDEX);
    CHECK_ST(ct_nll_loss(ctx, x, tf, CT_REDUCTION_MEAN, &out), CT_ERR_DTYPE);
    CHECK_ST(ct_cross_entropy(ctx, x, tb, CT_REDUCTION_MEAN, 1.5, &out), CT_ERR_INVALID_ARG);
    CHECK(out == NULL);
    ct_tensor_release(x), ct_tensor_release(tb), ct_tensor_release(tf);
}

/* An -inf logit of another class leaves the loss finite, as torch (which picks the target's
 * log-probability; a one-hot product gave NaN); with label smoothing the loss is +inf. */
TEST(losses_with_infinite_logits) {
    const int64_t s[2] = {2, 3}, n[1] = {2};
    const double xv[6] = {0, -INFINITY, 1, 1, 2, -INFINITY}, tv[2] = {0, 1};
    ct_tensor *x = from_vals(CT_FLOAT64, 2, s, xv), *t = from_vals(CT_INT64, 1, n, tv);
    CHECK_OK(ct_tensor_set_requires_grad(x, true));
    ct_tensor *l = NULL, *ls = NULL, *m = NULL;
    CHECK_OK(ct_cross_entropy(ctx, x, t, CT_REDUCTION_NONE, 0, &l));
    double *v = tu_read(l);
    /* row 0: log(1 + e) - 0 over the finite classes; row 1: log(e + e^2) - 2 */
    CHECK_MSG(fabs(v[0] - log1p(exp(1.0))) < 1e-15, "row 0: %.17g", v[0]);
    CHECK_MSG(fabs(v[1] - log1p(exp(-1.0))) < 1e-15, "row 1: %.17g", v[1]);
    free(v);
    CHECK_OK(ct_cross_entropy(ctx, x, t, CT_REDUCTION_NONE, 0.1, &ls));
    v = tu_read(ls);
    CHECK(isinf(v[0]) && v[0] > 0 && isinf(v[1]) && v[1] > 0);
    free(v);
    CHECK_OK(ct_cross_entropy(ctx, x, t, CT_REDUCTION_SUM, 0, &m));
    CHECK_OK(ct_backward(ctx, m, NULL, false));
    double *g = grad_vals(x); /* softmax - one_hot: 0 at the -inf classes */
    const double e = exp(1.0), sm0 = 1 / (1 + e), sm1 = e / (1 + e);
    const double want[6] = {sm0 - 1, 0, sm1, sm0, sm1 - 1, 0};
    for (int j = 0; j < 6; j++)
        CHECK_MSG(fabs(g[j] - want[j]) < 1e-15, "grad[%d] = %.17g, want %.17g", j, g[j], want[j]);
    free(g);
    ct_tensor_release(l), ct_tensor_release(ls), ct_tensor_release(m);
    ct_tensor_release(x), ct_tensor_release(t);
}

/* ---- views ---- */
typedef struct {
    int kind;
} view_p;
static ct_status views(ct_tensor **in, ct_tensor **out, const void *pp) {
    const view_p *p = pp;
    const ct_tensor *t = in[0];
    ct_tensor *v = NULL;
    ct_status st;
    const int64_t s64[2] = {6, 4}, s3[3] = {3, 2, 4}, e[4] = {2, 2, 3, 4};
    const int perm[3] = {2, 0, 1};
    switch (p->kind) {
    case 0: st = ct_tensor_view(ctx, t, 2, s64, &v); break;
    case 1: st = ct_tensor_reshape(ctx, t, 3, s3, &v); break;
    case 2: st = ct_tensor_permute(ctx, t, perm, &v); break;
    case 3: st = ct_tensor_transpose(ctx, t, 0, -1, &v); break;
    case 4: st = ct_tensor_narrow(ctx, t, 1, -2, 2, &v); break;
    case 5: st = ct_tensor_slice(ctx, t, 2, 1, 100, 2, &v); break;
    case 6: {
        ct_tensor *u = NULL;
        st = ct_tensor_narrow(ctx, t, 1, 1, 1, &u); /* (2, 1, 4) */
        if (st == CT_OK) st = ct_tensor_expand(ctx, u, 4, e, &v);
        ct_tensor_release(u);
        break;
    }
    case 7: {
        ct_tensor *u = NULL;
        st = ct_tensor_unsqueeze(ctx, t, 1, &u);
        if (st == CT_OK) st = ct_tensor_squeeze(ctx, u, CT_ALL_DIMS, &v);
        ct_tensor_release(u);
        break;
    }
    case 8: st = ct_tensor_contiguous(ctx, t, &v); break;
    case 9: st = ct_tensor_clone(ctx, t, &v); break;
    default: return CT_ERR_INVALID_ARG;
    }
    if (st != CT_OK) return st;
    /* a non-linear op after the view, so the check sees where each element went */
    ct_tensor *w = NULL;
    st = ct_mul(ctx, v, v, &w);
    ct_tensor_release(v);
    if (st != CT_OK) return st;
    st = ct_add(ctx, w, v == NULL ? w : w, out);
    ct_tensor_release(w);
    return st;
}
TEST(gradcheck_views) {
    const int64_t s[3] = {2, 3, 4};
    for (int kind = 0; kind < 10; kind++)
        for (int mode = 0; mode < 3; mode++) {
            if (kind == 0 && mode != 0) continue; /* view needs compatible strides */
            view_p p = {kind};
            ct_tensor *in[1] = {leaf(3, s, -1, 1, mode)};
            char nm[64];
            snprintf(nm, sizeof nm, "view kind %d mode %d", kind, mode);
            gradcheck(nm, 1, in, views, &p);
            release_all(1, in);
        }
}

/* ---- double backward ---- */
TEST(gradgradcheck_ops) {
    const int64_t s[2] = {2, 3}, s3[1] = {3}, ma[2] = {3, 4}, mb[2] = {4, 2};
    const int ops[] = {MUL, DIV, EXP, LOG, TANH, SIGMOID, GELU, GELU_T, POW, RSQRT, SQRT};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        ew_p p = {ops[k], 3};
        ct_tensor *in[2] = {leaf(2, s, 0.5, 1.5, 1), leaf(1, s3, 0.5, 1.5, 0)};
        char nm[64];
        snprintf(nm, sizeof nm, "elementwise %d", ops[k]);
        gradgradcheck(nm, 2, in, 0, ew, &p);
        if (ops[k] <= DIV) gradgradcheck(nm, 2, in, 1, ew, &p);
        release_all(2, in);
    }
    const int64_t r3[3] = {2, 3, 4};
    const red_p rp[] = {
        {0, 1, {1}, false}, {1, 1, {-1}, true}, {4, 1, {1}, false}, {5, 1, {2}, false}};
    for (size_t k = 0; k < sizeof rp / sizeof rp[0]; k++) {
        ct_tensor *in[1] = {leaf(3, r3, -1, 1, 0)};
        gradgradcheck("reduce/softmax", 1, in, 0, red, &rp[k]);
        release_all(1, in);
    }
    int bmm = 0;
    ct_tensor *m[2] = {leaf(2, ma, -1, 1, 0), leaf(2, mb, -1, 1, 1)};
    gradgradcheck("matmul a", 2, m, 0, mm, &bmm);
    gradgradcheck("matmul b", 2, m, 1, mm, &bmm);
    release_all(2, m);
    view_p vp = {5};
    ct_tensor *v[1] = {leaf(3, r3, -1, 1, 0)};
    gradgradcheck("slice", 1, v, 0, views, &vp);
    release_all(1, v);
    int nn = 1;
    const int64_t w1[1] = {4};
    ct_tensor *l[3] = {leaf(3, r3, -1, 1, 0), leaf(1, w1, 0.5, 1.5, 0), NULL};
    gradgradcheck("layer_norm", 3, l, 0, ln, &nn);
    release_all(3, l);
}

/* ---- semantics and errors ---- */
TEST(accumulates_across_backward_calls) {
    const int64_t s[1] = {3};
    ct_tensor *x = leaf(1, s, -1, 1, 0), *y = NULL, *l = NULL;
    CHECK_OK(ct_mul_scalar(ctx, x, 2, &y));
    CHECK_OK(ct_sum(ctx, y, 0, NULL, false, &l));
    CHECK(ct_tensor_grad(x) == NULL);
    CHECK_OK(ct_backward(ctx, l, NULL, true));
    CHECK_OK(ct_backward(ctx, l, NULL, false));
    double *g = grad_vals(x);
    for (int i = 0; i < 3; i++)
        CHECK(g[i] == 4);
    free(g);
    /* mul by a number keeps the number (as torch): a third backward fails; add by a number and
     * sum keep nothing, so such a graph runs again (as torch) */
    CHECK_ST(ct_backward(ctx, l, NULL, false), CT_ERR_STATE);
    ct_tensor *y1 = NULL, *l1 = NULL;
    CHECK_OK(ct_add_scalar(ctx, x, 1, &y1));
    CHECK_OK(ct_sum(ctx, y1, 0, NULL, false, &l1));
    CHECK_OK(ct_backward(ctx, l1, NULL, false));
    CHECK_OK(ct_backward(ctx, l1, NULL, false));
    g = grad_vals(x);
    CHECK(g[0] == 6);
    free(g);
    ct_tensor_release(y1), ct_tensor_release(l1);
    CHECK_OK(ct_tensor_zero_grad(x));
    CHECK(ct_tensor_grad(x) == NULL);
    /* explicit grad_root */
    double gr[3] = {1, 2, 3};
    ct_tensor *groot = from_vals(CT_FLOAT64, 1, s, gr);
    ct_tensor_release(y);
    CHECK_OK(ct_mul_scalar(ctx, x, 2, &y));
    CHECK_OK(ct_backward(ctx, y, groot, false));
    g = grad_vals(x);
    CHECK(g[0] == 2 && g[1] == 4 && g[2] == 6);
    free(g);
    /* the .grad is not the caller's grad_root (it was copied) */
    CHECK(ct_tensor_data_ptr(ct_tensor_grad(x)) != ct_tensor_data_ptr(groot));
    ct_tensor_release(groot);
    /* leaves, non-leaves and flags */
    CHECK(ct_tensor_requires_grad(y));
    CHECK_ST(ct_tensor_set_requires_grad(y, false), CT_ERR_STATE);
    CHECK_OK(ct_tensor_set_requires_grad(y, true));
    ct_tensor *d = NULL;
    CHECK_OK(ct_tensor_detach(ctx, y, &d));
    CHECK(!ct_tensor_requires_grad(d));
    CHECK(ct_tensor_data_ptr(d) == ct_tensor_data_ptr(y));
    ct_tensor_release(d);
    ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(l);
}

TEST(error_cases) {
    const int64_t s[2] = {2, 3};
    ct_tensor *x = leaf(2, s, 0.5, 1, 0), *e = NULL, *l = NULL, *y = NULL;
    /* backward twice through saved tensors without retain_graph */
    CHECK_OK(ct_exp(ctx, x, &e));
    CHECK_OK(ct_sum(ctx, e, 0, NULL, false, &l));
    CHECK_OK(ct_backward(ctx, l, NULL, false));
    CHECK_ST(ct_backward(ctx, l, NULL, false), CT_ERR_STATE);
    CHECK(strstr(ct_ctx_last_error(ctx), "second time") != NULL);
    ct_tensor_release(e), ct_tensor_release(l);
    /* an in-place write to a saved tensor */
    ct_tensor *x2 = NULL;
    CHECK_OK(ct_mul_scalar(ctx, x, 1, &x2));
    CHECK_OK(ct_exp(ctx, x2, &e)); /* saves its output */
    CHECK_OK(ct_sum(ctx, e, 0, NULL, false, &l));
    ct_tensor *d = NULL;
    CHECK_OK(ct_tensor_detach(ctx, e, &d));
    CHECK_OK(ct_add_scalar_(ctx, d, 1)); /* same storage: bumps e's version */
    CHECK_ST(ct_backward(ctx, l, NULL, false), CT_ERR_STATE);
    CHECK(strstr(ct_ctx_last_error(ctx), "modified by an inplace operation") != NULL);
    ct_tensor_release(d), ct_tensor_release(e), ct_tensor_release(l), ct_tensor_release(x2);
    /* in-place on a leaf that requires grad (grad mode on) */
    CHECK_ST(ct_add_scalar_(ctx, x, 1), CT_ERR_STATE);
    CHECK(strstr(ct_ctx_last_error(ctx), "leaf") != NULL);
    bool prev = ct_set_grad_enabled(ctx, false);
    CHECK(prev);
    CHECK_OK(ct_add_scalar_(ctx, x, 1)); /* no_grad: the optimizer's update */
    CHECK_OK(ct_exp(ctx, x, &y));
    CHECK(!ct_tensor_requires_grad(y)); /* nothing recorded under no_grad */
    ct_tensor_release(y);
    CHECK(!ct_set_grad_enabled(ctx, prev));
    /* copy_ into a leaf that requires grad is refused; out of one, the destination takes its
     * history (torch's CopyBackwards: inplace_ops_as_torch); non-differentiable ops on it are
     * allowed */
    ct_tensor *plain = tu_make(ctx, &rng, CT_FLOAT64, 2, s, 0, 0, 1, NULL), *ev = NULL;
    CHECK_ST(ct_tensor_copy_(ctx, x, plain), CT_ERR_STATE);
    CHECK_OK(ct_tensor_copy_(ctx, plain, x));
    CHECK(ct_tensor_requires_grad(plain));
    ct_tensor *sq = NULL, *sym = NULL, *xt = NULL;
    CHECK_OK(ct_tensor_transpose(ctx, x, 0, 1, &xt));
    CHECK_OK(ct_matmul(ctx, x, xt, &sq));
    CHECK_OK(ct_add(ctx, sq, sq, &sym));
    CHECK_OK(ct_linalg_eigvalsh(ctx, sym, 'L', &ev)); /* differentiable (LinalgEighBackward) */
    CHECK(ct_tensor_requires_grad(ev));
    ct_tensor_release(ev);
    CHECK_OK(ct_gt_scalar(ctx, sym, 0.5, &ev)); /* a comparison has no history */
    CHECK(!ct_tensor_requires_grad(ev));
    ct_tensor_release(plain), ct_tensor_release(ev), ct_tensor_release(sq);
    ct_tensor_release(sym), ct_tensor_release(xt);
    /* implicit grad of a non-scalar, a root that does not require grad */
    CHECK_OK(ct_exp(ctx, x, &y));
    CHECK_ST(ct_backward(ctx, y, NULL, false), CT_ERR_SHAPE);
    ct_tensor *c = tu_make(ctx, &rng, CT_FLOAT64, 2, s, 0, 0, 1, NULL);
    CHECK_ST(ct_backward(ctx, c, NULL, false), CT_ERR_STATE);
    const int64_t s3[1] = {3};
    ct_tensor *wrong = tu_make(ctx, &rng, CT_FLOAT64, 1, s3, 0, 0, 1, NULL);
    CHECK_ST(ct_backward(ctx, y, wrong, false), CT_ERR_SHAPE);
    /* requires_grad on an integer tensor */
    double iv[3] = {1, 2, 3};
    ct_tensor *it = from_vals(CT_INT64, 1, s3, iv);
    CHECK_ST(ct_tensor_set_requires_grad(it, true), CT_ERR_DTYPE);
    CHECK_OK(ct_tensor_set_requires_grad(it, false));
    /* autograd_grad: an input that the output does not depend on */
    const int64_t s1[1] = {1};
    ct_tensor *u = leaf(1, s1, 0, 1, 0), *gr[1] = {NULL}, *ly = NULL;
    CHECK_OK(ct_sum(ctx, y, 0, NULL, false, &ly));
    const ct_tensor *outs[1] = {ly}, *ins[1] = {u};
    CHECK_ST(ct_autograd_grad(ctx, 1, outs, NULL, 1, ins, false, false, gr), CT_ERR_STATE);
    CHECK(gr[0] == NULL);
    /* autograd_grad leaves .grad alone */
    const ct_tensor *ins2[1] = {x};
    CHECK_OK(ct_tensor_zero_grad(x));
    CHECK_OK(ct_autograd_grad(ctx, 1, outs, NULL, 1, ins2, false, false, gr));
    CHECK(gr[0] != NULL && ct_tensor_grad(x) == NULL);
    ct_tensor_release(gr[0]);
    CHECK_ST(ct_backward(NULL, ly, NULL, false), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_backward(ctx, NULL, NULL, false), CT_ERR_INVALID_ARG);
    ct_tensor_release(u), ct_tensor_release(ly), ct_tensor_release(it), ct_tensor_release(wrong);
    ct_tensor_release(c), ct_tensor_release(y), ct_tensor_release(x);
}

TEST(views_share_history) {
    /* y = x.t(); z = y[0] * 3: grad flows back through both views */
    const int64_t s[2] = {2, 3};
    ct_tensor *x = leaf(2, s, -1, 1, 0), *y = NULL, *r = NULL, *z = NULL, *l = NULL;
    CHECK_OK(ct_tensor_transpose(ctx, x, 0, 1, &y));
    CHECK(ct_tensor_requires_grad(y));
    CHECK_ST(ct_tensor_set_requires_grad(y, false), CT_ERR_STATE);
    CHECK_OK(ct_tensor_narrow(ctx, y, 0, 0, 1, &r));
    CHECK_OK(ct_mul_scalar(ctx, r, 3, &z));
    CHECK_OK(ct_sum(ctx, z, 0, NULL, false, &l));
    CHECK_OK(ct_backward(ctx, l, NULL, false));
    double *g = grad_vals(x);
    const double want[6] = {3, 0, 0, 3, 0, 0};
    for (int i = 0; i < 6; i++)
        CHECK(g[i] == want[i]);
    free(g);
    /* contiguous of a contiguous tensor is the tensor itself: still the same leaf */
    ct_tensor *c = NULL;
    CHECK_OK(ct_tensor_contiguous(ctx, x, &c));
    CHECK(c == x);
    CHECK_OK(ct_tensor_set_requires_grad(c, false)); /* still a leaf */
    ct_tensor_release(c);
    ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(r), ct_tensor_release(z);
    ct_tensor_release(l);
}

TEST(optimizer_steps_on_leaves_that_require_grad) {
    /* ct_optim_step runs under no_grad (as torch's optimizers): both implementations update
     * requires-grad parameters in place, and the update bumps their version counter */
    for (int impl = 0; impl < 2; impl++) {
        const int64_t s[1] = {4};
        double v[4] = {1, -2, 3, 0.5};
        ct_tensor *w = from_vals(CT_FLOAT32, 1, s, v), *sq = NULL, *l = NULL, *e = NULL, *l2 = NULL;
        CHECK_OK(ct_tensor_set_requires_grad(w, true));
        CHECK_OK(ct_mul(ctx, w, w, &sq));
        CHECK_OK(ct_sum(ctx, sq, 0, NULL, false, &l));
        CHECK_OK(ct_backward(ctx, l, NULL, false));
        ct_optim_options o = ct_optim_options_default(CT_OPTIM_SGD);
        o.impl = impl ? CT_OPTIM_IMPL_FOREACH : CT_OPTIM_IMPL_FUSED;
        o.lr = 0.25;
        ct_optim *opt = NULL;
        CHECK_OK(ct_optim_create(ctx, &o, 1, &w, &opt));
        CHECK_OK(ct_exp(ctx, w, &e)); /* saves its output, not w */
        CHECK_OK(ct_sum(ctx, e, 0, NULL, false, &l2));
        ct_tensor *g[1] = {ct_tensor_grad(w)};
        CHECK_OK(ct_optim_step(opt, g)); /* w -= 0.25 * 2 w */
        CHECK(ct_tensor_requires_grad(w) && ct_tensor_grad(w) != NULL);
        double *nv = tu_read(w);
        CHECK(nv[0] == 0.5 && nv[1] == -1);
        free(nv);
        ct_tensor_release(sq), ct_tensor_release(l);
        CHECK_OK(ct_mul(ctx, w, w, &sq)); /* saves w at its new version */
        CHECK_OK(ct_sum(ctx, sq, 0, NULL, false, &l));
        CHECK_OK(ct_optim_step(opt, g));
        CHECK_ST(ct_backward(ctx, l, NULL, false), CT_ERR_STATE); /* w changed since */
        CHECK_OK(ct_backward(ctx, l2, NULL, false));              /* exp did not save w */
        ct_optim_free(opt);
        ct_tensor_release(w), ct_tensor_release(sq), ct_tensor_release(l), ct_tensor_release(e);
        ct_tensor_release(l2);
    }
}

/* ---- OOM injection over forward + backward ---- */
static ct_status model_step(ct_ctx *c, bool *ok) {
    const int64_t xs[2] = {4, 5}, ws[2] = {3, 5}, bs[1] = {3};
    double xv[20], wv[15], bv[3] = {0.1, -0.2, 0.3}, tv[4] = {0, 2, 1, 1};
    for (int i = 0; i < 20; i++)
        xv[i] = sin(i * 0.7);
    for (int i = 0; i < 15; i++)
        wv[i] = cos(i * 1.3) * 0.5;
    ct_tensor *x = NULL, *w = NULL, *b = NULL, *t = NULL, *h = NULL, *a = NULL, *l = NULL;
    const int64_t ts[1] = {4};
    int64_t ti[4];
    for (int i = 0; i < 4; i++)
        ti[i] = (int64_t)tv[i];
    ct_status st = ct_tensor_from_host(c, xv, CT_FLOAT64, 2, xs, &x);
    if (st == CT_OK) st = ct_tensor_from_host(c, wv, CT_FLOAT64, 2, ws, &w);
    if (st == CT_OK) st = ct_tensor_from_host(c, bv, CT_FLOAT64, 1, bs, &b);
    if (st == CT_OK) st = ct_tensor_from_host(c, ti, CT_INT64, 1, ts, &t);
    if (st == CT_OK) st = ct_tensor_set_requires_grad(w, true);
    if (st == CT_OK) st = ct_tensor_set_requires_grad(b, true);
    if (st == CT_OK) st = ct_linear(c, x, w, b, &h);
    if (st == CT_OK) st = ct_gelu(c, h, CT_GELU_TANH, &a);
    if (st == CT_OK) st = ct_cross_entropy(c, a, t, CT_REDUCTION_MEAN, 0.1, &l);
    if (st == CT_OK) st = ct_backward(c, l, NULL, false);
    *ok = st == CT_OK && ct_tensor_grad(w) && ct_tensor_grad(b);
    ct_tensor_release(x), ct_tensor_release(w), ct_tensor_release(b), ct_tensor_release(t);
    ct_tensor_release(h), ct_tensor_release(a), ct_tensor_release(l);
    return st;
}
TEST(oom_injection_leaks_nothing) {
    int failures = 0;
    bool covered = false;
    for (long n = 0; n < 4000 && !covered; n++) {
        tu_fault fs = {0, n, 0, false};
        ct_ctx_options o = {
            .size = sizeof o, .allocator = {tu_fault_alloc, tu_fault_free, &fs}, .no_cache = true};
        ct_ctx *c = NULL;
        if (ct_ctx_create(&o, &c) != CT_OK) {
            CHECK(fs.live == 0);
            continue;
        }
        bool ok = false;
        ct_status st = model_step(c, &ok);
        CHECK_MSG(st == CT_OK || st == CT_ERR_OOM, "fail_at %ld: status %d (%s)", n, (int)st,
                  ct_ctx_last_error(c));
        CHECK_MSG(ct_ctx_live_tensors(c) == 0, "fail_at %ld: %lld tensors alive", n,
                  (long long)ct_ctx_live_tensors(c));
        ct_ctx_free(c);
        CHECK_MSG(fs.live == 0, "fail_at %ld: %ld blocks leaked", n, fs.live);
        if (st == CT_ERR_OOM) failures++;
        covered = st == CT_OK && fs.calls <= n; /* the run no longer reaches allocation n */
    }
    CHECK(covered); /* every allocation of forward + backward was made to fail once */
    CHECK(failures > 20);
}

/* ---- PyTorch reference gradients ---- */
#include "data/autograd_torch_ref.h"

TEST(matches_torch_reference) {
    /* model 1: MLP 6-8-4 with tanh, cross entropy with label smoothing 0.1 */
    const int64_t xs[2] = {REF1_N, REF1_IN}, w1s[2] = {REF1_H, REF1_IN}, b1s[1] = {REF1_H},
                  w2s[2] = {REF1_OUT, REF1_H}, b2s[1] = {REF1_OUT}, ts[1] = {REF1_N};
    ct_tensor *x = from_vals(CT_FLOAT64, 2, xs, ref1_x);
    ct_tensor *w1 = from_vals(CT_FLOAT64, 2, w1s, ref1_w1),
              *b1 = from_vals(CT_FLOAT64, 1, b1s, ref1_b1);
    ct_tensor *w2 = from_vals(CT_FLOAT64, 2, w2s, ref1_w2),
              *b2 = from_vals(CT_FLOAT64, 1, b2s, ref1_b2);
    ct_tensor *t = from_vals(CT_INT64, 1, ts, ref1_t);
    ct_tensor *params[4] = {w1, b1, w2, b2};
    for (int i = 0; i < 4; i++)
        CHECK_OK(ct_tensor_set_requires_grad(params[i], true));
    CHECK_OK(ct_tensor_set_requires_grad(x, true));
    ct_tensor *h = NULL, *a = NULL, *o = NULL, *l = NULL;
    CHECK_OK(ct_linear(ctx, x, w1, b1, &h));
    CHECK_OK(ct_tanh(ctx, h, &a));
    CHECK_OK(ct_linear(ctx, a, w2, b2, &o));
    CHECK_OK(ct_cross_entropy(ctx, o, t, CT_REDUCTION_MEAN, 0.1, &l));
    CHECK(fabs(item(l) - ref1_loss) < 1e-10);
    CHECK_OK(ct_backward(ctx, l, NULL, false));
    const double *want[5] = {ref1_gw1, ref1_gb1, ref1_gw2, ref1_gb2, ref1_gx};
    ct_tensor *have[5] = {w1, b1, w2, b2, x};
    for (int i = 0; i < 5; i++) {
        double *g = grad_vals(have[i]);
        for (int64_t j = 0; j < ct_tensor_numel(have[i]); j++)
            CHECK_MSG(fabs(g[j] - want[i][j]) <= 1e-5, "model 1 grad %d[%lld]: %.9g vs torch %.9g",
                      i, (long long)j, g[j], want[i][j]);
        free(g);
    }
    ct_tensor_release(h), ct_tensor_release(a), ct_tensor_release(o), ct_tensor_release(l);
    ct_tensor_release(x), ct_tensor_release(t);
    for (int i = 0; i < 4; i++)
        ct_tensor_release(params[i]);

    /* model 2: layer_norm -> softmax attention-like block, mse loss, embedding input */
    const int64_t es[2] = {REF2_V, REF2_D}, is[1] = {REF2_N}, ls[1] = {REF2_D},
                  ys[2] = {REF2_N, REF2_D};
    ct_tensor *E = from_vals(CT_FLOAT64, 2, es, ref2_emb),
              *ids = from_vals(CT_INT64, 1, is, ref2_ids);
    ct_tensor *lw = from_vals(CT_FLOAT64, 1, ls, ref2_lnw),
              *lb = from_vals(CT_FLOAT64, 1, ls, ref2_lnb);
    ct_tensor *y = from_vals(CT_FLOAT64, 2, ys, ref2_y);
    ct_tensor *p2[3] = {E, lw, lb};
    for (int i = 0; i < 3; i++)
        CHECK_OK(ct_tensor_set_requires_grad(p2[i], true));
    ct_tensor *e = NULL, *n = NULL, *nt = NULL, *sc = NULL, *sm = NULL, *at = NULL, *g = NULL,
              *l2 = NULL;
    CHECK_OK(ct_embedding(ctx, E, ids, &e));
    CHECK_OK(ct_layer_norm(ctx, e, 1, lw, lb, 1e-5, &n));
    CHECK_OK(ct_tensor_transpose(ctx, n, 0, 1, &nt));
    CHECK_OK(ct_matmul(ctx, n, nt, &sc));
    CHECK_OK(ct_softmax(ctx, sc, -1, &sm));
    CHECK_OK(ct_matmul(ctx, sm, n, &at));
    CHECK_OK(ct_gelu(ctx, at, CT_GELU_ERF, &g));
    CHECK_OK(ct_mse_loss(ctx, g, y, CT_REDUCTION_SUM, &l2));
    CHECK(fabs(item(l2) - ref2_loss) < 1e-9);
    CHECK_OK(ct_backward(ctx, l2, NULL, false));
    const double *want2[3] = {ref2_gemb, ref2_glnw, ref2_glnb};
    for (int i = 0; i < 3; i++) {
        double *gv = grad_vals(p2[i]);
        for (int64_t j = 0; j < ct_tensor_numel(p2[i]); j++)
            CHECK_MSG(fabs(gv[j] - want2[i][j]) <= 1e-5, "model 2 grad %d[%lld]: %.9g vs %.9g", i,
                      (long long)j, gv[j], want2[i][j]);
        free(gv);
    }
    ct_tensor *rel[] = {E, ids, lw, lb, y, e, n, nt, sc, sm, at, g, l2};
    release_all((int)(sizeof rel / sizeof rel[0]), rel);
}

/* ---- a captured training step ---- */
#define TS_N 8
#define TS_IN 6
#define TS_H 10
#define TS_OUT 3
typedef struct {
    ct_tensor *x, *t, *w1, *b1, *w2, *b2;
} ts_model;
static void ts_init(ts_model *m, unsigned long long seed) {
    unsigned long long r = seed;
    const int64_t xs[2] = {TS_N, TS_IN}, ts[2] = {TS_N, TS_OUT}, w1s[2] = {TS_H, TS_IN},
                  b1s[1] = {TS_H}, w2s[2] = {TS_OUT, TS_H}, b2s[1] = {TS_OUT};
    m->x = tu_make(ctx, &r, CT_FLOAT32, 2, xs, 0, -1, 1, NULL);
    m->t = tu_make(ctx, &r, CT_FLOAT32, 2, ts, 0, -1, 1, NULL);
    m->w1 = tu_make(ctx, &r, CT_FLOAT32, 2, w1s, 0, -0.5, 0.5, NULL);
    m->b1 = tu_make(ctx, &r, CT_FLOAT32, 1, b1s, 0, -0.1, 0.1, NULL);
    m->w2 = tu_make(ctx, &r, CT_FLOAT32, 2, w2s, 0, -0.5, 0.5, NULL);
    m->b2 = tu_make(ctx, &r, CT_FLOAT32, 1, b2s, 0, -0.1, 0.1, NULL);
    ct_tensor *p[4] = {m->w1, m->b1, m->w2, m->b2};
    for (int i = 0; i < 4; i++)
        CHECK_OK(ct_tensor_set_requires_grad(p[i], true));
}
static void ts_free(ts_model *m) {
    ct_tensor *p[6] = {m->x, m->t, m->w1, m->b1, m->w2, m->b2};
    release_all(6, p);
}
/* forward, loss, backward, SGD (p -= 0.05 * grad, written with ops under no_grad) */
static ct_status ts_step(ts_model *m) {
    ct_tensor *p[4] = {m->w1, m->b1, m->w2, m->b2};
    for (int i = 0; i < 4; i++)
        ct_tensor_zero_grad(p[i]);
    ct_tensor *h = NULL, *a = NULL, *o = NULL, *l = NULL;
    ct_status st = ct_linear(ctx, m->x, m->w1, m->b1, &h);
    if (st == CT_OK) st = ct_relu(ctx, h, &a);
    if (st == CT_OK) st = ct_linear(ctx, a, m->w2, m->b2, &o);
    if (st == CT_OK) st = ct_mse_loss(ctx, o, m->t, CT_REDUCTION_MEAN, &l);
    if (st == CT_OK) st = ct_backward(ctx, l, NULL, false);
    bool prev = ct_set_grad_enabled(ctx, false);
    for (int i = 0; i < 4 && st == CT_OK; i++) {
        ct_tensor *u = NULL;
        st = ct_mul_scalar(ctx, ct_tensor_grad(p[i]), 0.05, &u);
        if (st == CT_OK) st = ct_sub_(ctx, p[i], u);
        ct_tensor_release(u);
    }
    ct_set_grad_enabled(ctx, prev);
    ct_tensor_release(h), ct_tensor_release(a), ct_tensor_release(o), ct_tensor_release(l);
    return st;
}
TEST(captured_training_step_equals_eager) {
    ts_model e, c;
    ts_init(&e, 5);
    ts_init(&c, 5);
    for (int i = 0; i < 100; i++)
        CHECK_OK(ts_step(&e));
    ct_graph *g = NULL;
    ct_device cpu = {CT_DEVICE_CPU, 0};
    CHECK_OK(ct_graph_create(ctx, cpu, NULL, &g));
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    CHECK_OK(ts_step(&c)); /* recorded, not run */
    CHECK_OK(ct_graph_capture_end(g));
    CHECK(ct_graph_num_nodes(g) > 20);
    CHECK_OK(ct_graph_instantiate(g));
    for (int i = 0; i < 100; i++)
        CHECK_OK(ct_graph_replay(g));
    ct_tensor *pe[4] = {e.w1, e.b1, e.w2, e.b2}, *pc[4] = {c.w1, c.b1, c.w2, c.b2};
    for (int i = 0; i < 4; i++) {
        size_t nb = (size_t)ct_tensor_numel(pe[i]) * 4;
        float *a = malloc(nb), *b = malloc(nb);
        CHECK_OK(ct_tensor_to_host(pe[i], a, nb));
        CHECK_OK(ct_tensor_to_host(pc[i], b, nb));
        CHECK_MSG(memcmp(a, b, nb) == 0, "parameter %d differs after 100 steps", i);
        free(a), free(b);
    }
    ts_free(&c); /* drops the .grad tensors living in the graph's pool */
    ct_graph_free(g);
    ts_free(&e);
}

/* Under capture a first gradient becomes .grad without a copy only when nothing outside the graph
 * refers to its memory: a caller's grad_root that flows unchanged to a leaf is still copied. */
TEST(captured_first_gradient_never_aliases_caller_memory) {
    const int64_t s4[1] = {4};
    float one[4] = {1, 2, 3, 4};
    ct_tensor *x, *gr, *y = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, one, CT_FLOAT32, 1, s4, &x));
    CHECK_OK(ct_tensor_from_host(ctx, one, CT_FLOAT32, 1, s4, &gr));
    CHECK_OK(ct_tensor_set_requires_grad(x, true));
    ct_graph *g = NULL;
    CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    CHECK_OK(ct_add_scalar(ctx, x, 0.0, &y));
    CHECK_OK(ct_backward(ctx, y, gr, false));
    CHECK_OK(ct_graph_capture_end(g));
    CHECK_OK(ct_graph_instantiate(g));
    CHECK_OK(ct_graph_replay(g));
    const ct_tensor *xg = ct_tensor_grad(x);
    CHECK(xg != NULL && xg != gr);
    CHECK(xg && ct_tensor_data_ptr(xg) != ct_tensor_data_ptr(gr));
    float v[4] = {0};
    if (xg) CHECK_OK(ct_tensor_to_host(xg, v, sizeof v));
    CHECK(v[0] == 1 && v[3] == 4);
    ct_tensor_release(y);
    ct_tensor_zero_grad(x);
    ct_graph_free(g);
    ct_tensor_release(x), ct_tensor_release(gr);
}

/* flip, roll (with and without dims) and tril/triu: gradcheck and gradgradcheck */
static ct_tensor *IDX1, *IDX3; /* int64 indices for index_select (1-d) and gather (3-d) */
static ct_status shape_ops(ct_tensor **in, ct_tensor **out, const void *pp) {
    int k = *(const int *)pp;
    switch (k) {
    case 5: return ct_index_select(ctx, in[0], 1, IDX1, out);
    case 6: return ct_gather(ctx, in[0], 2, IDX3, out);
    case 0: return ct_flip(ctx, in[0], 2, (int[]){0, -1}, out);
    case 1: return ct_roll(ctx, in[0], 2, (int64_t[]){1, -3}, (int[]){0, 2}, out);
    case 2: return ct_roll(ctx, in[0], 1, (int64_t[]){5}, NULL, out);
    case 3: return ct_tril(ctx, in[0], -1, out);
    default: return ct_triu(ctx, in[0], 1, out);
    }
}
TEST(gradcheck_flip_roll_tril) {
    const int64_t s[3] = {2, 3, 4};
    /* repeated indices: their gradients add up */
    int64_t i1[5] = {2, 0, 2, 1, 2}, i3[2 * 3 * 5], s1[1] = {5}, s3[3] = {2, 3, 5};
    for (int i = 0; i < 30; i++)
        i3[i] = (i * 7 + 3) % 4;
    CHECK_OK(ct_tensor_from_host(ctx, i1, CT_INT64, 1, s1, &IDX1));
    CHECK_OK(ct_tensor_from_host(ctx, i3, CT_INT64, 3, s3, &IDX3));
    for (int k = 0; k < 7; k++)
        for (int mode = 0; mode < 3; mode++) {
            ct_tensor *in[1] = {leaf(3, s, -1, 1, mode)};
            char nm[48];
            snprintf(nm, sizeof nm, "shape op %d mode %d", k, mode);
            gradcheck(nm, 1, in, shape_ops, &k);
            /* double backward of gather / index_select needs scatter_add / index_add's own
             * backward, not there yet */
            if (mode == 0 && k < 5) gradgradcheck(nm, 1, in, 0, shape_ops, &k);
            release_all(1, in);
        }
    ct_tensor_release(IDX1), ct_tensor_release(IDX3);
}

/* Issue 13's ops that have no backward formula yet refuse a requires-grad input while grad mode
 * is on (never a result silently cut off from the graph) and run with grad mode off or on a
 * detached input; the ones built from differentiable ops (masked_fill through where, flatten and
 * movedim as views) carry the right gradient. */
/* cat (short and chained lists, a legacy empty input), stack, repeat, scatter_add, index_add,
 * sort, topk, kthvalue: gradients against central differences */
static ct_tensor *AGX, *AGI;
static ct_status g_cat2(const ct_tensor *x, ct_tensor **y) {
    const ct_tensor *ts[3] = {x, AGX, x};
    return ct_cat(ctx, 3, ts, 1, y);
}
static ct_status g_cat7(const ct_tensor *x, ct_tensor **y) { /* > 4 inputs: a chain of nodes */
    int64_t e = 0;
    ct_tensor *empty = NULL;
    ct_status st = ct_tensor_zeros(ctx, CT_FLOAT64, 1, &e, &empty);
    const ct_tensor *ts[7] = {x, empty, AGX, x, x, AGX, x};
    if (st == CT_OK) st = ct_cat(ctx, 7, ts, 0, y);
    ct_tensor_release(empty);
    return st;
}
static ct_status g_stack(const ct_tensor *x, ct_tensor **y) {
    const ct_tensor *ts[2] = {AGX, x};
    return ct_stack(ctx, 2, ts, -1, y);
}
static ct_status g_repeat(const ct_tensor *x, ct_tensor **y) {
    return ct_repeat(ctx, x, 3, (int64_t[]){2, 1, 3}, y);
}
static ct_status g_scatter_add_self(const ct_tensor *x, ct_tensor **y) {
    return ct_scatter_add(ctx, x, 1, AGI, AGX, y);
}
static ct_status g_scatter_add_src(const ct_tensor *x, ct_tensor **y) {
    return ct_scatter_add(ctx, AGX, 1, AGI, x, y);
}
static ct_status g_scatter_self(const ct_tensor *x, ct_tensor **y) {
    return ct_scatter(ctx, x, 1, AGI, AGX, y);
}
static ct_status g_scatter_src(const ct_tensor *x, ct_tensor **y) { /* distinct indices per row */
    long long iv[6] = {0, 3, 1, 2, 3, 0};
    int64_t s32[2] = {3, 2};
    ct_tensor *ix = NULL;
    ct_status st = ct_tensor_from_host(ctx, iv, CT_INT64, 2, s32, &ix);
    if (st == CT_OK) st = ct_scatter(ctx, AGX, 1, ix, x, y);
    ct_tensor_release(ix);
    return st;
}
static ct_status g_take_along(const ct_tensor *x, ct_tensor **y) { /* (3, 4) at (1, 4) indices */
    long long iv[4] = {2, 0, 1, 2};
    int64_t s14[2] = {1, 4};
    ct_tensor *ix = NULL;
    ct_status st = ct_tensor_from_host(ctx, iv, CT_INT64, 2, s14, &ix);
    if (st == CT_OK) st = ct_take_along_dim(ctx, x, ix, 0, y);
    ct_tensor_release(ix);
    return st;
}
static ct_status g_index_add(const ct_tensor *x, ct_tensor **y) { /* x: source (3, 2) */
    int64_t two = 2;
    long long iv[2] = {3, 1};
    ct_tensor *ix = NULL;
    ct_status st = ct_tensor_from_host(ctx, iv, CT_INT64, 1, &two, &ix);
    if (st == CT_OK) st = ct_index_add(ctx, AGX, 1, ix, x, -1.5, y);
    ct_tensor_release(ix);
    return st;
}
static ct_status g_sort(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *i = NULL;
    ct_status st = ct_sort(ctx, x, 1, true, true, y, &i);
    ct_tensor_release(i);
    return st;
}
static ct_status g_topk(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *i = NULL;
    ct_status st = ct_topk(ctx, x, 2, 0, false, true, y, &i);
    ct_tensor_release(i);
    return st;
}
static ct_status g_kth(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *i = NULL;
    ct_status st = ct_kthvalue(ctx, x, 2, 1, false, y, &i);
    ct_tensor_release(i);
    return st;
}
TEST(gradcheck_shaping_and_selection) {
    int64_t s[2] = {3, 4}, s32[2] = {3, 2};
    CHECK_OK(ct_tensor_rand(ctx, CT_FLOAT64, 2, s, 11, 0, &AGX));
    long long iv[6] = {0, 3, 1, 1, 2, 0};
    CHECK_OK(ct_tensor_from_host(ctx, iv, CT_INT64, 2, s32, &AGI)); /* repeated indices add up */
    tu_fn1 fs[10] = {g_cat2, g_cat7, g_stack, g_repeat, g_scatter_add_self,
                     g_sort, g_topk, g_kth,   NULL,     NULL};
    const char *names[8] = {"cat",  "cat (7 inputs)", "stack",   "repeat", "scatter_add self",
                            "sort", "topk",           "kthvalue"};
    for (int k = 0; k < 8; k++)
        tu_gradcheck(ctx, &rng, names[k], fs[k], 2, s);
    tu_gradcheck(ctx, &rng, "scatter_add src", g_scatter_add_src, 2, s32);
    tu_gradcheck(ctx, &rng, "index_add source", g_index_add, 2, s32);
    tu_gradcheck(ctx, &rng, "scatter self", g_scatter_self, 2, s);
    tu_gradcheck(ctx, &rng, "scatter src", g_scatter_src, 2, s32);
    tu_gradcheck(ctx, &rng, "take_along_dim", g_take_along, 2, s);
    ct_tensor_release(AGX), ct_tensor_release(AGI);
}

TEST(everyday_ops_without_backward_refuse) {
    int64_t s[2] = {3, 4};
    ct_tensor *a = NULL, *b = NULL, *gi = NULL, *idx = NULL, *m = NULL, *o = NULL, *o2 = NULL;
    CHECK_OK(ct_tensor_rand(ctx, CT_FLOAT64, 2, s, 1, 0, &a));
    CHECK_OK(ct_tensor_rand(ctx, CT_FLOAT64, 2, s, 2, 0, &b));
    CHECK_OK(ct_tensor_zeros(ctx, CT_INT64, 2, s, &gi));
    CHECK_OK(ct_tensor_zeros(ctx, CT_INT64, 1, (int64_t[]){2}, &idx));
    CHECK_OK(ct_gt_scalar(ctx, b, 0.5, &m));
    CHECK_OK(ct_tensor_set_requires_grad(a, true));
    const ct_tensor *ab[2] = {a, b};
    for (int pass = 0; pass < 2; pass++) { /* 0: refused; 1: grad mode off, runs */
        bool prev = ct_set_grad_enabled(ctx, pass == 0);
        ct_status want = pass == 0 ? CT_ERR_UNSUPPORTED : CT_OK;
#define REFUSED(call)                                                                              \
    do {                                                                                           \
        o = o2 = NULL;                                                                             \
        CHECK_ST(call, want);                                                                      \
        if (pass == 0)                                                                             \
            CHECK_MSG(strstr(ct_ctx_last_error(ctx), "no backward formula") != NULL, "%s: %s",     \
                      #call, ct_ctx_last_error(ctx));                                              \
        ct_tensor_release(o), ct_tensor_release(o2);                                               \
    } while (0)
        (void)ab;
        ct_tensor *gi2 = NULL; /* a (2, 4) index for a (3, 4) src: src's gradient is undefined */
        CHECK_OK(ct_tensor_zeros(ctx, CT_INT64, 2, (int64_t[]){2, 4}, &gi2));
        REFUSED(ct_scatter_add(ctx, b, 0, gi2, a, &o));
        REFUSED(ct_scatter(ctx, b, 0, gi2, a, &o));
        ct_tensor_release(gi2);
#undef REFUSED
        ct_set_grad_enabled(ctx, prev);
    }
    /* a detached input runs with grad mode on */
    ct_tensor *d = NULL;
    CHECK_OK(ct_tensor_detach(ctx, a, &d));
    CHECK_OK(ct_cat(ctx, 1, (const ct_tensor *const[]){d}, 0, &o));
    CHECK(!ct_tensor_requires_grad(o));
    ct_tensor_release(o), ct_tensor_release(d);
    /* masked_fill: d/da sum(masked_fill(a, m, 0.5) * b) = b where !m, 0 where m */
    ct_tensor *mf = NULL, *pr = NULL, *l = NULL;
    CHECK_OK(ct_masked_fill(ctx, a, m, 0.5, &mf));
    CHECK_OK(ct_mul(ctx, mf, b, &pr));
    CHECK_OK(ct_sum(ctx, pr, 0, NULL, false, &l));
    CHECK_OK(ct_backward(ctx, l, NULL, false));
    double gv[12], bv[12];
    uint8_t mv[12];
    CHECK_OK(ct_tensor_to_host(ct_tensor_grad(a), gv, sizeof gv));
    CHECK_OK(ct_tensor_to_host(b, bv, sizeof bv));
    CHECK_OK(ct_tensor_to_host(m, mv, sizeof mv));
    for (int i = 0; i < 12; i++)
        CHECK_MSG(gv[i] == (mv[i] ? 0.0 : bv[i]), "masked_fill grad[%d] = %g", i, gv[i]);
    ct_tensor *all[] = {a, b, gi, idx, m, mf, pr, l};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ct_tensor_release(all[i]);
}

/* ---- the everyday elementwise ops: backward formulas against finite differences ---- */
enum {
    M_ERF,
    M_ERFC,
    M_SIN,
    M_COS,
    M_EXP2,
    M_LOG2,
    M_LOG1P,
    M_EXPM1,
    M_SILU,
    M_MISH,
    M_SOFTPLUS,
    M_SOFTPLUS_B,
    M_LEAKY,
    M_ELU,
    M_HARDTANH,
    M_FLOOR,
    M_ROUND,
    M_SIGN,
    M_MAXIMUM,
    M_MINIMUM,
    M_REMAINDER,
    M_FMOD,
    M_REM_S,
    M_FMOD_S,
    M_LERP,
    M_LERP_S,
    M_TAN,
    M_ATAN,
    M_ASIN,
    M_ACOS,
    M_SINH,
    M_COSH,
    M_ASINH,
    M_ACOSH,
    M_ATANH,
    M_LOG10,
    M_RECIP,
    M_ATAN2,
    M_HYPOT,
    M_LAE,
    M_LAE2,
    M_XLOGY,
    M_COPYSIGN,
    M_FMAX,
    M_FMIN,
    M_POW_T,
    M_FRAC,
    M_LOGIT,
    M_LOGIT_EPS,
    M_SINC,
    M_NAN_TO_NUM,
    M_DEG2RAD,
    M_SQUARE,
    M_COUNT
};
static ct_status mathf(ct_tensor **in, ct_tensor **out, const void *pp) {
    const int op = *(const int *)pp;
    switch (op) {
    case M_ERF: return ct_erf(ctx, in[0], out);
    case M_ERFC: return ct_erfc(ctx, in[0], out);
    case M_SIN: return ct_sin(ctx, in[0], out);
    case M_COS: return ct_cos(ctx, in[0], out);
    case M_EXP2: return ct_exp2(ctx, in[0], out);
    case M_LOG2: return ct_log2(ctx, in[0], out);
    case M_LOG1P: return ct_log1p(ctx, in[0], out);
    case M_EXPM1: return ct_expm1(ctx, in[0], out);
    case M_SILU: return ct_silu(ctx, in[0], out);
    case M_MISH: return ct_mish(ctx, in[0], out);
    case M_SOFTPLUS: return ct_softplus(ctx, in[0], 1, 20, out);
    case M_SOFTPLUS_B: return ct_softplus(ctx, in[0], 2, 1, out); /* threshold inside range */
    case M_LEAKY: return ct_leaky_relu(ctx, in[0], 0.1, out);
    case M_ELU: return ct_elu(ctx, in[0], 0.7, out);
    case M_HARDTANH: return ct_hardtanh(ctx, in[0], -0.5, 0.5, out);
    case M_FLOOR: return ct_floor(ctx, in[0], out);
    case M_ROUND: return ct_round(ctx, in[0], out);
    case M_SIGN: return ct_sign(ctx, in[0], out);
    case M_MAXIMUM: return ct_maximum(ctx, in[0], in[1], out);
    case M_MINIMUM: return ct_minimum(ctx, in[0], in[1], out);
    case M_REMAINDER: return ct_remainder(ctx, in[0], in[1], out);
    case M_FMOD: return ct_fmod(ctx, in[0], in[1], out);
    case M_REM_S: return ct_remainder_scalar(ctx, in[0], -0.7, out);
    case M_FMOD_S: return ct_fmod_scalar(ctx, in[0], 0.7, out);
    case M_LERP: return ct_lerp(ctx, in[0], in[1], in[2], out);
    case M_LERP_S: return ct_lerp_scalar(ctx, in[0], in[1], 0.3, out);
    case M_TAN: return ct_tan(ctx, in[0], out);
    case M_ATAN: return ct_atan(ctx, in[0], out);
    case M_ASIN: return ct_asin(ctx, in[0], out);
    case M_ACOS: return ct_acos(ctx, in[0], out);
    case M_SINH: return ct_sinh(ctx, in[0], out);
    case M_COSH: return ct_cosh(ctx, in[0], out);
    case M_ASINH: return ct_asinh(ctx, in[0], out);
    case M_ACOSH: return ct_acosh(ctx, in[0], out);
    case M_ATANH: return ct_atanh(ctx, in[0], out);
    case M_LOG10: return ct_log10(ctx, in[0], out);
    case M_RECIP: return ct_reciprocal(ctx, in[0], out);
    case M_ATAN2: return ct_atan2(ctx, in[0], in[1], out);
    case M_HYPOT: return ct_hypot(ctx, in[0], in[1], out);
    case M_LAE: return ct_logaddexp(ctx, in[0], in[1], out);
    case M_LAE2: return ct_logaddexp2(ctx, in[0], in[1], out);
    case M_XLOGY: return ct_xlogy(ctx, in[0], in[1], out);
    case M_COPYSIGN: return ct_copysign(ctx, in[0], in[1], out);
    case M_FMAX: return ct_fmax(ctx, in[0], in[1], out);
    case M_FMIN: return ct_fmin(ctx, in[0], in[1], out);
    case M_POW_T: return ct_pow_tensor(ctx, in[0], in[1], out);
    case M_FRAC: return ct_frac(ctx, in[0], out);
    case M_LOGIT: return ct_logit(ctx, in[0], -1, out);
    case M_LOGIT_EPS: return ct_logit(ctx, in[0], 0.3, out);
    case M_SINC: return ct_sinc(ctx, in[0], out);
    case M_NAN_TO_NUM: return ct_nan_to_num(ctx, in[0], NULL, NULL, NULL, out);
    case M_DEG2RAD: return ct_deg2rad(ctx, in[0], out);
    case M_SQUARE: return ct_square(ctx, in[0], out);
    }
    return CT_ERR_INVALID_ARG;
}

/* The composites of ops.h's "linear algebra basics" section: gradcheck through their ops. */
enum {
    C_DOT,
    C_MV,
    C_OUTER,
    C_TRACE,
    C_DIAGONAL,
    C_DIAG_VEC,
    C_DIAG_MAT,
    C_TILE,
    C_DIFF,
    C_NANSUM,
    C_NANMEAN,
    C_VAR_MEAN,
    C_STD_MEAN,
    C_CROSS,
    C_MESHGRID,
    C_EINSUM,
    C_CUMMAX,
    C_LCSE,
    C_MEDIAN_DIM,
    C_ROT90,
    C_KRON,
    C_REPEAT_INTERLEAVE,
    C_COUNT
};
static ct_status compf(ct_tensor **in, ct_tensor **out, const void *pp) {
    const int op = *(const int *)pp;
    ct_tensor *t1 = NULL, *t2 = NULL, *g[2] = {NULL, NULL};
    ct_status st = CT_ERR_INVALID_ARG;
    switch (op) {
    case C_DOT: return ct_dot(ctx, in[0], in[1], out);
    case C_MV: return ct_mv(ctx, in[0], in[1], out);
    case C_OUTER: return ct_outer(ctx, in[0], in[1], out);
    case C_TRACE: return ct_trace(ctx, in[0], out);
    case C_DIAGONAL: return ct_diagonal(ctx, in[0], -1, 2, 0, out);
    case C_DIAG_VEC: return ct_diag(ctx, in[0], -2, out);
    case C_DIAG_MAT: return ct_diag(ctx, in[0], 1, out);
    case C_TILE: return ct_tile(ctx, in[0], 1, (const int64_t[]){2}, out);
    case C_DIFF: return ct_diff(ctx, in[0], 2, 1, in[1], NULL, out);
    case C_NANSUM: return ct_nansum(ctx, in[0], 1, (const int[]){0}, false, out);
    case C_NANMEAN: return ct_nanmean(ctx, in[0], 1, (const int[]){1}, true, out);
    case C_VAR_MEAN:
    case C_STD_MEAN: /* var (std) + 2 mean, so both outputs are differentiated */
        st = (op == C_VAR_MEAN ? ct_var_mean : ct_std_mean)(ctx, in[0], 1, (const int[]){1}, 1.0,
                                                            false, &t1, &t2);
        if (st == CT_OK) st = ct_add_scaled(ctx, t1, t2, 2.0, out);
        ct_tensor_release(t1), ct_tensor_release(t2);
        return st;
    case C_CROSS: return ct_cross(ctx, in[0], in[1], -1, out);
    case C_CUMMAX:
    case C_MEDIAN_DIM:
        st = (op == C_CUMMAX ? ct_cummax(ctx, in[0], 1, out, &t1)
                             : ct_median_dim(ctx, in[0], 0, false, out, &t1));
        ct_tensor_release(t1);
        return st;
    case C_LCSE: return ct_logcumsumexp(ctx, in[0], 1, out);
    case C_ROT90: return ct_rot90(ctx, in[0], 3, 1, 0, out);
    case C_KRON: return ct_kron(ctx, in[0], in[1], out);
    case C_REPEAT_INTERLEAVE: return ct_repeat_interleave(ctx, in[0], 2, -1, out);
    case C_EINSUM:
        return ct_einsum(ctx, "iij,jk->ki", 2, (const ct_tensor *const[]){in[0], in[1]}, out);
    case C_MESHGRID:
        st = ct_meshgrid(ctx, 2, (const ct_tensor *const[]){in[0], in[1]}, CT_MESHGRID_XY, g);
        if (st == CT_OK) st = ct_mul(ctx, g[0], g[1], out);
        ct_tensor_release(g[0]), ct_tensor_release(g[1]);
        return st;
    }
    return st;
}
TEST(gradcheck_composites) {
    for (int op = 0; op < C_COUNT; op++)
        for (int mode = 0; mode < 2; mode++) {
            const int64_t s3[1] = {3}, s4[1] = {4}, s34[2] = {3, 4}, s33[2] = {3, 3},
                          s234[3] = {2, 3, 4}, s23[2] = {2, 3}, s43[2] = {4, 3};
            ct_tensor *in[2] = {NULL, NULL};
            int n = 1;
            switch (op) {
            case C_DOT: in[0] = leaf(1, s3, -2, 2, 0), in[1] = leaf(1, s3, -2, 2, 0), n = 2; break;
            case C_MV:
                in[0] = leaf(2, s34, -2, 2, mode), in[1] = leaf(1, s4, -2, 2, 0), n = 2;
                break;
            case C_OUTER:
                in[0] = leaf(1, s3, -2, 2, 0), in[1] = leaf(1, s4, -2, 2, 0), n = 2;
                break;
            case C_TRACE: in[0] = leaf(2, s43, -2, 2, mode); break;
            case C_DIAGONAL: in[0] = leaf(3, s234, -2, 2, mode); break;
            case C_DIAG_VEC: in[0] = leaf(1, s3, -2, 2, 0); break;
            case C_DIAG_MAT: in[0] = leaf(2, s34, -2, 2, mode); break;
            case C_TILE: in[0] = leaf(2, s23, -2, 2, mode); break;
            case C_DIFF:
                in[0] = leaf(2, s34, -2, 2, mode), in[1] = leaf(2, s33, -2, 2, 0), n = 2;
                break;
            case C_NANSUM:
            case C_NANMEAN:
            case C_VAR_MEAN:
            case C_STD_MEAN:
            case C_LCSE:
            case C_ROT90:
            case C_REPEAT_INTERLEAVE: in[0] = leaf(2, s34, -2, 2, mode); break;
            case C_KRON:
                in[0] = leaf(2, s23, -2, 2, mode), in[1] = leaf(1, s3, -2, 2, 0), n = 2;
                break;
            case C_CUMMAX:
            case C_MEDIAN_DIM: /* distinct values (no ties for the finite differences) */
                in[0] = leaf(2, s34, -2, 2, mode);
                for (int64_t j = 0; j < 12; j++)
                    *elem(in[0], j) = 0.37 * (double)((j * 5) % 12) - 2;
                break;
            case C_CROSS:
                in[0] = leaf(2, s43, -2, 2, mode);
                in[1] = leaf(2, (const int64_t[]){1, 3}, -2, 2, 0), n = 2;
                break;
            case C_EINSUM:
                in[0] = leaf(3, (const int64_t[]){3, 3, 4}, -2, 2, mode);
                in[1] = leaf(2, s43, -2, 2, 0), n = 2;
                break;
            case C_MESHGRID:
                in[0] = leaf(1, s3, -2, 2, 0), in[1] = leaf(1, s4, -2, 2, 0), n = 2;
                break;
            }
            char nm[64];
            snprintf(nm, sizeof nm, "composite %d mode %d", op, mode);
            gradcheck(nm, n, in, compf, &op);
            release_all(2, in);
        }
    /* nanmean of an all-NaN row: the gradient at its NaNs is g / 0 * 0 = NaN (torch's nansum
     * backward multiplies by the mask); a NaN in a row with values gets 0 */
    const int64_t s22[2] = {2, 2};
    ct_tensor *x = from_vals(CT_FLOAT64, 2, s22, (double[]){NAN, NAN, NAN, 2}), *y = NULL,
              *l = NULL;
    CHECK_OK(ct_tensor_set_requires_grad(x, true));
    CHECK_OK(ct_nanmean(ctx, x, 1, (const int[]){1}, false, &y));
    CHECK_OK(ct_sum(ctx, y, 0, NULL, false, &l));
    CHECK_OK(ct_backward(ctx, l, NULL, false));
    double *g = grad_vals(x);
    CHECK(isnan(g[0]) && isnan(g[1]) && g[2] == 0 && g[3] == 1);
    free(g), ct_tensor_release(y), ct_tensor_release(l), ct_tensor_release(x);
}

/* The gradients of hypot ... nan_to_num at special points: torch 1.13's values (run by hand,
 * f64); heaviside has no derivative (backward fails, as torch). */
typedef ct_status (*bin_fn)(ct_ctx *, const ct_tensor *, const ct_tensor *, ct_tensor **);
static void grad2_table(const char *name, bin_fn f, int n, const double *a, const double *b,
                        const double *ga_want, const double *gb_want) {
    const int64_t sh[1] = {n};
    ct_tensor *ta = from_vals(CT_FLOAT64, 1, sh, a), *tb = from_vals(CT_FLOAT64, 1, sh, b);
    CHECK_OK(ct_tensor_set_requires_grad(ta, true));
    CHECK_OK(ct_tensor_set_requires_grad(tb, true));
    ct_tensor *y = NULL, *l = NULL;
    CHECK_OK(f(ctx, ta, tb, &y));
    CHECK_OK(ct_sum(ctx, y, 0, NULL, false, &l));
    CHECK_OK(ct_backward(ctx, l, NULL, false));
    double *ga = grad_vals(ta), *gb = grad_vals(tb);
    for (int i = 0; i < n; i++) {
        CHECK_MSG(tu_same_val(ga[i], ga_want[i]) || fabs(ga[i] - ga_want[i]) < 1e-15,
                  "%s: d/da at (%g, %g) = %.17g, torch %.17g", name, a[i], b[i], ga[i], ga_want[i]);
        CHECK_MSG(tu_same_val(gb[i], gb_want[i]) || fabs(gb[i] - gb_want[i]) < 1e-15,
                  "%s: d/db at (%g, %g) = %.17g, torch %.17g", name, a[i], b[i], gb[i], gb_want[i]);
    }
    free(ga), free(gb);
    ct_tensor_release(y), ct_tensor_release(l), ct_tensor_release(ta), ct_tensor_release(tb);
}
static ct_status logit_none(ct_ctx *c, const ct_tensor *a, ct_tensor **o) {
    return ct_logit(c, a, -1, o);
}
static ct_status logit_02(ct_ctx *c, const ct_tensor *a, ct_tensor **o) {
    return ct_logit(c, a, 0.2, o);
}
static ct_status nan_to_num_default(ct_ctx *c, const ct_tensor *a, ct_tensor **o) {
    return ct_nan_to_num(c, a, NULL, NULL, NULL, o);
}
TEST(more_math_gradients_at_special_points) {
    const double L2 = 0.69314718055994531;
    {
        const double x[] = {0, 0, 2, -2, 0, -0.5}, e[] = {0, 2, 0, 3, -1, 0.5};
        const double gx[] = {0, 0, 0, 12, -INFINITY, NAN}, ge[] = {0, 0, L2, NAN, -INFINITY, NAN};
        grad2_table("pow_tensor", ct_pow_tensor, 6, x, e, gx, ge);
    }
    {
        const double y[] = {1, 0, 0, 2, NAN}, z[] = {2, 0, -1, 2, 0};
        const double gy[] = {L2, 0, 0, L2, -INFINITY}, gz[] = {0.5, NAN, -0.0, 1, NAN};
        grad2_table("xlogy", ct_xlogy, 5, y, z, gy, gz);
    }
    {
        const double x[] = {1, NAN, 2, 0, NAN}, o[] = {1, 1, NAN, 0, NAN};
        const double gx[] = {1, 0, 1, 1, 1}, go[] = {0, 1, 0, 0, 0};
        grad2_table("fmax", ct_fmax, 5, x, o, gx, go);
        grad2_table("fmin", ct_fmin, 5, x, o, gx, go);
    }
    {
        const double a[] = {0, -0.0, 3, 0, INFINITY}, b[] = {0, -0.0, 4, 0, 1};
        const double ga[] = {NAN, NAN, 0.6, NAN, NAN}, gb[] = {NAN, NAN, 0.8, NAN, 0};
        grad2_table("hypot", ct_hypot, 5, a, b, ga, gb);
    }
    {
        const double a[] = {INFINITY, -INFINITY, 1}, b[] = {INFINITY, -INFINITY, INFINITY};
        const double ga[] = {NAN, NAN, 0}, gb[] = {NAN, NAN, 1};
        grad2_table("logaddexp", ct_logaddexp, 3, a, b, ga, gb);
    }
    {
        const double a[] = {0, -0.0, 3, NAN}, b[] = {-1, 1, -1, -1};
        const double ga[] = {0, 0, -1, NAN}, gb[] = {0, 0, 0, 0};
        grad2_table("copysign", ct_copysign, 4, a, b, ga, gb);
    }
    /* unary: logit without eps and with eps 0.2, sinc, nan_to_num */
    const double xs[] = {0, 1, 0.5, -1.5, NAN, INFINITY, 0.1};
    const struct {
        const char *name;
        ct_status (*f)(ct_ctx *, const ct_tensor *, ct_tensor **);
        double want[7];
    } un[] = {
        {"logit", logit_none, {INFINITY, INFINITY, 4, NAN, NAN, NAN, 1 / 0.09}},
        {"logit eps 0.2", logit_02, {0, 0, 4, 0, 0, 0, 0}},
        {"nan_to_num", nan_to_num_default, {1, 1, 1, 1, 0, 0, 1}},
    };
    const int64_t s7[1] = {7};
    for (int k = 0; k < 3; k++) {
        ct_tensor *x = from_vals(CT_FLOAT64, 1, s7, xs), *y = NULL, *l = NULL;
        CHECK_OK(ct_tensor_set_requires_grad(x, true));
        CHECK_OK(un[k].f(ctx, x, &y));
        CHECK_OK(ct_sum(ctx, y, 0, NULL, false, &l));
        CHECK_OK(ct_backward(ctx, l, NULL, false));
        double *g = grad_vals(x);
        for (int i = 0; i < 7; i++)
            CHECK_MSG(tu_same_val(g[i], un[k].want[i]) || fabs(g[i] - un[k].want[i]) < 1e-12,
                      "%s' at %g = %.17g, want %.17g", un[k].name, xs[i], g[i], un[k].want[i]);
        free(g);
        ct_tensor_release(y), ct_tensor_release(l), ct_tensor_release(x);
    }
    /* sinc' = (cos(pi x) - sinc(x)) / x, 0 at 0 (another form than the one backward uses) */
    const double sx[] = {0, 1, 2.5, -1.5, 1e-3, 0.3};
    const int64_t s6[1] = {6};
    ct_tensor *x = from_vals(CT_FLOAT64, 1, s6, sx), *y = NULL, *l = NULL;
    CHECK_OK(ct_tensor_set_requires_grad(x, true));
    CHECK_OK(ct_sinc(ctx, x, &y));
    CHECK_OK(ct_sum(ctx, y, 0, NULL, false, &l));
    CHECK_OK(ct_backward(ctx, l, NULL, false));
    double *g = grad_vals(x);
    for (int i = 0; i < 6; i++) {
        const double pi = 3.14159265358979323846, v = sx[i];
        double w = v == 0 ? 0 : (cos(pi * v) - sin(pi * v) / (pi * v)) / v;
        CHECK_MSG(fabs(g[i] - w) < 1e-9, "sinc' at %g = %.17g, want %.17g", v, g[i], w);
    }
    free(g);
    ct_tensor_release(y), ct_tensor_release(l);
    /* heaviside: a node that refuses backward (torch: "derivative ... not implemented") */
    ct_tensor *v = NULL;
    CHECK_OK(ct_tensor_full(ctx, CT_FLOAT64, 1, s6, 0.5, &v));
    CHECK_OK(ct_heaviside(ctx, x, v, &y));
    CHECK(ct_tensor_requires_grad(y));
    CHECK_OK(ct_sum(ctx, y, 0, NULL, false, &l));
    CHECK_ST(ct_backward(ctx, l, NULL, false), CT_ERR_UNSUPPORTED);
    CHECK(strstr(ct_ctx_last_error(ctx), "heaviside") != NULL);
    ct_tensor_release(y), ct_tensor_release(l), ct_tensor_release(v), ct_tensor_release(x);
}

TEST(gradcheck_everyday_elementwise) {
    const int64_t s23[2] = {2, 3}, s3[1] = {3};
    for (int op = 0; op < M_COUNT; op++) {
        const bool binary = (op >= M_MAXIMUM && op <= M_FMOD) || (op >= M_ATAN2 && op <= M_POW_T),
                   ternary = op == M_LERP, two = binary || op == M_LERP_S;
        for (int mode = 0; mode < 3; mode++) {
            /* keep away from kinks (0, the hardtanh bounds, softplus' threshold, the integer
             * steps of floor/round and the jumps of remainder / fmod) */
            const double kinks[] = {0, -0.5, 0.5, 1.5, -1.5, 1, -1};
            double lo = op == M_LOG2 || op == M_LOG1P || op == M_LOG10 || op == M_RECIP ? 0.2 : -2,
                   hi = 2;
            if (op == M_ASIN || op == M_ACOS || op == M_ATANH) lo = -0.9, hi = 0.9; /* domains */
            if (op == M_ACOSH) lo = 1.2, hi = 3;
            if (op == M_TAN) lo = -1.2, hi = 1.2;
            if (op == M_LOGIT || op == M_LOGIT_EPS) lo = 0.05, hi = 0.95; /* eps 0.3 clamps */
            if (op == M_POW_T) lo = 0.2, hi = 2;
            /* logit's eps bounds are kinks too */
            const double lkinks[] = {0.3, 0.7, 0.5};
            ct_tensor *in[3] = {op == M_LOGIT_EPS ? leaf_away(2, s23, lo, hi, mode, lkinks, 3)
                                                  : leaf_away(2, s23, lo, hi, mode, kinks, 7),
                                NULL, NULL};
            if (two) in[1] = leaf(1, s3, 0.5, 1.5, 0); /* broadcast; divisors away from 0 */
            if (op == M_MAXIMUM || op == M_MINIMUM) {
                /* no ties except one on purpose: the gradient then splits in halves */
                *elem(in[1], 0) = *elem(in[0], 0) + 0.3;
            }
            if (op == M_REMAINDER || op == M_FMOD)
                for (int64_t j = 0; j < 6; j++) { /* quotients away from integers */
                    double *x = elem(in[0], j), b = *elem(in[1], j % 3);
                    double q = *x / b;
                    if (fabs(q - nearbyint(q)) < 0.1) *x += 0.3 * b;
                }
            if (op == M_REM_S || op == M_FMOD_S)
                for (int64_t j = 0; j < 6; j++) {
                    double *x = elem(in[0], j), q = *x / 0.7;
                    if (fabs(q - nearbyint(q)) < 0.1) *x += 0.2;
                }
            if (ternary) {
                in[1] = leaf(1, s3, -1, 1, 0);
                in[2] = leaf(2, s23, -0.2, 1.2, mode);
            }
            char nm[64];
            snprintf(nm, sizeof nm, "everyday op %d mode %d", op, mode);
            gradcheck(nm, ternary ? 3 : two ? 2 : 1, in, mathf, &op);
            release_all(3, in);
        }
    }
    /* maximum / minimum with equal inputs: the gradient splits in halves (as torch) */
    const int64_t s2[1] = {2};
    ct_tensor *a = leaf(1, s2, 1, 1, 0), *b = leaf(1, s2, 1, 1, 0), *y = NULL, *l = NULL;
    *elem(b, 1) = 3;
    CHECK_OK(ct_maximum(ctx, a, b, &y));
    CHECK_OK(ct_sum(ctx, y, 0, NULL, false, &l));
    CHECK_OK(ct_backward(ctx, l, NULL, false));
    double *ga = grad_vals(a), *gb = grad_vals(b);
    CHECK(ga[0] == 0.5 && gb[0] == 0.5 && ga[1] == 0 && gb[1] == 1);
    free(ga), free(gb);
    ct_tensor_release(y), ct_tensor_release(l), ct_tensor_release(a), ct_tensor_release(b);
    /* hardtanh at its bounds: zero gradient (torch excludes the bounds); clamp passes them */
    double hv[3] = {-0.5, 0.5, 0.1};
    const int64_t s3b[1] = {3};
    ct_tensor *h = from_vals(CT_FLOAT64, 1, s3b, hv);
    CHECK_OK(ct_tensor_set_requires_grad(h, true));
    CHECK_OK(ct_hardtanh(ctx, h, -0.5, 0.5, &y));
    CHECK_OK(ct_sum(ctx, y, 0, NULL, false, &l));
    CHECK_OK(ct_backward(ctx, l, NULL, false));
    double *gh = grad_vals(h);
    CHECK(gh[0] == 0 && gh[1] == 0 && gh[2] == 1);
    free(gh);
    ct_tensor_release(y), ct_tensor_release(l), ct_tensor_release(h);
    /* double backward through a few of them */
    for (int op = M_ERF; op <= M_ELU; op++) {
        if (op == M_LEAKY) continue; /* piecewise linear: a zero second derivative */
        ct_tensor *in[1] = {leaf_away(2, s23, 0.3, 1.5, 0, (double[]){0}, 1)};
        char nm[64];
        snprintf(nm, sizeof nm, "everyday op %d", op);
        gradgradcheck(nm, 1, in, 0, mathf, &op);
        release_all(1, in);
    }
}

/* Gradient classes found against torch 1.13 by scripts/torchdiff/torchdiff_grad_more.py; the
 * expected values are torch's (and each follows from the op's definition by hand). */
static ct_tensor *gleaf(int nd, const int64_t *shape, const double *v) {
    ct_tensor *t = from_vals(CT_FLOAT64, nd, shape, v);
    CHECK_OK(ct_tensor_set_requires_grad(t, true));
    return t;
}
/* backward of sum(y * u) */
static void back_weighted(ct_tensor *y, const double *u) {
    ct_tensor *ut = from_vals(CT_FLOAT64, ct_tensor_ndim(y), ct_tensor_shape(y), u), *p = NULL,
              *l = NULL;
    CHECK_OK(ct_mul(ctx, y, ut, &p));
    CHECK_OK(ct_sum(ctx, p, 0, NULL, false, &l));
    CHECK_OK(ct_backward(ctx, l, NULL, false));
    ct_tensor_release(ut), ct_tensor_release(p), ct_tensor_release(l);
}
static bool same_vals(const double *got, const double *want, int n) {
    for (int i = 0; i < n; i++)
        if (!(got[i] == want[i] || (isnan(got[i]) && isnan(want[i])))) return false;
    return true;
}
TEST(nn_gradient_classes_as_torch) {
    const double u4[4] = {0.5, 0.75, 1.0, 1.25};
    /* cat whose first input is a skipped empty 1-d tensor, along dim 1: the dim was wrapped
     * against nothing (recorded as 0) and backward failed */
    {
        ct_tensor *a = gleaf(1, (int64_t[]){0}, NULL), *b = gleaf(2, (int64_t[]){1, 2}, u4),
                  *c = gleaf(2, (int64_t[]){1, 2}, u4), *y = NULL;
        const ct_tensor *ts[3] = {a, b, c};
        CHECK_OK(ct_cat(ctx, 3, ts, 1, &y));
        back_weighted(y, u4);
        double *gb = grad_vals(b), *gc = grad_vals(c);
        CHECK_MSG(same_vals(gb, (double[]){0.5, 0.75}, 2) && same_vals(gc, (double[]){1, 1.25}, 2),
                  "cat grads %g %g / %g %g", gb[0], gb[1], gc[0], gc[1]);
        free(gb), free(gc);
        ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(c), ct_tensor_release(y);
    }
    /* scatter / scatter_add with an empty index and a src of size 1 there: src gets zeros (the
     * gathered empty gradient summed to its shape, torch's rule); was CT_ERR_UNSUPPORTED */
    for (int add = 0; add < 2; add++) {
        ct_tensor *s = gleaf(2, (int64_t[]){2, 2}, (double[]){1, 1, 1, 1}),
                  *src = gleaf(2, (int64_t[]){2, 1}, (double[]){1, 1}), *ix = NULL, *y = NULL;
        CHECK_OK(ct_tensor_zeros(ctx, CT_INT64, 2, (int64_t[]){2, 0}, &ix));
        CHECK_OK(add ? ct_scatter_add(ctx, s, 1, ix, src, &y) : ct_scatter(ctx, s, 1, ix, src, &y));
        if (y) back_weighted(y, u4);
        double *gs = grad_vals(s), *gsrc = grad_vals(src);
        CHECK_MSG(same_vals(gs, u4, 4) && same_vals(gsrc, (double[]){0, 0}, 2), "scatter%s grads",
                  add ? "_add" : "");
        free(gs), free(gsrc);
        ct_tensor_release(s), ct_tensor_release(src), ct_tensor_release(ix), ct_tensor_release(y);
    }
    /* abs: g * sgn(x), so a non-finite g at x = 0 gives NaN (inf * 0) as torch; a select gave 0 */
    {
        ct_tensor *x = gleaf(1, (int64_t[]){5}, (double[]){NAN, 1, 0, -2, 0}), *y = NULL, *l = NULL;
        ct_tensor *g =
            from_vals(CT_FLOAT64, 1, (int64_t[]){5}, (double[]){1, INFINITY, NAN, 2, INFINITY});
        CHECK_OK(ct_abs(ctx, x, &y));
        CHECK_OK(ct_backward(ctx, y, g, false));
        double *gx = grad_vals(x);
        CHECK_MSG(same_vals(gx, (double[]){0, INFINITY, NAN, -2, NAN}, 5),
                  "abs grad %g %g %g %g %g", gx[0], gx[1], gx[2], gx[3], gx[4]);
        free(gx);
        ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(l), ct_tensor_release(g);
    }
    /* norm: p = 2 at a zero norm has gradient 0 as torch (was NaN), next to a nonzero slice
     * (x / |x|); p = 0 can be backpropagated (gradient zeros; torch: none; was CT_ERR_STATE) */
    {
        ct_tensor *x = gleaf(2, (int64_t[]){2, 2}, (double[]){0, 0, 3, 4}), *y = NULL;
        int d1 = 1;
        CHECK_OK(ct_norm(ctx, x, 2.0, 1, &d1, false, &y));
        double *yv = tu_read(y);
        CHECK(same_vals(yv, (double[]){0, 5}, 2));
        back_weighted(y, (double[]){1, 1});
        double *gx = grad_vals(x);
        CHECK_MSG(gx[0] == 0 && gx[1] == 0 && fabs(gx[2] - 0.6) < 1e-15 &&
                      fabs(gx[3] - 0.8) < 1e-15,
                  "norm p=2 grad %g %g %g %g", gx[0], gx[1], gx[2], gx[3]);
        free(yv), free(gx);
        ct_tensor_release(x), ct_tensor_release(y);
        /* p = 0.5: 0 where x = 0 (torch masks it; pow's 0.5 / sqrt(0) gave NaN): the slice
         * [0, 4] has norm 4 and gradient [0, 1]; the zero slice [0, 0] has gradient 0 */
        x = gleaf(2, (int64_t[]){2, 2}, (double[]){0, 0, 0, 4});
        CHECK_OK(ct_norm(ctx, x, 0.5, 1, &d1, false, &y));
        back_weighted(y, (double[]){1, 1});
        gx = grad_vals(x);
        CHECK_MSG(same_vals(gx, (double[]){0, 0, 0, 1}, 4), "norm p=0.5 grad %g %g %g %g", gx[0],
                  gx[1], gx[2], gx[3]);
        free(gx);
        ct_tensor_release(x), ct_tensor_release(y);
        x = gleaf(2, (int64_t[]){2, 2}, (double[]){0, 0, 3, 4});
        CHECK_OK(ct_norm(ctx, x, 0.0, 1, &d1, false, &y));
        yv = tu_read(y);
        CHECK(same_vals(yv, (double[]){0, 2}, 2) && ct_tensor_requires_grad(y));
        back_weighted(y, (double[]){1, 1});
        gx = grad_vals(x);
        CHECK_MSG(same_vals(gx, (double[]){0, 0, 0, 0}, 4), "norm p=0 grad");
        free(yv), free(gx);
        ct_tensor_release(x), ct_tensor_release(y);
        /* p = +-inf: torch's sgn(x) (g / count) mask with mask = (|x| == norm) | isnan(x), so a
         * slice holding NaN has gradient 0 (the amax / amin composite gave NaN there); ties
         * share g; values from torch 1.13 */
        for (int neg = 0; neg < 2; neg++) {
            x = gleaf(2, (int64_t[]){3, 3},
                      (double[]){1, NAN, -3, INFINITY, -2, -INFINITY, 2, -2, 1});
            CHECK_OK(ct_norm(ctx, x, neg ? -INFINITY : INFINITY, 1, &d1, false, &y));
            yv = tu_read(y);
            CHECK(same_vals(yv, neg ? (double[]){NAN, 2, 1} : (double[]){NAN, INFINITY, 2}, 3));
            back_weighted(y, (double[]){0.5, 0.75, 1});
            gx = grad_vals(x);
            const double want[2][9] = {{0, 0, 0, 0.375, 0, -0.375, 0.5, -0.5, 0},
                                       {0, 0, 0, 0, -0.75, 0, 0, 0, 1}};
            CHECK_MSG(same_vals(gx, want[neg], 9), "norm p=%sinf grad %g %g %g / %g %g %g",
                      neg ? "-" : "", gx[0], gx[1], gx[2], gx[3], gx[4], gx[5]);
            free(yv), free(gx);
            ct_tensor_release(x), ct_tensor_release(y);
        }
        /* its backward is differentiable (create_graph): the gradient depends on x through
         * sgn(x) (derivative 0), so a second derivative is zeros, as torch's; the node prints
         * as torch's */
        x = gleaf(2, (int64_t[]){2, 3}, (double[]){1, -3, 2, 2, -2, 1});
        CHECK_OK(ct_norm(ctx, x, INFINITY, 1, &d1, false, &y));
        char *str = NULL;
        CHECK_OK(ct_tensor_to_string(y, &str));
        CHECK_MSG(str && strstr(str, "grad_fn=<LinalgVectorNormBackward0>"), "%s", str);
        free(str);
        ct_tensor *s = NULL, *g1 = NULL, *w = NULL, *gw = NULL, *s2 = NULL, *g2 = NULL;
        CHECK_OK(ct_sum(ctx, y, 0, NULL, false, &s));
        const ct_tensor *o1[1] = {s}, *in1[1] = {x};
        CHECK_OK(ct_autograd_grad(ctx, 1, o1, NULL, 1, in1, true, true, &g1));
        gx = tu_read(g1);
        CHECK(same_vals(gx, (double[]){0, -1, 0, 0.5, -0.5, 0}, 6) && ct_tensor_requires_grad(g1));
        free(gx);
        w = gleaf(2, (int64_t[]){2, 3}, (double[]){1, 2, 3, 4, 5, 6});
        CHECK_OK(ct_mul(ctx, g1, w, &gw));
        CHECK_OK(ct_sum(ctx, gw, 0, NULL, false, &s2));
        const ct_tensor *o2[1] = {s2};
        CHECK_OK(ct_autograd_grad(ctx, 1, o2, NULL, 1, in1, false, false, &g2));
        gx = tu_read(g2);
        CHECK(same_vals(gx, (double[]){0, 0, 0, 0, 0, 0}, 6));
        free(gx);
        ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(s), ct_tensor_release(g1);
        ct_tensor_release(w), ct_tensor_release(gw), ct_tensor_release(s2), ct_tensor_release(g2);
    }
    /* addmm with beta = 0: input ignored (its NaN too) but given a gradient of zeros (was none) */
    {
        ct_tensor *in = gleaf(2, (int64_t[]){2, 2}, (double[]){NAN, 1, 2, 3}),
                  *a = gleaf(2, (int64_t[]){2, 3}, (double[]){1, 1, 1, 1, 1, 1}),
                  *b = gleaf(2, (int64_t[]){3, 2}, (double[]){1, 1, 1, 1, 1, 1}), *y = NULL;
        CHECK_OK(ct_addmm(ctx, in, a, b, 0.0, 2.0, &y));
        double *yv = tu_read(y);
        CHECK(same_vals(yv, (double[]){6, 6, 6, 6}, 4));
        back_weighted(y, u4);
        double *gi = grad_vals(in), *ga = grad_vals(a), *gb = grad_vals(b);
        CHECK_MSG(same_vals(gi, (double[]){0, 0, 0, 0}, 4) &&
                      same_vals(ga, (double[]){2.5, 2.5, 2.5, 4.5, 4.5, 4.5}, 6) &&
                      same_vals(gb, (double[]){3, 4, 3, 4, 3, 4}, 6),
                  "addmm beta 0 grads");
        free(yv), free(gi), free(ga), free(gb);
        ct_tensor_release(in), ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(y);
    }
    /* max_pool2d: a window whose maximum is -inf and whose first tap is padding: the value is
     * -inf and torch's index (and gradient) stays at the window's first tap inside the input */
    {
        ct_tensor *x = gleaf(4, (int64_t[]){1, 1, 2, 2}, (double[]){-2, -INFINITY, 0.5, 0.25}),
                  *y = NULL, *ix = NULL;
        CHECK_OK(ct_max_pool2d_ex(ctx, x, (int64_t[]){2, 1}, (int64_t[]){3, 1}, (int64_t[]){1, 0},
                                  (int64_t[]){1, 1}, false, &y, &ix));
        back_weighted(y, u4);
        double *gx = grad_vals(x), *iv = tu_read(ix);
        CHECK_MSG(same_vals(gx, (double[]){0.5, 0.75, 0, 0}, 4) && iv[0] == 0 && iv[1] == 1,
                  "max_pool grad %g %g %g %g, indices %g %g", gx[0], gx[1], gx[2], gx[3], iv[0],
                  iv[1]);
        free(gx), free(iv);
        ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(ix);
    }
}

#include "data/gradfn_torch_ref.h"
#include "gradfn_cases.h"

/* The suffix each case's result prints (grad_fn=<...>: torch's node name and overload number,
 * composites named as torch's one node) is the one torch 1.13 printed. */
TEST(grad_fn_names_as_torch) {
    const int n = (int)(sizeof gradfn_torch_ref / sizeof gradfn_torch_ref[0]);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        ct_status st = CT_OK;
        char got[256] = "";
        ct_tensor *r = gf_run(ctx, gradfn_torch_ref[i].name, &st);
        if (r) st = gf_suffix(r, got, sizeof got);
        const bool ok = r && st == CT_OK && strcmp(got, gradfn_torch_ref[i].suffix) == 0;
        CHECK_MSG(ok, "%s: torch %s, ctorch %s (%s)", gradfn_torch_ref[i].name,
                  gradfn_torch_ref[i].suffix, got, ct_status_str(st));
        bad += !ok;
        ct_tensor_release(r);
        gf_release_pool();
    }
    CHECK_MSG(n > 250 && bad == 0, "%d cases, %d differ", n, bad);
}

/* y (non-leaf) = x * 1, for the in-place cases */
static ct_tensor *times1(const ct_tensor *x) {
    ct_tensor *y = NULL;
    CHECK_OK(ct_mul_scalar(ctx, x, 1, &y));
    return y;
}
static void check_grad(const ct_tensor *x, const double *want, int n, const char *what) {
    double *g = grad_vals(x);
    CHECK_MSG(same_vals(g, want, n), "%s: grad %g %g %g", what, g[0], n > 1 ? g[1] : 0,
              n > 2 ? g[2] : 0);
    free(g);
}
static void check_suffix(const ct_tensor *t, const char *want) {
    char got[128] = "";
    CHECK_OK(gf_suffix(t, got, sizeof got));
    CHECK_MSG(strcmp(got, want) == 0, "grad_fn %s, want %s", got, want);
}

/* In-place ops on tensors with history, as torch 1.13 (the expected values are torch's; each
 * follows by hand from the op): the destination takes the op's node (AddBackward0 ...,
 * CopyBackwards), mul_ / div_ by a tensor differentiate at the old value, a destination without
 * history gets one from a source that requires grad, and torch's refusals (a leaf, a view of one;
 * a saved tensor written in place fails at backward). */
TEST(inplace_ops_as_torch) {
    const int64_t s3[1] = {3};
    const double xv[3] = {1, 2, 3}, wv[3] = {4, 5, 6}, ones[3] = {1, 1, 1};
    ct_tensor *x = gleaf(1, s3, xv), *w = gleaf(1, s3, wv), *l = NULL;
    /* y = x * 1; y.mul_(w): d/dx = w, d/dw = old y = x */
    ct_tensor *y = times1(x);
    CHECK_OK(ct_mul_(ctx, y, w));
    check_suffix(y, "grad_fn=<MulBackward0>");
    back_weighted(y, ones);
    check_grad(x, wv, 3, "mul_ x"), check_grad(w, xv, 3, "mul_ w");
    CHECK(ct_tensor_requires_grad(y));
    ct_tensor_release(y);
    ct_tensor_zero_grad(x), ct_tensor_zero_grad(w);
    /* y.div_(w): d/dx = 1/w, d/dw = -x/w^2 */
    y = times1(x);
    CHECK_OK(ct_div_(ctx, y, w));
    check_suffix(y, "grad_fn=<DivBackward0>");
    back_weighted(y, ones);
    check_grad(x, (double[]){1.0 / 4, 1.0 / 5, 1.0 / 6}, 3, "div_ x");
    check_grad(w, (double[]){-1.0 / 16, -2.0 / 25, -3.0 / 36}, 3, "div_ w");
    ct_tensor_release(y);
    ct_tensor_zero_grad(x), ct_tensor_zero_grad(w);
    /* the scalar forms and sub_ chain onto the same tensor: y = ((x*1 + 2) * 3 - w) / 2 */
    y = times1(x);
    CHECK_OK(ct_add_scalar_(ctx, y, 2));
    check_suffix(y, "grad_fn=<AddBackward0>");
    CHECK_OK(ct_mul_scalar_(ctx, y, 3));
    check_suffix(y, "grad_fn=<MulBackward0>");
    CHECK_OK(ct_sub_(ctx, y, w));
    check_suffix(y, "grad_fn=<SubBackward0>");
    CHECK_OK(ct_div_scalar_(ctx, y, 2));
    check_suffix(y, "grad_fn=<DivBackward0>");
    double *yv = tu_read(y);
    CHECK(same_vals(yv, (double[]){(9 - 4) / 2.0, (12 - 5) / 2.0, (15 - 6) / 2.0}, 3));
    free(yv);
    back_weighted(y, ones);
    check_grad(x, (double[]){1.5, 1.5, 1.5}, 3, "chain x");
    check_grad(w, (double[]){-0.5, -0.5, -0.5}, 3, "chain w");
    ct_tensor_release(y);
    ct_tensor_zero_grad(x), ct_tensor_zero_grad(w);
    /* create_graph through mul_: y = x * x, dy/dx = 2x, d2/dx2 = 2 */
    {
        y = times1(x);
        CHECK_OK(ct_mul_(ctx, y, x));
        ct_tensor *g = NULL, *gs = NULL, *g2 = NULL;
        CHECK_OK(ct_sum(ctx, y, 0, NULL, false, &l));
        CHECK_OK(ct_autograd_grad(ctx, 1, (const ct_tensor *[]){l}, NULL, 1,
                                  (const ct_tensor *[]){x}, true, true, &g));
        double *gv = tu_read(g);
        CHECK(same_vals(gv, (double[]){2, 4, 6}, 3));
        free(gv);
        CHECK_OK(ct_sum(ctx, g, 0, NULL, false, &gs));
        CHECK_OK(ct_autograd_grad(ctx, 1, (const ct_tensor *[]){gs}, NULL, 1,
                                  (const ct_tensor *[]){x}, false, false, &g2));
        gv = tu_read(g2);
        CHECK(same_vals(gv, (double[]){2, 2, 2}, 3));
        free(gv);
        ct_tensor_release(g), ct_tensor_release(gs), ct_tensor_release(g2);
        ct_tensor_release(l), ct_tensor_release(y);
    }
    /* a destination without history takes the source's: z = zeros(2, 3); z.copy_(x) (broadcast)
     * and z.add_(x) */
    {
        ct_tensor *z = NULL;
        CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 2, (int64_t[]){2, 3}, &z));
        CHECK_OK(ct_tensor_copy_(ctx, z, x));
        check_suffix(z, "grad_fn=<CopyBackwards>");
        CHECK_OK(ct_add_(ctx, z, x));
        check_suffix(z, "grad_fn=<AddBackward0>");
        back_weighted(z, (double[]){0, 1, 2, 3, 4, 5});
        check_grad(x, (double[]){6, 10, 14}, 3, "copy_ + add_ broadcast");
        ct_tensor_release(z);
        ct_tensor_zero_grad(x);
    }
    /* copy_ from a source without history: zero gradient to the old value (torch: zeros) */
    {
        ct_tensor *c = from_vals(CT_FLOAT64, 1, s3, ones);
        y = times1(x);
        CHECK_OK(ct_tensor_copy_(ctx, y, c));
        CHECK(ct_tensor_requires_grad(y));
        check_suffix(y, "grad_fn=<CopyBackwards>");
        back_weighted(y, ones);
        check_grad(x, (double[]){0, 0, 0}, 3, "copy_ from a constant");
        ct_tensor_release(c), ct_tensor_release(y);
        ct_tensor_zero_grad(x);
    }
    /* fill_ / zero_: FillBackward2 / ZeroBackward0, a zero gradient to the old value */
    for (int k = 0; k < 2; k++) {
        y = times1(x);
        CHECK_OK(k ? ct_tensor_zero_(ctx, y) : ct_tensor_fill_(ctx, y, 2));
        check_suffix(y, k ? "grad_fn=<ZeroBackward0>" : "grad_fn=<FillBackward2>");
        double *fv = tu_read(y);
        CHECK(same_vals(fv, k ? (double[]){0, 0, 0} : (double[]){2, 2, 2}, 3));
        free(fv);
        back_weighted(y, ones);
        check_grad(x, (double[]){0, 0, 0}, 3, "fill_ / zero_");
        ct_tensor_release(y);
        ct_tensor_zero_grad(x);
    }
    CHECK_ST(ct_tensor_fill_(ctx, x, 1), CT_ERR_STATE); /* a leaf that requires grad */
    /* dtypes: an f32 destination += an f64 source that requires grad (torch casts into self;
     * the source's gradient is f64) */
    {
        ct_tensor *z = from_vals(CT_FLOAT32, 1, s3, ones), *p = NULL;
        CHECK_OK(ct_add_(ctx, z, w));
        CHECK(ct_tensor_dtype(z) == CT_FLOAT32);
        check_suffix(z, "grad_fn=<AddBackward0>");
        CHECK_OK(ct_mul(ctx, z, z, &p)); /* d/dw sum(z^2) = 2 z = 2 (1 + w) */
        CHECK_OK(ct_sum(ctx, p, 0, NULL, false, &l));
        CHECK_OK(ct_backward(ctx, l, NULL, false));
        CHECK(ct_tensor_dtype(ct_tensor_grad(w)) == CT_FLOAT64);
        check_grad(w, (double[]){10, 12, 14}, 3, "f32 += f64");
        ct_tensor_release(z), ct_tensor_release(p), ct_tensor_release(l);
        ct_tensor_zero_grad(w);
    }
    /* review cases: an integer destination from a source that requires grad is a plain write
     * (torch: no history); copy_ over a tensor with history gives that history zeros (torch's
     * CopyBackwards), not nothing; a detached alias of a leaf may take history; an expanded
     * destination can be filled; y.add_(y * w) keeps no cycle (the live-tensor count at exit) */
    {
        ct_tensor *zi = NULL;
        CHECK_OK(ct_tensor_zeros(ctx, CT_INT64, 1, s3, &zi));
        CHECK_OK(ct_tensor_copy_(ctx, zi, x));
        CHECK(!ct_tensor_requires_grad(zi));
        double *zv = tu_read(zi);
        CHECK(same_vals(zv, xv, 3));
        free(zv), ct_tensor_release(zi);
        y = times1(x);
        CHECK_OK(ct_tensor_copy_(ctx, y, w));
        ct_tensor *gx = NULL, *sy = NULL;
        CHECK_OK(ct_sum(ctx, y, 0, NULL, false, &sy));
        CHECK_OK(ct_autograd_grad(ctx, 1, (const ct_tensor *[]){sy}, NULL, 1,
                                  (const ct_tensor *[]){x}, true, false, &gx));
        double *gv = tu_read(gx);
        CHECK(same_vals(gv, (double[]){0, 0, 0}, 3));
        free(gv), ct_tensor_release(gx);
        CHECK_OK(ct_backward(ctx, sy, NULL, false));
        check_grad(w, ones, 3, "copy_ source");
        ct_tensor_release(sy), ct_tensor_release(y);
        ct_tensor_zero_grad(w);
        ct_tensor *d = NULL;
        CHECK_OK(ct_tensor_detach(ctx, w, &d));
        CHECK_OK(ct_add_(ctx, d, x)); /* w's values change; w is a leaf: no history to go stale */
        check_suffix(d, "grad_fn=<AddBackward0>");
        CHECK_OK(ct_sub_(ctx, d, x)); /* back to w's values */
        ct_tensor_release(d);
        ct_tensor *e = NULL;
        y = times1(x);
        CHECK_OK(ct_tensor_slice(ctx, y, 0, 0, 1, 1, &d));
        CHECK_OK(ct_tensor_expand(ctx, d, 1, (int64_t[]){4}, &e));
        ct_tensor_release(y), ct_tensor_release(d);
        CHECK_OK(ct_tensor_fill_(ctx, e, 2)); /* the only tensor left on that memory */
        double *ev = tu_read(e);
        CHECK(same_vals(ev, (double[]){2, 2, 2, 2}, 4));
        free(ev), ct_tensor_release(e);
        ct_tensor *q = NULL;
        y = times1(x);
        CHECK_OK(ct_mul(ctx, y, w, &q)); /* saves y */
        CHECK_OK(ct_add_(ctx, y, q));    /* y's new history reaches the node that saved y */
        ct_tensor_release(q), ct_tensor_release(y);
    }
    /* torch's errors: y.mul_(y) saves y, which its own write changes (at backward); an output
     * saved by exp written in place (at backward); a leaf and a view of a leaf (at once) */
    {
        y = times1(x);
        CHECK_OK(ct_mul_(ctx, y, y));
        CHECK_OK(ct_sum(ctx, y, 0, NULL, false, &l));
        CHECK_ST(ct_backward(ctx, l, NULL, false), CT_ERR_STATE);
        CHECK(strstr(ct_ctx_last_error(ctx), "modified by an inplace operation") != NULL);
        ct_tensor_release(l), ct_tensor_release(y);
        CHECK_OK(ct_exp(ctx, x, &y));
        CHECK_OK(ct_add_scalar_(ctx, y, 1));
        CHECK_OK(ct_sum(ctx, y, 0, NULL, false, &l));
        CHECK_ST(ct_backward(ctx, l, NULL, false), CT_ERR_STATE);
        CHECK(strstr(ct_ctx_last_error(ctx), "modified by an inplace operation") != NULL);
        ct_tensor_release(l), ct_tensor_release(y);
        /* norm(p = inf)'s own backward saved its input and output: either written fails */
        for (int which = 0; which < 2; which++) {
            ct_tensor *n = NULL;
            y = times1(x);
            CHECK_OK(ct_norm(ctx, y, INFINITY, 0, NULL, false, &n));
            CHECK_OK(ct_add_scalar_(ctx, which ? y : n, 1));
            CHECK_ST(ct_backward(ctx, n, NULL, false), CT_ERR_STATE);
            CHECK(strstr(ct_ctx_last_error(ctx), "modified by an inplace operation") != NULL);
            ct_tensor_release(n), ct_tensor_release(y);
        }
        ct_tensor *v = NULL;
        CHECK_ST(ct_add_scalar_(ctx, x, 1), CT_ERR_STATE);
        CHECK(strstr(ct_ctx_last_error(ctx), "a leaf Variable that requires grad") != NULL);
        CHECK_OK(ct_tensor_slice(ctx, x, 0, 0, 2, 1, &v));
        CHECK_ST(ct_add_scalar_(ctx, v, 1), CT_ERR_STATE);
        CHECK(strstr(ct_ctx_last_error(ctx), "a view of a leaf Variable") != NULL);
        ct_tensor *w2 = NULL;
        CHECK_OK(ct_tensor_slice(ctx, w, 0, 1, 3, 1, &w2));
        CHECK_ST(ct_tensor_copy_(ctx, v, w2), CT_ERR_STATE);
        ct_tensor_release(v), ct_tensor_release(w2);
    }
    /* ctorch's own refusal: another live tensor with history overlaps the destination (torch
     * rewrites it as CopySlices); a disjoint one, or one without history, does not block */
    {
        ct_tensor *v = NULL, *u = NULL, *d = NULL;
        y = times1(x);
        CHECK_OK(ct_tensor_slice(ctx, y, 0, 0, 2, 1, &v));
        CHECK_ST(ct_add_scalar_(ctx, y, 1), CT_ERR_UNSUPPORTED);
        CHECK(strstr(ct_ctx_last_error(ctx), "CopySlices") != NULL);
        CHECK_ST(ct_mul_scalar_(ctx, v, 2), CT_ERR_UNSUPPORTED);
        CHECK_OK(ct_tensor_slice(ctx, y, 0, 2, 3, 1, &u));
        ct_tensor_release(y);
        CHECK_OK(ct_mul_scalar_(ctx, v, 2)); /* y released: u, disjoint, is unaffected */
        CHECK_OK(ct_tensor_detach(ctx, v, &d));
        CHECK_OK(ct_mul_scalar_(ctx, v, 2)); /* d has no history: it just sees the values */
        double *dv = tu_read(d);
        CHECK(same_vals(dv, (double[]){4, 8}, 2));
        free(dv);
        ct_tensor *sv = NULL, *su = NULL, *t = NULL;
        CHECK_OK(ct_sum(ctx, v, 0, NULL, false, &sv));
        CHECK_OK(ct_sum(ctx, u, 0, NULL, false, &su));
        CHECK_OK(ct_add(ctx, sv, su, &t)); /* one backward: y's node is shared */
        CHECK_OK(ct_backward(ctx, t, NULL, false));
        ct_tensor_release(sv), ct_tensor_release(su), ct_tensor_release(t);
        check_grad(x, (double[]){4, 4, 1}, 3, "slices of a released base");
        ct_tensor_release(v), ct_tensor_release(u), ct_tensor_release(d);
        ct_tensor_zero_grad(x);
        /* a destination without history shares its memory with another tensor: refused */
        ct_tensor *buf = NULL;
        CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 1, (int64_t[]){6}, &buf));
        CHECK_OK(ct_tensor_slice(ctx, buf, 0, 0, 3, 1, &v));
        CHECK_ST(ct_tensor_copy_(ctx, v, x), CT_ERR_UNSUPPORTED);
        CHECK_OK(ct_tensor_copy_(ctx, buf, buf)); /* no source with history: a plain copy */
        ct_tensor_release(v), ct_tensor_release(buf);
    }
    ct_tensor_release(x), ct_tensor_release(w);
}

#include "data/loss_torch_ref.h"

static bool near_tol(double got, double want, double tol) {
    if (isnan(want)) return isnan(got);
    if (isinf(want)) return got == want;
    return fabs(got - want) <= tol * (1 + fabs(want));
}
static bool near_ref(double got, double want) { return near_tol(got, want, 1e-12); }

/* cross_entropy / nll_loss with every option (1- to 5-d inputs, empty batches, ignored targets,
 * ignore_index -100 or a class, class probabilities, weights, reductions, label smoothing)
 * against torch 1.13's values (tests/data/loss_torch_ref.h, from scripts/torchdiff/loss_ref.py):
 * the loss, its shape, grad_fn and the input's gradient, within 1e-12 relative (f64; the sums'
 * order differs). */
TEST(losses_as_torch) {
    const int n = (int)(sizeof loss_ref_cases / sizeof loss_ref_cases[0]);
    int bad = 0;
    for (int c = 0; c < n; c++) {
        const loss_ref_case *k = &loss_ref_cases[c];
        ct_tensor *x = gleaf(k->nd, k->shape, loss_ref_vals + k->x), *t = NULL, *w = NULL,
                  *out = NULL;
        t = from_vals(k->prob ? CT_FLOAT64 : CT_INT64, k->tnd, k->tshape, loss_ref_vals + k->t);
        if (k->w >= 0)
            w = from_vals(CT_FLOAT64, 1, &k->shape[k->nd == 1 ? 0 : 1], loss_ref_vals + k->w);
        const ct_reduction red = (ct_reduction)k->red;
        ct_status st = k->fn[0] == 'c' ? ct_cross_entropy_ex(ctx, x, t, w, k->ign, red, k->ls, &out)
                                       : ct_nll_loss_ex(ctx, x, t, w, k->ign, red, &out);
        bool ok = st == CT_OK && tu_same_shape(out, k->ond, k->oshape);
        int64_t no = ok ? ct_tensor_numel(out) : 0;
        double *ov = ok ? tu_read(out) : NULL;
        for (int64_t i = 0; ok && i < no; i++)
            ok = near_ref(ov[i], loss_ref_vals[k->out + i]);
        char name[128] = "";
        if (ok) {
            gf_suffix(out, name, sizeof name);
            char want[128];
            snprintf(want, sizeof want, "grad_fn=<%s>", k->name);
            ok = strcmp(name, want) == 0;
        }
        int64_t nx = ct_tensor_numel(x);
        if (ok && nx > 0) {
            double u[64];
            for (int64_t i = 0; i < no && i < 64; i++)
                u[i] = 0.5 + (double)(i % 5) / 4;
            back_weighted(out, u);
            double *g = grad_vals(x);
            for (int64_t i = 0; ok && i < nx; i++)
                ok = near_ref(g[i], loss_ref_vals[k->g + i]);
            free(g);
        }
        CHECK_MSG(ok, "case %d (%s nd %d %s red %d ls %g ign %lld w %d): %s, out[0] %g want %g, %s",
                  c, k->fn, k->nd, k->prob ? "prob" : "index", k->red, k->ls, (long long)k->ign,
                  k->w >= 0, ct_status_str(st), ov && no ? ov[0] : NAN,
                  no ? loss_ref_vals[k->out] : NAN, name);
        bad += !ok;
        free(ov);
        ct_tensor_release(x), ct_tensor_release(t), ct_tensor_release(w), ct_tensor_release(out);
    }
    CHECK_MSG(n > 300 && bad == 0, "%d cases, %d differ", n, bad);
    /* torch's errors: an id out of bounds (-1, C; -100 is ignored by default), a weight of the
     * wrong size or dtype, ignore_index with probabilities, batch and target-size mismatches */
    const double lv[6] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6};
    ct_tensor *lg = from_vals(CT_FLOAT64, 2, (int64_t[]){2, 3}, lv), *out = NULL;
    const struct {
        double t0, t1;
        int wn;
        ct_dtype wdt;
        int64_t ign;
        ct_status st;
    } ec[] = {{0, -1, 0, CT_FLOAT64, -100, CT_ERR_INDEX}, {0, 3, 0, CT_FLOAT64, -100, CT_ERR_INDEX},
              {0, -100, 0, CT_FLOAT64, -100, CT_OK},      {0, 1, 2, CT_FLOAT64, -100, CT_ERR_SHAPE},
              {0, 1, 3, CT_FLOAT32, -100, CT_ERR_DTYPE},  {2, 2, 3, CT_FLOAT64, 2, CT_OK}};
    for (size_t i = 0; i < sizeof ec / sizeof ec[0]; i++) {
        ct_tensor *t = from_vals(CT_INT32, 1, (int64_t[]){2}, (double[]){ec[i].t0, ec[i].t1});
        ct_tensor *w = ec[i].wn ? from_vals(ec[i].wdt, 1, (int64_t[]){ec[i].wn}, lv) : NULL;
        CHECK_ST(ct_cross_entropy_ex(ctx, lg, t, w, ec[i].ign, CT_REDUCTION_MEAN, 0, &out),
                 ec[i].st);
        if (i == 5) CHECK(isnan(item(out))); /* every target ignored: 0 / 0 */
        ct_tensor_release(out), ct_tensor_release(t), ct_tensor_release(w);
        out = NULL;
    }
    { /* a class weight that requires grad: torch's "not differentiable" */
        ct_tensor *t = from_vals(CT_INT64, 1, (int64_t[]){2}, (double[]){0, 1});
        ct_tensor *wg = gleaf(1, (int64_t[]){3}, lv);
        CHECK_ST(ct_nll_loss_ex(ctx, lg, t, wg, -100, CT_REDUCTION_SUM, &out), CT_ERR_UNSUPPORTED);
        CHECK_ST(ct_cross_entropy_ex(ctx, lg, t, wg, -100, CT_REDUCTION_SUM, 0, &out),
                 CT_ERR_UNSUPPORTED);
        ct_tensor_release(t), ct_tensor_release(wg);
    }
    ct_tensor *pr = from_vals(CT_FLOAT64, 2, (int64_t[]){2, 3}, lv);
    CHECK_ST(ct_cross_entropy_ex(ctx, lg, pr, NULL, 0, CT_REDUCTION_MEAN, 0, &out),
             CT_ERR_INVALID_ARG);
    ct_tensor *t3 = from_vals(CT_INT64, 1, (int64_t[]){3}, (double[]){0, 1, 2});
    CHECK_ST(ct_nll_loss_ex(ctx, lg, t3, NULL, -100, CT_REDUCTION_SUM, &out), CT_ERR_SHAPE);
    ct_tensor *tf = from_vals(CT_FLOAT64, 1, (int64_t[]){2}, lv);
    CHECK_ST(ct_cross_entropy(ctx, lg, tf, CT_REDUCTION_SUM, 0, &out), CT_ERR_DTYPE);
    ct_tensor_release(pr), ct_tensor_release(t3), ct_tensor_release(tf), ct_tensor_release(lg);
}

/* l1 / smooth_l1 / huber / mse / binary_cross_entropy (with logits) / kl_div (batchmean,
 * log_target, a zero target) / normalize (p 1, 2, 3, inf, a zero slice) / cosine_similarity
 * (broadcast operands) and the activations (hardsigmoid ... threshold, inputs on their kinks)
 * against torch 1.13 (the same header): the loss, its shape, grad_fn and the gradients of both the
 * input and the target, within 1e-12 relative (plus 1e-12 absolute). */
TEST(elementwise_losses_as_torch) {
    const int n = (int)(sizeof loss_ew_cases / sizeof loss_ew_cases[0]);
    int bad = 0;
    for (int c = 0; c < n; c++) {
        const loss_ew_case *k = &loss_ew_cases[c];
        ct_tensor *x = gleaf(k->nd, k->shape, loss_ref_vals + k->x);
        ct_tensor *t = k->t >= 0 ? gleaf(k->tnd, k->tshape, loss_ref_vals + k->t) : NULL;
        ct_tensor *w = NULL, *pw = NULL;
        const int64_t *last = &k->shape[k->nd - 1];
        if (k->w >= 0 && !strcmp(k->fn, "prelu")) /* one weight, or one per channel */
            pw = from_vals(CT_FLOAT64, 1, (int64_t[]){k->nd >= 2 && k->p == 0 ? k->shape[1] : 1},
                           loss_ref_vals + k->w);
        else if (k->w >= 0)
            w = from_vals(CT_FLOAT64, 1, last, loss_ref_vals + k->w);
        if (k->pw >= 0) pw = from_vals(CT_FLOAT64, 1, last, loss_ref_vals + k->pw);
        const ct_reduction red = (ct_reduction)k->red;
        ct_tensor *out = NULL;
        ct_status st = CT_ERR_UNSUPPORTED;
        if (!strcmp(k->fn, "l1")) st = ct_l1_loss(ctx, x, t, red, &out);
        if (!strcmp(k->fn, "smooth_l1")) st = ct_smooth_l1_loss(ctx, x, t, red, k->p, &out);
        if (!strcmp(k->fn, "huber")) st = ct_huber_loss(ctx, x, t, red, k->p, &out);
        if (!strcmp(k->fn, "mse")) st = ct_mse_loss(ctx, x, t, red, &out);
        if (!strcmp(k->fn, "bce")) st = ct_binary_cross_entropy(ctx, x, t, w, red, &out);
        if (!strcmp(k->fn, "bcel"))
            st = ct_binary_cross_entropy_with_logits(ctx, x, t, w, pw, red, &out);
        if (!strcmp(k->fn, "kl")) st = ct_kl_div(ctx, x, t, red, k->p != 0, &out);
        if (!strcmp(k->fn, "normalize")) st = ct_normalize(ctx, x, k->p, k->red, 1e-12, &out);
        if (!strcmp(k->fn, "cosine")) st = ct_cosine_similarity(ctx, x, t, k->red, k->p, &out);
        const char *f = k->fn;
        if (!strcmp(f, "hardsigmoid")) st = ct_hardsigmoid(ctx, x, &out);
        if (!strcmp(f, "hardswish")) st = ct_hardswish(ctx, x, &out);
        if (!strcmp(f, "logsigmoid")) st = ct_logsigmoid(ctx, x, &out);
        if (!strcmp(f, "softsign")) st = ct_softsign(ctx, x, &out);
        if (!strcmp(f, "selu")) st = ct_selu(ctx, x, &out);
        if (!strcmp(f, "relu6")) st = ct_relu6(ctx, x, &out);
        if (!strcmp(f, "tanhshrink")) st = ct_tanhshrink(ctx, x, &out);
        if (!strcmp(f, "celu")) st = ct_celu(ctx, x, k->p, &out);
        if (!strcmp(f, "softshrink")) st = ct_softshrink(ctx, x, k->p, &out);
        if (!strcmp(f, "hardshrink")) st = ct_hardshrink(ctx, x, k->p, &out);
        if (!strcmp(f, "threshold")) st = ct_threshold(ctx, x, k->p, 20, &out);
        if (!strcmp(f, "glu")) st = ct_glu(ctx, x, k->red, &out);
        if (!strcmp(f, "softmin")) st = ct_softmin(ctx, x, k->red, &out);
        if (!strcmp(f, "prelu")) st = ct_prelu(ctx, x, pw, &out);
        bool ok = st == CT_OK && tu_same_shape(out, k->ond, k->oshape);
        const int64_t no = ok ? ct_tensor_numel(out) : 0;
        double *ov = ok ? tu_read(out) : NULL;
        for (int64_t i = 0; ok && i < no; i++)
            ok = near_ref(ov[i], loss_ref_vals[k->out + i]);
        char name[128] = "", want[128];
        snprintf(want, sizeof want, "grad_fn=<%s>", k->name);
        if (ok) ok = gf_suffix(out, name, sizeof name) == CT_OK && strcmp(name, want) == 0;
        const char *which = "";
        if (ok) {
            double u[64];
            for (int64_t i = 0; i < no && i < 64; i++)
                u[i] = 0.5 + (double)(i % 5) / 4;
            back_weighted(out, u);
            double *gx = grad_vals(x), *gt = t ? grad_vals(t) : NULL;
            /* torch 1.13's hardsigmoid and celu backward use float constants (1/6, 1/alpha)
             * even in f64: ctorch's exact ones differ by up to ~1e-7 relative (docs/fidelity.md) */
            const double gtol =
                !strcmp(k->fn, "hardsigmoid") || !strcmp(k->fn, "celu") ? 2e-7 : 1e-12;
            for (int64_t i = 0; ok && i < ct_tensor_numel(x); i++) {
                ok = near_tol(gx[i], loss_ref_vals[k->gx + i], gtol), which = "input grad";
                if (!ok)
                    fprintf(stderr, "  input grad [%lld] at x = %.17g: %.17g, torch %.17g\n",
                            (long long)i, loss_ref_vals[k->x + i], gx[i], loss_ref_vals[k->gx + i]);
            }
            for (int64_t i = 0; ok && t && i < ct_tensor_numel(t); i++)
                ok = near_ref(gt[i], loss_ref_vals[k->gt + i]), which = "target grad";
            free(gx), free(gt);
        }
        CHECK_MSG(ok,
                  "case %d (%s p %g nd %d red %d w %d pw %d): %s %s, out[0] %.17g want %.17g, "
                  "%s (%s)",
                  c, k->fn, k->p, k->nd, k->red, k->w >= 0, k->pw >= 0, ct_status_str(st), which,
                  ov && no ? ov[0] : NAN, loss_ref_vals[k->out], name, want);
        bad += !ok;
        free(ov);
        ct_tensor_release(x), ct_tensor_release(t), ct_tensor_release(w), ct_tensor_release(pw);
        ct_tensor_release(out);
    }
    CHECK_MSG(n > 100 && bad == 0, "%d cases, %d differ", n, bad);
    /* torch's errors: beta < 0, delta <= 0, a probability outside [0, 1] (NaN too), target size
     * or dtype unlike the input's, a weight that requires grad */
    const double pv[3] = {0.2, 0.5, 0.9}, qv[3] = {0.2, 1.5, NAN};
    ct_tensor *pa = from_vals(CT_FLOAT64, 1, (int64_t[]){3}, pv), *out = NULL;
    ct_tensor *pq = from_vals(CT_FLOAT64, 1, (int64_t[]){3}, qv);
    ct_tensor *p2 = from_vals(CT_FLOAT64, 1, (int64_t[]){2}, pv);
    ct_tensor *pf = from_vals(CT_FLOAT32, 1, (int64_t[]){3}, pv),
              *wg = gleaf(1, (int64_t[]){3}, pv);
    CHECK_ST(ct_smooth_l1_loss(ctx, pa, pa, CT_REDUCTION_SUM, -1, &out), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_huber_loss(ctx, pa, pa, CT_REDUCTION_SUM, 0, &out), CT_ERR_INVALID_ARG);
    for (int i = 0; i < 2; i++) {
        ct_tensor *bad_in = NULL;
        CHECK_OK(ct_tensor_slice(ctx, pq, 0, i, i + 2, 1, &bad_in));
        ct_tensor *tt = NULL;
        CHECK_OK(ct_tensor_slice(ctx, pa, 0, 0, 2, 1, &tt));
        CHECK_ST(ct_binary_cross_entropy(ctx, bad_in, tt, NULL, CT_REDUCTION_SUM, &out),
                 CT_ERR_INVALID_ARG);
        CHECK(strstr(ct_ctx_last_error(ctx), "between 0 and 1") != NULL);
        ct_tensor_release(bad_in), ct_tensor_release(tt);
    }
    CHECK_ST(ct_binary_cross_entropy(ctx, pa, p2, NULL, CT_REDUCTION_SUM, &out), CT_ERR_SHAPE);
    CHECK_ST(ct_binary_cross_entropy_with_logits(ctx, pa, pf, NULL, NULL, CT_REDUCTION_SUM, &out),
             CT_ERR_DTYPE);
    CHECK_ST(ct_binary_cross_entropy(ctx, pa, pa, wg, CT_REDUCTION_SUM, &out), CT_ERR_UNSUPPORTED);
    { /* a weight that would grow the loss; an f32 weight on f64 input (cast in); a second
       * backward through the BCE node without retain_graph */
        ct_tensor *w6 = from_vals(CT_FLOAT64, 2, (int64_t[]){2, 3}, (double[]){1, 1, 1, 1, 1, 1});
        CHECK_ST(ct_binary_cross_entropy(ctx, pa, pa, w6, CT_REDUCTION_SUM, &out), CT_ERR_SHAPE);
        ct_tensor *xg = gleaf(1, (int64_t[]){3}, pv), *l = NULL;
        CHECK_OK(ct_binary_cross_entropy(ctx, xg, pa, pf, CT_REDUCTION_SUM, &l));
        CHECK(ct_tensor_dtype(l) == CT_FLOAT64);
        CHECK_OK(ct_backward(ctx, l, NULL, false));
        CHECK_ST(ct_backward(ctx, l, NULL, false), CT_ERR_STATE);
        ct_tensor_release(w6), ct_tensor_release(xg), ct_tensor_release(l);
    }
    CHECK_ST(ct_binary_cross_entropy_with_logits(ctx, pa, pa, NULL, wg, CT_REDUCTION_SUM, &out),
             CT_ERR_UNSUPPORTED);
    ct_tensor_release(pa), ct_tensor_release(pq), ct_tensor_release(p2), ct_tensor_release(pf);
    ct_tensor_release(wg);
    /* integer inputs as torch: relu6 / threshold keep int64, softsign / tanhshrink give float32,
     * the others are CT_ERR_DTYPE ("not implemented for 'Long'") */
    ct_tensor *xi = from_vals(CT_INT64, 1, (int64_t[]){3}, (double[]){-4, 1, 7});
    CHECK_OK(ct_relu6(ctx, xi, &out));
    double *iv = tu_read(out);
    CHECK(ct_tensor_dtype(out) == CT_INT64 && same_vals(iv, (double[]){0, 1, 6}, 3));
    free(iv), ct_tensor_release(out);
    CHECK_OK(ct_threshold(ctx, xi, 2, -1, &out));
    iv = tu_read(out);
    CHECK(ct_tensor_dtype(out) == CT_INT64 && same_vals(iv, (double[]){-1, -1, 7}, 3));
    free(iv), ct_tensor_release(out);
    CHECK_OK(ct_softsign(ctx, xi, &out));
    iv = tu_read(out);
    CHECK(ct_tensor_dtype(out) == CT_FLOAT32 && same_vals(iv, (double[]){-0.8f, 0.5, 0.875}, 3));
    free(iv), ct_tensor_release(out);
    CHECK_ST(ct_hardsigmoid(ctx, xi, &out), CT_ERR_DTYPE);
    CHECK_ST(ct_glu(ctx, xi, 0, &out), CT_ERR_DTYPE);
    /* threshold on integers converts the threshold as torch (truncating, overflow refused) */
    ct_tensor *x01 = from_vals(CT_INT64, 1, (int64_t[]){2}, (double[]){0, -1});
    CHECK_OK(ct_threshold(ctx, x01, -0.5, 7, &out));
    iv = tu_read(out);
    CHECK(same_vals(iv, (double[]){7, 7}, 2));
    free(iv), ct_tensor_release(out);
    CHECK_ST(ct_threshold(ctx, x01, 1e30, 2, &out), CT_ERR_INVALID_ARG);
    /* kl_div refuses integer targets; l1 takes an integer input with a float target */
    ct_tensor *tf = from_vals(CT_FLOAT64, 1, (int64_t[]){2}, (double[]){0.5, 0.5});
    CHECK_ST(ct_kl_div(ctx, tf, x01, CT_REDUCTION_SUM, false, &out), CT_ERR_DTYPE);
    CHECK_OK(ct_l1_loss(ctx, x01, tf, CT_REDUCTION_SUM, &out));
    CHECK(ct_tensor_dtype(out) == CT_FLOAT64 && item(out) == 2);
    ct_tensor_release(out), ct_tensor_release(x01), ct_tensor_release(tf), ct_tensor_release(xi);
}

/* The second review's cases (torch 1.13's values): no NaN gradient from an unselected branch
 * (selu / celu at large x, prelu's weight at x = +inf, huber / smooth l1 at an infinite residual
 * or delta = inf), NaN passing through threshold / shrink with gradient 1 as torch's tests do,
 * selu's gradient accurate for x < 0, smooth l1 with beta 0 (-1 at d = 0), second derivatives of
 * smooth l1 at d = 0 and of cosine_similarity, kl_div batchmean of a 0-d input. */
TEST(activation_and_loss_edges_as_torch) {
    ct_tensor *x = gleaf(1, (int64_t[]){2}, (double[]){-17, 100}), *y = NULL;
    CHECK_OK(ct_selu(ctx, x, &y));
    back_weighted(y, (double[]){1, 1});
    double *g = grad_vals(x);
    CHECK_MSG(near_ref(g[0], 7.278421774545394e-08) && near_ref(g[1], 1.0507009873554805),
              "selu grad %.17g %.17g", g[0], g[1]);
    free(g), ct_tensor_release(y), ct_tensor_zero_grad(x);
    CHECK_OK(ct_celu(ctx, x, 0.7, &y));
    back_weighted(y, (double[]){1, 1});
    g = grad_vals(x);
    CHECK_MSG(near_ref(g[0], exp(-17 / 0.7)) && g[1] == 1, "celu grad %g %g", g[0], g[1]);
    free(g), ct_tensor_release(y), ct_tensor_release(x);
    /* NaN passes hardshrink and threshold: value and gradient 1; softshrink's value is 0 there
     * (torch's forward), its gradient 0 (torch's vectorised backward; its scalar path gives 1) */
    x = gleaf(1, (int64_t[]){2}, (double[]){NAN, 1});
    ct_status (*fs[3])(ct_ctx *, const ct_tensor *, double, ct_tensor **) = {ct_softshrink,
                                                                             ct_hardshrink, NULL};
    for (int k = 0; k < 3; k++) {
        CHECK_OK(fs[k] ? fs[k](ctx, x, 0.5, &y) : ct_threshold(ctx, x, 0.1, 20, &y));
        double *v = tu_read(y);
        CHECK(k == 0 ? v[0] == 0 : isnan(v[0]));
        free(v);
        back_weighted(y, (double[]){1, 1});
        g = grad_vals(x);
        CHECK_MSG(g[0] == (k == 0 ? 0 : 1) && g[1] == 1, "shrink/threshold %d grad %g %g", k, g[0],
                  g[1]);
        free(g), ct_tensor_release(y), ct_tensor_zero_grad(x);
    }
    ct_tensor_release(x);
    /* prelu's weight gradient at x = +inf */
    x = from_vals(CT_FLOAT64, 2, (int64_t[]){1, 2}, (double[]){INFINITY, -1});
    ct_tensor *w = gleaf(1, (int64_t[]){1}, (double[]){0.25});
    CHECK_OK(ct_prelu(ctx, x, w, &y));
    back_weighted(y, (double[]){0.5, 0.75});
    g = grad_vals(w);
    CHECK_MSG(g[0] == -0.75, "prelu weight grad %g", g[0]);
    free(g), ct_tensor_release(y), ct_tensor_release(x), ct_tensor_release(w);
    /* huber / smooth l1: an infinite residual, delta = inf, beta = 0 at d = 0 */
    ct_tensor *t0 = from_vals(CT_FLOAT64, 1, (int64_t[]){3}, (double[]){0, 0, 0});
    for (int k = 0; k < 4; k++) {
        /* delta = inf: a finite residual (an infinite one is NaN in torch too) */
        x = gleaf(1, (int64_t[]){3}, (double[]){k == 2 ? 1 : INFINITY, 0, -2});
        ct_status st = k == 0   ? ct_huber_loss(ctx, x, t0, CT_REDUCTION_NONE, 1, &y)
                       : k == 1 ? ct_smooth_l1_loss(ctx, x, t0, CT_REDUCTION_NONE, 1, &y)
                       : k == 2 ? ct_huber_loss(ctx, x, t0, CT_REDUCTION_NONE, INFINITY, &y)
                                : ct_smooth_l1_loss(ctx, x, t0, CT_REDUCTION_NONE, 0, &y);
        CHECK_OK(st);
        back_weighted(y, (double[]){1, 1, 1});
        g = grad_vals(x);
        const double want[4][3] = {{1, 0, -1}, {1, 0, -1}, {1, 0, -2}, {1, -1, -1}};
        CHECK_MSG(same_vals(g, want[k], 3), "case %d grad %g %g %g", k, g[0], g[1], g[2]);
        free(g), ct_tensor_release(y), ct_tensor_release(x);
    }
    ct_tensor_release(t0);
    /* second derivatives: smooth l1 (beta 0.5) at d = 0 is 1 / beta; cosine_similarity's */
    {
        ct_tensor *a = gleaf(1, (int64_t[]){1}, (double[]){0}), *z = NULL, *ga = NULL, *h = NULL;
        ct_tensor *gs = NULL;
        z = from_vals(CT_FLOAT64, 1, (int64_t[]){1}, (double[]){0});
        CHECK_OK(ct_smooth_l1_loss(ctx, a, z, CT_REDUCTION_SUM, 0.5, &y));
        CHECK_OK(ct_autograd_grad(ctx, 1, (const ct_tensor *[]){y}, NULL, 1,
                                  (const ct_tensor *[]){a}, true, true, &ga));
        CHECK_OK(ct_sum(ctx, ga, 0, NULL, false, &gs));
        CHECK_OK(ct_autograd_grad(ctx, 1, (const ct_tensor *[]){gs}, NULL, 1,
                                  (const ct_tensor *[]){a}, false, false, &h));
        CHECK_MSG(item(h) == 2, "smooth_l1'' %g", item(h));
        ct_tensor_release(y), ct_tensor_release(ga), ct_tensor_release(gs), ct_tensor_release(h);
        ct_tensor_release(a), ct_tensor_release(z);
        ct_tensor *x1 = gleaf(1, (int64_t[]){2}, (double[]){1, 2});
        ct_tensor *x2 = from_vals(CT_FLOAT64, 1, (int64_t[]){2}, (double[]){3, 1}), *c = NULL;
        ct_tensor *ch = NULL, *g1 = NULL, *p = NULL, *ps = NULL, *u = NULL, *hh = NULL;
        CHECK_OK(ct_cosine_similarity(ctx, x1, x2, 0, 1e-8, &c));
        CHECK_OK(ct_mul_scalar(ctx, c, 0.5, &ch));
        CHECK_OK(ct_autograd_grad(ctx, 1, (const ct_tensor *[]){ch}, NULL, 1,
                                  (const ct_tensor *[]){x1}, true, true, &g1));
        u = from_vals(CT_FLOAT64, 1, (int64_t[]){2}, (double[]){0.3, 0.5});
        CHECK_OK(ct_mul(ctx, g1, u, &p));
        CHECK_OK(ct_sum(ctx, p, 0, NULL, false, &ps));
        CHECK_OK(ct_autograd_grad(ctx, 1, (const ct_tensor *[]){ps}, NULL, 1,
                                  (const ct_tensor *[]){x1}, false, false, &hh));
        double *hv = tu_read(hh);
        CHECK_MSG(near_ref(hv[0], -0.04101219330881976) && near_ref(hv[1], 0.016970562748477136),
                  "cosine'' %.17g %.17g", hv[0], hv[1]);
        free(hv);
        ct_tensor *all[] = {x1, x2, c, ch, g1, p, ps, u, hh};
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
            ct_tensor_release(all[i]);
    }
    /* kl_div batchmean of a 0-d input: the sum, torch's SumBackward0 */
    ct_tensor *i0 = gleaf(0, NULL, (double[]){-1}), *t1 = NULL;
    t1 = from_vals(CT_FLOAT64, 0, NULL, (double[]){0.5});
    CHECK_OK(ct_kl_div(ctx, i0, t1, CT_REDUCTION_BATCHMEAN, false, &y));
    check_suffix(y, "grad_fn=<SumBackward0>");
    ct_tensor_release(y), ct_tensor_release(i0), ct_tensor_release(t1);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(gradcheck_everyday_elementwise);
    RUN(more_math_gradients_at_special_points);
    RUN(gradcheck_composites);
    RUN(gradcheck_binary_broadcast);
    RUN(gradcheck_unary_and_scalar);
    RUN(gradcheck_ternary);
    RUN(cast_backward);
    RUN(gradcheck_reductions);
    RUN(amax_ties_split_evenly);
    RUN(gradcheck_matmul);
    RUN(gradcheck_nn);
    RUN(gradcheck_losses);
    RUN(losses_with_infinite_logits);
    RUN(gradcheck_views);
    RUN(gradgradcheck_ops);
    RUN(accumulates_across_backward_calls);
    RUN(error_cases);
    RUN(views_share_history);
    RUN(optimizer_steps_on_leaves_that_require_grad);
    RUN(oom_injection_leaks_nothing);
    RUN(matches_torch_reference);
    RUN(captured_training_step_equals_eager);
    RUN(captured_first_gradient_never_aliases_caller_memory);
    RUN(gradcheck_flip_roll_tril);
    RUN(everyday_ops_without_backward_refuse);
    RUN(gradcheck_shaping_and_selection);
    RUN(nn_gradient_classes_as_torch);
    RUN(grad_fn_names_as_torch);
    RUN(inplace_ops_as_torch);
    RUN(losses_as_torch);
    RUN(elementwise_losses_as_torch);
    RUN(activation_and_loss_edges_as_torch);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    printf("live tensors at exit: %lld\n", (long long)ct_ctx_live_tensors(ctx));
    ct_ctx_free(ctx);
    return ct_test_end();
}
