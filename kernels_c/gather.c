/*
 * gather.c -- gather by hand (linear, binomial tree) and the library's MPI_Gather, timed side
 * by side (osu_gather style: --sizes is the block each rank contributes; the root receives
 * P times that).
 *
 * Every algorithm is checked at every size: the root's buffer must equal what MPI_Gather
 * returns for the same inputs.
 */
#include "collectives_algos.h"

/* What the algorithms and check() need besides the context. */
typedef struct {
    char *sbuf, *rbuf, *tmp, *ref;
    int root;
} gstate;

static const cb_optspec CB_OPTIONS[] = {
    {"sizes", "0:256K", "bytes each rank contributes: MIN:MAX (doubling) or a list a,b,c"},
    {"algorithm", "linear,binomial,library", "comma list of: linear binomial library library:ID"},
    {"root", "0", "rank that gathers"},
    CC_BENCH_OPTIONS,
    {NULL, NULL, NULL}};

static unsigned char pattern(int rank, long long j, long long size)
{
    return (unsigned char)((rank * 31 + j * 7 + size * 3 + 5) & 0xff);
}

/* Each algorithm on the kernel's buffers, as the table below calls it (cc_algo_fn). */
static void linear(cb_ctx *ctx, void *s, long long n, cc_trace *tr)
{ gstate *st = s; cc_gather_linear(st->sbuf, st->rbuf, (int)n, st->root, ctx->comm, tr); }
static void binomial(cb_ctx *ctx, void *s, long long n, cc_trace *tr)
{ gstate *st = s; cc_gather_binomial(st->sbuf, st->rbuf, st->tmp, (int)n, st->root, ctx->comm, tr); }
static void library(cb_ctx *ctx, void *s, long long n, cc_trace *tr)
{
    gstate *st = s;
    (void)tr; /* the library's sends are not ours to note */
    MPI_Gather(st->sbuf, (int)n, MPI_CHAR, st->rbuf, (int)n, MPI_CHAR, st->root, ctx->comm);
}

static int check(cb_ctx *ctx, void *s, cc_algo_fn run, long long size, int inject, char *why,
                 size_t cap)
{
    gstate *st = s;
    size_t total = (size_t)size * (size_t)ctx->size;
    for (long long j = 0; j < size; j++) st->sbuf[j] = (char)pattern(ctx->rank, j, size);
    if (ctx->rank == st->root) {
        memset(st->rbuf, 0xee, total);
        memset(st->ref, 0x11, total);
    }
    MPI_Gather(st->sbuf, (int)size, MPI_CHAR, st->ref, (int)size, MPI_CHAR, st->root, ctx->comm);
    run(ctx, s, size, NULL);
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

static const cc_algo ALGOS[] = {
    {"linear", "every rank sends its block to the root, which receives them in rank order", linear},
    {"binomial", "binomial tree: in step s ranks with lowest bit 2^(s-1) send all they hold", binomial},
    {NULL, NULL, NULL}};

static int cb_kernel(MPI_Comm comm, cb_ctx *ctx)
{
    (void)comm;
    long long root;
    cc_bench b;
    if (cb_parse(ctx, "gather", CB_OPTIONS) ||
        cc_parse_bench(ctx, CB_OPTIONS, "gather", ALGOS, library, 1, &b) ||
        cb_opt_int(ctx, CB_OPTIONS, "root", 0, ctx->size - 1, &root))
        return CB_BAD_OPTIONS;
    long long smax = b.smax;
    if (!cc_blocks_fit(ctx, smax, "from")) return CB_BAD_OPTIONS;

    gstate st = {NULL, NULL, NULL, NULL, (int)root};
    cc_begin(ctx, "gather", &b, (int)root, &st, check);
    int vr = (ctx->rank - (int)root + ctx->size) % ctx->size;
    size_t total = (size_t)smax * (size_t)ctx->size;
    st.sbuf = cb_alloc((size_t)smax + 1, 0);
    /* only the root needs P blocks; a binomial subtree needs its own blocks */
    st.rbuf = cb_alloc(ctx->rank == (int)root ? total + 1 : 1, 0);
    st.ref = cb_alloc(ctx->rank == (int)root ? total + 1 : 1, 0);
    st.tmp = cb_alloc((size_t)cc_subtree_blocks(vr, ctx->size) * (size_t)smax + 1, 0);
    int rc = cb_all_allocated(ctx, st.sbuf && st.rbuf && st.ref && st.tmp,
                              "the buffers for %lld bytes per rank", smax) ? cc_run(ctx, &b) : CB_BAD_OPTIONS;
    free(st.sbuf); free(st.rbuf); free(st.ref); free(st.tmp);
    return rc;
}
