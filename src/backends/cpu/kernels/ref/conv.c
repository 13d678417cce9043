/* CT_OP_IM2COL / CT_OP_COL2IM (torch's unfold / fold): patches of an (N, C, H, W) image as columns
 * (N, C*kh*kw, OH*OW) and back (overlaps summed). Geometry in ints[] as pairs (low 32 bits: the
 * H value, high 32 bits: the W value): ints[0] kernel, ints[1] stride, ints[2] padding, ints[3]
 * dilation. im2col copies bytes (any dtype; rows of a W-contiguous input as memcpy runs), col2im
 * adds in the dtype's arithmetic (f32/f64 directly, others through double), one (n, c) plane per
 * work item so the sums have a fixed order. */
#include "backends/cpu/kernels/ew.h"
#include "backends/cpu/kernels/par.h"

#include <string.h>

typedef struct {
    int64_t kh, kw, sh, sw, ph, pw, dh, dw;
    int64_t N, C, H, W, OH, OW;
} ct_k_cgeom;

static int64_t ct_k_lo32(int64_t v) { return (int64_t)(int32_t)(uint32_t)(uint64_t)v; }
static int64_t ct_k_hi32(int64_t v) { return (int64_t)(int32_t)(uint32_t)((uint64_t)v >> 32); }

/* img: the (N, C, H, W) operand; cols: (N, C*kh*kw, OH*OW). */
static void ct_k_cgeom_of(const ct_op_desc *op, const ct_operand *img, const ct_operand *cols,
                          ct_k_cgeom *g) {
    g->kh = ct_k_lo32(op->ints[0]), g->kw = ct_k_hi32(op->ints[0]);
    g->sh = ct_k_lo32(op->ints[1]), g->sw = ct_k_hi32(op->ints[1]);
    g->ph = ct_k_lo32(op->ints[2]), g->pw = ct_k_hi32(op->ints[2]);
    g->dh = ct_k_lo32(op->ints[3]), g->dw = ct_k_hi32(op->ints[3]);
    g->N = img->shape[0], g->C = img->shape[1], g->H = img->shape[2], g->W = img->shape[3];
    g->OH = (g->H + 2 * g->ph - g->dh * (g->kh - 1) - 1) / g->sh + 1;
    g->OW = (g->W + 2 * g->pw - g->dw * (g->kw - 1) - 1) / g->sw + 1;
    (void)cols;
}

typedef struct {
    const ct_op_desc *op;
    ct_k_cgeom g;
} ct_k_conv_job;

static void ct_k_im2col_range(void *arg, int64_t b, int64_t e) {
    const ct_k_conv_job *j = arg;
    const ct_k_cgeom *g = &j->g;
    const ct_operand *cols = &j->op->operands[0], *img = &j->op->operands[1];
    size_t es = ct__itemsize(img->dtype);
    int64_t L = g->OH * g->OW;
    for (int64_t it = b; it < e; it++) { /* it = n * C + c */
        int64_t n = it / g->C, c = it % g->C;
        const char *src =
            (const char *)img->data + (n * img->strides[0] + c * img->strides[1]) * (int64_t)es;
        int64_t sy = img->strides[2] * (int64_t)es, sx = img->strides[3] * (int64_t)es;
        for (int64_t ki = 0; ki < g->kh; ki++)
            for (int64_t kj = 0; kj < g->kw; kj++) {
                char *dst = (char *)cols->data +
                            ((n * g->C + c) * g->kh * g->kw + ki * g->kw + kj) * L * (int64_t)es;
                /* output columns ox whose input column ix = ox*sw - pw + kj*dw is inside [0, W) */
                int64_t off = kj * g->dw - g->pw, ox0 = 0, ox1 = g->OW;
                while (ox0 < g->OW && ox0 * g->sw + off < 0)
                    ox0++;
                while (ox1 > ox0 && (ox1 - 1) * g->sw + off >= g->W)
                    ox1--;
                for (int64_t oy = 0; oy < g->OH; oy++) {
                    int64_t iy = oy * g->sh - g->ph + ki * g->dh;
                    char *d = dst + oy * g->OW * (int64_t)es;
                    if (iy < 0 || iy >= g->H) {
                        memset(d, 0, (size_t)g->OW * es);
                        continue;
                    }
                    memset(d, 0, (size_t)ox0 * es);
                    const char *row = src + iy * sy;
                    if (g->sw == 1 && sx == (int64_t)es) {
                        if (ox1 > ox0)
                            memcpy(d + ox0 * (int64_t)es, row + (ox0 + off) * (int64_t)es,
                                   (size_t)(ox1 - ox0) * es);
                    } else {
                        for (int64_t ox = ox0; ox < ox1; ox++)
                            memcpy(d + ox * (int64_t)es, row + (ox * g->sw + off) * sx, es);
                    }
                    memset(d + ox1 * (int64_t)es, 0, (size_t)(g->OW - ox1) * es);
                }
            }
    }
}

static void ct_k_col2im_range(void *arg, int64_t b, int64_t e) {
    const ct_k_conv_job *j = arg;
    const ct_k_cgeom *g = &j->g;
    const ct_operand *img = &j->op->operands[0], *cols = &j->op->operands[1];
    ct_dtype dt = img->dtype;
    size_t es = ct__itemsize(dt);
    int64_t L = g->OH * g->OW;
    for (int64_t it = b; it < e; it++) {
        int64_t n = it / g->C, c = it % g->C;
        char *dst = (char *)img->data + (n * img->strides[0] + c * img->strides[1]) * (int64_t)es;
        int64_t sy = img->strides[2] * (int64_t)es, sx = img->strides[3] * (int64_t)es;
        for (int64_t y = 0; y < g->H; y++)
            for (int64_t x = 0; x < g->W; x++)
                memset(dst + y * sy + x * sx, 0, es);
        for (int64_t ki = 0; ki < g->kh; ki++)
            for (int64_t kj = 0; kj < g->kw; kj++) {
                const char *src =
                    (const char *)cols->data +
                    ((n * g->C + c) * g->kh * g->kw + ki * g->kw + kj) * L * (int64_t)es;
                for (int64_t oy = 0; oy < g->OH; oy++) {
                    int64_t iy = oy * g->sh - g->ph + ki * g->dh;
                    if (iy < 0 || iy >= g->H) continue;
                    for (int64_t ox = 0; ox < g->OW; ox++) {
                        int64_t ix = ox * g->sw - g->pw + kj * g->dw;
                        if (ix < 0 || ix >= g->W) continue;
                        char *d = dst + iy * sy + ix * sx;
                        const char *s = src + (oy * g->OW + ox) * (int64_t)es;
                        if (dt == CT_FLOAT32)
                            *(float *)d += *(const float *)s;
                        else if (dt == CT_FLOAT64)
                            *(double *)d += *(const double *)s;
                        else
                            ct_k_store_f64(d, dt, ct_k_load_f64(d, dt) + ct_k_load_f64(s, dt));
                    }
                }
            }
    }
}

ct_status ct_k_im2col(const ct_op_desc *op);
ct_status ct_k_im2col(const ct_op_desc *op) {
    ct_k_conv_job j = {op, {0}};
    ct_k_cgeom_of(op, &op->operands[1], &op->operands[0], &j.g);
    int64_t items = j.g.N * j.g.C, per = j.g.kh * j.g.kw * j.g.OH * j.g.OW;
    int64_t grain = 65536 / (per > 0 ? per : 1);
    ct_k_parallel_for(items, grain < 1 ? 1 : grain, op->num_threads, ct_k_im2col_range, &j);
    return CT_OK;
}

ct_status ct_k_col2im(const ct_op_desc *op);
ct_status ct_k_col2im(const ct_op_desc *op) {
    ct_k_conv_job j = {op, {0}};
    ct_k_cgeom_of(op, &op->operands[0], &op->operands[1], &j.g);
    int64_t items = j.g.N * j.g.C, per = j.g.kh * j.g.kw * j.g.OH * j.g.OW + j.g.H * j.g.W;
    int64_t grain = 65536 / (per > 0 ? per : 1);
    ct_k_parallel_for(items, grain < 1 ? 1 : grain, op->num_threads, ct_k_col2im_range, &j);
    return CT_OK;
}
