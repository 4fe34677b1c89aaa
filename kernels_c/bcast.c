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

/* What the algorithms and check() need besides the context. */
typedef struct {
    char *buf;
    int root;
    long long segment;
} bstate;

static const cb_optspec CB_OPTIONS[] = {
    {"sizes", "0:1M", "message sizes: MIN:MAX (doubling) or a list a,b,c (K/M/G suffixes)"},
    {"algorithm", "linear,chain,pipeline,binary,binomial,library",
     "comma list of: linear chain pipeline binary binomial scatter-allgather library library:ID"},
    {"segment", "16K", "segment size of the pipelined chain, bytes"},
    {"root", "0", "rank that broadcasts"},
    CC_BENCH_OPTIONS,
    {NULL, NULL, NULL}};

/* Each algorithm on the kernel's buffer, as the table below calls it (cc_algo_fn). */
static void linear(cb_ctx *ctx, void *s, long long n, cc_trace *tr)
{ bstate *st = s; cc_bcast_linear(st->buf, (int)n, st->root, ctx->comm, tr); }
static void chain(cb_ctx *ctx, void *s, long long n, cc_trace *tr)
{ bstate *st = s; cc_bcast_chain(st->buf, (int)n, st->root, ctx->comm, tr); }
static void pipeline(cb_ctx *ctx, void *s, long long n, cc_trace *tr)
{ bstate *st = s; cc_bcast_pipeline(st->buf, (int)n, st->segment, st->root, ctx->comm, tr); }
static void binary(cb_ctx *ctx, void *s, long long n, cc_trace *tr)
{ bstate *st = s; cc_bcast_binary(st->buf, (int)n, st->root, ctx->comm, tr); }
static void binomial(cb_ctx *ctx, void *s, long long n, cc_trace *tr)
{ bstate *st = s; cc_bcast_binomial(st->buf, (int)n, st->root, ctx->comm, tr); }
static void scatter_allgather(cb_ctx *ctx, void *s, long long n, cc_trace *tr)
{ bstate *st = s; cc_bcast_scatter_allgather(st->buf, (int)n, st->root, ctx->comm, tr); }
/* the library's sends are not ours to note */
static void library(cb_ctx *ctx, void *s, long long n, cc_trace *tr)
{ bstate *st = s; (void)tr; MPI_Bcast(st->buf, (int)n, MPI_CHAR, st->root, ctx->comm); }

static int check(cb_ctx *ctx, void *s, cc_algo_fn run, long long size, int inject, char *why,
                 size_t cap)
{
    bstate *st = s;
    long long salt = st->root * 13 + 1;
    for (long long i = 0; i < size; i++)
        st->buf[i] = ctx->rank == st->root ? (char)cb_pattern(i, size, salt) : (char)~cb_pattern(i, size, salt);
    run(ctx, s, size, NULL);
    if (inject && ctx->rank == ctx->size - 1) st->buf[size / 2] ^= 0x5a;
    for (long long i = 0; i < size; i++)
        if ((unsigned char)st->buf[i] != cb_pattern(i, size, salt)) {
            snprintf(why, cap, "byte %lld is %d, the root sent %d", i, (unsigned char)st->buf[i],
                     cb_pattern(i, size, salt));
            return 0;
        }
    return 1;
}

static const cc_algo ALGOS[] = {
    {"linear", "root sends to every rank in turn with MPI_Send (repeated point-to-point)", linear},
    {"chain", "each rank receives the whole message from rank-1 and sends it to rank+1", chain},
    {"pipeline", "chain in segments of --segment bytes, so all links work at once", pipeline},
    {"binary", "binary tree: rank v receives from (v-1)/2, sends to 2v+1 and 2v+2", binary},
    {"binomial", "binomial tree: the ranks holding the data double every step", binomial},
    {"scatter-allgather", "van de Geijn: binomial scatter of P blocks, then ring allgather",
     scatter_allgather},
    {NULL, NULL, NULL}};

static int cb_kernel(MPI_Comm comm, cb_ctx *ctx)
{
    (void)comm;
    long long segment, root;
    cc_bench b;
    if (cb_parse(ctx, "bcast", CB_OPTIONS) ||
        cc_parse_bench(ctx, CB_OPTIONS, "bcast", ALGOS, library, 1, &b) ||
        cb_opt_int(ctx, CB_OPTIONS, "segment", 1, INT32_MAX, &segment) ||
        cb_opt_int(ctx, CB_OPTIONS, "root", 0, ctx->size - 1, &root))
        return CB_BAD_OPTIONS;

    bstate st = {NULL, (int)root, segment};
    cc_begin(ctx, "bcast", &b, (int)root, &st, check);
    cb_printf(ctx, "# segment_bytes: %lld\n", segment);
    st.buf = cb_alloc((size_t)b.smax + 1, 0);
    int rc = cb_all_allocated(ctx, st.buf != NULL, "%lld bytes", b.smax) ? cc_run(ctx, &b)
                                                                          : CB_BAD_OPTIONS;
    free(st.buf);
    return rc;
}
