/* Shared pieces of the ctorch CLI's source files. */
#ifndef CTORCH_TOOLS_CLI_H
#define CTORCH_TOOLS_CLI_H

#include "ctorch/ctorch.h"

/* Create a command's context; on failure print why and return 1 (main.c). */
int ct_cli_make_ctx(ct_ctx **ctx);
/* Print a failed call's reason (the context's message) and return 1 (main.c). */
int ct_cli_fail(ct_ctx *ctx, ct_status st, const char *what);
/* Program export commands (export_cmds.c): each returns the process exit status. */
int ct_cli_export_demo(int argc, char **argv);
int ct_cli_inspect(int argc, char **argv);
int ct_cli_run(int argc, char **argv);
int ct_cli_export_weights(int argc, char **argv);
/* Weight files (file_cmds.c): is path a checkpoint / .npz / safetensors / .npy (not a program);
 * `inspect` of such a file; `convert in out`. */
bool ct_cli_is_weight_file(const char *path);
int ct_cli_inspect_file(const char *path);
int ct_cli_convert(int argc, char **argv);
/* The export step of `ctorch demo`. */
ct_status ct_cli_demo_export(ct_ctx *ctx);

#endif
