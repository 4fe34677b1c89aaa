/*
 * stream.c -- STREAM-like memory bandwidth (McCalpin's copy, scale, add, triad), run by every
 * rank at once on its own arrays, so np ranks measure the bandwidth np cores can draw together.
 *
 *   copy   c = a          16 B per element counted (STREAM), 24 B moved with write-allocate
 *   scale  b = s c        16 B / 24 B
 *   add    c = a + b      24 B / 32 B
 *   triad  a = b + s c    24 B / 32 B
 *
 * Each repetition runs the chosen kernels in that order; the first repetition is a warm-up and
 * is not timed (as in STREAM). A kernel's time per repetition is the slowest rank's (a barrier
 * starts every kernel), and its bandwidth = np * bytes / time, in MB/s = 1e6 B/s. The
 * bandwidth column uses the best (minimum) time, as STREAM reports; bandwidth_wa_MBps counts the
 * write-allocate traffic too (the bytes the memory really moves when stores miss the cache).
 *
 * Self-check: all elements of a, b, c must equal the values the same sequence of operations
 * gives on scalars (relative error <= 1e-13); the arrays must be much larger than the caches
 * for the result to mean memory bandwidth (see the kernel's array-size option).
 */
#include "commbench.h"
#include <math.h>

static const cb_optspec CB_OPTIONS[] = {
    {"size", "128M", "bytes per array per rank (K/M/G); make 3 arrays >> the last-level cache"},
    {"repetitions", "10", "timed repetitions (plus one untimed warm-up)"},
    {"kernels", "copy,scale,add,triad", "comma-separated subset of copy,scale,add,triad"},
    {NULL, NULL, NULL}};

enum { COPY, SCALE, ADD, TRIAD, NKERNELS };
static const char *NAMES[NKERNELS] = {"copy", "scale", "add", "triad"};
static const int COUNTED[NKERNELS] = {2, 2, 3, 3};  /* arrays read + written */
static const int MOVED[NKERNELS] = {3, 3, 4, 4};    /* plus write-allocate of the target */
static const double SCALAR = 0.4;                    /* keeps values bounded over repetitions */

static void run_kernel(int which, double *restrict a, double *restrict b, double *restrict c,
                       size_t n)
{
    switch (which) {
    case COPY:
        for (size_t i = 0; i < n; i++) c[i] = a[i];
        break;
    case SCALE:
        for (size_t i = 0; i < n; i++) b[i] = SCALAR * c[i];
        break;
    case ADD:
        for (size_t i = 0; i < n; i++) c[i] = a[i] + b[i];
        break;
    case TRIAD:
        for (size_t i = 0; i < n; i++) a[i] = b[i] + SCALAR * c[i];
        break;
    }
}

static void run_scalar(int which, double *a, double *b, double *c)
{
    switch (which) {
    case COPY: *c = *a; break;
    case SCALE: *b = SCALAR * *c; break;
    case ADD: *c = *a + *b; break;
    case TRIAD: *a = *b + SCALAR * *c; break;
    }
}

static int parse_kernels(const char *s, int *list, int *count)
{
    char buf[128];
    if (s == NULL || strlen(s) >= sizeof buf) return 0;
    strcpy(buf, s);
    *count = 0;
    for (char *tok = strtok(buf, ","); tok != NULL; tok = strtok(NULL, ",")) {
        int found = -1;
        for (int k = 0; k < NKERNELS; k++)
            if (strcmp(tok, NAMES[k]) == 0) found = k;
        if (found < 0 || *count >= NKERNELS) return 0;
        for (int k = 0; k < *count; k++)
            if (list[k] == found) return 0;
        list[(*count)++] = found;
    }
    return *count > 0;
}

static int check_array(cb_ctx *ctx, const char *name, const double *x, size_t n, double want)
{
    for (size_t i = 0; i < n; i++) {
        double err = fabs(x[i] - want);
        if (!(err <= 1e-13 * fabs(want) + 1e-300)) {
            cb_error_local(ctx, "array %s element %zu is %.17g, expected %.17g", name, i, x[i],
                           want);
            return 0;
        }
    }
    return 1;
}

static int cb_kernel(MPI_Comm comm, cb_ctx *ctx)
{
    if (cb_parse(ctx, "stream", CB_OPTIONS)) return CB_BAD_OPTIONS;
    long long bytes, reps;
    int list[NKERNELS], nk = 0;
    if (cb_opt_int(ctx, CB_OPTIONS, "size", 1024, 64LL << 30, &bytes) ||
        cb_opt_int(ctx, CB_OPTIONS, "repetitions", 1, 10000, &reps))
        return CB_BAD_OPTIONS;
    const char *ktext = cb_opt(ctx, CB_OPTIONS, "kernels");
    if (!parse_kernels(ktext, list, &nk)) {
        cb_printf(ctx, "# result: ERROR: --kernels '%s' is not a comma-separated list of distinct "
                  "names from copy,scale,add,triad\n", ktext);
        return CB_BAD_OPTIONS;
    }
    size_t n = (size_t)bytes / sizeof(double);

    cb_header(ctx, "stream");
    cb_printf(ctx, "# benchmark: stream\n# method: STREAM-like, every rank on its own arrays\n");
    cb_printf(ctx, "# array_bytes: %lld per array per rank (%zu doubles)\n", (long long)(n * 8), n);
    cb_printf(ctx, "# allocation: %s, first touch by the owning rank\n", cb_alloc_name(0));
    cb_printf(ctx, "# repetitions: %lld\n# warm-up: 1 untimed repetition first\n", reps);
    cb_printf(ctx, "# time: one kernel over the arrays, slowest rank, microseconds; bandwidth: "
                   "np * bytes / t_min in 1e6 B/s (bandwidth_wa_MBps counts write-allocate)\n");

    double *a = cb_alloc(n * sizeof(double), 0);
    double *b = cb_alloc(n * sizeof(double), 0);
    double *c = cb_alloc(n * sizeof(double), 0);
    double *t = malloc(sizeof(double) * (size_t)(reps * nk));
    if (!cb_all_allocated(ctx, a && b && c && t, "3 arrays of %lld bytes per rank", bytes)) {
        free(a); free(b); free(c); free(t);
        return CB_BAD_OPTIONS;
    }
    for (size_t i = 0; i < n; i++) {
        a[i] = 1.0;
        b[i] = 2.0;
        c[i] = 0.0;
    }
    double sa = 1.0, sb = 2.0, sc = 0.0;
    for (long long r = 0; r <= reps; r++) {
        for (int k = 0; k < nk; k++) {
            MPI_Barrier(comm);
            double t0 = MPI_Wtime();
            run_kernel(list[k], a, b, c, n);
            double dt = MPI_Wtime() - t0;
            run_scalar(list[k], &sa, &sb, &sc);
            if (r > 0) t[(r - 1) * nk + k] = dt;
        }
    }
    MPI_Allreduce(MPI_IN_PLACE, t, (int)(reps * nk), MPI_DOUBLE, MPI_MAX, comm);
    int ok = check_array(ctx, "a", a, n, sa) && check_array(ctx, "b", b, n, sb) &&
             check_array(ctx, "c", c, n, sc);
    int all_ok = cb_all_ok(ctx, ok);

    cb_printf(ctx, "# columns: algorithm size_bytes t_min_us t_median_us t_max_us bandwidth_MBps "
                   "bandwidth_median_MBps bandwidth_wa_MBps\n");
    double *tk = malloc(sizeof(double) * (size_t)reps);
    for (int k = 0; k < nk && tk; k++) {
        for (long long r = 0; r < reps; r++) tk[r] = t[r * nk + k];
        double tmin, tmed, tmax;
        cb_summary(tk, (int)reps, &tmin, &tmed, &tmax);
        double counted = (double)ctx->size * COUNTED[list[k]] * 8.0 * (double)n;
        double moved = (double)ctx->size * MOVED[list[k]] * 8.0 * (double)n;
        cb_printf(ctx, "%s %lld %.3f %.3f %.3f %.1f %.1f %.1f\n", NAMES[list[k]], (long long)(n * 8),
                  tmin * 1e6, tmed * 1e6, tmax * 1e6, counted / (tmin * 1e6),
                  counted / (tmed * 1e6), moved / (tmin * 1e6));
    }
    free(tk);
    int rc = cb_verdict(ctx, all_ok, "array values differ from the scalar replay of the kernels "
                        "(see stderr)");
    free(a); free(b); free(c); free(t);
    return rc;
}
