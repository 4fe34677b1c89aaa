/*
 * ring_solution.c -- reference solution of ring_skeleton.c (hidden from the student edition).
 *
 * Even ranks send first, odd ranks receive first. Every even rank's send meets a receive
 * that is already posted (or about to be: its right neighbour is odd). With P odd the last
 * rank P-1 is even and so is its right neighbour 0: rank 0 sends to 1 first, then receives
 * from P-1, which is still sending: that pair waits one extra step but never forms a cycle,
 * because rank 1 (odd) receives first and breaks it. P = 1: the message goes to itself, which a
 * blocking send to oneself could deadlock on, so it is a copy.
 */
#include "exercise_harness.h"

static void ring_shift(const char *sendbuf, char *recvbuf, int n, int left, int right,
                       MPI_Comm comm)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (left == rank) {
        if (n) memcpy(recvbuf, sendbuf, (size_t)n);
        return;
    }
    if (rank % 2 == 0) {
        MPI_Send(sendbuf, n, MPI_CHAR, right, 0, comm);
        MPI_Recv(recvbuf, n, MPI_CHAR, left, 0, comm, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(recvbuf, n, MPI_CHAR, left, 0, comm, MPI_STATUS_IGNORE);
        MPI_Send(sendbuf, n, MPI_CHAR, right, 0, comm);
    }
}

static int cb_kernel(MPI_Comm comm, cb_ctx *ctx)
{
    (void)comm;
    return ex_ring_main(ctx, "ring_exercise", ring_shift);
}
