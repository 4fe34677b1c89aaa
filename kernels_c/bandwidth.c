/*
 * bandwidth.c -- streaming bandwidth one way and both ways at once, for one or several pairs
 * of ranks (osu_bw, osu_bibw and osu_mbw_mr style).
 *
 * Rank r < P/2 is paired with rank r + P/2 (with an odd P the last rank waits at the barriers).
 * For each size and mode, --repetitions timed repetitions of N windows; a window is --window
 * messages in flight (MPI_Isend / MPI_Irecv, then MPI_Waitall):
 *   uni  the lower rank of each pair sends, the upper one receives and answers each window with
 *        a 1-byte acknowledgement (as osu_bw);
 *   bi   both ranks of every pair send a window to each other at the same time (osu_bibw).
 * Modes are interleaved within every repetition (uni, bi, uni, bi, ...), so a slow spell of the
 * machine hits both alike.  bandwidth_MBps counts every byte moved by every pair in every
 * direction (1e6 B/s); per_link_MBps divides it by pairs x directions: if a link is full
 * duplex, bi moves twice uni's bandwidth and per_link_MBps stays the same.
 * Before timing each size every mode moves known bytes and every receiver checks them.
 */
#include "commbench.h"

static const cb_optspec CB_OPTIONS[] = {
    {"sizes", "1K:4M", "message sizes MIN:MAX in bytes, doubling (K/M/G suffixes)"},
    {"mode", "uni,bi", "comma list of: uni (one way) bi (both ways at once)"},
    {"pairs", "0", "pairs of ranks that stream at once (0: P/2)"},
    {"window", "64", "messages in flight per window (as OSU)"},
    {"iterations", "100", "windows per repetition for small messages (fewer for large)"},
    {"repetitions", "5", "timed repetitions per size and mode"},
    {"inject-error", "0", "testing only: 1 corrupts one received byte to prove the check fails"},
    {NULL, NULL, NULL}};

#define BW_MAX_WINDOW 1024
#define BW_TAG 77

typedef struct {
    int peer;     /* -1: this rank idles */
    int sender;   /* lower rank of its pair */
} bw_role;

/* One window: `w` messages of `count` bytes, each into its own slot of rbuf. */
static void window(cb_ctx *ctx, bw_role *me, int bi, char *sbuf, char *rbuf, int count, int w)
{
    MPI_Request req[2 * BW_MAX_WINDOW];
    int n = 0;
    char ack = 0;
    if (me->peer < 0) return;
    int sends = bi || me->sender, recvs = bi || !me->sender;
    if (recvs)
        for (int k = 0; k < w; k++)
            MPI_Irecv(rbuf + (size_t)k * (size_t)count, count, MPI_CHAR, me->peer, BW_TAG,
                      ctx->comm, &req[n++]);
    if (sends)
        for (int k = 0; k < w; k++)
            MPI_Isend(sbuf, count, MPI_CHAR, me->peer, BW_TAG, ctx->comm, &req[n++]);
    MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
    if (!bi) { /* the sender may not start the next window before the receiver has this one */
        if (me->sender) MPI_Recv(&ack, 1, MPI_CHAR, me->peer, BW_TAG + 1, ctx->comm, MPI_STATUS_IGNORE);
        else MPI_Send(&ack, 1, MPI_CHAR, me->peer, BW_TAG + 1, ctx->comm);
    }
}

static int check(cb_ctx *ctx, bw_role *me, int bi, char *sbuf, char *rbuf, int count, int w,
                 int inject, const char *mode)
{
    int ok = 1;
    long long mine = ctx->rank * 29 + 3, theirs = me->peer * 29 + 3; /* pattern salts */
    for (long long i = 0; i < count; i++) sbuf[i] = (char)cb_pattern(i, count, mine);
    memset(rbuf, 0, (size_t)count * (size_t)w + 1);
    window(ctx, me, bi, sbuf, rbuf, count, w);
    int received = me->peer >= 0 && (bi || !me->sender);
    if (inject && received && count > 0) rbuf[(size_t)count * (size_t)(w - 1) + count / 2] ^= 0x21;
    for (int k = 0; received && k < w && ok; k++)
        for (long long i = 0; i < count && ok; i++)
            if ((unsigned char)rbuf[(size_t)k * (size_t)count + i] != cb_pattern(i, count, theirs)) {
                cb_error_local(ctx, "%s, %d bytes, message %d from rank %d: byte %lld is %d, "
                               "expected %d", mode, count, k, me->peer, i,
                               (unsigned char)rbuf[(size_t)k * (size_t)count + i],
                               cb_pattern(i, count, theirs));
                ok = 0;
            }
    return cb_all_ok(ctx, ok);
}

static int cb_kernel(MPI_Comm comm, cb_ctx *ctx)
{
    (void)comm;
    if (cb_parse(ctx, "bandwidth", CB_OPTIONS)) return CB_BAD_OPTIONS;
    long long smin, smax, pairs, win, iters, reps, inject;
    if (cb_opt_range(ctx, CB_OPTIONS, "sizes", &smin, &smax) ||
        cb_opt_int(ctx, CB_OPTIONS, "pairs", 0, ctx->size / 2, &pairs) ||
        cb_opt_int(ctx, CB_OPTIONS, "window", 1, BW_MAX_WINDOW, &win) ||
        cb_opt_timing(ctx, CB_OPTIONS, &iters, &reps) ||
        cb_opt_int(ctx, CB_OPTIONS, "inject-error", 0, 1, &inject))
        return CB_BAD_OPTIONS;
    if (ctx->size < 2) {
        cb_printf(ctx, "# result: ERROR: bandwidth needs at least 2 ranks (pairs of ranks)\n");
        return CB_BAD_OPTIONS;
    }
    if (smin < 1 || smax > (1LL << 30)) {
        cb_printf(ctx, "# result: ERROR: --sizes must lie in [1, 1G] bytes\n");
        return CB_BAD_OPTIONS;
    }
    if (pairs == 0) pairs = ctx->size / 2;
    int modes[2], nmodes = 0;
    {
        const char *s = cb_opt(ctx, CB_OPTIONS, "mode");
        char buf[64];
        snprintf(buf, sizeof buf, "%s", s);
        for (char *tok = strtok(buf, ","); tok != NULL; tok = strtok(NULL, ",")) {
            int m = strcmp(tok, "uni") == 0 ? 0 : strcmp(tok, "bi") == 0 ? 1 : -1;
            if (m < 0 || nmodes == 2) {
                cb_printf(ctx, "# result: ERROR: --mode '%s' is not a comma list of uni, bi\n", s);
                return CB_BAD_OPTIONS;
            }
            modes[nmodes++] = m;
        }
        if (nmodes == 0) {
            cb_printf(ctx, "# result: ERROR: --mode is empty (uni, bi)\n");
            return CB_BAD_OPTIONS;
        }
    }
    int half = ctx->size / 2;
    bw_role me = {-1, 0};
    if (ctx->rank < pairs) me = (bw_role){ctx->rank + half, 1};
    else if (ctx->rank >= half && ctx->rank < half + pairs) me = (bw_role){ctx->rank - half, 0};

    /* a window never holds more than 64 MiB of receive slots */
    const long long budget = 64LL << 20;
    long long rcap = 0;
    for (long long size = smin; size <= smax; size *= 2) {
        long long w = win * size > budget ? (budget / size > 0 ? budget / size : 1) : win;
        rcap = w * size > rcap ? w * size : rcap;
    }
    cb_header(ctx, "bandwidth");
    cb_printf(ctx, "# benchmark: bandwidth\n# algorithm: ");
    for (int m = 0; m < nmodes; m++) cb_printf(ctx, "%s%s", m ? "," : "", modes[m] ? "bi" : "uni");
    cb_printf(ctx, "\n# pairs: %lld (rank r with rank r + %d)%s\n", pairs, half,
              ctx->size % 2 ? "; the last rank idles" : "");
    cb_printf(ctx, "# window: %lld messages in flight (fewer when they would exceed 64 MiB)\n", win);
    cb_printf(ctx, "# repetitions: %lld\n", reps);
    cb_printf(ctx, "# time: microseconds per window on the slowest rank; bandwidth: bytes of all "
              "pairs and directions per second (1e6 B/s); per_link: per pair and direction\n");
    cb_printf(ctx, "# validation: every mode at every size, every received message checked\n");
    cb_printf(ctx, "# columns: algorithm size_bytes pairs window iterations t_min_us t_median_us "
              "t_max_us bandwidth_MBps per_link_MBps\n");
    char *sbuf = cb_alloc((size_t)smax + 1, 0);
    char *rbuf = cb_alloc((size_t)rcap + 1, 0);
    double *t = malloc(sizeof(double) * (size_t)reps * 2);
    if (!cb_all_allocated(ctx, sbuf && rbuf && t, "%lld + %lld bytes", smax, rcap)) {
        free(sbuf); free(rbuf); free(t);
        return CB_BAD_OPTIONS;
    }
    int rc = CB_OK, injected = 0;
    for (long long size = smin; size <= smax && rc == CB_OK; size *= 2) {
        int count = (int)size;
        int w = (int)(win * size > budget ? (budget / size > 0 ? budget / size : 1) : win);
        for (int m = 0; m < nmodes; m++) {
            int inj = (int)inject && !injected;
            if (!check(ctx, &me, modes[m], sbuf, rbuf, count, w, inj, modes[m] ? "bi" : "uni")) {
                cb_printf(ctx, "# result: VALIDATION FAILED: %s at %d bytes: a received message "
                          "differs from what was sent (details on stderr)%s\n",
                          modes[m] ? "bi" : "uni", count, inj ? " [error injected on purpose]" : "");
                rc = CB_VALIDATION_FAILED;
                break;
            }
            injected |= inj;
        }
        if (rc != CB_OK) break;
        long long n = cb_iterations(iters, size * w, 3);
        for (int m = 0; m < nmodes; m++)
            for (int k = 0; k < 2; k++) window(ctx, &me, modes[m], sbuf, rbuf, count, w);
        for (long long r = 0; r < reps; r++)
            for (int m = 0; m < nmodes; m++) {
                MPI_Barrier(ctx->comm);
                double t0 = MPI_Wtime();
                for (long long i = 0; i < n; i++) window(ctx, &me, modes[m], sbuf, rbuf, count, w);
                double mine = (MPI_Wtime() - t0) / (double)n * 1e6, slowest = 0;
                MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, ctx->comm);
                t[m * reps + r] = slowest;
            }
        for (int m = 0; m < nmodes; m++) {
            double tmin, tmed, tmax;
            cb_summary(t + m * reps, (int)reps, &tmin, &tmed, &tmax);
            int dirs = modes[m] ? 2 : 1;
            double bw = tmed > 0 ? (double)size * w * dirs * (double)pairs / tmed : 0.0;
            cb_printf(ctx, "%s %lld %lld %d %lld %.4f %.4f %.4f %.3f %.3f\n", modes[m] ? "bi" : "uni",
                      size, pairs, w, n, tmin, tmed, tmax, bw, bw / (double)(dirs * pairs));
        }
    }
    if (rc == CB_OK) cb_printf(ctx, "# result: ok\n");
    free(sbuf);
    free(rbuf);
    free(t);
    return rc;
}
