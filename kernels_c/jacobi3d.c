/*
 * jacobi3d.c -- 7-point Jacobi sweeps on an L^3 grid of doubles, domain-decomposed over a
 * 1-D, 2-D or 3-D Cartesian process grid, with a non-blocking halo exchange.
 *
 * Problem: Laplace's equation on the unit cube (a box for weak scaling, same spacing h on every
 * axis), fixed (Dirichlet) boundary values of
 *     u(x, y, z) = x^2 - y^2 + x + 2y - 3z,
 * which is harmonic and whose 7-point discrete Laplacian is exactly zero, so it is also the
 * exact solution of the discrete problem. The interior starts at 0.
 *
 * Strong scaling (default): the whole grid is L^3. Weak scaling (--weak 1): every rank holds
 * L^3 points and the grid is L*A x L*B x L*C for the process grid AxBxC (the report's model).
 *
 * Layout: each rank holds a block (nx+2)(ny+2)(nz+2) with one ghost layer; z is contiguous.
 * Blocks differ by at most one plane per dimension, so L need not be divisible by the grid.
 * Halo exchange: MPI_Irecv/MPI_Isend of the six faces (MPI_Type_create_subarray, no packing),
 * then MPI_Waitall; MPI_PROC_NULL at the physical boundaries.
 *
 * Self-check (agreed on all ranks):
 *   1. fixed point: started from the exact solution, two sweeps must leave it unchanged to
 *      round-off; this catches a wrong halo exchange or wrong boundary values;
 *   2. convergence: started from 0, the 2-norm of the error against the exact solution and of
 *      the residual must fall at every sweep (the Jacobi matrix is symmetric with spectral
 *      radius < 1, so both strictly decrease until they reach round-off).
 * Decomposition independence: every point is updated with the same arithmetic in the same
 * order whatever the decomposition, so the field is bit-identical for any grid; the printed
 * checksum (an order-independent integer sum of hashed bit patterns) shows it. Norms are
 * reductions and agree to round-off only.
 *
 * Timing: per sweep, halo exchange and compute are timed separately; a sweep's time is the
 * slowest rank's. MLUP/s = (global grid points) / t_sweep[us]. Checks run between sweeps,
 * outside the timing.
 *
 * Simulated (SMPI) builds: the sweep still runs for real (the checks need its field), but its
 * CPU time is not simulated; --sim-lups R charges each timed sweep (this rank's points) / R
 * seconds of simulated compute (R: a measured one-process rate, so the simulated compute is
 * the calibration's, whatever machine runs the simulation). --sim-fold 1 (with --sim-lups) is for
 * grids this machine cannot hold (1200^3 doubles on 48 ranks: 28 GB): the fields are
 * not held: each sweep sends the halo messages (same neighbours, tags and bytes, contiguous from
 * SMPI_SHARED_MALLOC buffers folded onto one shared block) and charges the calibrated compute;
 * no arithmetic runs and nothing can be checked, so the result line says NOT CHECKED. Check the
 * same grid and placement unfolded at a smaller L.
 */
#include "commbench.h"
#include <math.h>

static const cb_optspec CB_OPTIONS[] = {
    {"L", "64", "interior grid points per dimension: of the whole cube, or with --weak 1 of each rank"},
    {"weak", "0", "1: weak scaling, every rank holds L^3 points (global grid L*A x L*B x L*C)"},
    {"sweeps", "10", "Jacobi sweeps (timed repetitions)"},
    {"grid", "auto", "process grid AxBxC, or auto (MPI_Dims_create)"},
    {"decomp", "3", "with --grid auto: decompose 1, 2 or 3 dimensions"},
    {"block", "0", "j-block size for spatial blocking (0: none)"},
    {"check", "1", "1: error and residual after every sweep; 0: only first and last"},
    {"sim-lups", "0", "simulated builds only: lattice updates per second of one simulated process "
                      "(0: the sweep's compute costs no simulated time)"},
    {"sim-fold", "0", "simulated builds only, with --sim-lups: 1 folds the fields onto shared memory "
                      "(SMPI_SHARED_MALLOC) and times the halo exchange and the charged compute only: "
                      "no arithmetic, NOT CHECKED"},
    {"inject", "0", "testing only: 1 corrupts a ghost value on rank 0 after each exchange; "
                    "2 resets rank 0's interior to 0 after the third timed sweep"},
    {NULL, NULL, NULL}};

typedef struct {
    int n[3];          /* interior points of this rank per dimension */
    int start[3];      /* global index (1..L) of the first interior point */
    long long G[3];    /* global interior points per dimension */
    size_t X, Y, Z;    /* allocated extents, with ghosts */
    int lo[3], hi[3];  /* neighbour ranks or MPI_PROC_NULL */
    MPI_Datatype send_lo[3], send_hi[3], recv_lo[3], recv_hi[3];
    MPI_Comm cart;
    double *fx, *gy, *hz; /* separable exact solution along each axis, indexed 0..n+1 */
    int inject;
    long long jblock;
} domain;

static inline size_t at(const domain *d, size_t i, size_t j, size_t k)
{
    return (i * d->Y + j) * d->Z + k;
}

/* Exact solution in pieces: u = f(x) + g(y) + h(z), x = gi * h. */
static double f_x(double x) { return x * x + x; }
static double g_y(double y) { return -y * y + 2.0 * y; }
static double h_z(double z) { return -3.0 * z; }

static inline double exact(const domain *d, size_t i, size_t j, size_t k)
{
    return (d->fx[i] + d->gy[j]) + d->hz[k];
}

/* Block partition: the first L % p ranks get one extra plane. */
static void split(long long L, int p, int c, int *n, int *start)
{
    long long base = L / p, rem = L % p;
    *n = (int)(base + (c < rem ? 1 : 0));
    *start = (int)(c * base + (c < rem ? c : rem) + 1);
}

static MPI_Datatype plane_type(const domain *d, int dim, int index)
{
    int sizes[3] = {(int)d->X, (int)d->Y, (int)d->Z};
    int sub[3] = {d->n[0], d->n[1], d->n[2]};
    int starts[3] = {1, 1, 1};
    sub[dim] = 1;
    starts[dim] = index;
    MPI_Datatype t;
    MPI_Type_create_subarray(3, sizes, sub, starts, MPI_ORDER_C, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    return t;
}

/* Fill both arrays: physical boundary = exact values; interior and ghosts = guess. */
static void initialise(const domain *d, double *u, int from_exact)
{
    for (size_t i = 0; i < d->X; i++) {
        long long gi = d->start[0] - 1 + (long long)i;
        for (size_t j = 0; j < d->Y; j++) {
            long long gj = d->start[1] - 1 + (long long)j;
            for (size_t k = 0; k < d->Z; k++) {
                long long gk = d->start[2] - 1 + (long long)k;
                int boundary = gi == 0 || gi == d->G[0] + 1 || gj == 0 || gj == d->G[1] + 1 ||
                               gk == 0 || gk == d->G[2] + 1;
                u[at(d, i, j, k)] = (boundary || from_exact) ? exact(d, i, j, k) : 0.0;
            }
        }
    }
}

static void exchange(const domain *d, double *u)
{
    MPI_Request req[12];
    int r = 0;
    for (int dim = 0; dim < 3; dim++) {
        /* tag 2*dim+1 travels towards hi, 2*dim towards lo */
        MPI_Irecv(u, 1, d->recv_lo[dim], d->lo[dim], 2 * dim + 1, d->cart, &req[r++]);
        MPI_Irecv(u, 1, d->recv_hi[dim], d->hi[dim], 2 * dim, d->cart, &req[r++]);
    }
    for (int dim = 0; dim < 3; dim++) {
        MPI_Isend(u, 1, d->send_hi[dim], d->hi[dim], 2 * dim + 1, d->cart, &req[r++]);
        MPI_Isend(u, 1, d->send_lo[dim], d->lo[dim], 2 * dim, d->cart, &req[r++]);
    }
    MPI_Waitall(r, req, MPI_STATUSES_IGNORE);
    if (d->inject) {
        int rank;
        MPI_Comm_rank(d->cart, &rank);
        if (rank == 0) {
            /* a ghost value received from a neighbour if there is one, else a boundary value */
            size_t i = 0, j = (size_t)(d->n[1] + 1) / 2, k = (size_t)(d->n[2] + 1) / 2;
            if (d->hi[0] != MPI_PROC_NULL) i = (size_t)d->n[0] + 1;
            else if (d->hi[1] != MPI_PROC_NULL) { i = (size_t)(d->n[0] + 1) / 2; j = (size_t)d->n[1] + 1; }
            else if (d->hi[2] != MPI_PROC_NULL) { i = (size_t)(d->n[0] + 1) / 2; k = (size_t)d->n[2] + 1; }
            u[at(d, i, j, k)] += 1.0;
        }
    }
}

/* One line of the stencil: restrict lets the compiler vectorise it. */
static void stencil_line(double *restrict out, const double *restrict c, size_t sx, size_t sy,
                         size_t nz)
{
    const double sixth = 1.0 / 6.0;
    for (size_t k = 1; k <= nz; k++)
        out[k] = (c[k - sx] + c[k + sx] + c[k - sy] + c[k + sy] + c[k - 1] + c[k + 1]) * sixth;
}

/* With jblock > 0 the j loop is blocked so that three planes of one block stay in cache
 * (the layer condition, for a smaller cache); each point's arithmetic is unchanged. */
static void sweep(const domain *d, double *restrict unew, const double *restrict u)
{
    size_t sx = d->Y * d->Z, sy = d->Z, ny = (size_t)d->n[1];
    size_t jb = d->jblock > 0 ? (size_t)d->jblock : ny;
    for (size_t j0 = 1; j0 <= ny; j0 += jb) {
        size_t j1 = j0 + jb - 1 < ny ? j0 + jb - 1 : ny;
        for (size_t i = 1; i <= (size_t)d->n[0]; i++)
            for (size_t j = j0; j <= j1; j++)
                stencil_line(unew + at(d, i, j, 0), u + at(d, i, j, 0), sx, sy, (size_t)d->n[2]);
    }
}

/* Sums over this rank's interior: (u - exact)^2 and (u - uold)^2; max |u - exact|. */
static void local_norms(const domain *d, const double *u, const double *uold, double *err2,
                        double *diff2, double *errmax)
{
    double e2 = 0.0, d2 = 0.0, em = 0.0;
    for (size_t i = 1; i <= (size_t)d->n[0]; i++)
        for (size_t j = 1; j <= (size_t)d->n[1]; j++)
            for (size_t k = 1; k <= (size_t)d->n[2]; k++) {
                size_t p = at(d, i, j, k);
                double e = u[p] - exact(d, i, j, k);
                e2 += e * e;
                if (fabs(e) > em || e != e) em = e != e ? INFINITY : fabs(e);
                if (uold) {
                    double dd = u[p] - uold[p];
                    d2 += dd * dd;
                }
            }
    *err2 = e2;
    *diff2 = d2;
    *errmax = em;
}

/* Sum over this rank's interior of the squared residual sum(neighbours) - 6u (ghosts current). */
static double local_residual2(const domain *d, const double *u)
{
    size_t sx = d->Y * d->Z, sy = d->Z;
    double r2 = 0.0;
    for (size_t i = 1; i <= (size_t)d->n[0]; i++)
        for (size_t j = 1; j <= (size_t)d->n[1]; j++)
            for (size_t k = 1; k <= (size_t)d->n[2]; k++) {
                size_t p = at(d, i, j, k);
                double r = u[p - sx] + u[p + sx] + u[p - sy] + u[p + sy] + u[p - 1] + u[p + 1] -
                           6.0 * u[p];
                r2 += r * r;
            }
    return r2;
}

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

/* Order-independent checksum of the interior: sum of hashes of (global index, bits). */
static uint64_t local_checksum(const domain *d, const double *u)
{
    uint64_t h = 0, Gy = (uint64_t)d->G[1] + 2, Gz = (uint64_t)d->G[2] + 2;
    for (size_t i = 1; i <= (size_t)d->n[0]; i++)
        for (size_t j = 1; j <= (size_t)d->n[1]; j++)
            for (size_t k = 1; k <= (size_t)d->n[2]; k++) {
                uint64_t g = ((uint64_t)(d->start[0] + i - 1) * Gy + (uint64_t)(d->start[1] + j - 1)) * Gz +
                             (uint64_t)(d->start[2] + k - 1);
                uint64_t bits;
                memcpy(&bits, &u[at(d, i, j, k)], sizeof bits);
                h += mix64(bits ^ mix64(g));
            }
    return h;
}

static void global_norms(const domain *d, const double *u, const double *uold, double *err_rms,
                         double *diff_rms, double *errmax)
{
    double loc[2], glob[2], em, gem;
    local_norms(d, u, uold, &loc[0], &loc[1], &em);
    MPI_Allreduce(loc, glob, 2, MPI_DOUBLE, MPI_SUM, d->cart);
    MPI_Allreduce(&em, &gem, 1, MPI_DOUBLE, MPI_MAX, d->cart);
    double npts = (double)d->G[0] * (double)d->G[1] * (double)d->G[2];
    *err_rms = sqrt(glob[0] / npts);
    *diff_rms = sqrt(glob[1] / npts);
    *errmax = gem;
}

static double global_residual_rms(const domain *d, double *u)
{
    exchange(d, u);
    double r2 = local_residual2(d, u), g;
    MPI_Allreduce(&r2, &g, 1, MPI_DOUBLE, MPI_SUM, d->cart);
    return sqrt(g / ((double)d->G[0] * (double)d->G[1] * (double)d->G[2]));
}

/* A value that has stopped falling only because it reached round-off is fine. */
static int falls(double next, double prev, double floor_value)
{
    return isfinite(next) && (next < prev || next <= floor_value);
}

static void print_history(cb_ctx *ctx, const char *name, const double *v, long long n)
{
    long long stride = n > 1000 ? (n + 999) / 1000 : 1;
    cb_printf(ctx, "# %s:", name);
    for (long long s = 0; s < n; s += stride) cb_printf(ctx, " %.17g", v[s]);
    if ((n - 1) % stride) cb_printf(ctx, " %.17g", v[n - 1]);
    cb_printf(ctx, "\n");
}

#ifdef CB_SIMULATED
/* --sim-fold: the halo exchange's messages (same neighbours, tags and bytes as exchange()) from
 * contiguous buffers folded onto shared memory, so no field is held; then the charged compute. */
static void folded_exchange(const domain *d, double *send, double **recv)
{
    MPI_Request req[12];
    int r = 0;
    for (int dim = 0; dim < 3; dim++) {
        int count = d->n[0] * d->n[1] * d->n[2] / d->n[dim];
        MPI_Irecv(recv[2 * dim], count, MPI_DOUBLE, d->lo[dim], 2 * dim + 1, d->cart, &req[r++]);
        MPI_Irecv(recv[2 * dim + 1], count, MPI_DOUBLE, d->hi[dim], 2 * dim, d->cart, &req[r++]);
    }
    for (int dim = 0; dim < 3; dim++) {
        int count = d->n[0] * d->n[1] * d->n[2] / d->n[dim];
        MPI_Isend(send, count, MPI_DOUBLE, d->hi[dim], 2 * dim + 1, d->cart, &req[r++]);
        MPI_Isend(send, count, MPI_DOUBLE, d->lo[dim], 2 * dim, d->cart, &req[r++]);
    }
    MPI_Waitall(r, req, MPI_STATUSES_IGNORE);
}

static int folded_sweeps(cb_ctx *ctx, const domain *d, size_t ns, double sim_lups)
{
    size_t face = 1;
    for (int i = 0; i < 3; i++) {
        size_t a = (size_t)d->n[0] * d->n[1] * d->n[2] / d->n[i];
        if (a > face) face = a;
    }
    double *send = SMPI_SHARED_MALLOC(sizeof(double) * face), *recv[6];
    for (int i = 0; i < 6; i++) recv[i] = SMPI_SHARED_MALLOC(sizeof(double) * face);
    double *tsw = malloc(sizeof(double) * ns), *tco = malloc(sizeof(double) * ns), *tha = malloc(sizeof(double) * ns);
    int rc = CB_OK;
    if (!cb_all_allocated(ctx, tsw && tco && tha, "%zu sweep times", ns)) {
        rc = CB_BAD_OPTIONS;
        goto out;
    }
    double local = (double)d->n[0] * d->n[1] * d->n[2];
    for (size_t s = 0; s < ns; s++) {
        MPI_Barrier(d->cart);
        double t0 = MPI_Wtime();
        folded_exchange(d, send, recv);
        double t1 = MPI_Wtime();
        smpi_execute_benched(local / sim_lups);
        double t2 = MPI_Wtime();
        tsw[s] = t2 - t0;
        tha[s] = t1 - t0;
        tco[s] = t2 - t1;
    }
    MPI_Allreduce(MPI_IN_PLACE, tsw, (int)ns, MPI_DOUBLE, MPI_MAX, d->cart);
    MPI_Allreduce(MPI_IN_PLACE, tco, (int)ns, MPI_DOUBLE, MPI_MAX, d->cart);
    MPI_Allreduce(MPI_IN_PLACE, tha, (int)ns, MPI_DOUBLE, MPI_MAX, d->cart);
    double tmin, tmed, tmax, cmin, cmed, cmax, hmin, hmed, hmax;
    cb_summary(tsw, (int)ns, &tmin, &tmed, &tmax);
    cb_summary(tco, (int)ns, &cmin, &cmed, &cmax);
    cb_summary(tha, (int)ns, &hmin, &hmed, &hmax);
    double pts = (double)d->G[0] * (double)d->G[1] * (double)d->G[2];
    int dims[3], periods[3], coords[3];
    MPI_Cart_get(d->cart, 3, dims, periods, coords);
    cb_printf(ctx, "# folded: no fields held; the halo messages sent contiguous from SMPI_SHARED_MALLOC "
                   "buffers, the compute charged at --sim-lups\n");
    cb_printf(ctx, "# columns: np grid t_min_us t_median_us t_max_us compute_us halo_us mlups\n");
    cb_printf(ctx, "%d %dx%dx%d %.3f %.3f %.3f %.3f %.3f %.4f\n", ctx->size, dims[0], dims[1], dims[2],
              tmin * 1e6, tmed * 1e6, tmax * 1e6, cmed * 1e6, hmed * 1e6, pts / (tmed * 1e6));
    cb_printf(ctx, "# result: NOT CHECKED: --sim-fold 1 simulates the messages and the charged "
                   "compute only; check this grid unfolded at a smaller L\n");
out:
    SMPI_SHARED_FREE(send);
    for (int i = 0; i < 6; i++) SMPI_SHARED_FREE(recv[i]);
    free(tsw); free(tco); free(tha);
    return rc;
}
#endif

static int cb_kernel(MPI_Comm comm, cb_ctx *ctx)
{
    if (cb_parse(ctx, "jacobi3d", CB_OPTIONS)) return CB_BAD_OPTIONS;
    long long L, weak, sweeps, decomp, check, inject, jblock, sim_lups, fold, gdims[3] = {0, 0, 0};
    if (cb_opt_int(ctx, CB_OPTIONS, "L", 1, 1000000, &L) ||
        cb_opt_int(ctx, CB_OPTIONS, "weak", 0, 1, &weak) ||
        cb_opt_int(ctx, CB_OPTIONS, "sweeps", 1, 100000, &sweeps) ||
        cb_opt_int(ctx, CB_OPTIONS, "decomp", 1, 3, &decomp) ||
        cb_opt_int(ctx, CB_OPTIONS, "check", 0, 1, &check) ||
        cb_opt_int(ctx, CB_OPTIONS, "block", 0, 1000000, &jblock) ||
        cb_opt_int(ctx, CB_OPTIONS, "sim-lups", 0, 1000000000000LL, &sim_lups) ||
        cb_opt_int(ctx, CB_OPTIONS, "sim-fold", 0, 1, &fold) ||
        cb_opt_int(ctx, CB_OPTIONS, "inject", 0, 2, &inject))
        return CB_BAD_OPTIONS;
#ifndef CB_SIMULATED
    if (sim_lups || fold) {
        cb_printf(ctx, "# result: ERROR: --sim-lups and --sim-fold are for simulated (smpicc) builds only\n");
        return CB_BAD_OPTIONS;
    }
#endif
    if (fold && (!sim_lups || inject)) {
        cb_printf(ctx, "# result: ERROR: --sim-fold 1 needs --sim-lups (the compute it charges) and no --inject\n");
        return CB_BAD_OPTIONS;
    }
    const char *grid_text = cb_opt(ctx, CB_OPTIONS, "grid");
    int auto_grid = strcmp(grid_text, "auto") == 0;
    if (!auto_grid && cb_opt_dims(ctx, CB_OPTIONS, "grid", 3, gdims)) return CB_BAD_OPTIONS;
    if (!auto_grid && ctx->values[cb_optindex(CB_OPTIONS, "decomp")] != NULL) {
        cb_printf(ctx, "# result: ERROR: give either --grid AxBxC or --decomp N, not both\n");
        return CB_BAD_OPTIONS;
    }

    int dims[3] = {0, 0, 0};
    if (auto_grid) {
        for (int i = (int)decomp; i < 3; i++) dims[i] = 1;
        MPI_Dims_create(ctx->size, 3, dims);
    } else {
        for (int i = 0; i < 3; i++) {
            if (gdims[i] < 1 || gdims[i] > ctx->size) {
                cb_printf(ctx, "# result: ERROR: --grid %s: every factor must be between 1 and "
                          "the number of processes (%d)\n", grid_text, ctx->size);
                return CB_BAD_OPTIONS;
            }
            dims[i] = (int)gdims[i];
        }
        if ((long long)dims[0] * dims[1] * dims[2] != ctx->size) {
            cb_printf(ctx, "# result: ERROR: --grid %s has %d processes but the run has %d\n",
                      grid_text, dims[0] * dims[1] * dims[2], ctx->size);
            return CB_BAD_OPTIONS;
        }
    }
    for (int i = 0; i < 3; i++)
        if (!weak && dims[i] > L) {
            cb_printf(ctx, "# result: ERROR: --L %lld is smaller than the process grid %dx%dx%d: "
                      "every rank needs at least one plane in each dimension\n", L, dims[0],
                      dims[1], dims[2]);
            return CB_BAD_OPTIONS;
        }

    domain d;
    memset(&d, 0, sizeof d);
    for (int i = 0; i < 3; i++) d.G[i] = weak ? L * dims[i] : L;
    d.inject = inject == 1;
    d.jblock = jblock;
    int periods[3] = {0, 0, 0}, coords[3];
    MPI_Cart_create(comm, 3, dims, periods, 0, &d.cart);
    int crank;
    MPI_Comm_rank(d.cart, &crank);
    MPI_Cart_coords(d.cart, crank, 3, coords);
    for (int i = 0; i < 3; i++) {
        split(d.G[i], dims[i], coords[i], &d.n[i], &d.start[i]);
        MPI_Cart_shift(d.cart, i, 1, &d.lo[i], &d.hi[i]);
    }
    d.X = (size_t)d.n[0] + 2;
    d.Y = (size_t)d.n[1] + 2;
    d.Z = (size_t)d.n[2] + 2;
    for (int i = 0; i < 3; i++) {
        d.send_lo[i] = plane_type(&d, i, 1);
        d.send_hi[i] = plane_type(&d, i, d.n[i]);
        d.recv_lo[i] = plane_type(&d, i, 0);
        d.recv_hi[i] = plane_type(&d, i, d.n[i] + 1);
    }

    /* what the model needs: faces and bytes of the busiest rank */
    long long faces = 0, halo_bytes = 0, face_max = 0;
    for (int i = 0; i < 3; i++) {
        long long area = (long long)d.n[0] * d.n[1] * d.n[2] / d.n[i] * 8;
        int k = (d.lo[i] != MPI_PROC_NULL) + (d.hi[i] != MPI_PROC_NULL);
        faces += k;
        halo_bytes += k * area;
        if (k && area > face_max) face_max = area;
    }
    long long mine[3] = {faces, halo_bytes, face_max}, busiest[3];
    MPI_Allreduce(mine, busiest, 3, MPI_LONG_LONG, MPI_MAX, d.cart);
    int nmax[3];
    MPI_Allreduce(d.n, nmax, 3, MPI_INT, MPI_MAX, d.cart);

    double bytes_per_rank = 2.0 * 8.0 * (double)(d.X * d.Y * d.Z);
    cb_header(ctx, "jacobi3d");
    cb_printf(ctx, "# benchmark: jacobi\n");
    cb_printf(ctx, "# algorithm: nonblocking-halo\n");
    cb_printf(ctx, "# method: 7-point Jacobi; halo exchange MPI_Irecv/MPI_Isend of subarray "
                   "datatypes + MPI_Waitall, then compute (no overlap)\n");
    cb_printf(ctx, "# problem: Laplace on the unit cube, boundary u = x^2 - y^2 + x + 2y - 3z "
                   "(also the exact discrete solution), interior starts at 0\n");
    cb_printf(ctx, "# L: %lld\n# sweeps: %lld\n", L, sweeps);
    cb_printf(ctx, "# scaling: %s\n# global: %lldx%lldx%lld\n", weak ? "weak (L^3 per rank)" : "strong (L^3 in all)",
              d.G[0], d.G[1], d.G[2]);
    if (jblock) cb_printf(ctx, "# blocking: j loop in blocks of %lld\n", jblock);
    cb_printf(ctx, "# grid: %dx%dx%d (%s)\n", dims[0], dims[1], dims[2],
              auto_grid ? "MPI_Dims_create" : "given");
    cb_printf(ctx, "# local_max: %dx%dx%d\n", nmax[0], nmax[1], nmax[2]);
    cb_printf(ctx, "# faces_max: %lld (communicating faces of the busiest rank)\n", busiest[0]);
    cb_printf(ctx, "# halo_bytes_max: %lld (bytes one rank sends per sweep, busiest rank)\n",
              busiest[1]);
    cb_printf(ctx, "# memory_per_rank_MB: %.1f\n", bytes_per_rank / 1e6);
    cb_printf(ctx, "# repetitions: %lld\n", sweeps);
    cb_printf(ctx, "# time: one sweep (halo exchange + compute) of the slowest rank, "
                   "microseconds; MLUP/s = global points / t\n");
    if (inject)
        cb_printf(ctx, "# inject: %s\n", inject == 1 ? "one ghost value on rank 0 corrupted after "
                  "each exchange" : "rank 0's interior reset to 0 after the third timed sweep");

    double *u = NULL, *v = NULL, *tsw = NULL, *tco = NULL, *tha = NULL, *err = NULL, *res = NULL;
    int rc = CB_OK;
#ifdef CB_SIMULATED
    if (fold) {
        rc = folded_sweeps(ctx, &d, (size_t)sweeps, (double)sim_lups);
        goto done;
    }
#endif
    d.fx = malloc(sizeof(double) * d.X);
    d.gy = malloc(sizeof(double) * d.Y);
    d.hz = malloc(sizeof(double) * d.Z);
    u = cb_alloc(sizeof(double) * d.X * d.Y * d.Z, 0);
    v = cb_alloc(sizeof(double) * d.X * d.Y * d.Z, 0);
    size_t ns = (size_t)sweeps;
    tsw = malloc(sizeof(double) * ns);
    tco = malloc(sizeof(double) * ns);
    tha = malloc(sizeof(double) * ns);
    err = malloc(sizeof(double) * (ns + 1));
    res = malloc(sizeof(double) * (ns + 1));
    int have = u && v && d.fx && d.gy && d.hz && tsw && tco && tha && err && res;
    if (!cb_all_allocated(ctx, have, "%.1f MB per rank for L = %lld on %d ranks", bytes_per_rank / 1e6,
                          L, ctx->size)) {
        rc = CB_BAD_OPTIONS;
        goto done;
    }
    /* one spacing h for all axes (a box, not a stretched cube): the equal-weight stencil is
     * the Laplacian only for equal spacings, and only then is u exact */
    long long gmax = d.G[0] > d.G[1] ? d.G[0] : d.G[1];
    gmax = gmax > d.G[2] ? gmax : d.G[2];
    double hstep = 1.0 / (double)(gmax + 1);
    for (size_t i = 0; i < d.X; i++) d.fx[i] = f_x((double)(d.start[0] - 1 + (long long)i) * hstep);
    for (size_t j = 0; j < d.Y; j++) d.gy[j] = g_y((double)(d.start[1] - 1 + (long long)j) * hstep);
    for (size_t k = 0; k < d.Z; k++) d.hz[k] = h_z((double)(d.start[2] - 1 + (long long)k) * hstep);

    /* 1. fixed point (also the warm-up): the exact solution must survive two sweeps */
    initialise(&d, u, 1);
    initialise(&d, v, 1);
    for (int s = 0; s < 2; s++) {
        exchange(&d, u);
        sweep(&d, v, u);
        double *t = u; u = v; v = t;
    }
    double fe_rms, fd_rms, fe_max;
    global_norms(&d, u, NULL, &fe_rms, &fd_rms, &fe_max);
    double scale = 4.0; /* |u| <= 4 on the unit cube */
    int fixed_ok = isfinite(fe_max) && fe_max <= 1e-13 * scale;
    cb_printf(ctx, "# fixed_point_error_max: %.3e (2 sweeps from the exact solution; must be "
                   "round-off)\n", fe_max);

    /* 2. convergence from zero, timed */
    initialise(&d, u, 0);
    initialise(&d, v, 0);
    double dummy, e_max;
    global_norms(&d, u, NULL, &err[0], &dummy, &e_max);
    res[0] = global_residual_rms(&d, u);
    double t_prev_res = res[0];
    int conv_ok = 1;
    long long bad_sweep = -1;
    double floor_err = 1e-13 * scale;
    for (size_t s = 0; s < ns; s++) {
        MPI_Barrier(d.cart);
        double t0 = MPI_Wtime();
        exchange(&d, u);
        double t1 = MPI_Wtime();
        sweep(&d, v, u);
#ifdef CB_SIMULATED
        if (sim_lups > 0) /* the calibrated compute, in place of this machine's (not simulated) */
            smpi_execute_benched((double)d.n[0] * d.n[1] * d.n[2] / (double)sim_lups);
#endif
        double t2 = MPI_Wtime();
        tsw[s] = t2 - t0;
        tha[s] = t1 - t0;
        tco[s] = t2 - t1;
        double *t = u; u = v; v = t;
        if (inject == 2 && ctx->rank == 0 && s == (ns < 3 ? ns - 1 : 2))
            for (size_t i = 1; i <= (size_t)d.n[0]; i++)
                for (size_t j = 1; j <= (size_t)d.n[1]; j++)
                    memset(&u[at(&d, i, j, 1)], 0, sizeof(double) * (size_t)d.n[2]);
        if (check || s + 1 == ns) {
            double diff_rms;
            global_norms(&d, u, v, &err[s + 1], &diff_rms, &e_max);
            /* residual of the previous iterate: sum(nb) - 6 u_old = 6 (u_new - u_old) */
            res[s] = 6.0 * diff_rms;
            if (check && bad_sweep < 0 &&
                (!falls(err[s + 1], err[s], floor_err) || (s > 0 && !falls(res[s], res[s - 1], floor_err))))
                bad_sweep = (long long)s + 1;
        } else {
            err[s + 1] = err[s];
            res[s] = t_prev_res;
        }
        t_prev_res = res[s];
    }
    res[ns] = global_residual_rms(&d, u);
    if (bad_sweep < 0 && !(falls(err[ns], err[0], floor_err) && falls(res[ns], res[0], floor_err)))
        bad_sweep = (long long)sweeps;
    if (bad_sweep < 0 && !falls(res[ns], res[ns - 1], floor_err) && check) bad_sweep = (long long)sweeps;
    conv_ok = bad_sweep < 0;
    uint64_t hloc = local_checksum(&d, u), hsum = 0;
    MPI_Allreduce(&hloc, &hsum, 1, MPI_UINT64_T, MPI_SUM, d.cart);

    /* slowest rank per sweep, then spread over sweeps */
    MPI_Allreduce(MPI_IN_PLACE, tsw, (int)ns, MPI_DOUBLE, MPI_MAX, d.cart);
    MPI_Allreduce(MPI_IN_PLACE, tco, (int)ns, MPI_DOUBLE, MPI_MAX, d.cart);
    MPI_Allreduce(MPI_IN_PLACE, tha, (int)ns, MPI_DOUBLE, MPI_MAX, d.cart);
    double tmin, tmed, tmax, cmin, cmed, cmax, hmin, hmed, hmax;
    cb_summary(tsw, (int)ns, &tmin, &tmed, &tmax);
    cb_summary(tco, (int)ns, &cmin, &cmed, &cmax);
    cb_summary(tha, (int)ns, &hmin, &hmed, &hmax);
    double lups = (double)d.G[0] * (double)d.G[1] * (double)d.G[2];

    if (check) {
        print_history(ctx, "error_rms_history", err, (long long)ns + 1);
        print_history(ctx, "residual_rms_history", res, (long long)ns + 1);
    }
    cb_printf(ctx, "# checksum: order-independent hash of the final field's bits (equal for "
                   "every decomposition)\n");
    cb_printf(ctx, "# columns: np size_bytes L weak sweeps grid t_min_us t_median_us t_max_us "
                   "compute_us halo_us mlups mlups_best residual_rms error_rms error0_rms "
                   "checksum\n");
    cb_printf(ctx, "%d %lld %lld %lld %lld %dx%dx%d %.3f %.3f %.3f %.3f %.3f %.4f %.4f %.17g %.17g "
                   "%.17g %016llx\n", ctx->size, busiest[2], L, weak, sweeps, dims[0], dims[1], dims[2],
              tmin * 1e6, tmed * 1e6, tmax * 1e6, cmed * 1e6, hmed * 1e6, lups / (tmed * 1e6),
              lups / (tmin * 1e6), res[ns], err[ns], err[0], (unsigned long long)hsum);

    int all_ok = cb_all_ok(ctx, fixed_ok && conv_ok);
    if (all_ok) {
        cb_printf(ctx, "# result: ok\n");
    } else if (!fixed_ok) {
        cb_printf(ctx, "# result: VALIDATION FAILED: the exact solution is not a fixed point "
                  "(max change %.3e after 2 sweeps): halo exchange or boundary values are "
                  "wrong\n", fe_max);
        rc = CB_VALIDATION_FAILED;
    } else {
        long long b = bad_sweep > 0 ? bad_sweep : 1;
        cb_printf(ctx, "# result: VALIDATION FAILED: error or residual did not fall at sweep "
                  "%lld (error %.6e -> %.6e, residual %.6e -> %.6e): the iteration is not "
                  "Jacobi's\n", b, err[b - 1], err[b], res[b - 1], res[b]);
        rc = CB_VALIDATION_FAILED;
    }

done:
    for (int i = 0; i < 3; i++) {
        MPI_Type_free(&d.send_lo[i]);
        MPI_Type_free(&d.send_hi[i]);
        MPI_Type_free(&d.recv_lo[i]);
        MPI_Type_free(&d.recv_hi[i]);
    }
    MPI_Comm_free(&d.cart);
    free(u); free(v); free(d.fx); free(d.gy); free(d.hz);
    free(tsw); free(tco); free(tha); free(err); free(res);
    return rc;
}
