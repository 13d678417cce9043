/* Resuming PyTorch training in ctorch: torch.optim states saved by torch.save (PyTorch 1.13,
 * tests/data/optim_torch_state_ref.h from scripts/gen_optim_torch_state_ref.py) are read with
 * ct_torch_load and loaded with ct_optim_load_torch_state into optimizers created with other
 * hyper-parameter values (the file's win) and torch's parameters at save time; 5 more steps with
 * the same gradients must land on torch's parameters (rtol 1e-5), in FUSED and FOREACH. Also a
 * parameter torch kept no state for (it restarts), and the refusals: another structure, another
 * parameter count or shape, a non-optimizer file, a malformed state. */
#include "test_util.h"

#include "data/optim_torch_state_ref.h"

#include <string.h>

static ct_ctx *ctx;
static const int64_t sh0[2] = {3, 4}, sh1[1] = {5};

static void make_params(const float *v, ct_tensor *p[2]) {
    CHECK_OK(ct_tensor_from_host(ctx, v, CT_FLOAT32, 2, sh0, &p[0]));
    CHECK_OK(ct_tensor_from_host(ctx, v + 12, CT_FLOAT32, 1, sh1, &p[1]));
}

static ct_optim_options options_for(const ots_case *c, int impl) {
    ct_optim_options o = ct_optim_options_default((ct_optim_kind)c->kind);
    o.impl = (ct_optim_impl)impl;
    o.lr = 123.0; /* the file's values replace these */
    o.beta1 = 0.1;
    o.eps = 0.5;
    o.momentum = c->momentum ? 0.3 : 0;
    o.nesterov = c->nesterov;
    o.amsgrad = c->amsgrad;
    o.centered = c->centered;
    o.weight_decay = c->weight_decay != 0 ? 7.0 : 0;
    o.maximize = c->maximize;
    return o;
}

TEST(resume_torch_states) {
    const int n = (int)(sizeof ots_cases / sizeof ots_cases[0]);
    for (int ci = 0; ci < n; ci++) {
        const ots_case *c = &ots_cases[ci];
        ct_archive *a = NULL;
        CHECK_OK(ct_torch_load_buffer(ctx, c->file, c->size, &a));
        for (int impl = 0; impl < 2; impl++) {
            ct_tensor *p[2], *g[2];
            make_params(c->saved, p);
            ct_optim_options o = options_for(c, impl);
            ct_optim *opt = NULL;
            CHECK_OK(ct_optim_create(ctx, &o, 2, p, &opt));
            /* the prefix with or without its trailing dot; "" as NULL */
            const char *pre = c->wrapped ? (impl ? "optimizer" : "optimizer.") : (impl ? "" : NULL);
            ct_status st = ct_optim_load_torch_state(opt, a, pre);
            CHECK_MSG(st == CT_OK, "case %d: %s", ci, ct_ctx_last_error(ctx));
            double lr = 0;
            CHECK_OK(ct_tensor_to_host(ct_optim_lr(opt), &lr, sizeof lr));
            CHECK_MSG(lr != 123.0, "case %d: lr not taken from the file", ci);
            for (int s = OTS_K; s < 2 * OTS_K; s++) {
                CHECK_OK(ct_tensor_from_host(ctx, ots_grads[s], CT_FLOAT32, 2, sh0, &g[0]));
                CHECK_OK(ct_tensor_from_host(ctx, ots_grads[s] + 12, CT_FLOAT32, 1, sh1, &g[1]));
                CHECK_OK(ct_optim_step(opt, g));
                ct_tensor_release(g[0]);
                ct_tensor_release(g[1]);
            }
            float out[17];
            CHECK_OK(ct_tensor_to_host(p[0], out, 12 * 4));
            CHECK_OK(ct_tensor_to_host(p[1], out + 12, 5 * 4));
            for (int i = 0; i < 17; i++)
                CHECK_MSG(ct_t_close(out[i], c->after[i], 1e-5, 1e-7),
                          "case %d (kind %d) impl %d el %d: %.9g, torch %.9g", ci, c->kind, impl, i,
                          (double)out[i], (double)c->after[i]);
            ct_optim_free(opt);
            ct_tensor_release(p[0]);
            ct_tensor_release(p[1]);
        }
        ct_archive_free(a);
    }
}

/* torch's two parameter groups (AdamW: weight decay on the matrix only, another lr for the
 * vector) resume into two ctorch optimizers, one per group (ct_optim_load_torch_state_group). */
TEST(resume_parameter_groups) {
    ct_archive *a = NULL;
    CHECK_OK(ct_torch_load_buffer(ctx, ots_groups_file, sizeof ots_groups_file, &a));
    for (int impl = 0; impl < 2; impl++) {
        ct_tensor *p[2], *g[2];
        make_params(ots_groups_saved, p);
        ct_optim *opt[2] = {NULL, NULL};
        for (int k = 0; k < 2; k++) {
            ct_optim_options o = ct_optim_options_default(CT_OPTIM_ADAMW);
            o.impl = (ct_optim_impl)impl;
            o.weight_decay = k == 0 ? 1.0 : 0.0; /* the file's 0.1 replaces it; 0 stays 0 */
            CHECK_OK(ct_optim_create(ctx, &o, 1, &p[k], &opt[k]));
            ct_status st = ct_optim_load_torch_state_group(opt[k], a, "optimizer", k);
            CHECK_MSG(st == CT_OK, "group %d: %s", k, ct_ctx_last_error(ctx));
        }
        double lr1 = 0;
        CHECK_OK(ct_tensor_to_host(ct_optim_lr(opt[1]), &lr1, sizeof lr1));
        CHECK(lr1 == 0.02);
        for (int s = OTS_K; s < 2 * OTS_K; s++) {
            CHECK_OK(ct_tensor_from_host(ctx, ots_grads[s], CT_FLOAT32, 2, sh0, &g[0]));
            CHECK_OK(ct_tensor_from_host(ctx, ots_grads[s] + 12, CT_FLOAT32, 1, sh1, &g[1]));
            CHECK_OK(ct_optim_step(opt[0], &g[0]));
            CHECK_OK(ct_optim_step(opt[1], &g[1]));
            ct_tensor_release(g[0]);
            ct_tensor_release(g[1]);
        }
        float out[17];
        CHECK_OK(ct_tensor_to_host(p[0], out, 12 * 4));
        CHECK_OK(ct_tensor_to_host(p[1], out + 12, 5 * 4));
        for (int i = 0; i < 17; i++)
            CHECK_MSG(ct_t_close(out[i], ots_groups_after[i], 1e-5, 1e-7),
                      "impl %d el %d: %.9g, torch %.9g", impl, i, (double)out[i],
                      (double)ots_groups_after[i]);
        /* the one-group loader names the other entry point; a missing group is refused */
        CHECK_ST(ct_optim_load_torch_state(opt[0], a, "optimizer"), CT_ERR_INVALID_ARG);
        CHECK(strstr(ct_ctx_last_error(ctx), "ct_optim_load_torch_state_group") != NULL);
        CHECK_ST(ct_optim_load_torch_state_group(opt[0], a, "optimizer", 2), CT_ERR_INDEX);
        CHECK_ST(ct_optim_load_torch_state_group(opt[0], a, "optimizer", -1), CT_ERR_INVALID_ARG);
        /* group 1's weight decay is 0: an optimizer with decay on is structurally different */
        ct_optim_options o = ct_optim_options_default(CT_OPTIM_ADAMW);
        ct_optim *wrong = NULL;
        CHECK_OK(ct_optim_create(ctx, &o, 1, &p[1], &wrong));
        CHECK_ST(ct_optim_load_torch_state_group(wrong, a, "optimizer", 1), CT_ERR_INVALID_ARG);
        ct_optim_free(wrong);
        ct_optim_free(opt[0]), ct_optim_free(opt[1]);
        ct_tensor_release(p[0]), ct_tensor_release(p[1]);
    }
    ct_archive_free(a);
}

/* Without the load the continuation differs (the test can fail): a fresh optimizer from the
 * saved parameters misses the momentum. */
TEST(fresh_state_differs) {
    const ots_case *c = &ots_cases[0];
    ct_tensor *p[2], *g[2];
    make_params(c->saved, p);
    ct_optim_options o = options_for(c, 0);
    o.lr = 0.05;
    ct_optim *opt = NULL;
    CHECK_OK(ct_optim_create(ctx, &o, 2, p, &opt));
    for (int s = OTS_K; s < 2 * OTS_K; s++) {
        CHECK_OK(ct_tensor_from_host(ctx, ots_grads[s], CT_FLOAT32, 2, sh0, &g[0]));
        CHECK_OK(ct_tensor_from_host(ctx, ots_grads[s] + 12, CT_FLOAT32, 1, sh1, &g[1]));
        CHECK_OK(ct_optim_step(opt, g));
        ct_tensor_release(g[0]);
        ct_tensor_release(g[1]);
    }
    float out[12];
    CHECK_OK(ct_tensor_to_host(p[0], out, sizeof out));
    int far = 0;
    for (int i = 0; i < 12; i++)
        far += !ct_t_close(out[i], c->after[i], 1e-3, 0);
    CHECK(far > 6);
    ct_optim_free(opt);
    ct_tensor_release(p[0]);
    ct_tensor_release(p[1]);
}

TEST(refusals_change_nothing) {
    const ots_case *adam = NULL;
    for (size_t i = 0; i < sizeof ots_cases / sizeof ots_cases[0]; i++)
        if (ots_cases[i].kind == CT_OPTIM_ADAM) adam = &ots_cases[i];
    CHECK(adam != NULL);
    ct_archive *a = NULL;
    CHECK_OK(ct_torch_load_buffer(ctx, adam->file, adam->size, &a));
    ct_tensor *p[2];
    make_params(adam->saved, p);
    /* amsgrad off here, on in the file */
    ct_optim_options o = options_for(adam, 0);
    o.amsgrad = false;
    ct_optim *opt = NULL;
    CHECK_OK(ct_optim_create(ctx, &o, 2, p, &opt));
    CHECK_ST(ct_optim_load_torch_state(opt, a, "optimizer"), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "amsgrad") != NULL);
    double lr = 0;
    CHECK_OK(ct_tensor_to_host(ct_optim_lr(opt), &lr, sizeof lr));
    CHECK(lr == 123.0);
    int64_t cnt = -1;
    CHECK_OK(ct_optim_step_count(opt, 0, &cnt));
    CHECK(cnt == 0);
    ct_optim_free(opt);
    /* the wrong prefix / kind / parameter count / shape */
    o = options_for(adam, 0);
    CHECK_OK(ct_optim_create(ctx, &o, 2, p, &opt));
    CHECK_ST(ct_optim_load_torch_state(opt, a, NULL), CT_ERR_INDEX);
    CHECK(strstr(ct_ctx_last_error(ctx), "not an optimizer state_dict") != NULL);
    CHECK_ST(ct_optim_load_torch_state(opt, a, "model"), CT_ERR_INDEX);
    ct_optim_free(opt);
    ct_optim_options ad = ct_optim_options_default(CT_OPTIM_ADADELTA);
    CHECK_OK(ct_optim_create(ctx, &ad, 2, p, &opt));
    CHECK_ST(ct_optim_load_torch_state(opt, a, "optimizer"), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "lacks 'rho'") != NULL);
    ct_optim_free(opt);
    CHECK_OK(ct_optim_create(ctx, &o, 1, p, &opt));
    CHECK_ST(ct_optim_load_torch_state(opt, a, "optimizer"), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "doesn't match the size") != NULL);
    ct_optim_free(opt);
    ct_tensor *sw[2] = {p[1], p[0]};
    CHECK_OK(ct_optim_create(ctx, &o, 2, sw, &opt));
    CHECK_ST(ct_optim_load_torch_state(opt, a, "optimizer"), CT_ERR_SHAPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "needs a floating tensor of shape [5]") != NULL);
    CHECK_ST(ct_optim_load_torch_state(opt, NULL, NULL), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_optim_load_torch_state(NULL, a, NULL), CT_ERR_INVALID_ARG);
    ct_optim_free(opt);
    ct_archive_free(a);
    ct_tensor_release(p[0]);
    ct_tensor_release(p[1]);
}

/* Hand-edited states: a repeated parameter id (torch: the last parameter holding it gets the
 * state, the first restarts), an int64 buffer (cast as torch casts), a buffer without its step
 * (torch's KeyError: refused, nothing changes). */
TEST(edited_states_as_torch) {
    const int64_t n5 = 5;
    float a0[5], b0[5], half[5];
    for (int i = 0; i < 5; i++) {
        a0[i] = -1.0f + 0.5f * (float)i;
        b0[i] = 0.5f * (float)i;
        half[i] = 0.5f;
    }
    const unsigned char *files[3] = {ots_edit_dup, ots_edit_int, ots_edit_nostep};
    const size_t sizes[3] = {sizeof ots_edit_dup, sizeof ots_edit_int, sizeof ots_edit_nostep};
    for (int k = 0; k < 3; k++) {
        ct_archive *a = NULL;
        CHECK_OK(ct_torch_load_buffer(ctx, files[k], sizes[k], &a));
        ct_tensor *p[2], *g[2];
        CHECK_OK(ct_tensor_from_host(ctx, a0, CT_FLOAT32, 1, &n5, &p[0]));
        CHECK_OK(ct_tensor_from_host(ctx, b0, CT_FLOAT32, 1, &n5, &p[1]));
        CHECK_OK(ct_tensor_from_host(ctx, half, CT_FLOAT32, 1, &n5, &g[0]));
        CHECK_OK(ct_tensor_from_host(ctx, half, CT_FLOAT32, 1, &n5, &g[1]));
        ct_optim_options o = ct_optim_options_default(CT_OPTIM_ADAM);
        o.lr = 0.1;
        ct_optim *opt = NULL;
        CHECK_OK(ct_optim_create(ctx, &o, 2, p, &opt));
        ct_status st = ct_optim_load_torch_state(opt, a, NULL);
        if (k == 2) {
            CHECK_ST(st, CT_ERR_FORMAT);
            CHECK(strstr(ct_ctx_last_error(ctx), "state.1.step is missing") != NULL);
        } else {
            CHECK_MSG(st == CT_OK, "edit %d: %s", k, ct_ctx_last_error(ctx));
        }
        if (k == 0) {
            int64_t c0 = -1, c1 = -1;
            CHECK_OK(ct_optim_step_count(opt, 0, &c0));
            CHECK_OK(ct_optim_step_count(opt, 1, &c1));
            CHECK(c0 == 0 && c1 == 1);
            CHECK_OK(ct_optim_step(opt, g));
            float out[10];
            CHECK_OK(ct_tensor_to_host(p[0], out, 20));
            CHECK_OK(ct_tensor_to_host(p[1], out + 5, 20));
            for (int i = 0; i < 10; i++)
                CHECK_MSG(ct_t_close(out[i], ots_dup_after[i], 1e-5, 1e-7),
                          "el %d: %.9g torch %.9g", i, (double)out[i], (double)ots_dup_after[i]);
        }
        ct_optim_free(opt);
        for (int i = 0; i < 2; i++) {
            ct_tensor_release(p[i]);
            ct_tensor_release(g[i]);
        }
        ct_archive_free(a);
    }
}

int main(void) {
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    RUN(resume_torch_states);
    RUN(resume_parameter_groups);
    RUN(fresh_state_differs);
    RUN(refusals_change_nothing);
    RUN(edited_states_as_torch);
    ct_ctx_free(ctx);
    return ct_test_end();
}
