/*
 * measuring.c -- the experiments of "Measuring well" (book/measuring.md): every repetition's
 * own time, not a summary, so the page can show their distribution.
 *
 *   --experiment timer     MPI_Wtick, and the gap between back-to-back MPI_Wtime calls
 *                          (what one timer call costs), --repetitions samples;
 *   --experiment pingpong  ranks 0 and 1 bounce --size bytes --iterations times per repetition,
 *                          after --warmup untimed round trips; one row per repetition (half a
 *                          round trip). The other ranks, if any, wait in MPI_Barrier meanwhile;
 *   --experiment bcast     per repetition: MPI_Barrier, then time MPI_Bcast on every rank; one
 *                          row per repetition with the slowest rank's time (what this book's
 *                          kernels report) and the mean over ranks (what OSU reports).
 *
 * Every rank prints the CPUs it may run on (its binding). Every message is checked.
 */
#define _GNU_SOURCE
#include <sched.h>
#include "commbench.h"

static const cb_optspec CB_OPTIONS[] = {
    {"experiment", "pingpong", "timer, pingpong or bcast"},
    {"size", "8", "message bytes (K/M suffixes)"},
    {"repetitions", "1000", "timed repetitions, one row each"},
    {"iterations", "1", "round trips (or broadcasts) per repetition"},
    {"warmup", "10", "untimed round trips (or broadcasts) before the first repetition"},
    {NULL, NULL, NULL}};

/* The CPUs this process may run on, as "0-1" or "1". */
static void cpus_allowed(char *text, size_t cap)
{
    cpu_set_t set;
    text[0] = '\0';
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        snprintf(text, cap, "unknown");
        return;
    }
    size_t len = 0;
    for (int c = 0; c < CPU_SETSIZE && len + 8 < cap; c++) {
        if (!CPU_ISSET(c, &set)) continue;
        int end = c;
        while (end + 1 < CPU_SETSIZE && CPU_ISSET(end + 1, &set)) end++;
        len += (size_t)snprintf(text + len, cap - len, len ? ",%d" : "%d", c);
        if (end > c) len += (size_t)snprintf(text + len, cap - len, "-%d", end);
        c = end;
    }
}

static void print_bindings(cb_ctx *ctx)
{
    char mine[128], *all = ctx->rank == 0 ? malloc(128 * (size_t)ctx->size) : NULL;
    cpus_allowed(mine, sizeof mine);
    MPI_Gather(mine, 128, MPI_CHAR, all, 128, MPI_CHAR, 0, ctx->comm);
    for (int r = 0; ctx->rank == 0 && r < ctx->size; r++)
        cb_printf(ctx, "# cpus_rank%d: %s\n", r, all + 128 * r);
    free(all);
}

/* timer: the cost of one MPI_Wtime call */
static int timer(cb_ctx *ctx, long long reps)
{
    cb_printf(ctx, "# wtick_s: %.3e\n# columns: gap_ns\n", MPI_Wtick());
    int ok = MPI_Wtick() > 0;
    for (long long r = 0; r < reps; r++) {
        double t0 = MPI_Wtime(), t1 = MPI_Wtime();  /* nothing between the two calls */
        ok = ok && t1 >= t0;
        if (ctx->rank == 0) cb_printf(ctx, "%.1f\n", (t1 - t0) * 1e9);
    }
    return cb_verdict(ctx, cb_all_ok(ctx, ok), "MPI_Wtime went backwards or MPI_Wtick <= 0");
}
/* end of timer */

/* pingpong: one row per repetition */
static int pingpong(cb_ctx *ctx, long long size, long long reps, long long iters, long long warmup)
{
    int me = ctx->rank, n = (int)size, ok = 1;
    char *buf = cb_alloc((size_t)(size ? size : 1), 0);
    if (!cb_all_allocated(ctx, buf != NULL, "%lld bytes", size)) return CB_BAD_OPTIONS;
    cb_printf(ctx, "# columns: repetition t_us\n");
    for (long long r = -warmup; r < reps; r++) {     /* r < 0: warm-up, not timed */
        MPI_Barrier(ctx->comm);
        double t0 = MPI_Wtime();
        for (long long i = 0; i < (r < 0 ? 1 : iters) && me < 2; i++) {
            if (me == 0) {
                for (int j = 0; j < n; j++) buf[j] = (char)cb_pattern(j, n, r + i);
                MPI_Send(buf, n, MPI_CHAR, 1, 0, ctx->comm);
                MPI_Recv(buf, n, MPI_CHAR, 1, 0, ctx->comm, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, n, MPI_CHAR, 0, 0, ctx->comm, MPI_STATUS_IGNORE);
                MPI_Send(buf, n, MPI_CHAR, 0, 0, ctx->comm);
            }
            for (int j = 0; j < n && ok && me == 0; j++)   /* the echo came back intact */
                ok = buf[j] == (char)cb_pattern(j, n, r + i);
        }
        double t = (MPI_Wtime() - t0) / (2.0 * (double)iters) * 1e6;
        if (r >= 0) cb_printf(ctx, "%lld %.3f\n", r, t);
    }
    free(buf);
    return cb_verdict(ctx, cb_all_ok(ctx, ok), "an echoed message differs from what was sent");
}
/* end of pingpong */

/* bcast: slowest rank against the mean over ranks */
static int bcast(cb_ctx *ctx, long long size, long long reps, long long iters, long long warmup)
{
    int n = (int)size, ok = 1, P = ctx->size;
    char *buf = cb_alloc((size_t)(size ? size : 1), 0);
    if (!cb_all_allocated(ctx, buf != NULL, "%lld bytes", size)) return CB_BAD_OPTIONS;
    cb_printf(ctx, "# columns: repetition t_max_us t_mean_us t_min_us\n");
    for (long long r = -warmup; r < reps; r++) {
        for (int j = 0; j < n && ctx->rank == 0; j++) buf[j] = (char)cb_pattern(j, n, r);
        MPI_Barrier(ctx->comm);                       /* everybody starts together */
        double t0 = MPI_Wtime();
        for (long long i = 0; i < (r < 0 ? 1 : iters); i++)
            MPI_Bcast(buf, n, MPI_CHAR, 0, ctx->comm);
        double t = (MPI_Wtime() - t0) / (double)iters * 1e6, tmax, tsum, tmin;
        for (int j = 0; j < n && ok; j++) ok = buf[j] == (char)cb_pattern(j, n, r);
        MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, ctx->comm);
        MPI_Reduce(&t, &tsum, 1, MPI_DOUBLE, MPI_SUM, 0, ctx->comm);
        MPI_Reduce(&t, &tmin, 1, MPI_DOUBLE, MPI_MIN, 0, ctx->comm);
        if (r >= 0) cb_printf(ctx, "%lld %.3f %.3f %.3f\n", r, tmax, tsum / P, tmin);
    }
    free(buf);
    return cb_verdict(ctx, cb_all_ok(ctx, ok), "a rank received a different broadcast");
}
/* end of bcast */

static int cb_kernel(MPI_Comm comm, cb_ctx *ctx)
{
    (void)comm;
    if (cb_parse(ctx, "measuring", CB_OPTIONS)) return CB_BAD_OPTIONS;
    const char *what = cb_opt(ctx, CB_OPTIONS, "experiment");
    long long size, reps, iters, warmup;
    if (cb_opt_int(ctx, CB_OPTIONS, "size", 0, 1LL << 28, &size) ||
        cb_opt_int(ctx, CB_OPTIONS, "repetitions", 1, 100000, &reps) ||
        cb_opt_int(ctx, CB_OPTIONS, "iterations", 1, 1000000, &iters) ||
        cb_opt_int(ctx, CB_OPTIONS, "warmup", 0, 1000000, &warmup))
        return CB_BAD_OPTIONS;
    int is_timer = !strcmp(what, "timer"), is_pp = !strcmp(what, "pingpong"),
        is_bcast = !strcmp(what, "bcast");
    if (!is_timer && !is_pp && !is_bcast) {
        cb_printf(ctx, "# result: ERROR: --experiment '%s' is not timer, pingpong or bcast\n", what);
        return CB_BAD_OPTIONS;
    }
    if (is_pp && ctx->size < 2) {
        cb_printf(ctx, "# result: ERROR: the ping-pong needs at least 2 ranks\n");
        return CB_BAD_OPTIONS;
    }
    cb_header(ctx, "measuring");
    cb_printf(ctx, "# experiment: %s\n# size_bytes: %lld\n# repetitions: %lld\n"
              "# iterations: %lld\n# warmup: %lld\n", what, size, reps, iters, warmup);
    print_bindings(ctx);
    if (is_timer) return timer(ctx, reps);
    if (is_pp) return pingpong(ctx, size, reps, iters, warmup);
    return bcast(ctx, size, reps, iters, warmup);
}
