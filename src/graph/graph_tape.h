/* Internal: the device-agnostic record of a capture (the "tape"), kept by the graph front end next
 * to the backend's own node tree, so that program export can walk any captured graph: its op
 * descriptors in submission order, and the structure of captured cond and while_loop. */
#ifndef CTORCH_GRAPH_TAPE_H
#define CTORCH_GRAPH_TAPE_H

#include "ctorch/graph.h"

/* Entry kinds. A cond is COND(pred) [true branch] BRANCH [false branch] COND_END; a loop is
 * LOOP [condition] LOOP_BODY(pred) [body] LOOP_END. */
enum {
    CT__TAPE_OP,
    CT__TAPE_COND,
    CT__TAPE_ELSE,
    CT__TAPE_COND_END,
    CT__TAPE_LOOP,
    CT__TAPE_LOOP_BODY,
    CT__TAPE_LOOP_END
};

typedef struct ct__tape_entry {
    int kind;
    ct_op_desc op; /* CT__TAPE_OP: the descriptor; COND / LOOP_BODY: operands[0] is the predicate */
} ct__tape_entry;

/* The tape of a graph holding a successful capture (captured or instantiated): *n entries, and the
 * tensors the capture kept alive (every operand's tensor, the predicates). CT_ERR_STATE (with a
 * message on the graph's context) when the graph holds no valid capture. */
ct_status ct__graph_tape(const ct_graph *g, const ct__tape_entry **entries, int64_t *n,
                         ct_tensor *const **kept, int64_t *nkept);
/* The context and device of a graph. */
ct_ctx *ct__graph_ctx(const ct_graph *g);
ct_device ct__graph_device(const ct_graph *g);

#endif
