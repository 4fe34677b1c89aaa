/*
 * matrix_add.c -- C = A + B on 3-D matrices distributed over a 1-D, 2-D or 3-D process grid.
 *
 * --shape NXxNYxNZ is the matrix (C order: z varies fastest); --grid AxBxC the Cartesian process
 * grid (MPI_Cart_create, not periodic, reorder = 0); a 0 in the grid lets MPI_Dims_create choose
 * that dimension.  Extents need not divide evenly: block i of n points over p parts has
 * n/p + (i < n%p) points, so blocks differ by at most one plane.
 *
 * One repetition, with a barrier before each phase and every phase timed on every rank:
 *   scatter  root packs each rank's 3-D block of A into a rank-ordered buffer, MPI_Scatterv;
 *            the same for B (packing is part of the phase; its root time is also reported);
 *   add      every rank adds its blocks;
 *   gather   MPI_Gatherv of the C blocks to the root, which unpacks them into C.
 * Phase times are the slowest rank's (MPI_Reduce MAX); total = first barrier to end of gather.
 * Min/median/max over --repetitions.  The root also times the serial sum A + B (the speedup
 * baseline).
 *
 * Check (every repetition, outside the timed region): each rank compares its blocks of A and B
 * with the generating formula (the scatter put the right data in the right place) and the root
 * compares every element of C with A + B.  Values are small integers and halves, so the sums
 * are exact and compared with ==.  --inject-error 1 makes the last rank corrupt one element of
 * its C block in the first repetition, so the failure path can be tested.
 */
#include "commbench.h"

static const cb_optspec CB_OPTIONS[] = {
    {"shape", "100x100x100", "matrix extents NXxNYxNZ (z fastest in memory)"},
    {"grid", "0x1x1", "process grid AxBxC; 0 = let MPI_Dims_create choose"},
    {"repetitions", "5", "timed repetitions (summarised as min/median/max)"},
    {"inject-error", "0", "testing only: 1 corrupts one element of C on the last rank"},
    {NULL, NULL, NULL}};

#define MAX_ELEMENTS (1LL << 27) /* 1 GiB per matrix; the root holds four such buffers */

static double a_of(long long i) { return (double)((i * 7) % 1009); }
static double b_of(long long i) { return 0.5 * (double)((i * 13) % 997); }

/* Start and length of part `i` of `n` points split over `p` parts. */
static void split(long long n, int p, int i, long long *start, long long *len)
{
    long long q = n / p, r = n % p;
    *len = q + (i < r);
    *start = i * q + (i < r ? i : r);
}

typedef struct {
    long long lo[3], len[3];
} block_t;

static block_t block_of(MPI_Comm cart, int rank, const int *dims, const long long *shape)
{
    int coords[3];
    block_t b;
    MPI_Cart_coords(cart, rank, 3, coords);
    for (int d = 0; d < 3; d++) split(shape[d], dims[d], coords[d], &b.lo[d], &b.len[d]);
    return b;
}

static long long volume(const block_t *b) { return b->len[0] * b->len[1] * b->len[2]; }

/* Copy a 3-D block between the full matrix and a contiguous buffer, one z-run at a time. */
static void pack(const double *full, double *buf, const block_t *b, const long long *shape)
{
    for (long long x = 0; x < b->len[0]; x++)
        for (long long y = 0; y < b->len[1]; y++) {
            const double *src = full + ((b->lo[0] + x) * shape[1] + b->lo[1] + y) * shape[2] + b->lo[2];
            memcpy(buf, src, sizeof(double) * (size_t)b->len[2]);
            buf += b->len[2];
        }
}

static void unpack(double *full, const double *buf, const block_t *b, const long long *shape)
{
    for (long long x = 0; x < b->len[0]; x++)
        for (long long y = 0; y < b->len[1]; y++) {
            double *dst = full + ((b->lo[0] + x) * shape[1] + b->lo[1] + y) * shape[2] + b->lo[2];
            memcpy(dst, buf, sizeof(double) * (size_t)b->len[2]);
            buf += b->len[2];
        }
}

/* Does the local block hold the right part of the generated matrix? */
static int check_block(cb_ctx *ctx, const double *v, const block_t *b, const long long *shape,
                       double (*gen)(long long), const char *name)
{
    long long k = 0;
    for (long long x = 0; x < b->len[0]; x++)
        for (long long y = 0; y < b->len[1]; y++)
            for (long long z = 0; z < b->len[2]; z++, k++) {
                long long gx = b->lo[0] + x, gy = b->lo[1] + y, gz = b->lo[2] + z;
                double want = gen((gx * shape[1] + gy) * shape[2] + gz);
                if (v[k] != want) {
                    cb_error_local(ctx, "after scatter, %s[%lld][%lld][%lld] is %g, expected %g",
                                   name, gx, gy, gz, v[k], want);
                    return 0;
                }
            }
    return 1;
}

static int cb_kernel(MPI_Comm comm, cb_ctx *ctx)
{
    if (cb_parse(ctx, "matrix_add", CB_OPTIONS)) return CB_BAD_OPTIONS;
    long long shape[3], grid[3], reps, inject;
    if (cb_opt_dims(ctx, CB_OPTIONS, "shape", 3, shape) ||
        cb_opt_dims(ctx, CB_OPTIONS, "grid", 3, grid) ||
        cb_opt_int(ctx, CB_OPTIONS, "repetitions", 1, 1000, &reps) ||
        cb_opt_int(ctx, CB_OPTIONS, "inject-error", 0, 1, &inject))
        return CB_BAD_OPTIONS;
    const char *shape_s = cb_opt(ctx, CB_OPTIONS, "shape"), *grid_s = cb_opt(ctx, CB_OPTIONS, "grid");
    if (shape[0] < 1 || shape[1] < 1 || shape[2] < 1 ||
        shape[0] * shape[1] > MAX_ELEMENTS || shape[0] * shape[1] * shape[2] > MAX_ELEMENTS) {
        cb_printf(ctx, "# result: ERROR: --shape %s: every extent must be at least 1 and the "
                  "matrix at most %lld elements\n", shape_s, MAX_ELEMENTS);
        return CB_BAD_OPTIONS;
    }
    long long fixed = 1;
    int too_big = 0;
    for (int d = 0; d < 3; d++) {
        if (grid[d] > ctx->size) too_big = 1; /* also keeps the product from overflowing */
        else if (grid[d] > 0) fixed *= grid[d];
    }
    if (too_big || (grid[0] > 0 && grid[1] > 0 && grid[2] > 0 && fixed != ctx->size)) {
        cb_printf(ctx, "# result: ERROR: --grid %s is not a grid of %d processes (the product of "
                  "its dimensions must be %d)\n", grid_s, ctx->size, ctx->size);
        return CB_BAD_OPTIONS;
    }
    if (ctx->size % fixed != 0) {
        cb_printf(ctx, "# result: ERROR: --grid %s does not fit %d processes (the product of its "
                  "fixed dimensions, %lld, must divide the number of processes)\n", grid_s,
                  ctx->size, fixed);
        return CB_BAD_OPTIONS;
    }
    int dims[3] = {(int)grid[0], (int)grid[1], (int)grid[2]}, periods[3] = {0, 0, 0};
    MPI_Dims_create(ctx->size, 3, dims);
    if ((long long)dims[0] * dims[1] * dims[2] != ctx->size) {
        cb_printf(ctx, "# result: ERROR: --grid %s has %d processes but the job has %d\n", grid_s,
                  dims[0] * dims[1] * dims[2], ctx->size);
        return CB_BAD_OPTIONS;
    }
    for (int d = 0; d < 3; d++)
        if (dims[d] > shape[d]) {
            cb_printf(ctx, "# result: ERROR: grid %dx%dx%d splits axis %d (extent %lld) into %d "
                      "parts: some blocks would be empty\n", dims[0], dims[1], dims[2], d,
                      shape[d], dims[d]);
            return CB_BAD_OPTIONS;
        }

    MPI_Comm cart;
    MPI_Cart_create(comm, 3, dims, periods, 0, &cart);
    int rank, np;
    MPI_Comm_rank(cart, &rank);
    MPI_Comm_size(cart, &np);
    long long n = shape[0] * shape[1] * shape[2];
    block_t mine = block_of(cart, rank, dims, shape);
    long long nloc = volume(&mine);

    /* Root: full matrices, the rank-ordered staging buffer, counts and displacements. */
    double *A = NULL, *B = NULL, *C = NULL, *stage = NULL;
    int *counts = NULL, *displs = NULL;
    block_t *blocks = NULL;
    int have = 1;
    long long max_block = 0;
    if (rank == 0) {
        A = cb_alloc(sizeof(double) * (size_t)n, 0);
        B = cb_alloc(sizeof(double) * (size_t)n, 0);
        C = cb_alloc(sizeof(double) * (size_t)n, 0);
        stage = cb_alloc(sizeof(double) * (size_t)n, 0);
        counts = malloc(sizeof(int) * (size_t)np);
        displs = malloc(sizeof(int) * (size_t)np);
        blocks = malloc(sizeof(block_t) * (size_t)np);
        have = A && B && C && stage && counts && displs && blocks;
        if (have) {
            long long off = 0;
            for (int r = 0; r < np; r++) {
                blocks[r] = block_of(cart, r, dims, shape);
                counts[r] = (int)volume(&blocks[r]);
                displs[r] = (int)off;
                off += counts[r];
                if (counts[r] > max_block) max_block = counts[r];
            }
            for (long long i = 0; i < n; i++) {
                A[i] = a_of(i);
                B[i] = b_of(i);
            }
        }
    }
    double *a = cb_alloc(sizeof(double) * (size_t)nloc, 0);
    double *b = cb_alloc(sizeof(double) * (size_t)nloc, 0);
    double *c = cb_alloc(sizeof(double) * (size_t)nloc, 0);
    double *t = malloc(sizeof(double) * 7 * (size_t)reps);
    have = have && a && b && c && t;
    int rc = CB_OK;
    if (!cb_all_allocated(ctx, have, "the matrices (%lld elements; the root needs %.1f MiB)", n,
                          4.0 * 8.0 * (double)n / (1 << 20))) {
        rc = CB_BAD_OPTIONS;
        goto done;
    }

    cb_header(ctx, "matrix_add");
    cb_printf(ctx, "# benchmark: matrix_add\n# algorithm: scatterv-add-gatherv\n");
    cb_printf(ctx, "# grid: %dx%dx%d (MPI_Cart_create, reorder=0)\n", dims[0], dims[1], dims[2]);
    cb_printf(ctx, "# shape: %lldx%lldx%lld doubles, C order\n", shape[0], shape[1], shape[2]);
    cb_printf(ctx, "# repetitions: %lld\n", reps);
    cb_printf(ctx, "# phases: scatter = root packs blocks + MPI_Scatterv, for A and B; add; gather "
              "= MPI_Gatherv + root unpacks; barrier before each; slowest rank; microseconds\n");
    cb_printf(ctx, "# validation: every rank checks its blocks of A and B, the root checks all of C "
              "against A + B (exact), every repetition\n");
    cb_printf(ctx, "# columns: np grid shape size_bytes max_block t_scatter_min_us t_scatter_median_us "
              "t_scatter_max_us t_add_min_us t_add_median_us t_add_max_us t_gather_min_us "
              "t_gather_median_us t_gather_max_us t_min_us t_median_us t_max_us t_pack_us "
              "t_unpack_us t_serial_add_us\n");

    for (long long r = 0; r < reps + 1; r++) { /* repetition 0 is a warm-up, checked too */
        double serial = 0, tpack = 0, tunpack = 0;
        if (rank == 0) {
            double s0 = MPI_Wtime();
            for (long long i = 0; i < n; i++) stage[i] = A[i] + B[i];
            serial = MPI_Wtime() - s0;
            for (long long i = 0; i < n; i++) C[i] = -1.0; /* a value no sum can have */
        }
        memset(a, 0, sizeof(double) * (size_t)nloc);
        memset(b, 0, sizeof(double) * (size_t)nloc);
        double ph[4];
        MPI_Barrier(cart);
        double t0 = MPI_Wtime();
        double *mats[2] = {A, B}, *locs[2] = {a, b};
        for (int m = 0; m < 2; m++) {
            if (rank == 0) {
                double p0 = MPI_Wtime();
                for (int q = 0; q < np; q++) pack(mats[m], stage + displs[q], &blocks[q], shape);
                tpack += MPI_Wtime() - p0;
            }
            MPI_Scatterv(stage, counts, displs, MPI_DOUBLE, locs[m], (int)nloc, MPI_DOUBLE, 0, cart);
        }
        ph[0] = MPI_Wtime() - t0;
        MPI_Barrier(cart);
        double t1 = MPI_Wtime();
        for (long long i = 0; i < nloc; i++) c[i] = a[i] + b[i];
        if (inject && r == 0 && rank == np - 1) c[nloc - 1] += 1.0;
        ph[1] = MPI_Wtime() - t1;
        MPI_Barrier(cart);
        double t2 = MPI_Wtime();
        MPI_Gatherv(c, (int)nloc, MPI_DOUBLE, stage, counts, displs, MPI_DOUBLE, 0, cart);
        if (rank == 0) {
            double u0 = MPI_Wtime();
            for (int q = 0; q < np; q++) unpack(C, stage + displs[q], &blocks[q], shape);
            tunpack = MPI_Wtime() - u0;
        }
        double t3 = MPI_Wtime();
        ph[2] = t3 - t2;
        ph[3] = t3 - t0;
        double slowest[4];
        MPI_Reduce(ph, slowest, 4, MPI_DOUBLE, MPI_MAX, 0, cart);

        int ok = check_block(ctx, a, &mine, shape, a_of, "A") &&
                 check_block(ctx, b, &mine, shape, b_of, "B");
        if (rank == 0)
            for (long long i = 0; i < n && ok; i++)
                if (C[i] != A[i] + B[i]) {
                    long long x = i / (shape[1] * shape[2]), y = (i / shape[2]) % shape[1],
                              z = i % shape[2];
                    cb_error_local(ctx, "C[%lld][%lld][%lld] = %g but A + B = %g", x, y, z, C[i],
                                   A[i] + B[i]);
                    ok = 0;
                }
        if (!cb_all_ok(ctx, ok)) {
            cb_printf(ctx, "# result: VALIDATION FAILED: C = A + B is wrong for shape %s on grid "
                      "%dx%dx%d (see stderr for the element)\n", shape_s, dims[0], dims[1], dims[2]);
            rc = CB_VALIDATION_FAILED;
            goto done;
        }
        if (r > 0) {
            double *row = t + 7 * (r - 1);
            for (int k = 0; k < 4; k++) row[k] = slowest[k] * 1e6;
            row[4] = tpack * 1e6;
            row[5] = tunpack * 1e6;
            row[6] = serial * 1e6;
        }
    }

    {
        /* Summaries per column: min/median/max for the four phases, medians for the rest. */
        double mn[7], md[7], mx[7], *col = malloc(sizeof(double) * (size_t)reps);
        for (int k = 0; k < 7; k++) {
            for (long long r = 0; r < reps; r++) col[r] = t[7 * r + k];
            cb_summary(col, (int)reps, &mn[k], &md[k], &mx[k]);
        }
        free(col);
        cb_printf(ctx, "%d %dx%dx%d %lldx%lldx%lld %lld %lld", np, dims[0], dims[1], dims[2],
                  shape[0], shape[1], shape[2], n * 8, max_block);
        for (int k = 0; k < 4; k++) cb_printf(ctx, " %.2f %.2f %.2f", mn[k], md[k], mx[k]);
        cb_printf(ctx, " %.2f %.2f %.2f\n", md[4], md[5], md[6]);
        cb_printf(ctx, "# result: ok\n");
    }
done:
    free(A);
    free(B);
    free(C);
    free(stage);
    free(counts);
    free(displs);
    free(blocks);
    free(a);
    free(b);
    free(c);
    free(t);
    MPI_Comm_free(&cart);
    return rc;
}
