/*
 * butterfly_solution.c -- a reference solution of the butterfly allreduce exercise
 * (kernels_c/exercises/butterfly_skeleton.c): recursive doubling for any P.
 *
 * With p2 the largest power of two <= P, ranks p2 .. P-1 hand their vectors to ranks
 * 0 .. P-p2-1 first and get the result back last; ranks 0 .. p2-1 run the butterfly.
 * (The package's own version folds even ranks into odd ones instead; both are butterflies.)
 */
#include "butterfly_harness.h"

/* butterfly: any P */
static void my_allreduce(const double *sendbuf, double *recvbuf, int count, MPI_Comm comm)
{
    int rank, P;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &P);
    double *tmp = malloc((size_t)(count > 0 ? count : 1) * sizeof(double));
    for (int i = 0; i < count; i++) recvbuf[i] = sendbuf[i];
    int p2 = 1;
    while (p2 * 2 <= P) p2 *= 2;
    if (rank >= p2) {                       /* an extra rank: hand in, wait for the result */
        MPI_Send(recvbuf, count, MPI_DOUBLE, rank - p2, 0, comm);
        MPI_Recv(recvbuf, count, MPI_DOUBLE, rank - p2, 1, comm, MPI_STATUS_IGNORE);
    } else {
        if (rank + p2 < P) {                /* take in the extra rank's vector */
            MPI_Recv(tmp, count, MPI_DOUBLE, rank + p2, 0, comm, MPI_STATUS_IGNORE);
            for (int i = 0; i < count; i++) recvbuf[i] += tmp[i];
        }
        for (int mask = 1; mask < p2; mask <<= 1) {
            int partner = rank ^ mask;
            MPI_Sendrecv(recvbuf, count, MPI_DOUBLE, partner, 2, tmp, count, MPI_DOUBLE,
                         partner, 2, comm, MPI_STATUS_IGNORE);
            for (int i = 0; i < count; i++) recvbuf[i] += tmp[i];
        }
        if (rank + p2 < P)                  /* give the extra rank the result */
            MPI_Send(recvbuf, count, MPI_DOUBLE, rank + p2, 1, comm);
    }
    free(tmp);
}
/* end of butterfly */

static int cb_kernel(MPI_Comm comm, cb_ctx *ctx)
{
    (void)comm;
    return cc_allreduce_main(ctx, "butterfly_exercise", bx_counted_allreduce);
}
