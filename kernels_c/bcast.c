/*
 * bcast.c -- broadcast by hand (linear, chain, pipelined chain, binary tree, binomial tree,
 * scatter + allgather) and the library's MPI_Bcast, timed side by side (osu_bcast style).
 *
 * --algorithm takes a comma list; "library" is MPI_Bcast as the library chooses, and
 * "library:ID" is MPI_Bcast with the algorithm forced through the environment (commbook's
 * prepare hook sets the variables; the kernel refuses a label the environment does not back).
 * Every algorithm is checked at every size on every rank: the buffer must hold the root's
 * pattern, as MPI_Bcast would leave it.
 */
#include "collectives_algos.h"

static const cb_optspec CB_OPTIONS[] = {
    {"sizes", "0:1M", "message sizes: MIN:MAX (doubling) or a list a,b,c (K/M/G suffixes)"},
    {"algorithm", "linear,chain,pipeline,binary,binomial,library",
     "comma list of: linear chain pipeline binary binomial scatter-allgather library library:ID"},
    {"segment", "16K", "segment size of the pipelined chain, bytes"},
    {"root", "0", "rank that broadcasts"},
    {"iterations", "200", "calls per repetition for small messages (fewer for large)"},
    {"repetitions", "5", "timed repetitions per size and algorithm"},
    {"trace", "0", "1: print each hand-written algorithm's messages (# trace: lines)"},
    {"monitor", "0", "1: print the messages the library counted (Open MPI pml monitoring)"},
    {"inject-error", "0", "testing only: 1 corrupts one result to prove the check fails"},
    {NULL, NULL, NULL}};

static const cc_algo ALGOS[] = {
    {"linear", "root sends to every rank in turn with MPI_Send (repeated point-to-point)"},
    {"chain", "each rank receives the whole message from rank-1 and sends it to rank+1"},
    {"pipeline", "chain in segments of --segment bytes, so all links work at once"},
    {"binary", "binary tree: rank v receives from (v-1)/2, sends to 2v+1 and 2v+2"},
    {"binomial", "binomial tree: the ranks holding the data double every step"},
    {"scatter-allgather", "van de Geijn: binomial scatter of P blocks, then ring allgather"},
    {NULL, NULL}};

typedef struct {
    cb_ctx *ctx;
    cc_choice *choice;
    char *buf;
    int root;
    long long segment;
} bstate;

static unsigned char pattern(long long i, long long size, int root)
{
    return (unsigned char)((i * 131 + size * 7 + root * 13 + 1) & 0xff);
}

static void call(void *s, int a, long long size, cc_trace *tr)
{
    bstate *st = s;
    int n = (int)size;
    MPI_Comm comm = st->ctx->comm;
    switch (st->choice->index[a]) {
    case 0: cc_bcast_linear(st->buf, n, st->root, comm, tr); break;
    case 1: cc_bcast_chain(st->buf, n, st->root, comm, tr); break;
    case 2: cc_bcast_pipeline(st->buf, n, st->segment, st->root, comm, tr); break;
    case 3: cc_bcast_binary(st->buf, n, st->root, comm, tr); break;
    case 4: cc_bcast_binomial(st->buf, n, st->root, comm, tr); break;
    case 5: cc_bcast_scatter_allgather(st->buf, n, st->root, comm, tr); break;
    default: MPI_Bcast(st->buf, n, MPI_CHAR, st->root, comm); break;
    }
}

static int check(void *s, int a, long long size, int inject, char *why, size_t cap)
{
    bstate *st = s;
    cb_ctx *ctx = st->ctx;
    for (long long i = 0; i < size; i++)
        st->buf[i] = ctx->rank == st->root ? (char)pattern(i, size, st->root) : (char)~pattern(i, size, st->root);
    call(s, a, size, NULL);
    if (inject && ctx->rank == ctx->size - 1) st->buf[size / 2] ^= 0x5a;
    for (long long i = 0; i < size; i++)
        if ((unsigned char)st->buf[i] != pattern(i, size, st->root)) {
            snprintf(why, cap, "byte %lld is %d, the root sent %d", i, (unsigned char)st->buf[i],
                     pattern(i, size, st->root));
            return 0;
        }
    return 1;
}

static int cb_kernel(MPI_Comm comm, cb_ctx *ctx)
{
    (void)comm;
    if (cb_parse(ctx, "bcast", CB_OPTIONS)) return CB_BAD_OPTIONS;
    long long sizes[CC_MAX_SIZES], segment, root, iters, reps, trace, monitor, inject;
    int nsizes;
    cc_choice choice;
    if (cc_parse_sizes(ctx, CB_OPTIONS, 1, sizes, &nsizes) ||
        cc_parse_algorithms(ctx, CB_OPTIONS, "bcast", ALGOS, &choice) ||
        cb_opt_int(ctx, CB_OPTIONS, "segment", 1, INT32_MAX, &segment) ||
        cb_opt_int(ctx, CB_OPTIONS, "root", 0, ctx->size - 1, &root) ||
        cb_opt_int(ctx, CB_OPTIONS, "iterations", 1, 100000000, &iters) ||
        cb_opt_int(ctx, CB_OPTIONS, "repetitions", 1, 1000, &reps) ||
        cb_opt_int(ctx, CB_OPTIONS, "trace", 0, 1, &trace) ||
        cb_opt_int(ctx, CB_OPTIONS, "monitor", 0, 1, &monitor) ||
        cb_opt_int(ctx, CB_OPTIONS, "inject-error", 0, 1, &inject))
        return CB_BAD_OPTIONS;
    long long smax = 0;
    for (int i = 0; i < nsizes; i++) smax = sizes[i] > smax ? sizes[i] : smax;

    bstate st = {ctx, &choice, NULL, (int)root, segment};
    cc_bench b = {"bcast", &choice, sizes, nsizes, iters, reps, (int)trace, (int)monitor,
                  (int)inject, &st, call, check};
    cb_header(ctx, "bcast");
    cc_print_header(ctx, &b, ALGOS, (int)root);
    cb_printf(ctx, "# segment_bytes: %lld\n", segment);
    st.buf = cb_alloc((size_t)smax + 1, 0);
    if (!cb_all_ok(ctx, st.buf != NULL)) {
        cb_printf(ctx, "# result: ERROR: cannot allocate %lld bytes\n", smax);
        free(st.buf);
        return CB_BAD_OPTIONS;
    }
    int rc = cc_run(ctx, &b);
    free(st.buf);
    return rc;
}
