/*
 * eager_solution.c -- reference solution of eager_skeleton.c (hidden from the student
 * edition): a binary search over sizes, each size tested by an MPI_Isend that must complete
 * before the receiver has posted its receive.
 */
#define EX_ALLOW_NONBLOCKING 1
#include "exercise_harness.h"

static long long probe_eager_limit(int peer, long long max_bytes, MPI_Comm comm)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    char *buf = malloc((size_t)max_bytes + 1);
    long long lo = 0, hi = max_bytes + 1; /* lo is eager; hi is not (or beyond the range) */
    long long next = 0;
    for (;;) {
        long long n = rank == 0 ? (hi - lo > 1 ? (lo + hi) / 2 : -1) : 0;
        if (rank == 0) {
            if (n < 0) {
                MPI_Send(&n, 1, MPI_LONG_LONG, peer, 2, comm);
                break;
            }
            /* is the send complete within 100 ms, with no receive posted? */
            MPI_Request req;
            int done = 0;
            MPI_Isend(buf, (int)n, MPI_CHAR, peer, 1, comm, &req);
            double t0 = MPI_Wtime();
            while (!done && MPI_Wtime() - t0 < 0.1) MPI_Test(&req, &done, MPI_STATUS_IGNORE);
            MPI_Send(&n, 1, MPI_LONG_LONG, peer, 2, comm); /* "go": now receive it */
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            if (done) lo = n; else hi = n;
        } else {
            MPI_Recv(&next, 1, MPI_LONG_LONG, peer, 2, comm, MPI_STATUS_IGNORE);
            if (next < 0) break;
            MPI_Recv(buf, (int)next, MPI_CHAR, peer, 1, comm, MPI_STATUS_IGNORE);
        }
    }
    free(buf);
    return lo;
}

static int cb_kernel(MPI_Comm comm, cb_ctx *ctx)
{
    (void)comm;
    return ex_eager_main(ctx, "eager_exercise", probe_eager_limit);
}
