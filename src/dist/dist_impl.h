/* Private structures of the distributed layer: the process group, the shared-memory control block
 * every rank of a node-local group publishes (arrival counter, call descriptor, splits, small
 * inline payloads), symmetric buffers, and the helpers shared by dist.c, symm.c and reduce.c. */
#ifndef CTORCH_DIST_IMPL_H
#define CTORCH_DIST_IMPL_H

#include "core/internal.h"
#include "ctorch/dist.h"

#include <mpi.h>
#include <stdatomic.h>
#include <sys/types.h>

/* Call kinds (the descriptor's op): ranks calling different collectives is an error. */
enum {
    CT__D_BARRIER = 1,
    CT__D_BCAST,
    CT__D_ALLREDUCE,
    CT__D_ALLGATHER,
    CT__D_REDSCAT,
    CT__D_A2A,
    CT__D_A2AV,
    CT__D_A2AV2D,
    CT__D_COMBINE,
    CT__D_SYMM_ALLOC,
    CT__D_SPLIT
};
/* Where a rank's source bytes are for the one-copy readers. */
enum { CT__SRC_NONE = 0, CT__SRC_INLINE, CT__SRC_ADDR, CT__SRC_SYMM, CT__SRC_PACKED };
/* INLINE and PACKED are both copies in the control block: PACKED payloads are small enough to
 * share the cache line of the small splits right after them, INLINE ones start on a line. */
static inline bool ct__src_inline(int kind) {
    return kind == CT__SRC_INLINE || kind == CT__SRC_PACKED;
}

/* What each rank says about its part of a call; every rank checks all of them identically. The
 * part every peer reads on every call (ct__dhot, one cache line) is apart from the rest (ct__dcold:
 * the full shape, a second parameter, the message), which peers read only for the 2-D calls and
 * to word an error. Shapes are compared exactly by their element count (all dims, or a row's) and
 * by a 32-bit hash of the dims (a collision could only hide a reshaped tensor of the same size). */
#define CT__DHOT_FIELDS                                                                            \
    int16_t op, status, dtype;                                                                     \
    int8_t ndim;                                                                                   \
    int8_t kind;  /* CT__SRC_* of this rank's source */                                            \
    int8_t dkind; /* broadcast receivers: where their output is (addr / off describe it) */        \
    int8_t mode;  /* SHAPE_* the op compares */                                                    \
    int16_t pad16;                                                                                 \
    int32_t pid;         /* for CT__SRC_ADDR */                                                    \
    int32_t nsplits;     /* int64 values this rank contributes to the splits exchange */           \
    uint32_t shape_hash; /* of the compared dims */                                                \
    uint64_t addr;       /* CT__SRC_ADDR: address in that process; CT__SRC_SYMM: buffer id */      \
    uint64_t off;        /* CT__SRC_SYMM: byte offset in the buffer */                             \
    int64_t p0;          /* the op parameter that must agree (root, reduce op, experts, size) */   \
    int64_t numel;       /* elements of the compared dims */                                       \
    int64_t q0;          /* a per-rank value (output rows of the 2-D calls) */
#define CT__DCOLD_FIELDS                                                                           \
    int64_t p1; /* a second parameter that must agree (major_align) */                             \
    int64_t shape[CT_MAX_DIMS];                                                                    \
    char msg[128]; /* the local failure, when status != 0 */
typedef struct ct__dhot {
    CT__DHOT_FIELDS
} ct__dhot;
_Static_assert(sizeof(ct__dhot) == 64, "the descriptor's hot part is one cache line");
typedef struct ct__dcold {
    CT__DCOLD_FIELDS
} ct__dcold;
typedef struct ct__ddesc {
    union {
        ct__dhot h;
        struct {
            CT__DHOT_FIELDS
        };
    };
    union {
        ct__dcold c;
        struct {
            CT__DCOLD_FIELDS
        };
    };
} ct__ddesc;

#define CT__SHM_SPLITS 8192         /* int64 split values per rank in the control block */
#define CT__SHM_INLINE (256u << 10) /* bytes of inline payload per rank */
#define CT__SHM_MAGIC 0x63746f7263684430ull

/* One half of a rank's double buffer: what a small call's readers touch (descriptor, a few
 * splits, the payload's first bytes) is contiguous. */
#define CT__SHM_SPLITS_SMALL 8
typedef struct ct__shm_slot {
    _Alignas(64) ct__dhot desc;
    /* up to CT__SHM_SPLITS_SMALL split values, then the inline payload right after them (at
     * ct__shm_poff), so a small call's splits and payload share a cache line */
    _Alignas(64) unsigned char inline_data[CT__SHM_SPLITS_SMALL * 8 + CT__SHM_INLINE];
    _Alignas(64) int64_t splits[CT__SHM_SPLITS];
    ct__dcold cold;
} ct__shm_slot;
/* Where a rank's inline payload starts in its slot's inline_data (after its small splits:
 * right after them when packed, else on the next line). */
static inline size_t ct__shm_poff(int kind, int32_t nsplits) {
    if (nsplits <= 0 || nsplits > CT__SHM_SPLITS_SMALL) return 0;
    return kind == CT__SRC_PACKED ? (size_t)nsplits * 8 : CT__SHM_SPLITS_SMALL * 8;
}

typedef struct ct__shm_ctrl {
    _Alignas(64) _Atomic uint64_t arrive; /* number of syncs this rank has reached */
    _Alignas(64) uint64_t magic;
    uint64_t self_addr; /* this block's address in its owner's address space (probe) */
    int32_t pid;
    /* double-buffered by the parity of the arrival count at the start of a call */
    ct__shm_slot slot[2];
} ct__shm_ctrl;

struct ct_symm_buf {
    ct_dist *g;
    uint64_t id; /* same on every rank (creation order in the group) */
    MPI_Win win;
    bool shared;           /* MPI_Win_allocate_shared (peers mapped) or RMA */
    size_t nbytes, stride; /* user bytes; bytes per rank incl. the signal slots */
    size_t pad;            /* from the window's start to the 64-byte aligned part */
    unsigned char *local;
    unsigned char **peer; /* shared: every rank's part; else NULL */
    struct ct_symm_buf *next;
};

struct ct_dist {
    ct_ctx *ctx;
    MPI_Comm comm;
    int rank, size;
    bool world, finalize, broken;
    double timeout_s;
    bool node_local, shm, cma;
    MPI_Win ctrl_win;
    ct__shm_ctrl **ctrl; /* every rank's control block (shm groups) */
    uint64_t epoch;
    uint64_t symm_next;
    ct_symm_buf *symm;
    MPI_Op half_ops[2][4]; /* f16 / bf16 x sum, max, min, prod */
    MPI_Op bool_ops[2];    /* or, and */
    unsigned char *tmp;    /* CT__TMP_BYTES of scratch for chunked reductions */
    /* every rank's descriptor parts and splits of the call in progress (size entries each; the
     * MPI path's gathered descriptors in xbuf), allocated with the group */
    const struct ct__dhot **xD;
    const struct ct__dcold **xC;
    const int64_t **xSP;
    struct ct__ddesc *xbuf;
};
#define CT__TMP_BYTES (256u << 10)

/* ---- dist.c ---- */
/* Poll ready(g, arg, who) (spinning, then yielding the core: ranks may share cores) until it
 * says true, or false once the group's timeout has passed (*who: whom it waited for, if known). */
typedef bool (*ct__dist_ready_fn)(ct_dist *g, void *arg, int *who);
bool ct__dist_wait_for(ct_dist *g, ct__dist_ready_fn ready, void *arg, int *who);
/* Wait (polling, with the group's deadline) until every peer reached this rank's next sync. */
ct_status ct__dist_sync(ct_dist *g, const char *what);
ct_status ct__dist_mpi_wait(ct_dist *g, int n, MPI_Request *reqs, const char *what);
/* Symmetric buffer of g holding [p, p + n) of this rank's part, or NULL; *off its offset. */
ct_symm_buf *ct__symm_find(const ct_dist *g, const void *p, size_t n, size_t *off);
ct_symm_buf *ct__symm_by_id(const ct_dist *g, uint64_t id);
/* The agreement step of a collective allocation: nbytes equal on every rank (same verdict). */
ct_status ct__dist_agree_size(ct_dist *g, size_t nbytes, const char *what);

/* ---- reduce.c ---- */
bool ct__dist_reducible(ct_dtype dt, ct_reduce_op op);
/* dst[i] = dst[i] op src[i] for n elements of dt (AVG accumulates as SUM). */
void ct__dist_reduce(void *dst, const void *src, size_t n, ct_dtype dt, ct_reduce_op op);
/* Divide n elements by k (AVG's final step; floating dtypes). */
void ct__dist_scale(void *dst, size_t n, ct_dtype dt, double k);
MPI_Datatype ct__dist_mpi_type(ct_dtype dt);
/* The MPI op for (dt, op) (SUM for AVG); g's user ops for f16 / bf16. */
MPI_Op ct__dist_mpi_op(ct_dist *g, ct_dtype dt, ct_reduce_op op);
ct_status ct__dist_ops_create(ct_dist *g);
void ct__dist_ops_free(ct_dist *g);

#endif
