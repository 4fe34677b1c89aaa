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

static const cb_optspec CB_OPTIONS[] = {
    {"sizes", "8:64K", "whole vector in bytes, multiples of 8 (doubles): MIN:MAX or a,b,c"},
    {"algorithm", "library", "library or library:ID (the library's algorithm, forced)"},
    CC_BENCH_OPTIONS,
    {NULL, NULL, NULL}};

/* Rank i's share of `count` elements: count / P, the first count % P ranks one more. */
static void split(int *counts, long long count, int P)
{
    for (int i = 0; i < P; i++) counts[i] = (int)(count / P + (i < count % P));
}

static void call(cb_ctx *ctx, cc_lstate *st, long long size)
{
    split(st->counts, size / 8, ctx->size);
    MPI_Reduce_scatter(st->sbuf, st->rbuf, st->counts, MPI_DOUBLE, MPI_SUM, ctx->comm);
}

static int check(cb_ctx *ctx, cc_lstate *st, long long size, int inject, char *why, size_t cap)
{
    double *sbuf = st->sbuf, *rbuf = st->rbuf;
    long long count = size / 8;
    for (long long i = 0; i < count; i++) sbuf[i] = cc_avalue(ctx->rank, i);
    for (long long i = 0; i < count / ctx->size + 1; i++) rbuf[i] = -1.0;
    call(ctx, st, size);
    long long first = 0;
    for (int r = 0; r < ctx->rank; r++) first += st->counts[r];
    int mine = st->counts[ctx->rank];
    if (inject && mine) rbuf[mine - 1] += 1.0;
    for (int i = 0; i < mine; i++) {
        double want = 0.0;
        for (int r = 0; r < ctx->size; r++) want += cc_avalue(r, first + i);
        if (rbuf[i] != want) {
            snprintf(why, cap, "element %lld of the vector is %.17g, the sum over ranks is %.17g",
                     first + i, rbuf[i], want);
            return 0;
        }
    }
    return 1;
}

static int cb_kernel(MPI_Comm comm, cb_ctx *ctx)
{
    (void)comm;
    return cc_library_main(ctx, "reduce_scatter", CB_OPTIONS, CC_REDUCE, call, check);
}
