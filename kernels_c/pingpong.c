/*
 * pingpong.c -- ping-pong between ranks 0 and 1 (IMB PingPong / osu_latency style).
 *
 * For each size 0, 1, 2, 4, ... up to --sizes MAX: warm-up, then --repetitions timed
 * repetitions of N round trips (N scaled down for large messages); time = half a round
 * trip.  Ranks other than 0 and 1 wait at the barriers.  With one rank, rank 0 plays
 * both sides through MPI's self path.  --validate 1 sends a known pattern and checks it
 * on both sides before timing each size.
 *
 * Rank 1 replies from its own send buffer, not from the buffer it has just received into
 * (osu_latency and IMB PingPong do the same).  --echo 1 replies with the received buffer
 * itself: those bytes were just written by rank 1's core, so rank 0 must fetch lines that
 * are modified in another core's cache, which is measurably slower for messages that fit in
 * the caches (the ping-pong chapter's lesson on caches).
 */
#include "commbench.h"

static const cb_optspec CB_OPTIONS[] = {
    {"sizes", "0:64M", "message sizes MIN:MAX in bytes (K/M/G suffixes; powers of two, plus 0)"},
    {"iterations", "1000", "round trips per repetition for small messages"},
    {"repetitions", "5", "timed repetitions per size (summarised as min/median/max)"},
    {"validate", "1", "1: check the payload on both sides before timing each size"},
    {"hugepages", "0", "1: ask for transparent huge pages on the buffers"},
    {"echo", "0", "1: rank 1 replies with the buffer it just received (0: from its send buffer)"},
    {"inject-error", "0", "testing only: 1 corrupts one received byte to prove validation catches it"},
    {NULL, NULL, NULL}};

/* One message from `from` to `to` (rank 0 to itself when np == 1). */
static void half_trip(cb_ctx *ctx, char *sbuf, char *rbuf, int count, int from, int to)
{
    if (ctx->size == 1) {
        MPI_Sendrecv(sbuf, count, MPI_CHAR, 0, 1, rbuf, count, MPI_CHAR, 0, 1, ctx->comm,
                     MPI_STATUS_IGNORE);
    } else if (ctx->rank == from) {
        MPI_Send(sbuf, count, MPI_CHAR, to, 1, ctx->comm);
    } else if (ctx->rank == to) {
        MPI_Recv(rbuf, count, MPI_CHAR, from, 1, ctx->comm, MPI_STATUS_IGNORE);
    }
}

static void round_trips(cb_ctx *ctx, char *sbuf, char *rbuf, int count, long long n, int echo)
{
    int peer = ctx->size == 1 ? 0 : 1;
    for (long long i = 0; i < n; i++) {
        if (ctx->rank == 0) {
            half_trip(ctx, sbuf, rbuf, count, 0, peer);
            if (ctx->size > 1) half_trip(ctx, sbuf, rbuf, count, peer, 0);
            else half_trip(ctx, sbuf, rbuf, count, 0, 0);
        } else if (ctx->rank == 1) {
            half_trip(ctx, sbuf, rbuf, count, 0, 1);
            half_trip(ctx, echo ? rbuf : sbuf, NULL, count, 1, 0);
        }
    }
}

/* Rank 0 sends a pattern, rank 1 checks it and answers with a second pattern. */
static int validate_size(cb_ctx *ctx, char *sbuf, char *rbuf, int count, int inject)
{
    int ok = 1;
    int peer = ctx->size == 1 ? 0 : 1;
    if (ctx->rank == 0)
        for (long long i = 0; i < count; i++) sbuf[i] = (char)cb_pattern(i, count, 1);
    memset(rbuf, 0, (size_t)count + 1);
    if (ctx->rank <= 1) half_trip(ctx, sbuf, rbuf, count, 0, peer);
    if (inject && ctx->rank == peer && count > 0) rbuf[count / 2] ^= 0x10;
    if (ctx->rank == peer) {
        for (long long i = 0; i < count && ok; i++)
            if ((unsigned char)rbuf[i] != cb_pattern(i, count, 1)) {
                cb_error_local(ctx, "ping of %d bytes: byte %lld is %d, expected %d", count, i,
                               (unsigned char)rbuf[i], cb_pattern(i, count, 1));
                ok = 0;
            }
        for (long long i = 0; i < count; i++) sbuf[i] = (char)cb_pattern(i, count, 2);
    }
    if (ctx->size > 1 && ctx->rank <= 1) {
        memset(rbuf, 0, (size_t)count + 1);
        half_trip(ctx, sbuf, rbuf, count, 1, 0);
    } else if (ctx->size == 1) {
        half_trip(ctx, sbuf, rbuf, count, 0, 0);
    }
    if (ctx->rank == 0)
        for (long long i = 0; i < count && ok; i++)
            if ((unsigned char)rbuf[i] != cb_pattern(i, count, 2)) {
                cb_error_local(ctx, "pong of %d bytes: byte %lld is %d, expected %d", count, i,
                               (unsigned char)rbuf[i], cb_pattern(i, count, 2));
                ok = 0;
            }
    return cb_all_ok(ctx, ok);
}

static int cb_kernel(MPI_Comm comm, cb_ctx *ctx)
{
    (void)comm;
    if (cb_parse(ctx, "pingpong", CB_OPTIONS)) return CB_BAD_OPTIONS;
    long long smin, smax, iters, reps, check, huge, echo, inject;
    if (cb_opt_range(ctx, CB_OPTIONS, "sizes", &smin, &smax) ||
        cb_opt_timing(ctx, CB_OPTIONS, &iters, &reps) ||
        cb_opt_int(ctx, CB_OPTIONS, "validate", 0, 1, &check) ||
        cb_opt_int(ctx, CB_OPTIONS, "hugepages", 0, 1, &huge) ||
        cb_opt_int(ctx, CB_OPTIONS, "echo", 0, 1, &echo) ||
        cb_opt_int(ctx, CB_OPTIONS, "inject-error", 0, 1, &inject))
        return CB_BAD_OPTIONS;
    if (smax > (1LL << 30)) {
        cb_printf(ctx, "# result: ERROR: largest size %lld exceeds 1 GiB\n", smax);
        return CB_BAD_OPTIONS;
    }

    cb_header(ctx, "pingpong");
    cb_printf(ctx, "# benchmark: pingpong\n# algorithm: blocking send/recv\n");
    cb_printf(ctx, "# peers: %s\n", ctx->size == 1 ? "rank 0 with itself" : "rank 0 and rank 1");
    cb_printf(ctx, "# allocation: %s\n", cb_alloc_name((int)huge));
    cb_printf(ctx, "# validation: %s\n", check ? "on" : "off");
    cb_printf(ctx, "# reply: %s\n", echo ? "echo: rank 1 sends back the buffer it received"
                                         : "from rank 1's send buffer (as osu_latency, IMB)");
    cb_printf(ctx, "# repetitions: %lld\n", reps);
    cb_printf(ctx, "# time: half round trip, microseconds; bandwidth: 1e6 B/s (as IMB)\n");
    cb_printf(ctx, "# columns: size_bytes iterations echo t_min_us t_median_us t_max_us bandwidth_MBps\n");

    char *sbuf = cb_alloc((size_t)smax + 1, (int)huge);
    char *rbuf = cb_alloc((size_t)smax + 1, (int)huge);
    if (!cb_all_allocated(ctx, sbuf != NULL && rbuf != NULL, "two buffers of %lld bytes", smax)) {
        free(sbuf);
        free(rbuf);
        return CB_BAD_OPTIONS;
    }
    double *t = malloc(sizeof(double) * (size_t)reps);
    int rc = CB_OK;

    for (long long size = smin;; size = size ? size * 2 : 1) {
        if (size > smax) break;
        int count = (int)size;
        if (check && !validate_size(ctx, sbuf, rbuf, count, (int)inject)) {
            cb_printf(ctx, "# result: VALIDATION FAILED: payload of %d bytes arrived corrupted\n",
                      count);
            rc = CB_VALIDATION_FAILED;
            break;
        }
        long long n = cb_iterations(iters, size, 10);
        long long warm = n / 10 > 2 ? n / 10 : 2;
        MPI_Barrier(ctx->comm);
        round_trips(ctx, sbuf, rbuf, count, warm, (int)echo);
        for (long long r = 0; r < reps; r++) {
            MPI_Barrier(ctx->comm);
            double t0 = MPI_Wtime();
            round_trips(ctx, sbuf, rbuf, count, n, (int)echo);
            t[r] = (MPI_Wtime() - t0) / (2.0 * (double)n) * 1e6;
        }
        double tmin, tmed, tmax;
        cb_summary(t, (int)reps, &tmin, &tmed, &tmax);
        cb_printf(ctx, "%lld %lld %lld %.4f %.4f %.4f %.3f\n", size, n, echo, tmin, tmed, tmax,
                  tmed > 0 ? (double)size / tmed : 0.0);
    }
    if (rc == CB_OK) cb_printf(ctx, "# result: ok\n");
    free(t);
    free(sbuf);
    free(rbuf);
    return rc;
}
