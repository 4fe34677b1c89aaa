/*
 * commbench.h -- the one header every commbook kernel shares (as osu_util.h is for OSU).
 *
 * It gives each kernel:
 *   - options:  "--name value" pairs checked against the kernel's own table (cb_optspec);
 *   - timing:   MPI_Wtime, repetitions summarised as min / median / max;
 *   - buffers:  page-aligned allocation (posix_memalign, as OSU does), optional huge pages;
 *   - validation: collective pass/fail so every rank returns the same code;
 *   - output:   one text format for every kernel, written by rank 0 either to stdout
 *               (standalone executable under mpiexec) or into a caller's buffer (ctypes).
 *
 * A kernel defines
 *     static const cb_optspec CB_OPTIONS[] = {{"name", "default", "help"}, ..., {0}};
 *     static int cb_kernel(MPI_Comm comm, cb_ctx *ctx);   starting with cb_parse(ctx, name, CB_OPTIONS)
 * after including this header.  Built with -DCB_STANDALONE it gets a main();
 * built as a shared library it exports cb_entry(comm, argc, argv, out, outcap).
 *
 * Output format (parsed by commbook.kernels.parse_output):
 *     # commbook-kernel: <name>
 *     # <key>: <value>              metadata, any number of lines
 *     # columns: a b c              once, before the rows
 *     1 2 3                         rows, whitespace separated
 *     # result: ok | VALIDATION FAILED: <why> | ERROR: <why>
 *
 * Return codes: 0 ok, 1 bad options or setup error, 2 validation failed.
 *
 * Simulated runs: compiled with SimGrid's smpicc (detected from its mpi.h, or forced with
 * -DCB_SIMULATED) every kernel runs under smpirun, its ranks threads of one process and
 * MPI_Wtime the simulated clock.  What SMPI lacks is left out there: the MPI tool interface
 * (MPI_T) and the alarm() watchdog (SimGrid reports a deadlock itself); hosts are the
 * simulated ones.
 *
 * A shared source compiled beside the kernels (collectives_algos.c) defines CB_HELPERS_ONLY
 * before including this header: the helpers without the entry points, which are each kernel's.
 */
#ifndef COMMBENCH_H
#define COMMBENCH_H

#include <mpi.h>
/* SMPI's mpi.h defines SMPI_SAMPLE_FLOPS (its compute-sampling macros): a plain smpicc build is
 * a simulated one. */
#if !defined(CB_SIMULATED) && defined(SMPI_SAMPLE_FLOPS)
#define CB_SIMULATED 1
#endif
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#define CB_OK 0
#define CB_BAD_OPTIONS 1
#define CB_VALIDATION_FAILED 2
#define CB_MAX_OPTS 32

typedef struct {
    const char *name;
    const char *default_value;
    const char *help;
} cb_optspec;

typedef struct {
    MPI_Comm comm;
    int rank, size;
    const char *values[CB_MAX_OPTS]; /* parallel to the kernel's CB_OPTIONS */
    char *out;                      /* NULL: print to stdout */
    size_t outcap, outlen;
    int truncated;
    int failed;                     /* set by cb_error_local */
    int argc;
    char **argv;
} cb_ctx;

/* Helpers a kernel may not use must not warn. */
#define CB_API static __attribute__((unused))

/* ---- output (rank 0 only) ------------------------------------------------------------ */

CB_API void cb_vprintf(cb_ctx *ctx, const char *fmt, va_list ap)
{
    if (ctx->rank != 0) return;
    if (ctx->out == NULL) {
        vprintf(fmt, ap);
        fflush(stdout);
    } else if (ctx->outlen + 1 < ctx->outcap) {
        size_t room = ctx->outcap - ctx->outlen;
        int n = vsnprintf(ctx->out + ctx->outlen, room, fmt, ap);
        if (n < 0 || (size_t)n >= room) {
            ctx->truncated = 1;
            ctx->outlen = ctx->outcap - 1;
        } else {
            ctx->outlen += (size_t)n;
        }
    } else {
        ctx->truncated = 1;
    }
}

CB_API void cb_printf(cb_ctx *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cb_vprintf(ctx, fmt, ap);
    va_end(ap);
}

/* Errors that only one rank can see go to stderr at once (the rank is named), so a
 * failure is loud even if rank 0 never reaches the end. */
CB_API void cb_error_local(cb_ctx *ctx, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "commbook kernel: rank %d: %s\n", ctx->rank, msg);
    fflush(stderr);
    ctx->failed = 1;
}

/* ---- options ------------------------------------------------------------------------- */

CB_API int cb_optindex(const cb_optspec *spec, const char *name)
{
    for (int i = 0; spec[i].name != NULL; i++)
        if (strcmp(spec[i].name, name) == 0) return i;
    return -1;
}

CB_API const char *cb_opt(const cb_ctx *ctx, const cb_optspec *spec, const char *name)
{
    int i = cb_optindex(spec, name);
    if (i < 0) return NULL;
    return ctx->values[i] ? ctx->values[i] : spec[i].default_value;
}

CB_API void cb_usage(cb_ctx *ctx, const char *kernel, const cb_optspec *spec)
{
    cb_printf(ctx, "# usage: %s", kernel);
    for (int i = 0; spec[i].name != NULL; i++)
        cb_printf(ctx, " [--%s %s]", spec[i].name, spec[i].default_value);
    cb_printf(ctx, "\n");
    for (int i = 0; spec[i].name != NULL; i++)
        cb_printf(ctx, "#   --%-14s %s (default %s)\n", spec[i].name, spec[i].help,
                  spec[i].default_value);
}

/* Parse the "--name value" pairs of ctx->argv; the first thing every cb_kernel does.
 * Returns 0, or CB_BAD_OPTIONS after writing a "# result: ERROR" line. */
CB_API int cb_parse(cb_ctx *ctx, const char *kernel, const cb_optspec *spec)
{
    int argc = ctx->argc;
    char **argv = ctx->argv;
    for (int i = 0; i < CB_MAX_OPTS; i++) ctx->values[i] = NULL;
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            cb_usage(ctx, kernel, spec);
            return CB_BAD_OPTIONS;
        }
        if (strncmp(arg, "--", 2) != 0) {
            cb_printf(ctx, "# result: ERROR: unexpected argument '%s' (options are --name value)\n", arg);
            return CB_BAD_OPTIONS;
        }
        int i = cb_optindex(spec, arg + 2);
        if (i < 0) {
            cb_printf(ctx, "# result: ERROR: unknown option '%s' for %s; known:", arg, kernel);
            for (int k = 0; spec[k].name != NULL; k++) cb_printf(ctx, " --%s", spec[k].name);
            cb_printf(ctx, "\n");
            return CB_BAD_OPTIONS;
        }
        if (a + 1 >= argc) {
            cb_printf(ctx, "# result: ERROR: option '%s' needs a value\n", arg);
            return CB_BAD_OPTIONS;
        }
        ctx->values[i] = argv[++a];
    }
    return CB_OK;
}

/* Sizes accept suffixes K, M, G (powers of two): "64K", "4M". Returns -1 on junk. */
CB_API long long cb_parse_size(const char *s)
{
    if (s == NULL || *s == '\0') return -1;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s || v < 0) return -1;
    switch (*end) {
    case '\0': break;
    case 'k': case 'K': v <<= 10; end++; break;
    case 'm': case 'M': v <<= 20; end++; break;
    case 'g': case 'G': v <<= 30; end++; break;
    default: return -1;
    }
    if (*end == 'B' || *end == 'b') end++;
    return *end == '\0' ? v : -1;
}

/* Read an integer option, with bounds; on error writes an ERROR result line. */
CB_API int cb_opt_int(cb_ctx *ctx, const cb_optspec *spec, const char *name, long long lo,
                      long long hi, long long *value)
{
    const char *s = cb_opt(ctx, spec, name);
    long long v = cb_parse_size(s);
    if (v < lo || v > hi) {
        cb_printf(ctx, "# result: ERROR: --%s %s is not a whole number in [%lld, %lld]\n", name,
                  s ? s : "(none)", lo, hi);
        return CB_BAD_OPTIONS;
    }
    *value = v;
    return CB_OK;
}

/* --iterations and --repetitions, with the bounds every timed kernel shares. */
CB_API int cb_opt_timing(cb_ctx *ctx, const cb_optspec *spec, long long *iterations,
                         long long *repetitions)
{
    return cb_opt_int(ctx, spec, "iterations", 1, 100000000, iterations) ||
           cb_opt_int(ctx, spec, "repetitions", 1, 1000, repetitions);
}

/* "MIN:MAX" size range (either side may use K/M/G). */
CB_API int cb_opt_range(cb_ctx *ctx, const cb_optspec *spec, const char *name, long long *lo,
                        long long *hi)
{
    const char *s = cb_opt(ctx, spec, name);
    char buf[64];
    if (s == NULL || strlen(s) >= sizeof buf) goto bad;
    strcpy(buf, s);
    char *colon = strchr(buf, ':');
    if (colon == NULL) {
        *lo = *hi = cb_parse_size(buf);
    } else {
        *colon = '\0';
        *lo = cb_parse_size(buf);
        *hi = cb_parse_size(colon + 1);
    }
    if (*lo < 0 || *hi < *lo || *hi > (1LL << 31)) goto bad;
    return CB_OK;
bad:
    cb_printf(ctx, "# result: ERROR: --%s '%s' is not a size range MIN:MAX in [0, 2G]\n", name,
              s ? s : "(none)");
    return CB_BAD_OPTIONS;
}

/* "AxBxC" process grid or matrix shape; missing trailing dims become 1. */
CB_API int cb_opt_dims(cb_ctx *ctx, const cb_optspec *spec, const char *name, int ndims,
                       long long *dims)
{
    const char *s = cb_opt(ctx, spec, name);
    char buf[96];
    if (s == NULL || strlen(s) >= sizeof buf) goto bad;
    strcpy(buf, s);
    int d = 0, seps = 0;
    for (const char *c = buf; *c; c++) seps += (*c == 'x' || *c == 'X');
    for (char *tok = strtok(buf, "xX"); tok != NULL; tok = strtok(NULL, "xX")) {
        if (d >= ndims) goto bad;
        dims[d] = cb_parse_size(tok);
        if (dims[d] < 0) goto bad;
        d++;
    }
    if (d == 0 || seps != d - 1) goto bad; /* "3xx" or "x3" is a typo, not 3x1x1 */
    for (; d < ndims; d++) dims[d] = 1;
    return CB_OK;
bad:
    cb_printf(ctx, "# result: ERROR: --%s '%s' is not of the form AxBxC (up to %d numbers)\n",
              name, s ? s : "(none)", ndims);
    return CB_BAD_OPTIONS;
}

/* ---- buffers ------------------------------------------------------------------------- */

/* Page-aligned like OSU and IMB; huge pages only when asked, because on machines where
 * transparent huge pages are opt-in they change large-message bandwidth several-fold. */
CB_API void *cb_alloc(size_t bytes, int hugepages)
{
    void *p = NULL;
    long page = sysconf(_SC_PAGESIZE);
    size_t align = hugepages ? (size_t)2 << 20 : (size_t)(page > 0 ? page : 4096);
    if (bytes == 0) bytes = 1;
    if (posix_memalign(&p, align, bytes) != 0) return NULL;
#ifdef MADV_HUGEPAGE
    if (hugepages) madvise(p, bytes, MADV_HUGEPAGE);
#endif
    memset(p, 0, bytes); /* touch every page before timing */
    return p;
}

CB_API const char *cb_alloc_name(int hugepages)
{
    return hugepages ? "posix_memalign(2MiB)+madvise(MADV_HUGEPAGE)" : "posix_memalign(page)";
}

/* ---- timing -------------------------------------------------------------------------- */

CB_API int cb_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts t[0..n) in place and gives min, median, max. */
CB_API void cb_summary(double *t, int n, double *tmin, double *tmed, double *tmax)
{
    qsort(t, (size_t)n, sizeof(double), cb_cmp_double);
    *tmin = t[0];
    *tmax = t[n - 1];
    *tmed = (n % 2) ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* Iterations for one timed repetition: many for small messages, fewer for large,
 * about `bytes_budget` moved per repetition but never fewer than `min_iters`. */
CB_API long long cb_iterations(long long base, long long size, long long min_iters)
{
    const long long bytes_budget = 64LL << 20;
    long long n = base;
    if (size > 0 && n * size > bytes_budget) n = bytes_budget / size;
    return n < min_iters ? min_iters : n;
}

/* Smallest l with 2^l >= x (x >= 1): the steps of a tree that doubles every step. */
CB_API int cb_ceil_log2(long long x)
{
    int l = 0;
    while ((1LL << l) < x) l++;
    return l;
}

/* ---- validation ---------------------------------------------------------------------- */

/* Byte i of a `size`-byte test message; `salt` tells senders (or directions) apart. */
CB_API unsigned char cb_pattern(long long i, long long size, long long salt)
{
    return (unsigned char)((i * 131 + size * 7 + salt) & 0xff);
}

/* Every rank passes its local verdict; all get the global one (so return codes agree). */
CB_API int cb_all_ok(cb_ctx *ctx, int local_ok)
{
    int ok = local_ok && !ctx->failed, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, ctx->comm);
    return all;
}

/* Whether every rank holds the buffers it allocated (`have`: this rank's); if one does not,
 * rank 0 writes "# result: ERROR: cannot allocate <what>". Collective. */
CB_API int cb_all_allocated(cb_ctx *ctx, int have, const char *what_fmt, ...)
{
    if (cb_all_ok(ctx, have)) return 1;
    va_list ap;
    va_start(ap, what_fmt);
    cb_printf(ctx, "# result: ERROR: cannot allocate ");
    cb_vprintf(ctx, what_fmt, ap);
    cb_printf(ctx, "\n");
    va_end(ap);
    return 0;
}

/* The last line of a run that checked its answer: "# result: ok", or "# result: VALIDATION
 * FAILED: <why>". Returns the kernel's code. */
CB_API int cb_verdict(cb_ctx *ctx, int ok, const char *why_fmt, ...)
{
    if (ok) {
        cb_printf(ctx, "# result: ok\n");
        return CB_OK;
    }
    va_list ap;
    va_start(ap, why_fmt);
    cb_printf(ctx, "# result: VALIDATION FAILED: ");
    cb_vprintf(ctx, why_fmt, ap);
    cb_printf(ctx, "\n");
    va_end(ap);
    return CB_VALIDATION_FAILED;
}

/* Where every rank runs: "# rank_hosts:" lists each rank's host in rank order (a run of one
 * host as name*count) and "# node_count:" the number of different hosts. Collective. */
CB_API void cb_placement(cb_ctx *ctx, const char *host)
{
    enum { W = 64 };
    char mine[W] = {0};
    snprintf(mine, sizeof mine, "%.*s", W - 1, host);
    char *all = ctx->rank == 0 ? malloc((size_t)ctx->size * W) : NULL;
    MPI_Gather(mine, W, MPI_CHAR, all, W, MPI_CHAR, 0, ctx->comm);
    if (ctx->rank != 0) return;
    if (all == NULL) {
        cb_printf(ctx, "# rank_hosts: unknown\n");
        return;
    }
    int nodes = 0;
    cb_printf(ctx, "# rank_hosts: ");
    for (int i = 0, run = 1; i < ctx->size; i++, run++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++) seen = strcmp(all + (size_t)j * W, all + (size_t)i * W) == 0;
        nodes += !seen;
        if (i + 1 < ctx->size && strcmp(all + (size_t)i * W, all + (size_t)(i + 1) * W) == 0) continue;
        cb_printf(ctx, run > 1 ? "%s%s*%d" : "%s%s", i + 1 == run ? "" : ",", all + (size_t)i * W, run);
        run = 0;
    }
    cb_printf(ctx, "\n# node_count: %d\n", nodes);
    free(all);
}

CB_API void cb_header(cb_ctx *ctx, const char *kernel)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(lib, &len);
    for (int i = 0; i < len; i++)
        if (lib[i] == '\n' || lib[i] == '\r') { lib[i] = '\0'; break; }
    char host[MPI_MAX_PROCESSOR_NAME > 256 ? MPI_MAX_PROCESSOR_NAME : 256] = "unknown";
#ifdef CB_SIMULATED
    int hlen = 0; /* the simulated host; gethostname would name the machine running smpirun */
    MPI_Get_processor_name(host, &hlen);
#else
    gethostname(host, sizeof host - 1);
#endif
    cb_printf(ctx, "# commbook-kernel: %s\n", kernel);
    cb_printf(ctx, "# mpi_library: %s\n", lib);
#ifdef CB_SIMULATED
    cb_printf(ctx, "# simulated: yes (SimGrid SMPI: times are simulated, not measured)\n");
#endif
    cb_printf(ctx, "# np: %d\n", ctx->size);
    cb_printf(ctx, "# host: %s\n", host);
    cb_placement(ctx, host);
}

/* ---- watchdog: a hang made a loud failure (standalone programs only: it ends the process) ---- */

#ifdef CB_SIMULATED
/* One process holds every simulated rank and SimGrid ends a deadlocked simulation itself (with
 * its own report), so there is no watchdog to arm. */
CB_API void cb_arm(int rank, int seconds, const char *what) { (void)rank; (void)seconds; (void)what; }
CB_API void cb_disarm(void) {}
#else
static char cb_stuck_msg[256];

CB_API void cb_on_alarm(int sig)
{
    (void)sig;
    ssize_t w = write(2, cb_stuck_msg, strlen(cb_stuck_msg));
    (void)w;
    _exit(3);
}

/* A rank still inside `what` `seconds` after this call prints a DEADLOCK line on stderr and
 * exits with code 3 (mpiexec then ends the job); cb_disarm() when `what` returned. */
CB_API void cb_arm(int rank, int seconds, const char *what)
{
    snprintf(cb_stuck_msg, sizeof cb_stuck_msg,
             "commbook kernel: rank %d: DEADLOCK: still inside %s after %d s "
             "(every rank waiting for another)\n", rank, what, seconds);
    signal(SIGALRM, cb_on_alarm);
    alarm((unsigned)seconds);
}

CB_API void cb_disarm(void) { alarm(0); }
#endif

/* ---- entry points -------------------------------------------------------------------- */

#ifndef CB_HELPERS_ONLY

static int cb_kernel(MPI_Comm comm, cb_ctx *ctx);

/* Called through ctypes by every engine with the engine's communicator. */
int cb_entry(MPI_Comm comm, int argc, char **argv, char *out, size_t outcap)
{
    cb_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.comm = comm;
    MPI_Comm_rank(comm, &ctx.rank);
    MPI_Comm_size(comm, &ctx.size);
    ctx.out = out;
    ctx.outcap = outcap;
    ctx.argc = argc;
    ctx.argv = argv;
    if (out && outcap) out[0] = '\0';
    int rc = cb_kernel(comm, &ctx);
    if (ctx.truncated && ctx.rank == 0) {
        fprintf(stderr, "commbook kernel: output truncated at %zu bytes\n", outcap);
        if (rc == CB_OK) rc = CB_BAD_OPTIONS;
    }
    return rc;
}

#ifdef CB_STANDALONE
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rc = cb_entry(MPI_COMM_WORLD, argc, argv, NULL, 0);
    MPI_Finalize();
    return rc;
}
#endif
#endif /* CB_HELPERS_ONLY */

#endif /* COMMBENCH_H */
