/*
 * alltoall.c -- the library's MPI_Alltoall timed OSU-style (osu_alltoall: --sizes is the block
 * each rank sends to each other rank), with the library's algorithm chosen through the
 * environment ("library:ID") and read back through MPI_T.
 *
 * Every size is checked: after the call, block s of rank d's buffer must hold the pattern rank
 * s wrote for d, computed independently of any MPI call.
 */
#include "collectives_algos.h"

static const cb_optspec CB_OPTIONS[] = {
    {"sizes", "1:64K", "bytes each rank sends to each rank: MIN:MAX (doubling) or a list a,b,c"},
    {"algorithm", "library", "library or library:ID (the library's algorithm, forced)"},
    CC_BENCH_OPTIONS,
    {NULL, NULL, NULL}};

/* Byte j of the block rank `from` sends to rank `to`. */
static unsigned char pattern(int from, int to, long long j, long long size)
{
    return (unsigned char)((from * 41 + to * 13 + j * 7 + size * 3 + 1) & 0xff);
}

static void call(cb_ctx *ctx, cc_lstate *st, long long size)
{
    MPI_Alltoall(st->sbuf, (int)size, MPI_CHAR, st->rbuf, (int)size, MPI_CHAR, ctx->comm);
}

/* A block for each rank; rank 0 corrupts its result when asked. */
static int check(cb_ctx *ctx, cc_lstate *st, long long size, int inject, char *why, size_t cap)
{
    unsigned char *sbuf = st->sbuf;
    for (int to = 0; to < ctx->size; to++)
        for (long long j = 0; j < size; j++) sbuf[to * size + j] = pattern(ctx->rank, to, j, size);
    return cc_check_blocks(ctx, st, size, inject ? 0 : -1, pattern, "from", why, cap);
}

static int cb_kernel(MPI_Comm comm, cb_ctx *ctx)
{
    (void)comm;
    return cc_library_main(ctx, "alltoall", CB_OPTIONS, CC_EACH_TO_EACH, call, check);
}
