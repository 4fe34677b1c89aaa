/*
 * reduce_scatter.c -- the library's MPI_Reduce_scatter timed OSU-style (osu_reduce_scatter:
 * --sizes is the whole vector of doubles; rank i gets the sum of block i, the vector cut into P
 * blocks as evenly as possible), with the library's algorithm chosen through the environment
 * ("library:ID") and read back through MPI_T.
 *
 * Every size is checked: each rank's block must equal the sum over ranks of the whole numbers
 * they sent (exact in any order of summation), computed independently of any MPI call.
 */
#include "collectives_algos.h"

typedef struct {
    double *sbuf, *rbuf;
    int *counts;
} rsstate;

static const cb_optspec CB_OPTIONS[] = {
    {"sizes", "8:64K", "whole vector in bytes, multiples of 8 (doubles): MIN:MAX or a,b,c"},
    {"algorithm", "library", "library or library:ID (the library's algorithm, forced)"},
    {"iterations", "200", "calls per repetition for small vectors (fewer for large)"},
    {"repetitions", "5", "timed repetitions per size and algorithm"},
    {"trace", "0", "1: print each hand-written algorithm's messages (# trace: lines)"},
    {"monitor", "0", "1: print the messages the library counted (Open MPI pml monitoring)"},
    {"inject-error", "0", "testing only: 1 corrupts one result to prove the check fails"},
    {NULL, NULL, NULL}};

/* No hand-written reduce-scatter: the models are in commbook.models.collective_schedules. */
static const cc_algo ALGOS[] = {{NULL, NULL}};

/* Rank i's share of `count` elements: count / P, the first count % P ranks one more. */
static void split(int *counts, long long count, int P)
{
    for (int i = 0; i < P; i++) counts[i] = (int)(count / P + (i < count % P));
}

static void call(cb_ctx *ctx, void *s, int alg, long long size, cc_trace *tr)
{
    rsstate *st = s;
    (void)alg;
    (void)tr;
    split(st->counts, size / 8, ctx->size);
    MPI_Reduce_scatter(st->sbuf, st->rbuf, st->counts, MPI_DOUBLE, MPI_SUM, ctx->comm);
}

static int check(cb_ctx *ctx, void *s, int alg, long long size, int inject, char *why, size_t cap)
{
    rsstate *st = s;
    long long count = size / 8;
    for (long long i = 0; i < count; i++) st->sbuf[i] = cc_avalue(ctx->rank, i);
    for (long long i = 0; i < count / ctx->size + 1; i++) st->rbuf[i] = -1.0;
    call(ctx, s, alg, size, NULL);
    long long first = 0;
    for (int r = 0; r < ctx->rank; r++) first += st->counts[r];
    int mine = st->counts[ctx->rank];
    if (inject && mine) st->rbuf[mine - 1] += 1.0;
    for (int i = 0; i < mine; i++) {
        double want = 0.0;
        for (int r = 0; r < ctx->size; r++) want += cc_avalue(r, first + i);
        if (st->rbuf[i] != want) {
            snprintf(why, cap, "element %lld of the vector is %.17g, the sum over ranks is %.17g",
                     first + i, st->rbuf[i], want);
            return 0;
        }
    }
    return 1;
}

static int cb_kernel(MPI_Comm comm, cb_ctx *ctx)
{
    (void)comm;
    cc_bench b;
    if (cb_parse(ctx, "reduce_scatter", CB_OPTIONS) ||
        cc_parse_bench(ctx, CB_OPTIONS, "reduce_scatter", ALGOS, 8, &b))
        return CB_BAD_OPTIONS;
    rsstate st = {NULL, NULL, NULL};
    b.state = &st;
    b.call = call;
    b.check = check;
    cb_header(ctx, "reduce_scatter");
    cc_print_header(ctx, &b, ALGOS, 0);
    cb_printf(ctx, "# operation: MPI_SUM of doubles holding whole numbers (exact in any order)\n");
    st.sbuf = cb_alloc((size_t)b.smax + 8, 0);
    st.rbuf = cb_alloc((size_t)b.smax + 8, 0);
    st.counts = malloc(sizeof(int) * (size_t)ctx->size);
    int rc = cb_all_allocated(ctx, st.sbuf && st.rbuf && st.counts, "two buffers of %lld bytes", b.smax)
                 ? cc_run(ctx, &b) : CB_BAD_OPTIONS;
    free(st.sbuf);
    free(st.rbuf);
    free(st.counts);
    return rc;
}
