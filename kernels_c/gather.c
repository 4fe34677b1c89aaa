/*
 * gather.c -- gather by hand (linear, binomial tree) and the library's MPI_Gather, timed side
 * by side (osu_gather style: --sizes is the block each rank contributes; the root receives
 * P times that).
 *
 * Every algorithm is checked at every size: the root's buffer must equal what MPI_Gather
 * returns for the same inputs.
 */
#include "collectives_algos.h"

static const cb_optspec CB_OPTIONS[] = {
    {"sizes", "0:256K", "bytes each rank contributes: MIN:MAX (doubling) or a list a,b,c"},
    {"algorithm", "linear,binomial,library", "comma list of: linear binomial library library:ID"},
    {"root", "0", "rank that gathers"},
    {"iterations", "200", "calls per repetition for small messages (fewer for large)"},
    {"repetitions", "5", "timed repetitions per size and algorithm"},
    {"trace", "0", "1: print each hand-written algorithm's messages (# trace: lines)"},
    {"monitor", "0", "1: print the messages the library counted (Open MPI pml monitoring)"},
    {"inject-error", "0", "testing only: 1 corrupts one result to prove the check fails"},
    {NULL, NULL, NULL}};

static const cc_algo ALGOS[] = {
    {"linear", "every rank sends its block to the root, which receives them in rank order"},
    {"binomial", "binomial tree: in step s ranks with lowest bit 2^(s-1) send all they hold"},
    {NULL, NULL}};

typedef struct {
    cb_ctx *ctx;
    cc_choice *choice;
    char *sbuf, *rbuf, *tmp, *ref;
    int root;
} gstate;

static unsigned char pattern(int rank, long long j, long long size)
{
    return (unsigned char)((rank * 31 + j * 7 + size * 3 + 5) & 0xff);
}

static void call(void *s, int a, long long size, cc_trace *tr)
{
    gstate *st = s;
    int n = (int)size;
    MPI_Comm comm = st->ctx->comm;
    switch (st->choice->index[a]) {
    case 0: cc_gather_linear(st->sbuf, st->rbuf, n, st->root, comm, tr); break;
    case 1: cc_gather_binomial(st->sbuf, st->rbuf, st->tmp, n, st->root, comm, tr); break;
    default: MPI_Gather(st->sbuf, n, MPI_CHAR, st->rbuf, n, MPI_CHAR, st->root, comm); break;
    }
}

static int check(void *s, int a, long long size, int inject, char *why, size_t cap)
{
    gstate *st = s;
    cb_ctx *ctx = st->ctx;
    size_t total = (size_t)size * (size_t)ctx->size;
    for (long long j = 0; j < size; j++) st->sbuf[j] = (char)pattern(ctx->rank, j, size);
    if (ctx->rank == st->root) {
        memset(st->rbuf, 0xee, total);
        memset(st->ref, 0x11, total);
    }
    MPI_Gather(st->sbuf, (int)size, MPI_CHAR, st->ref, (int)size, MPI_CHAR, st->root, ctx->comm);
    call(s, a, size, NULL);
    if (ctx->rank != st->root) return 1; /* only the root holds a result */
    if (inject && total) st->rbuf[total - 1] ^= 0x5a;
    for (size_t k = 0; k < total; k++)
        if (st->rbuf[k] != st->ref[k]) {
            snprintf(why, cap, "byte %zu of the root's buffer (block of rank %lld) is %d, "
                     "MPI_Gather gives %d", k, (long long)(k / (size_t)size),
                     (unsigned char)st->rbuf[k], (unsigned char)st->ref[k]);
            return 0;
        }
    return 1;
}

static int cb_kernel(MPI_Comm comm, cb_ctx *ctx)
{
    (void)comm;
    if (cb_parse(ctx, "gather", CB_OPTIONS)) return CB_BAD_OPTIONS;
    long long sizes[CC_MAX_SIZES], root, iters, reps, trace, monitor, inject;
    int nsizes;
    cc_choice choice;
    if (cc_parse_sizes(ctx, CB_OPTIONS, 1, sizes, &nsizes) ||
        cc_parse_algorithms(ctx, CB_OPTIONS, "gather", ALGOS, &choice) ||
        cb_opt_int(ctx, CB_OPTIONS, "root", 0, ctx->size - 1, &root) ||
        cb_opt_int(ctx, CB_OPTIONS, "iterations", 1, 100000000, &iters) ||
        cb_opt_int(ctx, CB_OPTIONS, "repetitions", 1, 1000, &reps) ||
        cb_opt_int(ctx, CB_OPTIONS, "trace", 0, 1, &trace) ||
        cb_opt_int(ctx, CB_OPTIONS, "monitor", 0, 1, &monitor) ||
        cb_opt_int(ctx, CB_OPTIONS, "inject-error", 0, 1, &inject))
        return CB_BAD_OPTIONS;
    long long smax = 0;
    for (int i = 0; i < nsizes; i++) smax = sizes[i] > smax ? sizes[i] : smax;
    if (smax * ctx->size > INT32_MAX) {
        cb_printf(ctx, "# result: ERROR: %lld bytes from each of %d ranks exceeds the 2 GiB an "
                  "MPI count can address\n", smax, ctx->size);
        return CB_BAD_OPTIONS;
    }

    gstate st = {ctx, &choice, NULL, NULL, NULL, NULL, (int)root};
    cc_bench b = {"gather", &choice, sizes, nsizes, iters, reps, (int)trace, (int)monitor,
                  (int)inject, &st, call, check};
    cb_header(ctx, "gather");
    cc_print_header(ctx, &b, ALGOS, (int)root);
    int vr = (ctx->rank - (int)root + ctx->size) % ctx->size;
    size_t total = (size_t)smax * (size_t)ctx->size;
    st.sbuf = cb_alloc((size_t)smax + 1, 0);
    /* only the root needs P blocks; a binomial subtree needs its own blocks */
    st.rbuf = cb_alloc(ctx->rank == (int)root ? total + 1 : 1, 0);
    st.ref = cb_alloc(ctx->rank == (int)root ? total + 1 : 1, 0);
    st.tmp = cb_alloc((size_t)cc_subtree_blocks(vr, ctx->size) * (size_t)smax + 1, 0);
    int rc;
    if (!cb_all_ok(ctx, st.sbuf && st.rbuf && st.ref && st.tmp)) {
        cb_printf(ctx, "# result: ERROR: cannot allocate the buffers for %lld bytes per rank\n", smax);
        rc = CB_BAD_OPTIONS;
    } else {
        rc = cc_run(ctx, &b);
    }
    free(st.sbuf);
    free(st.rbuf);
    free(st.ref);
    free(st.tmp);
    return rc;
}
