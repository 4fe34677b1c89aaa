/*
 * ring.c -- messages travelling both ways round a periodic 1-D Cartesian topology.
 *
 * The ring is MPI_Cart_create with one periodic dimension (reorder = 0, so rank i sits where
 * mpiexec placed it and the link classes follow the mapping).  One "ring" is P steps; at each
 * step every rank sends a message to its right neighbour and one to its left, receives one
 * from each side, adds the int in the first four bytes to a running sum, and forwards what it
 * received at the next step.  After P steps every value has visited every rank once in each
 * direction, so each rank's two sums equal the closed form sum_r v(r) = P(P+1)/2 with
 * v(r) = r + 1, and at step k the message from the left must carry v(rank - k).
 *
 * --size BYTES (default 4 = one int, as in the course assignment) or MIN:MAX (powers of two).
 * Bytes after the first int are padding filled with a pattern that depends on the sender and
 * is checked as well.  --nonblocking 0: two MPI_Sendrecv per step (cannot deadlock, the two
 * directions are serialised); 1: two MPI_Irecv + two MPI_Isend + MPI_Waitall per step.
 * --ssend 1 (blocking only): MPI_Ssend/MPI_Recv in odd/even order instead of MPI_Sendrecv, four
 * synchronous phases per step, as in the ring a student timed on ORFEO (rank 0 of an odd ring
 * alternates, so the parity has no clash).
 *
 * Timing: per repetition, --iterations rings between a barrier and MPI_Wtime; time per ring of
 * the slowest rank (MPI_Reduce MAX); min/median/max over --repetitions.  --barrier-per-ring 1
 * times each ring alone, from a barrier to the end of a second barrier (the students' timing).  Before timing each
 * size, one ring is validated step by step (value and padding); the timed rings are checked
 * afterwards through their sums.  --inject-error 1 (value) or 2 (padding byte) makes the last
 * rank corrupt what it forwards in the validated ring, so the failure path can be tested.
 */
#include "commbench.h"

static const cb_optspec CB_OPTIONS[] = {
    {"size", "4", "message size in bytes, or MIN:MAX for powers of two (at least 4: one int)"},
    {"nonblocking", "0", "0: MPI_Sendrecv per direction; 1: MPI_Isend/MPI_Irecv + MPI_Waitall"},
    {"iterations", "200", "rings per timed repetition (fewer for large messages)"},
    {"repetitions", "10", "timed repetitions per size (summarised as min/median/max)"},
    {"ssend", "0", "1: blocking exchange by MPI_Ssend/MPI_Recv in odd/even order (needs --nonblocking 0)"},
    {"barrier-per-ring", "0", "1: time each ring alone, closing barrier included (as ORFEO's students)"},
    {"inject-error", "0", "testing only: 1 corrupts a value, 2 a padding byte"},
    {NULL, NULL, NULL}};

typedef struct {
    MPI_Comm ring;
    int rank, np, left, right, nonblocking, ssend;
    int count;              /* bytes per message */
    char *sl, *sr, *rl, *rr; /* send-left, send-right, received-from-left, from-right */
} ring_t;

static int value_of(int r) { return r + 1; }

static unsigned char pad_byte(int origin, long long i)
{
    return (unsigned char)((origin * 37 + i * 11 + 5) & 0xff);
}

static void fill_own(ring_t *g, char *buf)
{
    int v = value_of(g->rank);
    memcpy(buf, &v, sizeof v);
    for (long long i = (long long)sizeof(int); i < g->count; i++) buf[i] = (char)pad_byte(g->rank, i);
}

static int first_int(const char *buf)
{
    int v;
    memcpy(&v, buf, sizeof v);
    return v;
}

static void swap(char **a, char **b)
{
    char *t = *a;
    *a = *b;
    *b = t;
}

/* One step: send right and left, receive from left and right; then forward what arrived. */
static void step(ring_t *g)
{
    if (g->nonblocking) {
        MPI_Request req[4];
        MPI_Irecv(g->rl, g->count, MPI_CHAR, g->left, 0, g->ring, &req[0]);
        MPI_Irecv(g->rr, g->count, MPI_CHAR, g->right, 1, g->ring, &req[1]);
        MPI_Isend(g->sr, g->count, MPI_CHAR, g->right, 0, g->ring, &req[2]);
        MPI_Isend(g->sl, g->count, MPI_CHAR, g->left, 1, g->ring, &req[3]);
        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    } else if (g->ssend) {
        MPI_Status st;
        if (g->rank % 2 == 1) {
            MPI_Ssend(g->sr, g->count, MPI_CHAR, g->right, 0, g->ring);
            MPI_Ssend(g->sl, g->count, MPI_CHAR, g->left, 1, g->ring);
            MPI_Recv(g->rl, g->count, MPI_CHAR, g->left, 0, g->ring, &st);
            MPI_Recv(g->rr, g->count, MPI_CHAR, g->right, 1, g->ring, &st);
        } else if (g->np % 2 == 0 || g->rank != 0) {
            MPI_Recv(g->rl, g->count, MPI_CHAR, g->left, 0, g->ring, &st);
            MPI_Recv(g->rr, g->count, MPI_CHAR, g->right, 1, g->ring, &st);
            MPI_Ssend(g->sr, g->count, MPI_CHAR, g->right, 0, g->ring);
            MPI_Ssend(g->sl, g->count, MPI_CHAR, g->left, 1, g->ring);
        } else { /* rank 0 of an odd ring: its two neighbours are both even */
            MPI_Ssend(g->sl, g->count, MPI_CHAR, g->left, 1, g->ring);
            MPI_Recv(g->rr, g->count, MPI_CHAR, g->right, 1, g->ring, &st);
            MPI_Ssend(g->sr, g->count, MPI_CHAR, g->right, 0, g->ring);
            MPI_Recv(g->rl, g->count, MPI_CHAR, g->left, 0, g->ring, &st);
        }
    } else {
        MPI_Sendrecv(g->sr, g->count, MPI_CHAR, g->right, 0, g->rl, g->count, MPI_CHAR, g->left,
                     0, g->ring, MPI_STATUS_IGNORE);
        MPI_Sendrecv(g->sl, g->count, MPI_CHAR, g->left, 1, g->rr, g->count, MPI_CHAR, g->right,
                     1, g->ring, MPI_STATUS_IGNORE);
    }
    swap(&g->sr, &g->rl); /* what came from the left goes on to the right */
    swap(&g->sl, &g->rr);
}

/* `rings` full rings; adds what each rank received into *sum_l, *sum_r. */
static void rings(ring_t *g, long long n, long long *sum_l, long long *sum_r)
{
    for (long long it = 0; it < n; it++) {
        fill_own(g, g->sr);
        memcpy(g->sl, g->sr, sizeof(int)); /* the padding of sl is refreshed below only if checked */
        for (int k = 0; k < g->np; k++) {
            step(g);
            *sum_l += first_int(g->sr); /* after the swap, sr holds what came from the left */
            *sum_r += first_int(g->sl);
        }
    }
}

static int check_padding(ring_t *g, cb_ctx *ctx, const char *buf, int origin, int k,
                         const char *side)
{
    for (long long i = (long long)sizeof(int); i < g->count; i++)
        if ((unsigned char)buf[i] != pad_byte(origin, i)) {
            cb_error_local(ctx, "%d bytes, step %d, from the %s (origin rank %d): padding byte "
                           "%lld is %d, expected %d", g->count, k, side, origin, i,
                           (unsigned char)buf[i], pad_byte(origin, i));
            return 0;
        }
    return 1;
}

/* One ring checked at every step: value and padding of both messages, then the sums. */
static int validated_ring(ring_t *g, cb_ctx *ctx, int inject)
{
    int ok = 1;
    long long sum_l = 0, sum_r = 0;
    fill_own(g, g->sr);
    fill_own(g, g->sl);
    for (int k = 1; k <= g->np; k++) {
        if (inject && k == 1 && g->rank == g->np - 1) {
            if (inject == 2 && g->count > (int)sizeof(int)) g->sr[g->count - 1] ^= 0x5a;
            else { int v = first_int(g->sr) + 1; memcpy(g->sr, &v, sizeof v); }
        }
        step(g);
        int from_l = (g->rank - k % g->np + g->np) % g->np; /* origin of what came from the left */
        int from_r = (g->rank + k) % g->np;
        int vl = first_int(g->sr), vr = first_int(g->sl);
        if (ok && vl != value_of(from_l)) {
            cb_error_local(ctx, "step %d: value from the left is %d, expected %d (rank %d's)",
                           k, vl, value_of(from_l), from_l);
            ok = 0;
        }
        if (ok && vr != value_of(from_r)) {
            cb_error_local(ctx, "step %d: value from the right is %d, expected %d (rank %d's)",
                           k, vr, value_of(from_r), from_r);
            ok = 0;
        }
        if (ok) ok = check_padding(g, ctx, g->sr, from_l, k, "left") &&
                     check_padding(g, ctx, g->sl, from_r, k, "right");
        sum_l += vl;
        sum_r += vr;
    }
    long long expected = (long long)g->np * (g->np + 1) / 2;
    if (ok && (sum_l != expected || sum_r != expected)) {
        cb_error_local(ctx, "sums after one ring are %lld (left) and %lld (right), expected "
                       "P(P+1)/2 = %lld", sum_l, sum_r, expected);
        ok = 0;
    }
    return cb_all_ok(ctx, ok);
}

static int nodes_in(MPI_Comm comm)
{
    MPI_Comm shared;
    int local_rank, leaders = 0, leader;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared);
    MPI_Comm_rank(shared, &local_rank);
    leader = local_rank == 0;
    MPI_Allreduce(&leader, &leaders, 1, MPI_INT, MPI_SUM, comm);
    MPI_Comm_free(&shared);
    return leaders;
}

static int cb_kernel(MPI_Comm comm, cb_ctx *ctx)
{
    if (cb_parse(ctx, "ring", CB_OPTIONS)) return CB_BAD_OPTIONS;
    long long smin, smax, nonblocking, ssend, per_ring, iters, reps, inject;
    if (cb_opt_range(ctx, CB_OPTIONS, "size", &smin, &smax) ||
        cb_opt_int(ctx, CB_OPTIONS, "nonblocking", 0, 1, &nonblocking) ||
        cb_opt_int(ctx, CB_OPTIONS, "ssend", 0, 1, &ssend) ||
        cb_opt_int(ctx, CB_OPTIONS, "barrier-per-ring", 0, 1, &per_ring) ||
        cb_opt_timing(ctx, CB_OPTIONS, &iters, &reps) ||
        cb_opt_int(ctx, CB_OPTIONS, "inject-error", 0, 2, &inject))
        return CB_BAD_OPTIONS;
    if (smin < (long long)sizeof(int)) {
        cb_printf(ctx, "# result: ERROR: --size %lld is below 4 bytes: the payload carries one int\n",
                  smin);
        return CB_BAD_OPTIONS;
    }
    if (ssend && (nonblocking || ctx->size < 2)) {
        cb_printf(ctx, "# result: ERROR: --ssend 1 is a blocking exchange between two or more ranks: "
                  "give --nonblocking 0 and P >= 2\n");
        return CB_BAD_OPTIONS;
    }
    if (smax > (1LL << 30)) {
        cb_printf(ctx, "# result: ERROR: --size %lld exceeds 1 GiB\n", smax);
        return CB_BAD_OPTIONS;
    }

    ring_t g;
    memset(&g, 0, sizeof g);
    int dims[1] = {ctx->size}, periods[1] = {1};
    MPI_Cart_create(comm, 1, dims, periods, 0, &g.ring);
    MPI_Comm_rank(g.ring, &g.rank);
    MPI_Comm_size(g.ring, &g.np);
    MPI_Cart_shift(g.ring, 0, 1, &g.left, &g.right);
    g.nonblocking = (int)nonblocking;
    g.ssend = (int)ssend;
    int nodes = nodes_in(comm);

    cb_header(ctx, "ring");
    cb_printf(ctx, "# benchmark: ring\n# algorithm: %s\n", nonblocking ? "nonblocking" : "blocking");
    cb_printf(ctx, "# exchange: %s\n", nonblocking
              ? "MPI_Irecv x2 + MPI_Isend x2 + MPI_Waitall per step (directions overlap)"
              : ssend ? "MPI_Ssend x2 + MPI_Recv x2 per step in odd/even order (four synchronous phases)"
                      : "MPI_Sendrecv right then MPI_Sendrecv left per step (directions serialised)");
    cb_printf(ctx, "# topology: periodic 1-D Cartesian, MPI_Cart_create reorder=0, %d ranks on %d node(s)\n",
              g.np, nodes);
    cb_printf(ctx, "# nodes: %d\n", nodes);
    cb_printf(ctx, "# repetitions: %lld\n", reps);
    cb_printf(ctx, "# validation: every step of one ring per size (value v(r)=r+1 and padding), "
              "sums of all timed rings = rings * P(P+1)/2\n");
    cb_printf(ctx, "# time: one ring of P steps (2P messages per rank)%s, slowest rank, microseconds\n",
              per_ring ? " alone between two barriers, the closing one included" : "");
    cb_printf(ctx, "# columns: np size_bytes iterations t_min_us t_median_us t_max_us t_step_us\n");

    size_t cap = (size_t)smax;
    char *bufs[4];
    int have = 1;
    for (int i = 0; i < 4; i++) {
        bufs[i] = cb_alloc(cap, 0);
        have = have && bufs[i] != NULL;
    }
    double *t = malloc(sizeof(double) * (size_t)reps);
    int rc = CB_OK;
    if (!cb_all_allocated(ctx, have && t != NULL, "four buffers of %lld bytes", smax)) {
        rc = CB_BAD_OPTIONS;
        goto done;
    }
    g.sl = bufs[0];
    g.sr = bufs[1];
    g.rl = bufs[2];
    g.rr = bufs[3];

    for (long long size = smin; size <= smax; size *= 2) {
        g.count = (int)size;
        if (!validated_ring(&g, ctx, (int)inject)) {
            cb_printf(ctx, "# result: VALIDATION FAILED: ring of %d ranks with %d-byte messages "
                      "delivered a wrong value or padding (see stderr for the rank and step)\n",
                      g.np, g.count);
            rc = CB_VALIDATION_FAILED;
            break;
        }
        long long n = cb_iterations(iters, size * 2 * g.np, 3);
        long long sum_l = 0, sum_r = 0, done_rings = 0;
        rings(&g, n / 10 > 2 ? n / 10 : 2, &sum_l, &sum_r); /* warm-up */
        done_rings += n / 10 > 2 ? n / 10 : 2;
        for (long long r = 0; r < reps; r++) {
            double spent = 0, slowest = 0;
            for (long long i = 0; i < (per_ring ? n : 1); i++) {
                MPI_Barrier(g.ring);
                double t0 = MPI_Wtime();
                rings(&g, per_ring ? 1 : n, &sum_l, &sum_r);
                if (per_ring) MPI_Barrier(g.ring);
                spent += MPI_Wtime() - t0;
            }
            double mine = spent / (double)n * 1e6;
            MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, g.ring);
            t[r] = slowest;
            done_rings += n;
        }
        long long expected = done_rings * ((long long)g.np * (g.np + 1) / 2);
        int ok = sum_l == expected && sum_r == expected;
        if (!ok)
            cb_error_local(ctx, "timed rings of %d bytes: sums %lld and %lld, expected %lld",
                           g.count, sum_l, sum_r, expected);
        if (!cb_all_ok(ctx, ok)) {
            cb_printf(ctx, "# result: VALIDATION FAILED: sums of the timed rings of %d bytes are "
                      "wrong\n", g.count);
            rc = CB_VALIDATION_FAILED;
            break;
        }
        double tmin, tmed, tmax;
        cb_summary(t, (int)reps, &tmin, &tmed, &tmax);
        cb_printf(ctx, "%d %lld %lld %.4f %.4f %.4f %.4f\n", g.np, size, n, tmin, tmed, tmax,
                  tmed / g.np);
    }
    if (rc == CB_OK) cb_printf(ctx, "# result: ok\n");
done:
    for (int i = 0; i < 4; i++) free(bufs[i]);
    free(t);
    MPI_Comm_free(&g.ring);
    return rc;
}
