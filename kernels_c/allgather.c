/*
 * allgather.c -- the library's MPI_Allgather timed OSU-style (osu_allgather: --sizes is the
 * block each rank contributes; every rank ends with P blocks), with the library's algorithm
 * chosen through the environment ("library:ID") and read back through MPI_T.
 *
 * Every size is checked: after the call, block k of every rank's buffer must hold the pattern
 * rank k wrote, computed independently of any MPI call.
 */
#include "collectives_algos.h"

static const cb_optspec CB_OPTIONS[] = {
    {"sizes", "1:64K", "bytes each rank contributes: MIN:MAX (doubling) or a list a,b,c"},
    {"algorithm", "library", "library or library:ID (the library's algorithm, forced)"},
    CC_BENCH_OPTIONS,
    {NULL, NULL, NULL}};

static void call(cb_ctx *ctx, cc_lstate *st, long long size)
{
    MPI_Allgather(st->sbuf, (int)size, MPI_CHAR, st->rbuf, (int)size, MPI_CHAR, ctx->comm);
}

/* Byte j of rank `from`'s block, the same for every rank `to`. */
static unsigned char pattern(int from, int to, long long j, long long size)
{
    (void)to;
    return (unsigned char)((from * 37 + j * 11 + size * 5 + 3) & 0xff);
}

/* One block to send; the last rank corrupts its result when asked. */
static int check(cb_ctx *ctx, cc_lstate *st, long long size, int inject, char *why, size_t cap)
{
    unsigned char *sbuf = st->sbuf;
    for (long long j = 0; j < size; j++) sbuf[j] = pattern(ctx->rank, 0, j, size);
    return cc_check_blocks(ctx, st, size, inject ? ctx->size - 1 : -1, pattern, "of", why, cap);
}

static int cb_kernel(MPI_Comm comm, cb_ctx *ctx)
{
    (void)comm;
    return cc_library_main(ctx, "allgather", CB_OPTIONS, CC_ONE_TO_ALL, call, check);
}
