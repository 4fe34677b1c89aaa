/*
 * point_to_point.c -- the point-to-point calls of the MPI primer (book/mpi_primer.md), each
 * checking what it received:
 *
 *   blocking      rank 0 sends --count doubles to rank 1 with MPI_Send; rank 1 receives them
 *                 with MPI_Recv from any source, any tag, and reads the status;
 *   non-blocking  every rank posts MPI_Irecv from its left neighbour and MPI_Isend to its
 *                 right one, polls the receive with MPI_Test (a real code would compute
 *                 between polls), then waits for the send with MPI_Wait.
 *
 * Needs at least 2 ranks.
 */
#include "commbench.h"

static const cb_optspec CB_OPTIONS[] = {
    {"count", "1000", "doubles per message"},
    {NULL, NULL, NULL}};

/* blocking: rank 0 -> rank 1 */
static int blocking(MPI_Comm comm, int rank, int count, double *buf, int *got)
{
    if (rank == 0) {
        for (int i = 0; i < count; i++) buf[i] = i;
        MPI_Send(buf, count, MPI_DOUBLE, 1, 42, comm);  /* returns when buf may be reused */
    } else if (rank == 1) {
        MPI_Status status;
        MPI_Recv(buf, count, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &status);
        MPI_Get_count(&status, MPI_DOUBLE, got);        /* how many doubles really arrived */
        int ok = status.MPI_SOURCE == 0 && status.MPI_TAG == 42 && *got == count;
        for (int i = 0; i < count && ok; i++) ok = buf[i] == i;
        return ok;
    }
    return 1;
}
/* end of blocking */

/* non-blocking: a ring shift */
static int ring_shift(MPI_Comm comm, int rank, int P, int count, double *out, double *in,
                      long long *polls)
{
    int right = (rank + 1) % P, left = (rank - 1 + P) % P;
    MPI_Request recv, send;
    for (int i = 0; i < count; i++) out[i] = rank + i;
    MPI_Irecv(in, count, MPI_DOUBLE, left, 0, comm, &recv);    /* returns at once */
    MPI_Isend(out, count, MPI_DOUBLE, right, 0, comm, &send);  /* out must not change yet */
    int arrived = 0;
    for (*polls = 0; !arrived; (*polls)++)                     /* work could go here */
        MPI_Test(&recv, &arrived, MPI_STATUS_IGNORE);
    MPI_Wait(&send, MPI_STATUS_IGNORE);                        /* now out may be reused */
    int ok = 1;
    for (int i = 0; i < count && ok; i++) ok = in[i] == left + i;
    return ok;
}
/* end of non-blocking */

static int cb_kernel(MPI_Comm comm, cb_ctx *ctx)
{
    if (cb_parse(ctx, "point_to_point", CB_OPTIONS)) return CB_BAD_OPTIONS;
    long long count;
    if (cb_opt_int(ctx, CB_OPTIONS, "count", 1, 1 << 24, &count)) return CB_BAD_OPTIONS;
    if (ctx->size < 2) {
        cb_printf(ctx, "# result: ERROR: point_to_point needs at least 2 ranks\n");
        return CB_BAD_OPTIONS;
    }
    cb_header(ctx, "point_to_point");
    double *a = cb_alloc((size_t)count * sizeof(double), 0);
    double *b = cb_alloc((size_t)count * sizeof(double), 0);
    if (!cb_all_allocated(ctx, a && b, "two buffers of %lld doubles", count)) return CB_BAD_OPTIONS;
    int got = 0;
    int ok = blocking(comm, ctx->rank, (int)count, a, &got);
    MPI_Bcast(&got, 1, MPI_INT, 1, comm);
    cb_printf(ctx, "# blocking: rank 1 received %d doubles from rank 0, tag 42\n", got);
    long long polls = 0, max_polls = 0;
    ok = ring_shift(comm, ctx->rank, ctx->size, (int)count, a, b, &polls) && ok;
    MPI_Reduce(&polls, &max_polls, 1, MPI_LONG_LONG, MPI_MAX, 0, comm);
    cb_printf(ctx, "# non-blocking: every rank received its left neighbour's %lld doubles; "
              "a rank called MPI_Test up to %lld times, the last call finding the message\n", count,
              max_polls);
    cb_printf(ctx, "# columns: rank_polls_max\n%lld\n", max_polls);
    free(a);
    free(b);
    return cb_verdict(ctx, cb_all_ok(ctx, ok), "a rank received something else than was sent");
}
