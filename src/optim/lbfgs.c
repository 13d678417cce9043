/* L-BFGS (include/ctorch/optim.h, ct_lbfgs_*): torch.optim.LBFGS's algorithm step for step — the
 * two-loop recursion over a history of (y, s) pairs, the first step scaled by 1 / |g|_1, the
 * termination tests in torch's order, and its strong-Wolfe line search with cubic interpolation.
 * The vectors (flat gradient, direction, history) are tensors of the parameters' dtype handled
 * with public ops; the scalars (dot products, step sizes) are doubles on the host, where torch
 * keeps several in 0-d tensors of the parameters' dtype (docs/optim.md). */
#include "core/internal.h"
#include "ctorch/autograd.h"
#include "ctorch/inplace.h"
#include "ctorch/linalg.h"
#include "ctorch/ops.h"
#include "ctorch/optim.h"
#include "dispatch/dispatch.h"
#include "tensor/tensor_impl.h"

#include <limits.h>
#include <math.h>
#include <string.h>

struct ct_lbfgs {
    ct_ctx *ctx;
    ct_lbfgs_options o;
    int n;
    ct_tensor **params;
    ct_dtype dt;
    int64_t numel;
    /* torch's state */
    int64_t func_evals, n_iter;
    ct_tensor *d, *prev_flat_grad;
    double t, H_diag, prev_loss;
    ct_tensor **old_dirs, **old_stps; /* ring of history_size, hist_n used from hist_first */
    double *ro, *al;
    int hist_n, hist_first;
    /* the step being run */
    ct_lbfgs_closure closure;
    void *user;
    bool user_grad_mode;
};

ct_lbfgs_options ct_lbfgs_options_default(void) {
    ct_lbfgs_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.lr = 1.0;
    o.max_iter = 20;
    o.max_eval = 0; /* max_iter * 5 / 4 */
    o.tolerance_grad = 1e-7;
    o.tolerance_change = 1e-9;
    o.history_size = 100;
    return o;
}

void ct_lbfgs_free(ct_lbfgs *opt) {
    if (!opt) return;
    ct_ctx *ctx = opt->ctx;
    for (int i = 0; opt->params && i < opt->n; i++)
        ct_tensor_release(opt->params[i]);
    for (int i = 0; i < opt->o.history_size; i++) {
        if (opt->old_dirs) ct_tensor_release(opt->old_dirs[i]);
        if (opt->old_stps) ct_tensor_release(opt->old_stps[i]);
    }
    ct_tensor_release(opt->d);
    ct_tensor_release(opt->prev_flat_grad);
    ct__free(ctx, opt->params);
    ct__free(ctx, opt->old_dirs);
    ct__free(ctx, opt->old_stps);
    ct__free(ctx, opt->ro);
    ct__free(ctx, opt->al);
    ct__free(ctx, opt);
}

static void *ct__lb_zalloc(ct_ctx *ctx, size_t n) {
    void *p = ct__alloc(ctx, n ? n : 1, 16);
    if (p) memset(p, 0, n ? n : 1);
    return p;
}

ct_status ct_lbfgs_create(ct_ctx *ctx, const ct_lbfgs_options *opts, int n_params,
                          ct_tensor *const *params, ct_lbfgs **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx);
    if (!opts || !out || (n_params > 0 && !params))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "lbfgs_create: NULL %s",
                             !opts  ? "options"
                             : !out ? "out"
                                    : "params");
    *out = NULL;
    if (opts->size < offsetof(ct_lbfgs_options, lr) + sizeof(double) ||
        opts->size > sizeof(ct_lbfgs_options))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "lbfgs_create: options.size %zu is not sizeof(ct_lbfgs_options) = %zu",
                             opts->size, sizeof(ct_lbfgs_options));
    ct_lbfgs_options o = ct_lbfgs_options_default();
    memcpy(&o, opts, opts->size);
    o.size = sizeof o;
    if (!(o.lr >= 0) || isinf(o.lr))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "lbfgs_create: invalid lr %g", o.lr);
    if (o.max_iter < 1 || o.max_eval < 0 || o.history_size < 1 || o.history_size > 100000)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "lbfgs_create: max_iter %d must be >= 1, max_eval %d >= 0 (0: "
                             "max_iter * 5 / 4), history_size %d in 1..100000",
                             o.max_iter, o.max_eval, o.history_size);
    if (o.max_eval == 0) { /* torch: max_iter * 5 // 4 (an int here: at most INT_MAX) */
        const int64_t me = (int64_t)o.max_iter * 5 / 4;
        o.max_eval = me > INT_MAX ? INT_MAX : (int)me;
    }
    if (isnan(o.tolerance_grad) || isnan(o.tolerance_change))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "lbfgs_create: a tolerance is NaN");
    if (n_params < 1)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "lbfgs_create: n_params is %d: an optimizer needs parameters",
                             n_params);
    ct_dtype dt = CT_BOOL;
    int64_t numel = 0;
    for (int i = 0; i < n_params; i++) {
        const ct_tensor *p = params[i];
        if (!p)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG, "lbfgs_create: params[%d] is NULL", i);
        if (p->ctx != ctx)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "lbfgs_create: params[%d] belongs to another context", i);
        ct_dtype d = ct_tensor_dtype(p);
        if (d != CT_FLOAT32 && d != CT_FLOAT64)
            return ct__set_error(ctx, CT_ERR_DTYPE,
                                 "lbfgs_create: params[%d] is %s; L-BFGS takes float32 or float64 "
                                 "parameters",
                                 i, ct_dtype_name(d));
        if (i > 0 && d != dt)
            return ct__set_error(ctx, CT_ERR_DTYPE,
                                 "lbfgs_create: params[%d] is %s, params[0] %s: one dtype for all",
                                 i, ct_dtype_name(d), ct_dtype_name(dt));
        dt = d;
        for (int j = 0; j < i; j++)
            if (params[j] == p)
                return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                     "lbfgs_create: params[%d] and params[%d] are the same "
                                     "parameter",
                                     j, i);
        numel += ct_tensor_numel(p);
    }
    ct_lbfgs *opt = ct__lb_zalloc(ctx, sizeof *opt);
    if (!opt) return ct__set_error(ctx, CT_ERR_OOM, "lbfgs_create: out of memory");
    opt->ctx = ctx;
    opt->o = o;
    opt->n = n_params;
    opt->dt = dt;
    opt->numel = numel;
    const size_t h = (size_t)o.history_size;
    opt->params = ct__lb_zalloc(ctx, sizeof *opt->params * (size_t)n_params);
    opt->old_dirs = ct__lb_zalloc(ctx, sizeof *opt->old_dirs * h);
    opt->old_stps = ct__lb_zalloc(ctx, sizeof *opt->old_stps * h);
    opt->ro = ct__lb_zalloc(ctx, sizeof *opt->ro * h);
    opt->al = ct__lb_zalloc(ctx, sizeof *opt->al * h);
    if (!opt->params || !opt->old_dirs || !opt->old_stps || !opt->ro || !opt->al) {
        ct_lbfgs_free(opt);
        return ct__set_error(ctx, CT_ERR_OOM, "lbfgs_create: out of memory");
    }
    for (int i = 0; i < n_params; i++)
        opt->params[i] = ct_tensor_retain(params[i]);
    *out = opt;
    return CT_OK;
}

/* ---- vector helpers (grad mode is off inside a step) ---- */

static ct_status ct__lb_scalar(ct_ctx *ctx, ct_status st, ct_tensor *t, double *out) {
    ct_tensor *c = NULL;
    if (st == CT_OK) st = ct_cast(ctx, t, CT_FLOAT64, &c);
    if (st == CT_OK) st = ct_tensor_to_host(c, out, sizeof *out);
    ct_tensor_release(c);
    ct_tensor_release(t);
    return st;
}

static ct_status ct__lb_dot(ct_lbfgs *opt, const ct_tensor *a, const ct_tensor *b, double *out) {
    ct_tensor *r = NULL;
    ct_status st = ct_dot(opt->ctx, a, b, &r);
    return ct__lb_scalar(opt->ctx, st, r, out);
}

/* max |a| (inf-norm) or sum |a| (1-norm) */
static ct_status ct__lb_norm(ct_lbfgs *opt, const ct_tensor *a, double ord, double *out) {
    ct_tensor *r = NULL;
    ct_status st = ct_linalg_vector_norm(opt->ctx, a, ord, 0, NULL, false, &r);
    return ct__lb_scalar(opt->ctx, st, r, out);
}

/* p_i += t * d[off_i : off_i + numel_i] viewed as p_i (torch's _add_grad: add_ with alpha) */
static ct_status ct__lb_add_grad(ct_lbfgs *opt, double t, const ct_tensor *d) {
    ct_status st = CT_OK;
    int64_t off = 0;
    for (int i = 0; i < opt->n && st == CT_OK; i++) {
        ct_tensor *p = opt->params[i], *nar = NULL, *v = NULL;
        int64_t k = ct_tensor_numel(p);
        st = ct_tensor_narrow(opt->ctx, d, 0, off, k, &nar);
        if (st == CT_OK)
            st = ct_tensor_reshape(opt->ctx, nar, ct_tensor_ndim(p), ct_tensor_shape(p), &v);
        if (st == CT_OK) st = ct_add_scaled_(opt->ctx, p, v, t);
        ct_tensor_release(nar);
        ct_tensor_release(v);
        off += k;
    }
    return st;
}

/* Call the closure with the caller's grad mode; *flat gets the gradients concatenated (a NULL
 * gradient is zeros, as torch's missing .grad). */
static ct_status ct__lb_eval(ct_lbfgs *opt, double *loss, ct_tensor **flat) {
    ct_ctx *ctx = opt->ctx;
    *flat = NULL;
    ct_tensor **g = ct__lb_zalloc(ctx, sizeof *g * (size_t)opt->n);
    ct_tensor **parts = ct__lb_zalloc(ctx, sizeof *parts * (size_t)opt->n);
    if (!g || !parts) {
        ct__free(ctx, g);
        ct__free(ctx, parts);
        return ct__set_error(ctx, CT_ERR_OOM, "lbfgs_step: out of memory");
    }
    ct_set_grad_enabled(ctx, opt->user_grad_mode);
    double l = NAN;
    ct_status st = opt->closure(opt->user, &l, g);
    ct_set_grad_enabled(ctx, false);
    if (st != CT_OK && !ct_ctx_last_error(ctx)[0])
        ct__set_error(ctx, st, "lbfgs_step: the closure failed (status %d)", (int)st);
    for (int i = 0; i < opt->n && st == CT_OK; i++) {
        const ct_tensor *p = opt->params[i];
        if (!g[i]) {
            const int64_t k = ct_tensor_numel(p);
            st = ct_tensor_zeros(ctx, opt->dt, 1, &k, &parts[i]);
            continue;
        }
        if (g[i]->ctx != ctx) {
            st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                               "lbfgs_step: the closure's grads[%d] belongs to another context", i);
            break;
        }
        if (ct_tensor_dtype(g[i]) != opt->dt) {
            st = ct__set_error(ctx, CT_ERR_DTYPE,
                               "lbfgs_step: the closure's grads[%d] is %s, its parameter %s", i,
                               ct_dtype_name(ct_tensor_dtype(g[i])), ct_dtype_name(opt->dt));
            break;
        }
        bool same = ct_tensor_ndim(g[i]) == ct_tensor_ndim(p);
        for (int d = 0; same && d < ct_tensor_ndim(p); d++)
            same = ct_tensor_shape(g[i])[d] == ct_tensor_shape(p)[d];
        if (!same) {
            char a[96], b[96];
            st = ct__set_error(
                ctx, CT_ERR_SHAPE,
                "lbfgs_step: the closure's grads[%d] is %s %s, its parameter %s %s", i,
                ct_dtype_name(ct_tensor_dtype(g[i])),
                ct__shape_str(a, sizeof a, ct_tensor_ndim(g[i]), ct_tensor_shape(g[i])),
                ct_dtype_name(opt->dt),
                ct__shape_str(b, sizeof b, ct_tensor_ndim(p), ct_tensor_shape(p)));
            break;
        }
        const int64_t m1 = -1;
        st = ct_tensor_reshape(ctx, g[i], 1, &m1, &parts[i]);
    }
    if (st == CT_OK) st = ct_cat(ctx, opt->n, (const ct_tensor *const *)parts, 0, flat);
    for (int i = 0; i < opt->n; i++)
        ct_tensor_release(parts[i]);
    ct__free(ctx, parts);
    ct__free(ctx, g);
    if (st == CT_OK) {
        *loss = l;
        opt->func_evals++;
    }
    return st;
}

/* torch's _directional_evaluate: loss and flat grad at x + t d, then the parameters back to x */
static ct_status ct__lb_dir_eval(ct_lbfgs *opt, ct_tensor *const *x, double t, const ct_tensor *d,
                                 double *loss, ct_tensor **flat) {
    ct_status st = ct__lb_add_grad(opt, t, d);
    if (st == CT_OK) st = ct__lb_eval(opt, loss, flat);
    for (int i = 0; i < opt->n && st == CT_OK; i++)
        st = ct_tensor_copy_(opt->ctx, opt->params[i], x[i]);
    return st;
}

/* torch's _cubic_interpolate (bounds NULL: the interval of x1, x2) */
static double ct__lb_cubic(double x1, double f1, double g1, double x2, double f2, double g2,
                           const double *bounds) {
    double lo, hi;
    if (bounds) {
        lo = bounds[0];
        hi = bounds[1];
    } else {
        lo = x1 <= x2 ? x1 : x2;
        hi = x1 <= x2 ? x2 : x1;
    }
    const double d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2);
    const double d2s = d1 * d1 - g1 * g2;
    if (d2s >= 0) {
        const double d2 = sqrt(d2s);
        double m = x1 <= x2 ? x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
                            : x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2));
        /* Python's min(max(m, lo), hi) */
        double v = lo > m ? lo : m;
        return hi < v ? hi : v;
    }
    return (lo + hi) / 2.;
}

/* torch's _strong_wolfe: on return *f, *g (the flat grad; replaced), *t and *evals */
static ct_status ct__lb_wolfe(ct_lbfgs *opt, ct_tensor *const *x, double *t_io, const ct_tensor *d,
                              double *f_io, ct_tensor **g_io, double gtd, int *evals) {
    /* torch's step() calls _strong_wolfe without tolerance_change: its default 1e-9 applies */
    const double c1 = 1e-4, c2 = 0.9, tol = 1e-9;
    /* torch keeps gtd (and so the Armijo and curvature bounds) in 0-d tensors of the parameters'
     * dtype: for float32 these tests compare float32 values */
    const bool f32 = opt->dt == CT_FLOAT32;
#define RF(x) (f32 ? (double)(float)(x) : (x))
#define ARMIJO_FAILS(fn, tt) (RF(fn) > RF(RF(f) + RF(RF(c1 * (tt)) * gtd)))
#define CURVATURE_OK(gn) (fabs(gn) <= RF(RF(-c2) * gtd))
    const int max_ls = 25;
    ct_ctx *ctx = opt->ctx;
    double d_norm = 0, t = *t_io, f = *f_io;
    ct_status st = ct__lb_norm(opt, d, INFINITY, &d_norm);
    if (st != CT_OK) return st;
    ct_tensor *g = *g_io, *g_new = NULL, *g_prev = NULL;
    double f_new = 0, gtd_new = 0;
    st = ct__lb_dir_eval(opt, x, t, d, &f_new, &g_new);
    int ls_evals = 1;
    if (st == CT_OK) st = ct__lb_dot(opt, g_new, d, &gtd_new);
    double t_prev = 0, f_prev = f, gtd_prev = gtd;
    g_prev = ct_tensor_retain(g);
    bool done = false;
    int ls_iter = 0, nb = 0;
    double br[2] = {0, 0}, br_f[2] = {0, 0}, br_gtd[2] = {0, 0};
    ct_tensor *br_g[2] = {NULL, NULL};
    while (st == CT_OK && ls_iter < max_ls) {
        /* torch's order: the sufficient-decrease test, the curvature test, the sign test */
        const bool armijo_fails = ARMIJO_FAILS(f_new, t) || (ls_iter > 1 && f_new >= f_prev);
        if (!armijo_fails && CURVATURE_OK(gtd_new)) {
            nb = 1;
            br[0] = t;
            br_f[0] = f_new;
            br_g[0] = g_new;
            g_new = NULL;
            done = true;
            break;
        }
        if (armijo_fails || gtd_new >= 0) {
            nb = 2;
            br[0] = t_prev, br[1] = t;
            br_f[0] = f_prev, br_f[1] = f_new;
            br_g[0] = g_prev, br_g[1] = g_new;
            br_gtd[0] = gtd_prev, br_gtd[1] = gtd_new;
            g_prev = g_new = NULL;
            break;
        }
        const double bounds[2] = {t + 0.01 * (t - t_prev), t * 10};
        const double tmp = t;
        t = ct__lb_cubic(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds);
        t_prev = tmp;
        f_prev = f_new;
        ct_tensor_release(g_prev);
        g_prev = g_new;
        g_new = NULL;
        gtd_prev = gtd_new;
        st = ct__lb_dir_eval(opt, x, t, d, &f_new, &g_new);
        ls_evals++;
        if (st == CT_OK) st = ct__lb_dot(opt, g_new, d, &gtd_new);
        ls_iter++;
    }
    if (st == CT_OK && ls_iter == max_ls) { /* reached the maximum: bracket [0, t] */
        nb = 2;
        br[0] = 0, br[1] = t;
        br_f[0] = f, br_f[1] = f_new;
        br_g[0] = ct_tensor_retain(g), br_g[1] = g_new;
        br_gtd[0] = gtd, br_gtd[1] = gtd_new; /* torch leaves bracket_gtd unset: not read below
                                                  since ls_iter == max_ls ends the zoom */
        g_new = NULL;
    }
    ct_tensor_release(g_prev);
    ct_tensor_release(g_new);
    bool insuf = false;
    int lo = 0, hi = 1;
    if (nb == 2 && !(br_f[0] <= br_f[1])) lo = 1, hi = 0;
    while (st == CT_OK && !done && ls_iter < max_ls) {
        if (fabs(br[1] - br[0]) * d_norm < tol) break;
        t = ct__lb_cubic(br[0], br_f[0], br_gtd[0], br[1], br_f[1], br_gtd[1], NULL);
        const double bmax = br[0] > br[1] ? br[0] : br[1], bmin = br[0] < br[1] ? br[0] : br[1];
        const double eps = 0.1 * (bmax - bmin);
        if ((bmax - t < t - bmin ? bmax - t : t - bmin) < eps) {
            if (insuf || t >= bmax || t <= bmin) {
                t = fabs(t - bmax) < fabs(t - bmin) ? bmax - eps : bmin + eps;
                insuf = false;
            } else {
                insuf = true;
            }
        } else {
            insuf = false;
        }
        ct_tensor *gn = NULL;
        double fn = 0, gtdn = 0;
        st = ct__lb_dir_eval(opt, x, t, d, &fn, &gn);
        ls_evals++;
        if (st == CT_OK) st = ct__lb_dot(opt, gn, d, &gtdn);
        ls_iter++;
        if (st != CT_OK) {
            ct_tensor_release(gn);
            break;
        }
        if (ARMIJO_FAILS(fn, t) || fn >= br_f[lo]) {
            br[hi] = t, br_f[hi] = fn, br_gtd[hi] = gtdn;
            ct_tensor_release(br_g[hi]);
            br_g[hi] = gn;
            if (br_f[0] <= br_f[1])
                lo = 0, hi = 1;
            else
                lo = 1, hi = 0;
        } else {
            if (CURVATURE_OK(gtdn)) {
                done = true;
            } else if (gtdn * (br[hi] - br[lo]) >= 0) {
                br[hi] = br[lo], br_f[hi] = br_f[lo], br_gtd[hi] = br_gtd[lo];
                ct_tensor_release(br_g[hi]);
                br_g[hi] = ct_tensor_retain(br_g[lo]);
            }
            br[lo] = t, br_f[lo] = fn, br_gtd[lo] = gtdn;
            ct_tensor_release(br_g[lo]);
            br_g[lo] = gn;
        }
    }
    if (st == CT_OK) {
        if (nb == 1) lo = 0;
        *t_io = br[lo];
        *f_io = br_f[lo];
        ct_tensor_release(*g_io);
        *g_io = ct_tensor_retain(br_g[lo]);
        *evals = ls_evals;
    }
    ct_tensor_release(br_g[0]);
    ct_tensor_release(br_g[1]);
    (void)ctx;
    return st;
#undef RF
#undef ARMIJO_FAILS
#undef CURVATURE_OK
}

static ct_status ct__lb_step(ct_lbfgs *opt, double *orig_loss) {
    ct_ctx *ctx = opt->ctx;
    const ct_lbfgs_options *o = &opt->o;
    double loss = 0, gmax = 0;
    ct_tensor *flat = NULL, **x = NULL;
    ct_status st = ct__lb_eval(opt, &loss, &flat);
    int current_evals = 1;
    if (st == CT_OK) *orig_loss = loss;
    if (st == CT_OK) st = ct__lb_norm(opt, flat, INFINITY, &gmax);
    if (st != CT_OK || gmax <= o->tolerance_grad) {
        ct_tensor_release(flat);
        return st;
    }
    const int H = o->history_size;
    int n_iter = 0;
    /* torch keeps ys, ro, H_diag, al, be and the first step in 0-d tensors of the parameters'
     * dtype: for float32 each is rounded to float32 as there */
    const bool f32 = opt->dt == CT_FLOAT32;
#define RF(x) (f32 ? (double)(float)(x) : (x))
#define CK(call)                                                                                   \
    do {                                                                                           \
        if ((st = (call)) != CT_OK) goto done;                                                     \
    } while (0)
    while (n_iter < o->max_iter) {
        n_iter++;
        opt->n_iter++;
        if (opt->n_iter == 1) {
            ct_tensor_release(opt->d);
            opt->d = NULL;
            CK(ct_neg(ctx, flat, &opt->d));
            for (int i = 0; i < H; i++) {
                ct_tensor_release(opt->old_dirs[i]);
                ct_tensor_release(opt->old_stps[i]);
                opt->old_dirs[i] = opt->old_stps[i] = NULL;
            }
            opt->hist_n = opt->hist_first = 0;
            opt->H_diag = 1;
        } else {
            ct_tensor *y = NULL, *s = NULL;
            double ys = 0;
            CK(ct_sub(ctx, flat, opt->prev_flat_grad, &y));
            st = ct_mul_scalar(ctx, opt->d, opt->t, &s);
            if (st == CT_OK) st = ct__lb_dot(opt, y, s, &ys);
            if (st == CT_OK && ys > 1e-10) {
                double yy = 0;
                st = ct__lb_dot(opt, y, y, &yy);
                if (st == CT_OK) {
                    int slot;
                    if (opt->hist_n == H) { /* drop the oldest */
                        slot = opt->hist_first;
                        opt->hist_first = (opt->hist_first + 1) % H;
                    } else {
                        slot = (opt->hist_first + opt->hist_n++) % H;
                    }
                    ct_tensor_release(opt->old_dirs[slot]);
                    ct_tensor_release(opt->old_stps[slot]);
                    opt->old_dirs[slot] = y;
                    opt->old_stps[slot] = s;
                    y = s = NULL;
                    opt->ro[slot] = RF(1. / ys);
                    opt->H_diag = RF(ys / yy);
                }
            }
            ct_tensor_release(y);
            ct_tensor_release(s);
            if (st != CT_OK) goto done;
            /* two-loop recursion: q = -g, back through the history, r = q * H_diag, forward */
            ct_tensor *q = NULL, *r = NULL;
            CK(ct_neg(ctx, flat, &q));
            for (int k = opt->hist_n - 1; k >= 0 && st == CT_OK; k--) {
                const int i = (opt->hist_first + k) % H;
                double sq = 0;
                st = ct__lb_dot(opt, opt->old_stps[i], q, &sq);
                opt->al[i] = RF(sq * opt->ro[i]);
                if (st == CT_OK) st = ct_add_scaled_(ctx, q, opt->old_dirs[i], -opt->al[i]);
            }
            if (st == CT_OK) st = ct_mul_scalar(ctx, q, opt->H_diag, &r);
            for (int k = 0; k < opt->hist_n && st == CT_OK; k++) {
                const int i = (opt->hist_first + k) % H;
                double yr = 0;
                st = ct__lb_dot(opt, opt->old_dirs[i], r, &yr);
                if (st == CT_OK)
                    st = ct_add_scaled_(ctx, r, opt->old_stps[i],
                                        RF(opt->al[i] - RF(yr * opt->ro[i])));
            }
            ct_tensor_release(q);
            if (st != CT_OK) {
                ct_tensor_release(r);
                goto done;
            }
            ct_tensor_release(opt->d);
            opt->d = r;
        }
        ct_tensor_release(opt->prev_flat_grad);
        opt->prev_flat_grad = NULL;
        CK(ct_tensor_clone(ctx, flat, &opt->prev_flat_grad));
        const double prev_loss = loss;
        opt->prev_loss = loss;
        if (opt->n_iter == 1) {
            double asum = 0;
            CK(ct__lb_norm(opt, flat, 1.0, &asum));
            /* torch: min(1., 1. / |g|_1) * lr, a 0-d tensor when the reciprocal is smaller */
            const double inv = RF(1. / asum);
            opt->t = inv < 1. ? RF(inv * RF(o->lr)) : o->lr;
        } else {
            opt->t = o->lr;
        }
        double gtd = 0;
        CK(ct__lb_dot(opt, flat, opt->d, &gtd));
        if (gtd > -o->tolerance_change) break;
        int ls_evals = 0;
        bool opt_cond = false;
        if (o->strong_wolfe) {
            if (!x) {
                x = ct__lb_zalloc(ctx, sizeof *x * (size_t)opt->n);
                if (!x) {
                    st = ct__set_error(ctx, CT_ERR_OOM, "lbfgs_step: out of memory");
                    goto done;
                }
            }
            for (int i = 0; i < opt->n; i++) {
                ct_tensor_release(x[i]);
                x[i] = NULL;
                CK(ct_tensor_clone(ctx, opt->params[i], &x[i]));
            }
            CK(ct__lb_wolfe(opt, x, &opt->t, opt->d, &loss, &flat, gtd, &ls_evals));
            CK(ct__lb_add_grad(opt, opt->t, opt->d));
            CK(ct__lb_norm(opt, flat, INFINITY, &gmax));
            opt_cond = gmax <= o->tolerance_grad;
        } else {
            CK(ct__lb_add_grad(opt, opt->t, opt->d));
            if (n_iter != o->max_iter) {
                ct_tensor_release(flat);
                flat = NULL;
                CK(ct__lb_eval(opt, &loss, &flat));
                CK(ct__lb_norm(opt, flat, INFINITY, &gmax));
                opt_cond = gmax <= o->tolerance_grad;
                ls_evals = 1;
            }
        }
        current_evals += ls_evals;
        if (n_iter == o->max_iter) break;
        if (current_evals >= o->max_eval) break;
        if (opt_cond) break;
        double dmax = 0;
        CK(ct__lb_norm(opt, opt->d, INFINITY, &dmax));
        if (dmax * fabs(opt->t) <= o->tolerance_change) break;
        if (fabs(loss - prev_loss) < o->tolerance_change) break;
    }
#undef CK
#undef RF
done:
    for (int i = 0; x && i < opt->n; i++)
        ct_tensor_release(x[i]);
    ct__free(ctx, x);
    ct_tensor_release(flat);
    return st;
}

ct_status ct_lbfgs_step(ct_lbfgs *opt, ct_lbfgs_closure closure, void *user, double *loss) {
    if (!opt) return CT_ERR_INVALID_ARG;
    ct_ctx *ctx = opt->ctx;
    ct__clear_error(ctx);
    if (!closure) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "lbfgs_step: closure is NULL");
    if (ct__any_capture(ctx))
        return ct__set_error_keep_capture(ctx, CT_ERR_UNSUPPORTED,
                                          "lbfgs_step: L-BFGS decides on the host (line search, "
                                          "termination) and cannot be captured");
    opt->closure = closure;
    opt->user = user;
    opt->user_grad_mode = ct_set_grad_enabled(ctx, false);
    double l = NAN;
    ct_status st = ct__lb_step(opt, &l);
    ct_set_grad_enabled(ctx, opt->user_grad_mode);
    if (loss) *loss = l;
    return st;
}

int64_t ct_lbfgs_func_evals(const ct_lbfgs *opt) { return opt ? opt->func_evals : -1; }

int64_t ct_lbfgs_n_iter(const ct_lbfgs *opt) { return opt ? opt->n_iter : -1; }
