/*
 * allgather.c -- the library's MPI_Allgather timed OSU-style (osu_allgather: --sizes is the
 * block each rank contributes; every rank ends with P blocks), with the library's algorithm
 * chosen through the environment ("library:ID") and read back through MPI_T.
 *
 * Every size is checked: after the call, block k of every rank's buffer must hold the pattern
 * rank k wrote, computed independently of any MPI call.
 */
#include "collectives_algos.h"

typedef struct {
    char *sbuf, *rbuf;
} agstate;

static const cb_optspec CB_OPTIONS[] = {
    {"sizes", "1:64K", "bytes each rank contributes: MIN:MAX (doubling) or a list a,b,c"},
    {"algorithm", "library", "library or library:ID (the library's algorithm, forced)"},
    {"iterations", "200", "calls per repetition for small messages (fewer for large)"},
    {"repetitions", "5", "timed repetitions per size and algorithm"},
    {"trace", "0", "1: print each hand-written algorithm's messages (# trace: lines)"},
    {"monitor", "0", "1: print the messages the library counted (Open MPI pml monitoring)"},
    {"inject-error", "0", "testing only: 1 corrupts one result to prove the check fails"},
    {NULL, NULL, NULL}};

/* No hand-written allgather: the models are in commbook.models.collective_schedules. */
static const cc_algo ALGOS[] = {{NULL, NULL}};

static unsigned char pattern(int rank, long long j, long long size)
{
    return (unsigned char)((rank * 37 + j * 11 + size * 5 + 3) & 0xff);
}

static void call(cb_ctx *ctx, void *s, int alg, long long size, cc_trace *tr)
{
    agstate *st = s;
    (void)alg;
    (void)tr;
    MPI_Allgather(st->sbuf, (int)size, MPI_CHAR, st->rbuf, (int)size, MPI_CHAR, ctx->comm);
}

static int check(cb_ctx *ctx, void *s, int alg, long long size, int inject, char *why, size_t cap)
{
    agstate *st = s;
    size_t total = (size_t)size * (size_t)ctx->size;
    for (long long j = 0; j < size; j++) st->sbuf[j] = (char)pattern(ctx->rank, j, size);
    memset(st->rbuf, 0xee, total);
    call(ctx, s, alg, size, NULL);
    if (inject && total && ctx->rank == ctx->size - 1) st->rbuf[total - 1] ^= 0x5a;
    for (size_t k = 0; k < total; k++) {
        int from = (int)(k / (size_t)size);
        unsigned char want = pattern(from, (long long)(k % (size_t)size), size);
        if ((unsigned char)st->rbuf[k] != want) {
            snprintf(why, cap, "byte %zu (block of rank %d) is %d, rank %d sent %d", k, from,
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
    if (cb_parse(ctx, "allgather", CB_OPTIONS) ||
        cc_parse_bench(ctx, CB_OPTIONS, "allgather", ALGOS, 1, &b))
        return CB_BAD_OPTIONS;
    if (b.smax * ctx->size > INT32_MAX) {
        cb_printf(ctx, "# result: ERROR: %lld bytes from each of %d ranks exceeds the 2 GiB an "
                  "MPI count can address\n", b.smax, ctx->size);
        return CB_BAD_OPTIONS;
    }
    agstate st = {NULL, NULL};
    b.state = &st;
    b.call = call;
    b.check = check;
    cb_header(ctx, "allgather");
    cc_print_header(ctx, &b, ALGOS, 0);
    st.sbuf = cb_alloc((size_t)b.smax + 1, 0);
    st.rbuf = cb_alloc((size_t)b.smax * (size_t)ctx->size + 1, 0);
    int rc = cb_all_allocated(ctx, st.sbuf && st.rbuf, "the buffers for %lld bytes per rank", b.smax)
                 ? cc_run(ctx, &b) : CB_BAD_OPTIONS;
    free(st.sbuf);
    free(st.rbuf);
    return rc;
}
