/*
 * exercise_harness.h -- the harnesses of the C exercises in kernels_c/exercises/.
 *
 * A reader writes one function; the harness runs it on every rank, checks the answer on
 * every rank against MPI itself, and prints the common kernel output format (commbench.h).
 * The self-checks in commbook.exercises compile the reader's file and run it for several P.
 *
 *   ring:   ex_ring_main(ctx, shift)     shift = send to the right, receive from the left,
 *                                        with blocking MPI_Send / MPI_Recv only
 *   gather: ex_gather_main(ctx, gather)  binomial-tree gather with MPI_Send / MPI_Recv
 *   eager:  ex_eager_main(ctx, probe)    the largest message MPI_Send delivers eagerly
 *
 * A watchdog (commbench.h's cb_arm) turns a hang into a loud failure: a rank still inside the
 * reader's code after --watchdog seconds prints that it is stuck and exits with code 3.
 */
#ifndef EXERCISE_HARNESS_H
#define EXERCISE_HARNESS_H

#include "commbench.h"

/* Sizes "4,1K,1M": up to 16 of them. */
static int ex_sizes(cb_ctx *ctx, const cb_optspec *spec, long long *sizes, int *n)
{
    const char *s = cb_opt(ctx, spec, "sizes");
    char buf[256];
    if (s == NULL || strlen(s) >= sizeof buf) goto bad;
    strcpy(buf, s);
    *n = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        long long v = cb_parse_size(tok);
        if (v < 0 || v > (1LL << 28) || *n == 16) goto bad;
        sizes[(*n)++] = v;
    }
    if (*n > 0) return CB_OK;
bad:
    cb_printf(ctx, "# result: ERROR: --sizes '%s' must be 1 to 16 sizes in [0, 256M], "
              "comma separated\n", s ? s : "(none)");
    return CB_BAD_OPTIONS;
}

/* ---- the ring with blocking sends ------------------------------------------------------ */

typedef void (*ex_ring_shift)(const char *sendbuf, char *recvbuf, int n, int left, int right,
                              MPI_Comm comm);

static const cb_optspec EX_RING_OPTIONS[] = {
    {"sizes", "4,64K,1M", "message sizes in bytes, comma separated (K, M suffixes)"},
    {"repetitions", "3", "timed rings per size"},
    {"watchdog", "5", "seconds a rank may stay inside one ring step before it is a deadlock"},
    {NULL, NULL, NULL}};

/* The byte j of the message that started on rank `origin`. */
static char ex_ring_byte(int origin, long long j) { return (char)((origin * 31 + j * 7 + 1) & 0xff); }

CB_API int ex_ring_main(cb_ctx *ctx, const char *name, ex_ring_shift shift)
{
    const cb_optspec *spec = EX_RING_OPTIONS;
    if (cb_parse(ctx, name, spec)) return CB_BAD_OPTIONS;
    long long sizes[16], reps, watchdog;
    int nsizes;
    if (ex_sizes(ctx, spec, sizes, &nsizes) ||
        cb_opt_int(ctx, spec, "repetitions", 1, 1000, &reps) ||
        cb_opt_int(ctx, spec, "watchdog", 1, 3600, &watchdog))
        return CB_BAD_OPTIONS;
    int rank = ctx->rank, P = ctx->size;
    int left = (rank - 1 + P) % P, right = (rank + 1) % P;
    cb_header(ctx, name);
    cb_printf(ctx, "# benchmark: ring with blocking MPI_Send / MPI_Recv (your shift)\n");
    cb_printf(ctx, "# columns: size_bytes t_min_us t_median_us t_max_us\n");
    long long smax = 4;
    for (int i = 0; i < nsizes; i++) smax = sizes[i] > smax ? sizes[i] : smax;
    char *a = cb_alloc((size_t)smax, 0), *b = cb_alloc((size_t)smax, 0);
    char why[256] = "";
    int ok = a && b;
    for (int s = 0; s < nsizes && ok; s++) {
        int n = (int)sizes[s];
        double t[1000];
        for (int r = 0; r < reps && ok; r++) {
            for (long long j = 0; j < n; j++) a[j] = ex_ring_byte(rank, j);
            MPI_Barrier(ctx->comm);
            double t0 = MPI_Wtime();
            char what[96];
            snprintf(what, sizeof what, "your ring shift (MPI_Send / MPI_Recv) with %d-byte "
                     "messages", n);
            for (int k = 1; k <= P && ok; k++) {
                cb_arm(rank, (int)watchdog, what);
                shift(a, b, n, left, right, ctx->comm);
                cb_disarm();
                int origin = ((rank - k) % P + P) % P; /* after k steps: the value of rank - k */
                for (long long j = 0; j < n; j++)
                    if (b[j] != ex_ring_byte(origin, j)) {
                        snprintf(why, sizeof why, "size %d, step %d, byte %lld: expected the "
                                 "message that started on rank %d, got something else", n, k,
                                 j, origin);
                        ok = 0;
                        break;
                    }
                char *swap = a; a = b; b = swap;
            }
            t[r] = (MPI_Wtime() - t0) * 1e6;
        }
        if (!ok) cb_error_local(ctx, "%s", why);
        ok = cb_all_ok(ctx, ok);
        if (!ok) break;
        double mine = 0, tmin, tmed, tmax;
        cb_summary(t, (int)reps, &tmin, &tmed, &tmax);
        mine = tmed;
        double slowest;
        MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, ctx->comm);
        cb_printf(ctx, "%d %.3f %.3f %.3f\n", n, tmin, slowest, tmax);
    }
    free(a);
    free(b);
    return cb_verdict(ctx, ok, "a message arrived at the wrong rank or step (see stderr)");
}

/* ---- binomial gather ------------------------------------------------------------------- */

typedef void (*ex_gather_fn)(const char *sendbuf, char *recvbuf, int n, int root, MPI_Comm comm);

static const cb_optspec EX_GATHER_OPTIONS[] = {
    {"sizes", "0,1,7,1000,65537", "bytes per rank, comma separated"},
    {"watchdog", "5", "seconds a rank may stay inside your gather before it is a deadlock"},
    {NULL, NULL, NULL}};

static long long ex_sends, ex_recvs; /* point-to-point calls made inside the reader's gather */

CB_API int ex_counted_send(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                           MPI_Comm comm)
{
    ex_sends++;
    return PMPI_Send(buf, count, dt, dest, tag, comm);
}

CB_API int ex_counted_recv(void *buf, int count, MPI_Datatype dt, int src, int tag,
                           MPI_Comm comm, MPI_Status *st)
{
    ex_recvs++;
    return PMPI_Recv(buf, count, dt, src, tag, comm, st);
}

static char ex_gather_byte(int rank, long long j) { return (char)((rank * 13 + j * 5 + 3) & 0xff); }

CB_API int ex_gather_main(cb_ctx *ctx, const char *name, ex_gather_fn gather)
{
    const cb_optspec *spec = EX_GATHER_OPTIONS;
    if (cb_parse(ctx, name, spec)) return CB_BAD_OPTIONS;
    long long sizes[16], watchdog;
    int nsizes;
    if (ex_sizes(ctx, spec, sizes, &nsizes) || cb_opt_int(ctx, spec, "watchdog", 1, 3600, &watchdog))
        return CB_BAD_OPTIONS;
    int rank = ctx->rank, P = ctx->size;
    cb_header(ctx, name);
    cb_printf(ctx, "# benchmark: binomial gather (yours) against MPI_Gather, roots 0 and P-1\n");
    cb_printf(ctx, "# columns: size_bytes root t_us root_receives\n");
    long long smax = 1;
    for (int i = 0; i < nsizes; i++) smax = sizes[i] > smax ? sizes[i] : smax;
    char *sb = cb_alloc((size_t)smax, 0), *rb = cb_alloc((size_t)smax * P, 0),
         *ref = cb_alloc((size_t)smax * P, 0);
    int ok = sb && rb && ref;
    char why[256] = "";
    int roots[2] = {0, P - 1};
    for (int s = 0; s < nsizes && ok; s++) {
        int n = (int)sizes[s];
        for (int ri = 0; ri < (P > 1 ? 2 : 1) && ok; ri++) {
            int root = roots[ri];
            for (long long j = 0; j < n; j++) sb[j] = ex_gather_byte(rank, j);
            memset(rb, 0x5a, (size_t)smax * P);
            PMPI_Gather(sb, n, MPI_CHAR, ref, n, MPI_CHAR, root, ctx->comm);
            ex_sends = ex_recvs = 0;
            MPI_Barrier(ctx->comm);
            double t0 = MPI_Wtime();
            cb_arm(rank, (int)watchdog, "your gather");
            gather(sb, rb, n, root, ctx->comm);
            cb_disarm();
            double t = (MPI_Wtime() - t0) * 1e6;
            int local = 1;
            if (rank == root && n && memcmp(rb, ref, (size_t)n * P) != 0) {
                long long j = 0;
                while (rb[j] == ref[j]) j++;
                snprintf(why, sizeof why, "size %d, root %d: byte %lld of the result (block of "
                         "rank %lld) differs from MPI_Gather", n, root, j, j / n);
                local = 0;
            }
            for (long long j = 0; j < n && local; j++)
                if (sb[j] != ex_gather_byte(rank, j)) {
                    snprintf(why, sizeof why, "the send buffer was modified");
                    local = 0;
                }
            /* a binomial tree: every rank but the root sends once; the root receives
             * ceil(log2 P) times (a linear gather would receive P - 1 times) */
            if (local && rank != root && ex_sends != 1) {
                snprintf(why, sizeof why, "size %d, root %d: this rank sent %lld messages; in a "
                         "binomial gather every rank but the root sends exactly one", n, root,
                         ex_sends);
                local = 0;
            }
            if (local && rank == root && ex_recvs != cb_ceil_log2(P)) {
                snprintf(why, sizeof why, "size %d, root %d: the root received %lld messages; "
                         "the root of a binomial tree on %d ranks receives ceil(log2 P) = %d",
                         n, root, ex_recvs, P, cb_ceil_log2(P));
                local = 0;
            }
            if (!local) cb_error_local(ctx, "%s", why);
            ok = cb_all_ok(ctx, local);
            long long root_recvs = ex_recvs;
            MPI_Bcast(&root_recvs, 1, MPI_LONG_LONG, root, ctx->comm);
            double slowest;
            MPI_Reduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, ctx->comm);
            if (ok) cb_printf(ctx, "%d %d %.3f %lld\n", n, root, slowest, root_recvs);
        }
    }
    free(sb);
    free(rb);
    free(ref);
    return cb_verdict(ctx, ok, "your gather is not a correct binomial gather (see stderr)");
}

/* ---- eager / rendezvous threshold ------------------------------------------------------ */

typedef long long (*ex_eager_probe)(int peer, long long max_bytes, MPI_Comm comm);

static const cb_optspec EX_EAGER_OPTIONS[] = {
    {"max", "4M", "largest size the probe may try (bytes)"},
    {"watchdog", "60", "seconds the probe may take before it is a deadlock"},
    {NULL, NULL, NULL}};

/* The library's own word, when it exposes it as an MPI_T control variable (SMPI has no MPI_T:
 * its threshold is smpirun's --cfg=smpi/send-is-detached-thresh). */
static void ex_print_eager_cvars(cb_ctx *ctx)
{
#ifdef CB_SIMULATED
    cb_printf(ctx, "# library_eager_limit: unknown (simulated: SMPI has no MPI_T; smpirun's "
              "--cfg=smpi/send-is-detached-thresh sets it)\n");
#else
    int provided, ncvar = 0;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return;
    MPI_T_cvar_get_num(&ncvar);
    for (int i = 0; i < ncvar; i++) {
        char cname[256], desc[1024];
        int nlen = sizeof cname, dlen = sizeof desc, verb, bind, scope;
        MPI_Datatype dt;
        MPI_T_enum en;
        if (MPI_T_cvar_get_info(i, cname, &nlen, &verb, &dt, &en, desc, &dlen, &bind, &scope)
            != MPI_SUCCESS)
            continue;
        if (bind != MPI_T_BIND_NO_OBJECT || !strstr(cname, "eager") ||
            !(strstr(cname, "btl_sm") || strstr(cname, "btl_vader") || strstr(cname, "SHM") ||
              strstr(cname, "POSIX")))
            continue;
        if (dt != MPI_INT && dt != MPI_UNSIGNED && dt != MPI_UNSIGNED_LONG &&
            dt != MPI_UNSIGNED_LONG_LONG && dt != MPI_LONG_LONG && dt != MPI_COUNT)
            continue;
        MPI_T_cvar_handle h;
        int count;
        unsigned long long v = 0;
        if (MPI_T_cvar_handle_alloc(i, NULL, &h, &count) != MPI_SUCCESS) continue;
        if (count == 1 && MPI_T_cvar_read(h, &v) == MPI_SUCCESS) {
            if (dt == MPI_INT || dt == MPI_UNSIGNED) v &= 0xffffffffULL;
            cb_printf(ctx, "# library_cvar: %s=%llu\n", cname, v);
        }
        MPI_T_cvar_handle_free(&h);
    }
    MPI_T_finalize();
#endif
}

CB_API int ex_eager_main(cb_ctx *ctx, const char *name, ex_eager_probe probe)
{
    const cb_optspec *spec = EX_EAGER_OPTIONS;
    if (cb_parse(ctx, name, spec)) return CB_BAD_OPTIONS;
    long long maxb, watchdog;
    if (cb_opt_int(ctx, spec, "max", 1, 1LL << 28, &maxb) ||
        cb_opt_int(ctx, spec, "watchdog", 1, 3600, &watchdog))
        return CB_BAD_OPTIONS;
    if (ctx->size < 2) {
        cb_printf(ctx, "# result: ERROR: the probe needs at least 2 ranks\n");
        return CB_BAD_OPTIONS;
    }
    int rank = ctx->rank, P = ctx->size, peer = P - 1; /* the farthest rank */
    cb_header(ctx, name);
    ex_print_eager_cvars(ctx);
    cb_printf(ctx, "# benchmark: largest MPI_Send completed before the receive was posted, "
              "rank 0 -> rank %d\n", peer);
    cb_printf(ctx, "# columns: eager_limit_bytes\n");
    long long found = -1;
    MPI_Comm pair;
    MPI_Comm_split(ctx->comm, rank == 0 || rank == peer ? 0 : MPI_UNDEFINED,
                   rank == 0 ? 0 : 1, &pair);
    if (pair != MPI_COMM_NULL) {
        cb_arm(rank, (int)watchdog, "your eager probe");
        found = probe(rank == 0 ? 1 : 0, maxb, pair);
        cb_disarm();
        MPI_Comm_free(&pair);
    }
    MPI_Bcast(&found, 1, MPI_LONG_LONG, 0, ctx->comm);
    int ok = found >= 0 && found <= maxb;
    if (ok) cb_printf(ctx, "%lld\n", found);
    return cb_verdict(ctx, ok, "the probe returned %lld, not a size in [0, %lld]", found, maxb);
}

/* ---- the rules of the exercise, for the reader's code below the #include ---------------- */

/* Count the reader's point-to-point calls (the gather check needs them). */
#define MPI_Send ex_counted_send
#define MPI_Recv ex_counted_recv
#ifndef EX_ALLOW_NONBLOCKING
/* The ring and the gather are about blocking MPI_Send / MPI_Recv and their order: anything
 * else fails to build, naming the rule. */
#define MPI_Sendrecv this_exercise_allows_only_MPI_Send_and_MPI_Recv
#define MPI_Isend this_exercise_allows_only_MPI_Send_and_MPI_Recv
#define MPI_Irecv this_exercise_allows_only_MPI_Send_and_MPI_Recv
#define MPI_Bsend this_exercise_allows_only_MPI_Send_and_MPI_Recv
#define MPI_Gather this_exercise_asks_for_your_own_gather
#define MPI_Gatherv this_exercise_asks_for_your_own_gather
#endif

#endif /* EXERCISE_HARNESS_H */
