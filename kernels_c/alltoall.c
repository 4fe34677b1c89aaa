/*
 * alltoall.c -- the library's MPI_Alltoall timed OSU-style (osu_alltoall: --sizes is the block
 * each rank sends to each other rank), with the library's algorithm chosen through the
 * environment ("library:ID") and read back through MPI_T.
 *
 * Every size is checked: after the call, block s of rank d's buffer must hold the pattern rank
 * s wrote for d, computed independently of any MPI call.
 */
#include "collectives_algos.h"

typedef struct {
    char *sbuf, *rbuf;
} a2astate;

static const cb_optspec CB_OPTIONS[] = {
    {"sizes", "1:64K", "bytes each rank sends to each rank: MIN:MAX (doubling) or a list a,b,c"},
    {"algorithm", "library", "library or library:ID (the library's algorithm, forced)"},
    {"iterations", "200", "calls per repetition for small messages (fewer for large)"},
    {"repetitions", "5", "timed repetitions per size and algorithm"},
    {"trace", "0", "1: print each hand-written algorithm's messages (# trace: lines)"},
    {"monitor", "0", "1: print the messages the library counted (Open MPI pml monitoring)"},
    {"inject-error", "0", "testing only: 1 corrupts one result to prove the check fails"},
    {NULL, NULL, NULL}};

/* No hand-written alltoall: the models are in commbook.models.collective_schedules. */
static const cc_algo ALGOS[] = {{NULL, NULL}};

/* The byte j of the block rank `from` sends to rank `to`. */
static unsigned char pattern(int from, int to, long long j, long long size)
{
    return (unsigned char)((from * 41 + to * 13 + j * 7 + size * 3 + 1) & 0xff);
}

static void call(cb_ctx *ctx, void *s, int alg, long long size, cc_trace *tr)
{
    a2astate *st = s;
    (void)alg;
    (void)tr;
    MPI_Alltoall(st->sbuf, (int)size, MPI_CHAR, st->rbuf, (int)size, MPI_CHAR, ctx->comm);
}

static int check(cb_ctx *ctx, void *s, int alg, long long size, int inject, char *why, size_t cap)
{
    a2astate *st = s;
    size_t total = (size_t)size * (size_t)ctx->size;
    for (size_t k = 0; k < total; k++)
        st->sbuf[k] = (char)pattern(ctx->rank, (int)(k / (size_t)size), (long long)(k % (size_t)size), size);
    memset(st->rbuf, 0xee, total);
    call(ctx, s, alg, size, NULL);
    if (inject && total && ctx->rank == 0) st->rbuf[total - 1] ^= 0x5a;
    for (size_t k = 0; k < total; k++) {
        int from = (int)(k / (size_t)size);
        unsigned char want = pattern(from, ctx->rank, (long long)(k % (size_t)size), size);
        if ((unsigned char)st->rbuf[k] != want) {
            snprintf(why, cap, "byte %zu (block from rank %d) is %d, rank %d sent %d", k, from,
                     (unsigned char)st->rbuf[k], from, want);
            return 0;
        }
    }
    return 1;
}

static int cb_kernel(MPI_Comm comm, cb_ctx *ctx)
{
    (void)comm;
    cc_bench b;
    if (cb_parse(ctx, "alltoall", CB_OPTIONS) ||
        cc_parse_bench(ctx, CB_OPTIONS, "alltoall", ALGOS, 1, &b))
        return CB_BAD_OPTIONS;
    if (b.smax * ctx->size > INT32_MAX) {
        cb_printf(ctx, "# result: ERROR: %lld bytes to each of %d ranks exceeds the 2 GiB an "
                  "MPI count can address\n", b.smax, ctx->size);
        return CB_BAD_OPTIONS;
    }
    a2astate st = {NULL, NULL};
    b.state = &st;
    b.call = call;
    b.check = check;
    cb_header(ctx, "alltoall");
    cc_print_header(ctx, &b, ALGOS, 0);
    size_t total = (size_t)b.smax * (size_t)ctx->size + 1;
    st.sbuf = cb_alloc(total, 0);
    st.rbuf = cb_alloc(total, 0);
    int rc = cb_all_allocated(ctx, st.sbuf && st.rbuf, "the buffers for %lld bytes per pair", b.smax)
                 ? cc_run(ctx, &b) : CB_BAD_OPTIONS;
    free(st.sbuf);
    free(st.rbuf);
    return rc;
}
